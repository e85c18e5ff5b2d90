"""`check --format json`: docs/json.md's object, built with json.dumps, never a template.

The TypedDicts mirror the contract key for key. Keys marked "ours" extend it (docs/json.md:
"extend it freely; do not break it"): risk, old_name/old_path, confidence, via,
contributions, complete, incomplete_reasons, summary. tests/schema/check.schema.json pins
both the contract and our extensions.
"""

from __future__ import annotations

from typing import Final, NotRequired, TypedDict

from maguyva_guard.guard.model import ImpactReport, ranked
from maguyva_guard.records import (
    Affected,
    ChangedFile,
    ChangedSymbol,
    Contribution,
    DocMention,
    Fallback,
    Link,
    Mention,
)
from maguyva_guard.report import indented

VERSION: Final = 1  # docs/json.md "version": bump only for a breaking change, which we avoid

# Fused scores are sums of weight/(k + rank + 1) terms, about 1e-3 to 3e-2: six decimals keep
# every rank apart. Centrality (about 0 to 100) and the boost need fewer.
SCORE_DIGITS: Final = 6
CENTRALITY_DIGITS: Final = 4
SECONDS_DIGITS: Final = 3
REFERENCE: Final = "reference"  # links[].reason of an entry whose line names the changed symbol


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


class LinkJSON(TypedDict):
    changed_symbol: str
    depth: int
    confidence: str
    via: list[str]
    reason: str  # "reference" (a line names the symbol) or "conforms" (docs/json.md)


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
    links: list[LinkJSON]  # ours: depth and confidence per changed symbol in because_of


class FallbackJSON(TypedDict):
    path: str
    reason: str
    queries: list[str]


# "class" is a Python keyword: the functional form names it.
FileJSON = TypedDict("FileJSON", {
    "path": str, "class": str, "treatment": str, "reason": str,
    "changed_symbols": int,  # ours
    "lower_bound": bool,  # ours: code may hide in it that was not analysed
})


class MentionJSON(TypedDict):
    path: str
    line: int
    symbol: str
    because_of: str
    term: str


class DocJSON(TypedDict):
    path: str
    line: int
    symbol: str
    term: str


class StatsJSON(TypedDict):
    files_indexed: int
    index_seconds: float
    query_seconds: float
    edges_resolved: int  # ours: references resolved by this check
    edges_reused: int  # ours: references answered from the index's edge cache


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
    files: list[FileJSON]  # every changed path: class, treatment, reason
    mentions: list[MentionJSON]  # fallback hits: never callers, never counted
    mentions_omitted: dict[str, int]  # ours: per change, mentions past the cap
    docs_to_review: list[DocJSON]  # documentation naming a changed or removed symbol
    docs_omitted: dict[str, int]  # ours: per changed symbol, docs past the cap


def render_json(report: ImpactReport) -> str:
    out: dict[str, object] = dict(to_json(report))
    if report.tests is not None:
        from maguyva_guard.report.tests_json import selection_json

        out["tests"] = selection_json(report.tests)  # ours: `maguyva-guard tests`'s lists
    return indented.dumps(out, indent=2) + "\n"  # json.dumps's text, faster


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
            "edges_resolved": s.edges_resolved,
            "edges_reused": s.edges_reused,
        },
        "possible": [_affected(a) for a in ranked(report.possible)],
        "complete": report.complete,
        "incomplete_reasons": list(report.incomplete_reasons),
        "summary": report.summary,
        "risk": report.risk,
        "files": [_file(f) for f in report.files],
        "mentions": [_mention(m) for m in report.mentions],
        "mentions_omitted": dict(report.mentions_hidden),
        "docs_to_review": [_doc(d) for d in report.docs_to_review],
        "docs_omitted": dict(report.docs_hidden),
    }


def _file(f: ChangedFile) -> FileJSON:
    return {"path": f.path, "class": f.kind, "treatment": f.treatment, "reason": f.reason,
            "changed_symbols": f.changed_symbols, "lower_bound": f.lower_bound}


def _mention(m: Mention) -> MentionJSON:
    return {"path": m.path, "line": m.line, "symbol": m.symbol, "because_of": m.because_of,
            "term": m.term}


def _doc(d: DocMention) -> DocJSON:
    return {"path": d.path, "line": d.line, "symbol": d.symbol, "term": d.term}


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
        "links": [_link(k) for k in a.links],
    }


def _link(k: Link) -> LinkJSON:
    return {"changed_symbol": k.changed, "depth": k.depth, "confidence": k.confidence,
            "via": list(k.via), "reason": k.reason or REFERENCE}


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
