"""What each MCP tool shows of an api answer: a head and the lists to page through.

Views keep the CLI JSON's key names (path, line_start, symbol, confidence, via...) so that
an agent that knows one knows the other, and leave out what costs tokens without telling
the agent anything: contributions outside `explain`, a chain of one, empty optional lists.
"""

from __future__ import annotations

from typing import Any, Final

from maguyva_guard.api_records import (
    CallersAnswer,
    DefinitionAnswer,
    ImpactAnswer,
    SearchAnswer,
    SearchHit,
)
from maguyva_guard.index.freshness import IndexState
from maguyva_guard.records import Affected, ChangedSymbol, Contribution

View = tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]  # head, lists
SCORE_DIGITS: Final = 4
VALUE_DIGITS: Final = 6


def index(s: IndexState) -> dict[str, Any]:
    out: dict[str, Any] = {"view": s.view, "files": s.files, "up_to_date": s.up_to_date}
    if not s.up_to_date:
        out["note"] = s.note
    if s.unstaged_count:
        out["unstaged"] = list(s.unstaged)
        out["unstaged_count"] = s.unstaged_count
    if s.untracked_count:
        out["untracked"] = list(s.untracked)
        out["untracked_count"] = s.untracked_count
    return out


def search(a: SearchAnswer, explain: bool = False) -> View:
    head: dict[str, Any] = {
        "version": a.version, "question": a.query, "intent": a.intent,
        "confidence": a.confidence, "fusion_strategy": a.fusion_strategy, "preset": a.preset,
        "modalities_run": list(a.modalities_run),
    }
    if explain:
        head.update({"rule": a.rule, "terms": list(a.terms), "k": a.k})
    if a.modalities_failed:
        head["modalities_failed"] = dict(a.modalities_failed)
    if a.notes:
        head["notes"] = list(a.notes)
    head["index"] = index(a.index)
    return head, {"results": [_hit(h, explain) for h in a.results]}


def _hit(h: SearchHit, explain: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "path": h.path, "line_start": h.line_start, "line_end": h.line_end, "symbol": h.symbol,
        "kind": h.kind, "score": round(h.score, SCORE_DIGITS), "modalities": list(h.modalities),
    }
    if explain:
        out["score"] = round(h.score, VALUE_DIGITS)
        out["contributions"] = [_contribution(c) for c in h.contributions]
        out["centrality"] = round(h.centrality, 2)
        if h.demotion != 1.0:
            out.update(demotion=h.demotion, category=h.category)
        if h.also_found:
            out["also_found"] = [_contribution(c) for c in h.also_found]
    elif h.snippet:
        out["snippet"] = h.snippet
    return out


def _contribution(c: Contribution) -> dict[str, Any]:
    return {"modality": c.modality, "rank": c.rank, "weight": c.weight,
            "boost": round(c.boost, 3), "value": round(c.value, VALUE_DIGITS)}


def impact(a: ImpactAnswer) -> View:
    head: dict[str, Any] = {
        "version": a.version, "base": a.base, "head": a.head, "summary": a.summary,
        "complete": a.complete, "incomplete_reasons": list(a.incomplete_reasons),
        "risk": a.risk, "index": index(a.index),
    }
    several = len(a.changed_symbols) > 1 or bool(a.fallbacks)
    lists = {
        "changed_symbols": [_changed(c) for c in a.changed_symbols],
        "affected": [_caller(x, because=several) for x in a.affected],
        "possible": [_caller(x, because=several) for x in a.possible],
        "fallbacks": [{"path": f.path, "reason": f.reason, "queries": list(f.queries)}
                      for f in a.fallbacks],
    }
    return head, lists


def _changed(c: ChangedSymbol) -> dict[str, Any]:
    out: dict[str, Any] = {"qualified_name": c.qualified_name, "path": c.path,
                           "line_start": c.line_start, "line_end": c.line_end, "kind": c.kind,
                           "change": c.change, "risk": c.risk}
    if c.old_name:
        out["old_name"] = c.old_name
    if c.old_path:
        out["old_path"] = c.old_path
    return out


def _caller(a: Affected, because: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"path": a.path, "line": a.line, "symbol": a.symbol,
                           "depth": a.depth, "confidence": a.confidence}
    if len(a.via) > 1:
        out["via"] = list(a.via)
    if because:
        out["because_of"] = list(a.because_of)
    return out


def callers(a: CallersAnswer) -> View:
    s = a.symbol
    head: dict[str, Any] = {
        "version": a.version,
        "symbol": {"qualified_name": s.qualified_name, "path": s.path,
                   "line_start": s.line_start, "kind": s.kind},
        "depth": a.depth, "complete": a.complete,
        "incomplete_reasons": list(a.incomplete_reasons), "index": index(a.index),
    }
    return head, {"callers": [_caller(x) for x in a.callers],
                  "possible": [_caller(x) for x in a.possible]}


def definition(a: DefinitionAnswer) -> View:
    head: dict[str, Any] = {"version": a.version, "name": a.name, "index": index(a.index)}
    found = [{"qualified_name": d.qualified_name, "path": d.path, "line_start": d.line_start,
              "line_end": d.line_end, "kind": d.kind, "signature": d.signature, "doc": d.doc}
             for d in a.definitions]
    return head, {"definitions": found}
