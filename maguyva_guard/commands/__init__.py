"""The commands' cores, without click: what `check`, `query` and friends do, each a
function the CLI calls and maps to an exit code.

May import: every stage; only cli.py (and __main__) may import commands.
"""

from typing import Final

# The MCP server's page size (commands/paging.py), here so that the command line can show
# it without importing the pager on every command (the pre-commit hook's start-up).
DEFAULT_MAX_TOKENS: Final = 2000
MIN_MAX_TOKENS: Final = 200  # below this, not even a head and one caller fit
