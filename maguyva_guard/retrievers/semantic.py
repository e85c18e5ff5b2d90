"""The semantic modality (design §1): chunks by meaning, as binary vectors, by Hamming distance.

    SemanticRetriever(store, config).search(request) -> list[Hit]

The vectors are made at index time (index/embeddings.py: one file per backend, chunks
embedded once per content hash, time-boxed). A search embeds what is still missing for at
most SEARCH_SECONDS and sends at most SEARCH_REMOTE_MAX chunks to a network backend; a
search over a partly embedded view answers from what is there and says so once on stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from maguyva_guard import spec
from maguyva_guard.embed import backend as embedding
from maguyva_guard.embed import vectors
from maguyva_guard.embed.backend import SemanticUnavailable
from maguyva_guard.embed.hashed import HashEmbedder
from maguyva_guard.extract import classify
from maguyva_guard.index import background, embeddings
from maguyva_guard.records import MODULE_SYMBOL, Hit
from maguyva_guard.retrievers.base import SearchRequest

if TYPE_CHECKING:
    from maguyva_guard.index.store import Store

SEARCH_SECONDS: Final = 3.0  # a search's embedding time, inside the engine's 5 s deadline
# A search embeds missing chunks through the network only when they are this few (about one
# quick request): a larger remote batch would outlive the engine's modality deadline, and
# the index update of the next run embeds them anyway.
SEARCH_REMOTE_MAX: Final = 100


# The order of a list (not the scores): measured with bench/queries.py on Django's 39
# how/why questions, tests at 0.9 took the fused hit@10 from 62% to 74% (0.97: 72%, 0.85:
# 74%, hit@1 lower).
SEMANTIC_CATEGORY_FACTOR: Final = {classify.SOURCE: 1.0, classify.TEST: 0.9}
SEMANTIC_OTHER_CATEGORY_FACTOR: Final = 0.85  # vendor, build, archive, generated


class SemanticRetriever:
    """Hamming top-k of the query's vector over the current view's chunk vectors."""

    modality = spec.SEMANTIC

    def __init__(self, store: Store, config: Any = None) -> None:
        """`config`: the semantic settings (None: the repository's configuration)."""
        self.store = store
        self.config = embeddings.configured(store, config)
        self._rankings: dict[bytes, vectors.Ranking] = {}  # query bits -> every row ranked
        # key -> its places (the view is fixed for the retriever's life: one check)
        self._places: dict[bytes, list[embeddings.Place]] = {}
        # (backend tag, query) -> its packed bits: the sweep embeds each query, then its
        # search again (a SimHash in plain Python, ~15 ms a query)
        self._bits: dict[tuple[Any, str], bytes] = {}

    def prepare(self, queries: list[str]) -> None:
        """Rank the stored vectors for many queries at once (numpy, one sweep), so that
        their searches slice instead of scanning: the guard's batched pass. Only for the
        embedded backend over a complete view; otherwise each search does its own work."""
        backend = embedding.select(self.config)
        if not isinstance(backend, HashEmbedder) or not queries:
            return
        path = vectors.file_for(self.store.index_dir, *embedding.tag(backend))
        if embeddings.is_complete(self.store, path):
            bits = [self._embed_one(backend, q) for q in dict.fromkeys(queries)]
            self._rankings.update(vectors.rank_file(path, bits))

    def _embed_one(self, backend: HashEmbedder, query: str) -> bytes:
        key = (embedding.tag(backend), query)
        found = self._bits.get(key)
        if found is None:
            found = self._bits[key] = backend.embed_one(query)
        return found

    @property
    def may_block(self) -> bool:
        """True when the query's vector comes over the network (Voyage): the engine then
        runs this modality in a thread of its own, under the deadline."""
        return embedding.settings(self.config).backend == embedding.VOYAGE

    def search(self, request: SearchRequest) -> list[Hit]:
        """Ranked hits, score = 1 - Hamming distance / bits (1.0: identical vectors).

        Raises SemanticUnavailable (after one line on stderr) when the backend cannot answer.
        """
        backend = embedding.select(self.config)
        try:
            return self._by_category(self._search(backend, request))
        except SemanticUnavailable as exc:
            embedding.warn_once(f"semantic search unavailable: {exc.reason}")
            raise

    def _by_category(self, hits: list[Hit]) -> list[Hit]:
        """Source before tests before the rest at close distances, as text and structural
        rank: a how/why question wants the code that does it, not a test that uses it.
        Scores keep their meaning; only the order changes."""
        files = self.store.files()

        def weighted(h: Hit) -> float:
            info = files.get(h.path)
            category = info.category if info is not None else classify.SOURCE
            return h.score * SEMANTIC_CATEGORY_FACTOR.get(category, SEMANTIC_OTHER_CATEGORY_FACTOR)

        return sorted(hits, key=lambda h: -weighted(h))  # stable: ties keep the Hamming order

    def _search(self, backend: embedding.Backend, request: SearchRequest) -> list[Hit]:
        path = vectors.file_for(self.store.index_dir, *embedding.tag(backend))
        if embeddings.is_complete(self.store, path):
            return self._search_complete(backend, request, path)
        view = _cached_view(self.store)
        stored, candidates, found = _searchable(self.store, backend, view, path)
        if found < len(view.places):
            rest = ("a background `maguyva-guard index --vectors` is computing the rest"
                    if background.running(self.store.index_dir)
                    else "the rest follow on the next runs")
            embedding.warn_once(
                f"semantic index incomplete: {found:,} of {len(view.places):,} chunks "
                f"embedded so far ({rest})")
        if stored is None or not found:
            return []
        embeddings.mark_complete(self.store, path, view, backend.dimension)
        query = _embed_query(backend, request)
        return _hits(stored, query[0], candidates, view, request, backend.dimension)

    def _search_complete(self, backend: embedding.Backend, request: SearchRequest,
                         path: Path) -> list[Hit]:
        """Every chunk of the view has a vector: search them all and read the places of
        the nearest only (a few SQL look-ups), not the whole view (~0.4 s on Django).
        Vectors of chunks that left the view have no place and are passed over."""
        if isinstance(backend, HashEmbedder):
            query_bits = self._embed_one(backend, request.query)  # no numpy here
            ranking = self._rankings.get(query_bits)

            def nearest_of(k: int) -> tuple[list[bytes], list[tuple[int, int]]]:
                if ranking is not None:
                    return ranking.top_k(k)
                return vectors.top_k_file(path, query_bits, k)
        else:
            with embeddings.lock:
                stored, _ = embeddings.load(path, backend.dimension)
            if stored is None or not len(stored.keys):
                return []
            query = _embed_query(backend, request)[0]

            def nearest_of(k: int) -> tuple[list[bytes], list[tuple[int, int]]]:
                found = vectors.top_k(stored.bits, query, k, None)
                return [stored.keys[row] for row, _ in found], found

        k = max(request.limit, 1) * 2
        while True:
            keys, nearest = nearest_of(k)
            self._places.update(_places_of_many(
                self.store, [key for key in keys if key not in self._places]))
            hits = []
            for key, (_, distance) in zip(keys, nearest, strict=True):
                score = 1.0 - distance / backend.dimension
                places = self._places[key]
                for p in places:
                    if p.path not in request.exclude_paths:
                        hits.append(Hit(p.path, p.line_start, p.line_end,
                                        p.symbol or MODULE_SYMBOL, score, spec.SEMANTIC))
            if len(hits) >= request.limit or len(nearest) < k:
                return hits[: request.limit]
            k *= 2




def _embed_query(backend: embedding.Backend, request: SearchRequest) -> Any:
    as_code = request.intent == spec.FIND_SIMILAR  # code is embedded like the chunks
    return backend.embed([request.query], embedding.DOCUMENT if as_code else embedding.QUERY)








def _places_of(store: Store, key: bytes) -> list[embeddings.Place]:
    """Where the chunks whose content hash starts with this key sit in the current view."""
    from maguyva_guard.index.store import module_prefix, qualify

    prefix = vectors.hash_prefix(key)
    rows = store.conn.execute(
        "SELECT f.path, f.language, c.symbol, c.line_start, c.line_end FROM chunks c"
        " JOIN files f ON f.blob_id = c.blob WHERE c.hash >= ? AND c.hash < ?",
        (prefix, prefix + "g"),
    )
    return [embeddings.Place(p, qualify(module_prefix(p, lang), sym), a, b)
            for p, lang, sym, a, b in rows]


def _places_of_many(store: Store, keys: list[bytes]) -> dict[bytes, list[embeddings.Place]]:
    """`_places_of` for many keys in one statement (a search reads the places of its 200
    nearest chunks: one look-up each cost 13,000 statements on a 50-symbol Django check).
    The prefixes drive the join in their order, each through the same index range as
    `_places_of`, so each key's places come in the same order."""
    import json

    from maguyva_guard.index.store import module_prefix, qualify

    unique = list(dict.fromkeys(keys))
    out: dict[bytes, list[embeddings.Place]] = {key: [] for key in unique}
    if not unique:
        return out
    prefixes = [vectors.hash_prefix(key) for key in unique]
    rows = store.conn.execute(
        "SELECT j.key, f.path, f.language, c.symbol, c.line_start, c.line_end"
        " FROM json_each(?) j JOIN chunks c ON c.hash >= j.value AND c.hash < j.value || 'g'"
        " JOIN files f ON f.blob_id = c.blob", (json.dumps(prefixes),))
    for i, p, lang, sym, a, b in rows:
        out[unique[i]].append(embeddings.Place(p, qualify(module_prefix(p, lang), sym), a, b))
    return out


_searchables: dict[tuple[int, Path], tuple[Any, Any, Any, int]] = {}


def _searchable(store: Store, backend: embedding.Backend, view: embeddings.View, path: Path,
                ) -> tuple[vectors.Vectors | None, Any, int]:
    """(stored vectors, rows of the view's chunks or None for all rows, how many of the
    view's chunks have a vector), embedding missing chunks first. Remembered per view and
    file version: the guard searches many times in one process."""
    import numpy as np

    memo = _searchables.get((id(view), path))
    if memo is not None and memo[0] == embeddings.file_stamp(path) and memo[3] == len(view.places):
        return memo[1], memo[2], memo[3]
    if not background.running(store.index_dir):  # else the job embeds, not the check
        embeddings.fill(store, backend, view, SEARCH_SECONDS, None, SEARCH_REMOTE_MAX)
    with embeddings.lock:
        stored, rows = embeddings.load(path, backend.dimension)
    keys = [k for k in view.places if k in rows]
    candidates = None
    if stored is not None and len(keys) < len(stored.keys):
        candidates = np.fromiter((rows[k] for k in keys), dtype=np.int64, count=len(keys))
    _searchables.clear()
    _searchables[(id(view), path)] = (embeddings.file_stamp(path), stored, candidates, len(keys))
    return stored, candidates, len(keys)


def _hits(stored: vectors.Vectors, query: Any, candidates: Any, view: embeddings.View,
          request: SearchRequest, dimension: int) -> list[Hit]:
    """Nearest chunks first, expanded to their places; widen k until `limit` places."""
    k = request.limit
    while True:
        nearest = vectors.top_k(stored.bits, query, k, candidates)
        hits = []
        for row, distance in nearest:
            for place in view.places[stored.keys[row]]:
                if place.path not in request.exclude_paths:
                    hits.append(Hit(place.path, place.line_start, place.line_end,
                                    place.symbol or MODULE_SYMBOL, 1.0 - distance / dimension,
                                    spec.SEMANTIC))
        if len(hits) >= request.limit or len(nearest) < k:
            return hits[: request.limit]
        k *= 2


_views: dict[tuple[str, str, str], embeddings.View] = {}


def _cached_view(store: Store) -> embeddings.View:
    """The current view, read once per process and view (the guard searches many times)."""
    ident = (str(store.index_dir), store.meta_get("view") or "", store.meta_get("view_digest")
             or "")
    with embeddings.lock:
        if ident not in _views:
            _views.clear()
            _views[ident] = embeddings.current_view(store)
        return _views[ident]






