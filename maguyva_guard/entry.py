"""The `maguyva-guard` command: a no-change `index` answered before the CLI is imported.

`maguyva-guard index` on an index that already holds the staged view is the most frequent
index command there is (scripts, editors and CI steps run it "to be sure"). Importing
click and the engine costs more than the whole answer, so `index` with at most `--repo`
tries index/quick.py first (standard library only); anything else, and anything the stamp
cannot vouch for, goes to the CLI as before.
"""

from __future__ import annotations

import sys
import time

PROG_NAME = "maguyva-guard"


def main() -> None:
    started = time.perf_counter()
    repo = _plain_index(sys.argv[1:])
    if repo is not None:
        from maguyva_guard.index import quick

        counts = quick.answer(repo)
        if counts is not None:
            quick.print_line(quick.summary(counts, 0, time.perf_counter() - started))
            return
    from maguyva_guard import startcache

    startcache.install()  # before the imports: they compile most of the patterns and methods
    from maguyva_guard.cli import main as cli

    cli(prog_name=PROG_NAME)


def _plain_index(args: list[str]) -> str | None:
    """The repository of `index [--repo R]` (no other option), else None."""
    if not args or args[0] != "index":
        return None
    rest = args[1:]
    if not rest:
        return "."
    if len(rest) == 1 and rest[0].startswith("--repo=") and len(rest[0]) > len("--repo="):
        return rest[0].removeprefix("--repo=")
    if len(rest) == 2 and rest[0] == "--repo" and rest[1] and not rest[1].startswith("-"):
        return rest[1]
    return None
