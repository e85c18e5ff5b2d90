"""What each MCP tool shows of an api answer: a head and the lists to page through.

Lists are tables: the head's `columns` names each list's columns once, and each item is a
row (an array), since repeating the keys on every caller cost about a third of an answer.
Column names are the CLI JSON's (path, line, symbol, depth, confidence...), so an agent
that knows one knows the other. Left out, as tokens that tell the agent nothing:
contributions outside `explain`, and the first link of a chain (always the symbol asked
about): `through` lists the symbols between it and the caller. A row may stop before its
last columns when they are empty.
"""

from __future__ import annotations

from typing import Any, Final

from maguyva_guard.api.records import (
    CallersAnswer,
    DefinitionAnswer,
    ImpactAnswer,
    SearchAnswer,
    SearchHit,
    TestsAnswer,
)
from maguyva_guard.guard.model import STAGED
from maguyva_guard.index.freshness import IndexState
from maguyva_guard.records import Affected, ChangedSymbol, Contribution

View = tuple[dict[str, Any], dict[str, list[Any]]]  # head, lists (rows or objects)
CALLER_COLUMNS: Final = ("path", "line", "symbol", "depth", "confidence", "through")
CAUSE_COLUMNS: Final = (*CALLER_COLUMNS, "because_of")  # when several symbols changed
HIT_COLUMNS: Final = ("path", "line_start", "line_end", "symbol", "kind", "score",
                      "modalities", "snippet")
DEFINITION_COLUMNS: Final = ("qualified_name", "path", "line_start", "line_end", "kind",
                             "signature", "doc")
CHANGED_COLUMNS: Final = ("qualified_name", "path", "line_start", "line_end", "kind", "change",
                          "risk", "old_name", "old_path")
TEXT_CHARS: Final = 240  # a signature or doc longer than this is cut: one row stays small
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
    if explain:
        return head, {"results": [_explained(h) for h in a.results]}
    head["columns"] = {"results": list(HIT_COLUMNS)}
    return head, {"results": [_row(h.path, h.line_start, h.line_end, h.symbol, h.kind,
                                   round(h.score, SCORE_DIGITS), list(h.modalities), h.snippet)
                              for h in a.results]}


def _explained(h: SearchHit) -> dict[str, Any]:
    """A result with the arithmetic of its score: objects, not rows, for the nesting."""
    out: dict[str, Any] = {
        "path": h.path, "line_start": h.line_start, "line_end": h.line_end, "symbol": h.symbol,
        "kind": h.kind, "score": round(h.score, VALUE_DIGITS), "modalities": list(h.modalities),
        "contributions": [_contribution(c) for c in h.contributions],
        "centrality": round(h.centrality, 2),
    }
    if h.demotion != 1.0:
        out.update(demotion=h.demotion, category=h.category)
    if h.also_found:
        out["also_found"] = [_contribution(c) for c in h.also_found]
    return out


def _row(*values: Any) -> list[Any]:
    """The values, without the empty ones at the end (their columns say what they were)."""
    row = list(values)
    while row and row[-1] in ("", [], None):
        row.pop()
    return row


def _contribution(c: Contribution) -> dict[str, Any]:
    return {"modality": c.modality, "rank": c.rank, "weight": c.weight,
            "boost": round(c.boost, 3), "value": round(c.value, VALUE_DIGITS)}


def impact(a: ImpactAnswer) -> View:
    head: dict[str, Any] = {
        "version": a.version, "base": a.base, "head": a.head, "summary": a.summary,
        "complete": a.complete, "incomplete_reasons": list(a.incomplete_reasons),
        "risk": a.risk, "index": index(a.index),
    }
    if a.head == STAGED and a.index.unstaged_count:
        # An agent edits files and asks what its change breaks: unstaged, it is not the
        # change this answer is about. Say so next to the verdict, not only in `index`.
        head["note"] = (f"{a.index.unstaged_count} file(s) with unstaged edits are not part "
                        "of the staged changes: `git add` them, or ask about a symbol")
    several = len(a.changed_symbols) > 1 or bool(a.fallbacks)
    columns = list(CAUSE_COLUMNS if several else CALLER_COLUMNS)
    head["columns"] = {"changed_symbols": list(CHANGED_COLUMNS), "affected": columns,
                       "possible": columns}
    lists: dict[str, list[Any]] = {
        "changed_symbols": [_changed(c) for c in a.changed_symbols],
        "affected": [_caller(x, because=several) for x in a.affected],
        "possible": [_caller(x, because=several) for x in a.possible],
        "fallbacks": [{"path": f.path, "reason": f.reason, "queries": list(f.queries)}
                      for f in a.fallbacks],
    }
    return head, lists


def _changed(c: ChangedSymbol) -> list[Any]:
    return _row(c.qualified_name, c.path, c.line_start, c.line_end, c.kind, c.change, c.risk,
                c.old_name, c.old_path)


def _caller(a: Affected, because: bool = False) -> list[Any]:
    through = list(a.via[1:])
    if because:
        return [a.path, a.line, a.symbol, a.depth, a.confidence, through, list(a.because_of)]
    return _row(a.path, a.line, a.symbol, a.depth, a.confidence, through)


def callers(a: CallersAnswer) -> View:
    s = a.symbol
    head: dict[str, Any] = {
        "version": a.version,
        "symbol": {"qualified_name": s.qualified_name, "path": s.path,
                   "line_start": s.line_start, "kind": s.kind},
        "depth": a.depth, "complete": a.complete,
        "incomplete_reasons": list(a.incomplete_reasons), "index": index(a.index),
        "columns": {"callers": list(CALLER_COLUMNS), "possible": list(CALLER_COLUMNS)},
    }
    return head, {"callers": [_caller(x) for x in a.callers],
                  "possible": [_caller(x) for x in a.possible]}


TEST_COLUMNS: Final = ("id", "path", "symbol", "chain", "reason")


def tests(a: TestsAnswer) -> View:
    """The tests to run: rows of id, path, test symbol, the chain to the change, and why a
    whole file; `run_all` with its reasons when the change cannot be followed."""
    s = a.selection
    head: dict[str, Any] = {
        "version": a.version, "run_all": s.run_all, "reasons": list(s.reasons),
        "index": index(a.index), "columns": {"tests": list(TEST_COLUMNS)},
    }
    return head, {"tests": [_row(t.id, t.path, t.symbol, " -> ".join(t.chain), t.reason)
                            for t in s.tests]}


def definition(a: DefinitionAnswer) -> View:
    head: dict[str, Any] = {"version": a.version, "name": a.name, "index": index(a.index),
                            "columns": {"definitions": list(DEFINITION_COLUMNS)}}
    found = [_row(d.qualified_name, d.path, d.line_start, d.line_end, d.kind,
                  _cut(d.signature), _cut(d.doc)) for d in a.definitions]
    return head, {"definitions": found}


def _cut(text: str) -> str:
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"
