"""The records maguyva_guard.api answers with: frozen, typed, versioned with the JSON contract.

The guard's own records (records.ChangedSymbol, Affected, Fallback, Definition,
Contribution) are reused as they are: they are what `check --format json` already
publishes. `to_json()` gives the CLI's JSON for the same question, byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from maguyva_guard.guard.model import ImpactReport, Stats, ranked
from maguyva_guard.index.freshness import IndexState
from maguyva_guard.records import Affected, ChangedSymbol, Contribution, Definition, Fallback
from maguyva_guard.report import as_json
from maguyva_guard.search.engine import SearchResponse
from maguyva_guard.search.fusion import FusedResult

if TYPE_CHECKING:  # the tests' selection, imported when asked: a check without it is faster
    from maguyva_guard.guard.testpicker import TestSelection

API_VERSION: Final = as_json.VERSION  # the JSON contract's "version": extended, never broken


@dataclass(frozen=True)
class SearchHit:
    """One ranked result of a search (`query --json`'s result, plus a snippet)."""

    path: str
    line_start: int
    line_end: int
    symbol: str
    kind: str
    score: float
    modalities: tuple[str, ...]  # every modality that found it, strongest first
    contributions: tuple[Contribution, ...]  # the fused score's terms, largest first
    centrality: float = 0.0
    category: str = ""
    demotion: float = 1.0
    depth: int = 0
    also_found: tuple[Contribution, ...] = ()  # the same file's other results, folded in
    snippet: str = ""  # the first lines, when asked for

    @classmethod
    def of(cls, r: FusedResult, snippet: str = "") -> SearchHit:
        return cls(path=r.path, line_start=r.line_start, line_end=r.line_end, symbol=r.symbol,
                   kind=r.kind, score=r.score, modalities=r.modalities,
                   contributions=r.contributions, centrality=r.centrality, category=r.category,
                   demotion=r.demotion, depth=r.depth, also_found=r.also_found, snippet=snippet)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path, "line_start": self.line_start, "line_end": self.line_end,
            "symbol": self.symbol, "score": self.score, "modalities": list(self.modalities),
            "kind": self.kind, "centrality": self.centrality, "category": self.category,
            "demotion": self.demotion, "depth": self.depth,
            "contributions": [_contribution(c) for c in self.contributions],
            "also_found": [_contribution(c) for c in self.also_found],
        }


@dataclass(frozen=True)
class SearchAnswer:
    """A search's answer: the classified intent, the plan it ran, the ranked results."""

    query: str
    intent: str
    confidence: float
    fusion_strategy: str  # "direct" (one modality) or "rrf" (fused)
    preset: str
    modalities_run: tuple[str, ...]
    modalities_failed: dict[str, str]  # modality -> reason: the answer may be incomplete
    rule: str  # the classifier's rule that matched
    terms: tuple[str, ...]
    k: int
    notes: tuple[str, ...]
    results: tuple[SearchHit, ...]
    index: IndexState
    seconds: float = 0.0
    version: int = API_VERSION
    recognised: dict[str, Any] | None = None  # a pasted error: what was read out of it

    @classmethod
    def of(cls, r: SearchResponse, hits: tuple[SearchHit, ...], index: IndexState,
           ) -> SearchAnswer:
        return cls(query=r.query, intent=r.intent, confidence=r.confidence,
                   fusion_strategy=r.fusion_strategy, preset=r.preset,
                   modalities_run=r.modalities_run, modalities_failed=dict(r.modalities_failed),
                   rule=r.rule, terms=r.terms, k=r.k, notes=r.notes, results=hits, index=index,
                   seconds=r.seconds, recognised=r.recognised)

    def to_json(self) -> dict[str, Any]:
        """`maguyva-guard query --json`'s object."""
        return {
            "query": self.query, "intent": self.intent, "confidence": self.confidence,
            "fusion_strategy": self.fusion_strategy, "preset": self.preset,
            "modalities_run": list(self.modalities_run),
            "modalities_failed": dict(self.modalities_failed), "rule": self.rule,
            "terms": list(self.terms), "k": self.k, "notes": list(self.notes),
            "recognised": self.recognised,
            "results": [h.to_json() for h in self.results],
        }


@dataclass(frozen=True)
class ImpactAnswer:
    """What a change (a diff, or an edit inside one symbol) can break: `check`'s report."""

    base: str | None  # the old side's commit; None: the empty tree or (symbol) none
    head: str  # the new side's commit, or "STAGED"
    changed_symbols: tuple[ChangedSymbol, ...]
    affected: tuple[Affected, ...]  # resolved callers, best first
    possible: tuple[Affected, ...]  # name-only matches, listed apart
    fallbacks: tuple[Fallback, ...]  # changes no symbol holds, searched for by text
    complete: bool  # False: `affected` is a lower bound, for `incomplete_reasons`
    incomplete_reasons: tuple[str, ...]
    summary: str
    risk: str  # the highest risk of any changed symbol
    stats: Stats
    index: IndexState
    report: ImpactReport = field(repr=False, compare=False)  # for the report renderers
    version: int = API_VERSION

    @classmethod
    def of(cls, report: ImpactReport, index: IndexState) -> ImpactAnswer:
        return cls(base=report.base, head=report.head, changed_symbols=report.changed_symbols,
                   affected=tuple(ranked(report.affected)),
                   possible=tuple(ranked(report.possible)), fallbacks=report.fallbacks,
                   complete=report.complete, incomplete_reasons=report.incomplete_reasons,
                   summary=report.summary, risk=report.risk, stats=report.stats, index=index,
                   report=report)

    def to_json(self) -> as_json.CheckJSON:
        """`maguyva-guard check --format json`'s object."""
        return as_json.to_json(self.report)


@dataclass(frozen=True)
class CallersAnswer:
    """Who calls one symbol, to `depth`: `callers` resolved, `possible` by name only."""

    symbol: ChangedSymbol  # the definition asked about (change "modified", risk assessed)
    depth: int
    callers: tuple[Affected, ...]
    possible: tuple[Affected, ...]
    complete: bool
    incomplete_reasons: tuple[str, ...]
    index: IndexState
    version: int = API_VERSION


@dataclass(frozen=True)
class TestsAnswer:
    """The tests a change can break (`maguyva-guard tests`): each with the chain that
    selects it, or `run_all` with the reasons when the change cannot be followed."""

    selection: TestSelection
    index: IndexState
    version: int = API_VERSION

    def to_json(self) -> dict[str, object]:
        """`maguyva-guard tests --format json`'s object."""
        from maguyva_guard.report.tests_json import selection_json

        return {"version": self.version, **selection_json(self.selection)}


@dataclass(frozen=True)
class DefinitionAnswer:
    name: str
    definitions: tuple[Definition, ...]  # by qualified name
    index: IndexState
    version: int = API_VERSION


def _contribution(c: Contribution) -> dict[str, Any]:
    return {"modality": c.modality, "rank": c.rank, "weight": c.weight,
            "boost": c.boost, "value": c.value}
