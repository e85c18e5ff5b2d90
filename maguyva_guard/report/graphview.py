"""The blast radius as a small graph: the one model the Mermaid block, the HTML report's SVG
and the terminal tree are drawn from.

Changed symbols are the roots; each affected caller hangs under the callee its chain ends
at (`via[-1]`), or under the changed symbols it is due to when it calls them directly. The
picture is bounded: changed symbols first, then callers in rank order, each taking the
chain above it along, until `limit` nodes are drawn; the rest are counted in `more`.
Names are kept as they are: every renderer escapes them for its own syntax.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from maguyva_guard.guard.model import ranked
from maguyva_guard.guard.risk import HUB_CENTRALITY, cause_names
from maguyva_guard.records import Affected, ChangedSymbol
from maguyva_guard.report.groups import groups
from maguyva_guard.report.labels import change_label

if TYPE_CHECKING:
    from maguyva_guard.guard.model import ImpactReport

# Nodes drawn at most: past two dozen a flowchart stops being read and starts being scrolled.
MAX_NODES: Final = 25

CHANGED: Final = "changed"  # a changed symbol
CALLER: Final = "caller"  # an affected caller
CAUSE: Final = "cause"  # what a fallback search started from (not a symbol)


@dataclass(frozen=True)
class Node:
    id: str  # generated ("n0", "n1"...), never derived from a name
    name: str
    role: str  # CHANGED, CALLER or CAUSE
    path: str
    line: int
    depth: int  # 0 for changed symbols and causes
    hub: bool
    detail: str  # for a changed symbol its change and risk; for a caller its confidence
    risk: str = ""


@dataclass(frozen=True)
class Edge:
    source: str  # node ids
    target: str
    confidence: str  # exact, probable or ambiguous (the weakest edge of the caller's chain)


@dataclass(frozen=True)
class BlastGraph:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    more: int  # affected callers left out of the picture

    @property
    def empty(self) -> bool:
        return not self.edges and not any(n.role == CALLER for n in self.nodes)


def build(report: ImpactReport, limit: int = MAX_NODES) -> BlastGraph:
    """The bounded picture of `report` (see the module docstring)."""
    builder = _Builder(limit)
    for group in groups(report, 0):
        if group.changed is not None:
            builder.add_changed(group.changed)
    callers = ranked(report.affected)
    by_name: dict[str, Affected] = {}
    for a in callers:
        by_name.setdefault(a.symbol, a)
    for a in callers:
        builder.add_caller(a, by_name)
    drawn = sum(1 for n in builder.nodes if n.role == CALLER)
    return BlastGraph(tuple(builder.nodes), tuple(builder.edges),
                      more=max(0, len({(a.path, a.symbol) for a in callers}) - drawn))


class _Builder:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.nodes: list[Node] = []
        self.edges: list[Edge] = []
        self.ids: dict[str, str] = {}  # a name (or cause) -> its node id
        self.placed: set[tuple[str, str]] = set()  # (path, symbol) of drawn callers
        self.failed: set[str] = set()

    def _node(self, name: str, **fields: object) -> str:
        node_id = f"n{len(self.nodes)}"
        self.nodes.append(Node(id=node_id, name=name, **fields))  # type: ignore[arg-type]
        self.ids.setdefault(name, node_id)
        return node_id

    def add_changed(self, changed: ChangedSymbol) -> None:
        if changed.qualified_name in self.ids or len(self.nodes) >= self.limit:
            return
        node_id = self._node(changed.qualified_name, role=CHANGED, path=changed.path,
                             line=changed.line_start, depth=0, hub=False,
                             detail=change_label(changed), risk=changed.risk)
        for name in cause_names(changed):
            self.ids.setdefault(name, node_id)

    def add_caller(self, a: Affected, by_name: dict[str, Affected], seen: int = 0) -> bool:
        """Draw `a` and the chain above it, if they all fit; True when `a` is drawn."""
        if (a.path, a.symbol) in self.placed:
            return True
        if a.symbol in self.failed or seen > len(by_name):
            return False
        parents = self._parents(a, by_name, seen)
        if parents is None or len(self.nodes) >= self.limit:
            self.failed.add(a.symbol)
            return False
        node_id = self._node(a.symbol, role=CALLER, path=a.path, line=a.line, depth=a.depth,
                             hub=a.centrality >= HUB_CENTRALITY, detail=a.confidence)
        self.placed.add((a.path, a.symbol))
        for parent in parents:
            self.edges.append(Edge(parent, node_id, a.confidence))
        return True

    def _parents(self, a: Affected, by_name: dict[str, Affected], seen: int) -> list[str] | None:
        """The node ids `a` hangs under, drawing a missing callee first; None if none fits."""
        callee = a.via[-1] if len(a.via) > 1 else ""
        if callee and callee not in self.ids:
            above = by_name.get(callee)
            if above is None or above is a or not self.add_caller(above, by_name, seen + 1):
                callee = ""  # draw it under its changed symbols, the chain said in the tables
        if callee:
            return [self.ids[callee]]
        out = []
        for cause in a.because_of:
            if cause not in self.ids and len(self.nodes) < self.limit - 1:
                self._node(cause, role=CAUSE, path="", line=0, depth=0, hub=False,
                           detail="fallback search")
            if cause in self.ids and self.ids[cause] not in out:
                out.append(self.ids[cause])
        return out or None


def shorten(name: str, limit: int, sep: str = ".", ellipsis: str = "\u2026") -> str:
    """`name` in at most `limit` characters: its last segments (what tells symbols, or
    files, apart), after an ellipsis; a last segment too long on its own keeps its end."""
    if len(name) <= limit:
        return name
    kept = ""
    for segment in reversed(name.split(sep)):
        joined = f"{segment}{sep}{kept}" if kept else segment
        if len(joined) > limit - len(ellipsis):
            break
        kept = joined
    return ellipsis + (kept or name[-(limit - len(ellipsis)):])


def children(graph: BlastGraph) -> dict[str, list[str]]:
    """Node id -> the ids of the nodes it points at, in drawing order."""
    out: dict[str, list[str]] = {n.id: [] for n in graph.nodes}
    for e in graph.edges:
        out[e.source].append(e.target)
    return out


def roots(graph: BlastGraph) -> Sequence[Node]:
    return [n for n in graph.nodes if n.role != CALLER]
