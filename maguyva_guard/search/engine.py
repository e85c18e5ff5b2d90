"""The search engine's public API: classify, plan, run the modalities in parallel, fuse.

    search(store, "who calls parse_config") -> SearchResponse

The plan (design §3, 4):
- the intent's weight profile picks the modalities through the preset
  (spec.preset_modalities); a zero weight never runs, so an exact-match query never touches
  the embedding backend, under any preset;
- `quick` runs its one modality (semantic, or the dominant one when semantic weighs 0);
- otherwise a confident (>= spec.DIRECT_PATH_MIN_CONFIDENCE), ordinary query (one target:
  see intent.is_ordinary, or a resolved `target` passed by the caller) takes the direct
  path: only spec.dominant_modality runs. If that modality fails or finds nothing, the
  rest of the preset runs and the answer is fused after all: a zero-result direct answer is
  the failure the classifier exists to avoid (design §6);
- a caller that names the intent (`intent=`, the guard of design §7) gets it at
  spec.CONF_GIVEN and always the fused path: the direct path is the classifier's decision,
  and the guard wants every modality's evidence for each caller.

Scores on the direct path (and under quick) go through the same formula as fusion, with the
profile's weight and the preset's k (quick has no k and borrows the default preset's): a
result there scores exactly what it would have scored had it been the only modality to find
it. So direct and fused answers share one scale (the guard mixes both), every result still
explains itself with its contribution, and direct ranks keep their order.

Execution (modalities.py): the planned modalities run in parallel, one thread each, under
one deadline; one that raises or times out is reported in `modalities_failed` with the
reason, and the others answer.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from maguyva_guard import spec
from maguyva_guard.errors import FatalError
from maguyva_guard.records import MODULE_SYMBOL, Contribution, Definition, Hit
from maguyva_guard.retrievers.base import Retriever, SearchRequest
from maguyva_guard.search import fallback, fusion, modalities
from maguyva_guard.search.fusion import FusedResult
from maguyva_guard.search.intent import Intent, classify, given, is_ordinary
from maguyva_guard.search.pasted import MESSAGE, Pasted

DIRECT = "direct"
RRF = "rrf"


@dataclass(frozen=True)
class Plan:
    intent: Intent
    preset: str
    strategy: str  # "direct" or "rrf"
    modalities: tuple[str, ...]
    weights: Mapping[str, float]
    k: int


@dataclass(frozen=True)
class SearchResponse:
    """docs/json.md `query --json`, plus what --explain shows."""

    query: str
    intent: str
    confidence: float
    fusion_strategy: str
    preset: str
    modalities_run: tuple[str, ...]  # every modality that ran, failed ones included
    results: tuple[FusedResult, ...]
    modalities_failed: dict[str, str] = field(default_factory=dict)  # modality -> reason
    rule: str = ""  # the classifier row that matched
    terms: tuple[str, ...] = ()
    k: int = 0
    notes: tuple[str, ...] = ()  # plan decisions worth explaining (a direct-path fallback)
    seconds: float = 0.0
    recognised: dict[str, Any] | None = None  # a pasted error: what was read out of it

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "intent": self.intent,
            "confidence": self.confidence,
            "fusion_strategy": self.fusion_strategy,
            "preset": self.preset,
            "modalities_run": list(self.modalities_run),
            "modalities_failed": dict(self.modalities_failed),
            "rule": self.rule,
            "terms": list(self.terms),
            "k": self.k,
            "notes": list(self.notes),
            "recognised": self.recognised,
            "results": [_result_json(r) for r in self.results],
        }


def search(
    store: Any,
    query: str,
    *,
    preset: str = spec.DEFAULT,
    limit: int | None = 10,
    target: Definition | None = None,
    depth: int = 1,
    is_code: bool = False,
    retrievers: Mapping[str, Retriever] | None = None,
    timeout: float = spec.MODALITY_TIMEOUT_SECONDS,
    dedupe_per_file: bool = True,
    intent: str | None = None,
    config: Any = None,
    candidates: int | None = None,
    fuse_only: str | None = None,
) -> SearchResponse:
    """Answer `query` over the index `store` (design §2-5).

    `limit` cuts the fused list (None or 0: every result). `retrievers` replaces the
    store-built registry (the guard reuses one set across its queries, tests inject recording
    ones); a planned modality missing from it fails as "not available". `dedupe_per_file`
    keeps one result per file, as `maguyva-guard query` wants; the guard turns it off to get
    every caller. `intent` names the intent instead of classifying the query (the guard, design
    §7); such a query is always fused. `config` goes to the semantic retriever. `candidates`
    bounds what each modality is asked for, apart from `limit` (the guard wants every caller
    fused, but only the best few hundred semantic neighbours; a graph search with a target
    returns all its edges whatever it is asked). `fuse_only` names a modality whose hits'
    keys alone are fused (the guard: only the graph decides who is a caller, the others
    only rank them; fusing their hundreds of other hits per search was a tenth of a
    200-file check on a 20,000-file repository); their scores are the same. That modality
    runs first, and the others not at all when it found nothing.
    """
    _validate(query, preset, limit, depth)
    started = time.monotonic()
    found = given(intent, query) if intent else classify(query, is_code=is_code)
    the_plan = plan(found, query, preset, target)
    factories = _factories(store, config, retrievers)
    wanted = max(limit, spec.MODALITY_CANDIDATES_MIN) if limit else spec.MODALITY_CANDIDATES_MAX
    wanted = candidates or wanted
    probed = None  # a sentence no row caught may be a message the source builds
    if not intent and target is None and preset != spec.QUICK:
        probed = fallback.probe(found, query, factories, wanted, timeout)
    if probed is not None or (found.pasted is not None and target is None):
        found, first = probed if probed is not None else (found, None)
        assert found.pasted is not None
        return _pasted(store, found, query, preset, limit, factories, wanted, timeout,
                       dedupe_per_file, first, started)
    request = SearchRequest(query=query, intent=found.intent, terms=found.terms, target=target,
                            limit=wanted, depth=depth)
    if fuse_only is not None and fuse_only in the_plan.modalities:
        ranked, failed = _keys_first(fuse_only, the_plan.modalities, factories, request, timeout)
    else:
        ranked, failed = modalities.run(the_plan.modalities, factories, request, timeout)
    strategy, run_order = the_plan.strategy, the_plan.modalities
    notes: tuple[str, ...] = ()
    if strategy == DIRECT and preset != spec.QUICK and not any(ranked.values()):
        rest = tuple(m for m in spec.preset_modalities(preset, found.intent)
                     if m not in ranked and m not in failed)
        if rest:  # the direct answer was empty: a zero-result answer is the worst (design §6)
            more, more_failed = modalities.run(rest, factories, request, timeout)
            ranked, failed = {**ranked, **more}, {**failed, **more_failed}
            notes = (f"direct path ({run_order[0]}) found nothing: fused {', '.join(rest)}",)
            strategy, run_order = RRF, (*run_order, *rest)
    keys = None
    if fuse_only is not None and fuse_only in ranked:  # (failed: everything, as before)
        keys = {(h.path, h.symbol or MODULE_SYMBOL) for h in ranked.get(fuse_only, ())}
    results = fusion.fuse(ranked, the_plan.weights, the_plan.k,
                          centrality=_centrality(store, ranked, keys), category=_category(store),
                          dedupe_per_file=dedupe_per_file, limit=limit or None, keys=keys)
    if not results and not failed and not intent and target is None \
            and preset != spec.QUICK and "\n" not in query.strip():
        # Nothing for the terms (a short quoted message: "Invalid specifier: 'x'" looks for
        # 'x'): the whole query goes through the pasted-message chain, which says so.
        as_message = replace(found, pasted=Pasted(MESSAGE, query.strip()))
        note = f"nothing found for {', '.join(found.terms) or 'the query'}: searched the " \
               "whole query as a pasted message"
        return _pasted(store, as_message, query, preset, limit, factories, wanted, timeout,
                       dedupe_per_file, None, started, (*notes, note))
    return SearchResponse(
        query=query, intent=found.intent, confidence=found.confidence, fusion_strategy=strategy,
        preset=preset, modalities_run=run_order, results=tuple(results),
        modalities_failed=failed, rule=found.rule, terms=found.terms, k=the_plan.k,
        notes=notes, seconds=time.monotonic() - started,
    )


def _pasted(store: Any, found: Intent, query: str, preset: str, limit: int | None,
            factories: Mapping[str, modalities.Factory], wanted: int, timeout: float,
            dedupe_per_file: bool, first: list[Hit] | None, started: float,
            notes: tuple[str, ...] = ()) -> SearchResponse:
    """A pasted error: the chain of fallback.py, fused on one scale without centrality."""
    assert found.pasted is not None
    outcome = fallback.run(found, found.pasted, query, preset, factories, wanted, timeout, first)
    k = spec.RRF_K.get(preset, spec.RRF_K[spec.DEFAULT])
    results = fusion.fuse(outcome.ranked, outcome.weights, k,
                          centrality=_centrality(store, outcome.ranked) if outcome.fused
                          else fusion.no_centrality,
                          category=_category(store), dedupe_per_file=dedupe_per_file,
                          limit=limit or None, demote=outcome.fused)
    return SearchResponse(
        query=query, intent=found.intent, confidence=found.confidence,
        fusion_strategy=RRF if outcome.fused else DIRECT, preset=preset,
        modalities_run=outcome.modalities_run, results=tuple(results),
        modalities_failed=outcome.failed, rule=found.rule, terms=found.terms, k=k,
        notes=(*notes, *outcome.notes), seconds=time.monotonic() - started,
        recognised=fallback.recognised_json(found.pasted, outcome))


def _keys_first(first: str, planned: tuple[str, ...], factories: Mapping[str, modalities.Factory],
                request: SearchRequest, timeout: float,
                ) -> tuple[dict[str, list[Hit]], dict[str, str]]:
    """`fuse_only`'s modality first, then the others within what is left of the deadline;
    none of them when it answered with no hit: they could only rank keys it did not find
    (a release diff's changed symbols without callers, 25 of 36 on Django 5.2.7 -> 5.2.8,
    each cost a text search, a semantic ranking and a structural scan)."""
    started = time.monotonic()
    ranked, failed = modalities.run((first,), factories, request, timeout)
    if first in ranked and not ranked[first]:
        return ranked, failed
    rest = tuple(m for m in planned if m != first)
    more, more_failed = modalities.run(rest, factories, request, timeout, started)
    merged, why = {**ranked, **more}, {**failed, **more_failed}
    return ({m: merged[m] for m in planned if m in merged},
            {m: why[m] for m in planned if m in why})


def plan(found: Intent, query: str, preset: str, target: Definition | None) -> Plan:
    """Which modalities run, how their lists are merged, with which weights and k (design §3-4)."""
    weights = spec.WEIGHTS[found.intent]
    k = spec.RRF_K.get(preset, spec.RRF_K[spec.DEFAULT])
    if preset == spec.QUICK:
        return Plan(found, preset, DIRECT, spec.preset_modalities(preset, found.intent), weights, k)
    # The direct path is the classifier's call (design §4): a named intent is always fused.
    ordinary = target is not None or is_ordinary(found, query)
    if not found.given and found.confidence >= spec.DIRECT_PATH_MIN_CONFIDENCE and ordinary:
        return Plan(found, preset, DIRECT, (spec.dominant_modality(found.intent),), weights, k)
    return Plan(found, preset, RRF, spec.preset_modalities(preset, found.intent), weights, k)


def retrievers_for(store: Any, config: Any = None) -> dict[str, Retriever]:
    """One retriever per modality that can be built, to reuse across many searches (the
    guard); the ones that cannot are left out, and a search that plans them reports them."""
    return modalities.build(store, config)


def _factories(store: Any, config: Any, retrievers: Mapping[str, Retriever] | None,
               ) -> Mapping[str, modalities.Factory]:
    if retrievers is None:
        return modalities.retriever_factories(store, config)
    return {m: _given(r) for m, r in retrievers.items()}


def _given(retriever: Retriever) -> modalities.Factory:
    return lambda: retriever


def _centrality(store: Any, ranked: Mapping[str, list[Hit]],
                only: set[tuple[str, str]] | None = None) -> fusion.Centrality:
    """Centrality of every result key (`only`'s, when given) in one look-up (design §5;
    scale: see centrality.py)."""
    if store is None or not ranked:
        return fusion.no_centrality
    keys = list({(h.path, h.symbol or MODULE_SYMBOL) for hits in ranked.values()
                 for h in hits} if only is None else only)
    try:
        from maguyva_guard.index import centrality

        values = centrality.known(store, keys)
    except (ImportError, AttributeError, sqlite3.Error):
        return fusion.no_centrality  # no graph metrics yet: every boost is 1
    return lambda path, symbol: values.get((path, symbol), 0.0)


def _category(store: Any) -> fusion.Category:
    """The store's file category (files table), cached per path for one search."""
    lookup = getattr(store, "category", None)
    if lookup is None:
        return fusion.no_category
    cache: dict[str, str | None] = {}

    def category(path: str) -> str | None:
        if path not in cache:
            try:
                cache[path] = lookup(path)
            except sqlite3.Error:
                cache[path] = None
        return cache[path]

    return category


def _validate(query: str, preset: str, limit: int | None, depth: int) -> None:
    if not query.strip():
        raise FatalError("the query is empty")
    if preset not in spec.PRESETS:
        raise FatalError(f"unknown preset {preset!r} (choose {', '.join(spec.PRESETS)})")
    if limit is not None and limit < 0:
        raise FatalError(f"the limit must be 0 (no limit) or more, not {limit}")
    if depth < 1:
        raise FatalError(f"--depth must be at least 1, not {depth}")


def _result_json(r: FusedResult) -> dict[str, Any]:
    return {
        "path": r.path, "line_start": r.line_start, "line_end": r.line_end, "symbol": r.symbol,
        "score": r.score, "modalities": list(r.modalities), "kind": r.kind,
        "centrality": r.centrality, "category": r.category, "demotion": r.demotion,
        "depth": r.depth,
        "contributions": [_contribution_json(c) for c in r.contributions],
        "also_found": [_contribution_json(c) for c in r.also_found],
    }


def _contribution_json(c: Contribution) -> dict[str, Any]:
    return {"modality": c.modality, "rank": c.rank, "weight": c.weight,
            "boost": c.boost, "value": c.value}
