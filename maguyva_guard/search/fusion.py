"""Weighted reciprocal rank fusion (design §5): pure functions over ranked hit lists.

The result key is (path, symbol): the enclosing function, method or class ("<module>" for
top-level code). A definition found by the structural retriever, the lines inside it found
by the text retriever and the same function found by the graph as a caller are one result,
so their agreement adds up. Within one modality's list a key counts once, at its first
position, and `rank` is the position among that list's distinct keys: a retriever that
returns five lines of one function does not push its other results down five places.
The result's line span and kind come from its best hit (the largest contribution).

Order of operations, as design §5 gives it: sum the contributions per key (each multiplied by
the key's centrality boost), demote vendor/build/archive/generated paths, sort, then
deduplicate to the best result per file. Deduplication is a flag: `maguyva-guard query`
wants one line per file (the default), the guard wants every affected caller and turns it
off. A file's dropped results are not lost: their contributions stay on the kept result as
`also_found`, so its modalities still say everything that found the file.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, replace

from maguyva_guard import spec
from maguyva_guard.extract.classify import ARCHIVE, BUILD, GENERATED, SOURCE, VENDOR, path_category
from maguyva_guard.records import MODULE_SYMBOL, Contribution, Hit

# The categories design §5 demotes (classify.CATEGORIES: the store's `files.category`).
DEMOTED_CATEGORIES = frozenset({VENDOR, BUILD, ARCHIVE, GENERATED})

Centrality = Callable[[str, str], float]  # (path, symbol) -> centrality, average symbol = 1
Category = Callable[[str], str | None]  # path -> category (the store's), None when unknown


@dataclass(frozen=True)
class FusedResult:
    """One fused result. `score` = sum(c.value for c in contributions) * demotion."""

    path: str
    symbol: str
    line_start: int
    line_end: int
    score: float
    contributions: tuple[Contribution, ...]  # largest first
    kind: str = ""
    centrality: float = 0.0
    category: str = SOURCE
    demotion: float = 1.0  # spec.DEMOTION_FACTOR for vendor/build/archive/generated paths
    depth: int = 0  # graph: distance from the target, 0 when no graph hit
    confidence: str = ""  # graph: exact, probable or ambiguous
    via: tuple[str, ...] = ()
    also_found: tuple[Contribution, ...] = ()  # the file's other results, folded in by dedupe

    @property
    def modalities(self) -> tuple[str, ...]:
        """Every modality that found this result (or, after dedupe, its file), strongest first."""
        return tuple(dict.fromkeys(c.modality for c in (*self.contributions, *self.also_found)))


def no_centrality(path: str, symbol: str) -> float:
    return 0.0


def no_category(path: str) -> str | None:
    return None


def fuse(
    ranked: Mapping[str, Sequence[Hit]],
    weights: Mapping[str, float],
    k: int,
    *,
    centrality: Centrality = no_centrality,
    category: Category = no_category,
    dedupe_per_file: bool = True,
    limit: int | None = None,
    demote: bool = True,
    keys: Container[tuple[str, str]] | None = None,
) -> list[FusedResult]:
    """Merge each modality's ranked hits into one list, best first (design §5).

    `ranked` maps a modality to its hits, best first; `weights` is the intent's profile. A
    modality with weight 0 contributes nothing (the engine never runs one). `demote=False`
    keeps vendor/build paths at their rank: a pasted trace's frame in `dist/` is where the
    error happened, whatever the path says (the text retriever weighs categories itself).
    `keys`: only these (path, symbol) keys are fused (each with the ranks it has among all
    the hits); the others are left out.
    """
    found: dict[tuple[str, str], list[tuple[Contribution, Hit]]] = {}
    boosts: dict[tuple[str, str], tuple[float, float]] = {}
    for modality, hits in ranked.items():
        weight = weights.get(modality, 0.0)
        if weight <= 0:
            continue
        for rank, hit in enumerate(_distinct(hits)):
            key = (hit.path, _symbol(hit))
            if keys is not None and key not in keys:
                continue
            if key not in boosts:
                c = centrality(*key)
                boosts[key] = (c, spec.centrality_boost(c))
            c, boost = boosts[key]
            value = spec.rrf_contribution(weight, rank, k, c)
            found.setdefault(key, []).append(
                (Contribution(modality, rank, weight, boost, value), hit))
    results = [_result(key, evidence, boosts[key][0], category, demote)
               for key, evidence in found.items()]
    results.sort(key=lambda r: (-r.score, r.path, r.line_start, r.symbol))
    if dedupe_per_file:
        results = dedupe(results)
    return results[:limit] if limit is not None else results


def dedupe(results: Sequence[FusedResult]) -> list[FusedResult]:
    """Keep the best result per file (the first, in a sorted list), folding the evidence of
    the others into its `also_found`."""
    kept: dict[str, FusedResult] = {}
    folded: dict[str, list[Contribution]] = {}
    for result in results:
        if result.path in kept:
            folded[result.path].extend(result.contributions)
        else:
            kept[result.path] = result
            folded[result.path] = []
    return [replace(r, also_found=(*r.also_found, *folded[r.path])) if folded[r.path] else r
            for r in kept.values()]


def _distinct(hits: Sequence[Hit]) -> list[Hit]:
    """A modality's hits with each key once, at its best (first) position."""
    seen: dict[tuple[str, str], Hit] = {}
    for hit in hits:
        seen.setdefault((hit.path, _symbol(hit)), hit)
    return list(seen.values())


def _cheapness(modality: str) -> int:
    order = spec.CHEAPNESS_ORDER
    return order.index(modality) if modality in order else len(order)


def _symbol(hit: Hit) -> str:
    return hit.symbol or MODULE_SYMBOL


def _result(key: tuple[str, str], evidence: list[tuple[Contribution, Hit]], centrality: float,
            category: Category, demote: bool = True) -> FusedResult:
    # Ties between equal contributions go to the cheaper modality, as in spec.CHEAPNESS_ORDER.
    evidence = sorted(evidence, key=lambda e: (-e[0].value, _cheapness(e[0].modality)))
    best = evidence[0][1]
    graph = min((h for _, h in evidence if h.depth > 0), key=lambda h: h.depth, default=None)
    # The store classified the file at index time (content included: minified, marked as
    # generated); the path's own category is the fallback for a file it does not know.
    cat = category(key[0]) or path_category(key[0])
    demotion = spec.DEMOTION_FACTOR if demote and cat in DEMOTED_CATEGORIES else 1.0
    contributions = tuple(c for c, _ in evidence)
    return FusedResult(
        path=key[0],
        symbol=key[1],
        line_start=best.line_start,
        line_end=best.line_end,
        score=sum(c.value for c in contributions) * demotion,
        contributions=contributions,
        kind=best.kind or next((h.kind for _, h in evidence if h.kind), ""),
        centrality=centrality,
        category=cat,
        demotion=demotion,
        depth=graph.depth if graph else 0,
        confidence=graph.confidence if graph else "",
        via=graph.via if graph else (),
    )
