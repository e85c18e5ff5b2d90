"""`check --format json`: docs/json.md's object, built with json.dumps, never a template.

The TypedDicts mirror the contract key for key. Keys marked "ours" extend it (docs/json.md:
"extend it freely; do not break it"): risk, old_name/old_path, confidence, via,
contributions, complete, incomplete_reasons, summary. tests/schema/check.schema.json pins
both the contract and our extensions.
"""

from __future__ import annotations

import json
from typing import Final, NotRequired, TypedDict

from maguyva_guard.guard.model import ImpactReport, ranked
from maguyva_guard.records import Affected, ChangedSymbol, Contribution, Fallback

VERSION: Final = 1  # docs/json.md "version": bump only for a breaking change, which we avoid

# Fused scores are sums of weight/(k + rank + 1) terms, about 1e-3 to 3e-2: six decimals keep
# every rank apart. Centrality (about 0 to 100) and the boost need fewer.
SCORE_DIGITS: Final = 6
CENTRALITY_DIGITS: Final = 4
SECONDS_DIGITS: Final = 3


class ChangedSymbolJSON(TypedDict):
    path: str
    name: str
    qualified_name: str
    kind: str
    change: str
    line_start: int
    line_end: int
    risk: str  # ours
    old_name: NotRequired[str]  # ours, when renamed
    old_path: NotRequired[str]  # ours, when the file moved or the symbol was removed


class ContributionJSON(TypedDict):
    modality: str
    rank: int
    weight: float
    boost: float
    value: float


class AffectedJSON(TypedDict):
    path: str
    symbol: str
    line: int
    kind: str
    score: float
    centrality: float
    depth: int
    because_of: list[str]
    modalities: list[str]
    fusion_strategy: str
    confidence: str  # ours
    via: list[str]  # ours
    contributions: list[ContributionJSON]  # ours


class FallbackJSON(TypedDict):
    path: str
    reason: str
    queries: list[str]


class StatsJSON(TypedDict):
    files_indexed: int
    index_seconds: float
    query_seconds: float


class CheckJSON(TypedDict):
    version: int
    repo: str
    base: str | None
    head: str
    changed_symbols: list[ChangedSymbolJSON]
    affected: list[AffectedJSON]
    fallbacks: list[FallbackJSON]
    stats: StatsJSON
    possible: list[AffectedJSON]
    complete: bool  # ours
    incomplete_reasons: list[str]  # ours
    summary: str  # ours
    risk: str  # ours: the highest risk of any changed symbol


def render_json(report: ImpactReport) -> str:
    out: dict[str, object] = dict(to_json(report))
    if report.tests is not None:
        from maguyva_guard.report.tests_json import selection_json

        out["tests"] = selection_json(report.tests)  # ours: `maguyva-guard tests`'s lists
    return json.dumps(out, indent=2) + "\n"


def to_json(report: ImpactReport) -> CheckJSON:
    s = report.stats
    return {
        "version": VERSION,
        "repo": report.repo,
        "base": report.base,
        "head": report.head,
        "changed_symbols": [_changed(c) for c in report.changed_symbols],
        "affected": [_affected(a) for a in ranked(report.affected)],
        "fallbacks": [_fallback(f) for f in report.fallbacks],
        "stats": {
            "files_indexed": s.files_indexed,
            "index_seconds": round(s.index_seconds, SECONDS_DIGITS),
            "query_seconds": round(s.query_seconds, SECONDS_DIGITS),
        },
        "possible": [_affected(a) for a in ranked(report.possible)],
        "complete": report.complete,
        "incomplete_reasons": list(report.incomplete_reasons),
        "summary": report.summary,
        "risk": report.risk,
    }


def _changed(c: ChangedSymbol) -> ChangedSymbolJSON:
    out: ChangedSymbolJSON = {
        "path": c.path,
        "name": c.name,
        "qualified_name": c.qualified_name,
        "kind": c.kind,
        "change": c.change,
        "line_start": c.line_start,
        "line_end": c.line_end,
        "risk": c.risk,
    }
    if c.old_name:
        out["old_name"] = c.old_name
    if c.old_path:
        out["old_path"] = c.old_path
    return out


def _affected(a: Affected) -> AffectedJSON:
    return {
        "path": a.path,
        "symbol": a.symbol,
        "line": a.line,
        "kind": a.kind,
        "score": round(a.score, SCORE_DIGITS),
        "centrality": round(a.centrality, CENTRALITY_DIGITS),
        "depth": a.depth,
        "because_of": list(a.because_of),
        "modalities": list(a.modalities),
        "fusion_strategy": a.fusion_strategy,
        "confidence": a.confidence,
        "via": list(a.via),
        "contributions": [_contribution(c) for c in a.contributions],
    }


def _contribution(c: Contribution) -> ContributionJSON:
    return {
        "modality": c.modality,
        "rank": c.rank,
        "weight": c.weight,
        "boost": round(c.boost, CENTRALITY_DIGITS),
        "value": round(c.value, SCORE_DIGITS),
    }


def _fallback(f: Fallback) -> FallbackJSON:
    return {"path": f.path, "reason": f.reason, "queries": list(f.queries)}
