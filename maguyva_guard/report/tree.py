"""The terminal report's compact tree: a changed symbol, then its callers indented under the
callee their chain ends at, so the chain reads top-down.

    pkg.config.parse_config  signature changed  risk high  pkg/config.py:10
      |-- pkg/cli.py:88 pkg.cli.main [depth 1, exact, found by: graph+text]
      |   `-- pkg/app.py:12 pkg.app.run [depth 2, exact, found by: graph]
      `-- pkg/server.py:40 pkg.server.Server.load [depth 1, ambiguous, found by: graph]

ASCII on purpose: the terminal's encoding may not hold box-drawing characters. A caller whose
callee is not listed (cut by --max-callers) hangs at the top with its chain spelled out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from maguyva_guard.records import Affected
from maguyva_guard.report.labels import between

if TYPE_CHECKING:
    from maguyva_guard.report.groups import SymbolGroup

BRANCH = "|-- "
LAST = "`-- "
PIPE = "|   "
SPACE = "    "


class Row(NamedTuple):
    prefix: str  # tree drawing only: no name in it
    caller: Affected
    chain: tuple[str, ...]  # the chain to show when the callee is not the row above


def rows(group: SymbolGroup) -> list[Row]:
    """The group's shown callers as tree rows, in rank order within each level."""
    shown = list(group.shown)
    names = {a.symbol for a in shown}
    kids: dict[str, list[Affected]] = {}
    tops: list[Affected] = []
    for a in shown:
        callee = a.via[-1] if len(a.via) > 1 else ""
        if callee and callee in names and callee != a.symbol:
            kids.setdefault(callee, []).append(a)
        else:
            tops.append(a)
    out: list[Row] = []
    seen: set[int] = set()

    def walk(level: list[Affected], indent: str, top: bool) -> None:
        for i, a in enumerate(level):
            if id(a) in seen:  # a cycle in the chains: each caller once
                continue
            seen.add(id(a))
            last = i == len(level) - 1
            chain = between(a, group.label) if top else ()
            out.append(Row(indent + (LAST if last else BRANCH), a, chain))
            walk(kids.pop(a.symbol, []), indent + (SPACE if last else PIPE), False)

    walk(tops, "", True)
    return out
