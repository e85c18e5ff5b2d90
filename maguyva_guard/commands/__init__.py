"""The commands' cores, without click: what `check`, `query` and friends do, each a
function the CLI calls and maps to an exit code.

May import: every stage; only cli.py (and __main__) may import commands.
"""
