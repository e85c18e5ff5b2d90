"""The callers of many trails of one test selection, each caller expanded once.

testtrails asks the graph for the callers of every trail the report stops at, and those
trails converge: every click test reaches `Command.main` through `CliRunner.invoke`, so
each trail walked the same few hundred callers again (37 walks, 1.3 s of CPU for one
changed function in click). This walk is `GraphRetriever.callers` with one memory for the
whole selection: a caller already expanded with as many levels left (so at no greater
depth from the change) is not expanded again, as what lies beyond it was found then.
What it finds is the same set of callers, each at its smallest depth; a caller's chain
may run through the trail that found it first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from maguyva_guard.records import (
    AMBIGUOUS,
    CONFIDENCE_RANK,
    EXACT,
    IMPORT,
    MODULE_SYMBOL,
    PROBABLE,
    USE,
)
from maguyva_guard.retrievers.graph import Edge

if TYPE_CHECKING:
    from maguyva_guard.records import Definition
    from maguyva_guard.retrievers.graph import GraphRetriever


class SharedWalk:
    def __init__(self, graph: GraphRetriever) -> None:
        self.graph = graph
        # (path, qualified name, changed symbols, first level) -> levels left when expanded
        self._expanded: dict[tuple[str, str, tuple[str, ...], bool], int] = {}

    def callers(self, target: Definition, depth: int,
                because_of: tuple[str, ...]) -> list[Edge]:
        """Who refers to `target`, transitively to `depth`, as GraphRetriever.callers,
        less what an earlier walk of this selection (for the same changed symbols)
        expanded with as many levels left."""
        edges: list[Edge] = []
        frontier: list[tuple[Definition, tuple[str, ...], str]] = [
            (target, (target.qualified_name,), EXACT)]
        for level in range(1, depth + 1):
            nxt: list[tuple[Definition, tuple[str, ...], str]] = []
            for t, via, weakest in frontier:
                key = (t.path, t.qualified_name, because_of, level == 1)
                left = depth - level + 1
                if self._expanded.get(key, 0) >= left:
                    continue
                self._expanded[key] = left
                nxt += self._expand(t, via, weakest, level, edges)
            frontier = nxt
        return edges

    def _expand(self, t: Definition, via: tuple[str, ...], weakest: str, level: int,
                edges: list[Edge]) -> list[tuple[Definition, tuple[str, ...], str]]:
        """One target's direct callers into `edges`; the callers to expand next."""
        graph = self.graph
        nxt = []
        for ref, confidence in graph.direct(t, attributes=level == 1):
            conf = max(confidence, weakest, key=CONFIDENCE_RANK.__getitem__)
            edges.append(Edge(ref, t, conf, level, via))
            caller = graph.definition_of(ref)
            if ref.kind == USE and conf != AMBIGUOUS:
                # Passed or assigned as a value: the call through it breaks too.
                link = caller.qualified_name if caller is not None else MODULE_SYMBOL
                edges.extend(Edge(hop, t, PROBABLE, level, (*via, link))
                             for hop in graph.invoked(ref, caller is not None))
            # Follow resolved edges only: a name-only guess does not fan out further.
            if caller is not None and ref.kind != IMPORT and conf != AMBIGUOUS:
                nxt.append((caller, (*via, caller.qualified_name), conf))
        return nxt
