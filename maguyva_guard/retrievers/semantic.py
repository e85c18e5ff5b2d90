"""The semantic modality (SPEC 1): code chunks by meaning, as binary vectors, by Hamming distance.

    refresh(store, progress)            # the indexer, after each update: embed new chunks
    SemanticRetriever(store, config).search(request) -> list[Hit]

Vectors are cached by chunk content hash, one file per backend (vectors.py): a chunk is
embedded once per backend, an incremental update embeds only its new chunks, and switching
backends re-embeds into that backend's own file (vectors are never mixed).

Embedding is bounded in time, so neither an index update nor a query blows its budget on a
cold index of a big repository (Django: ~43k chunks, ~6 s of CPU for the embedded backend,
minutes through the network): `refresh` embeds for at most EAGER_SECONDS and a search for
at most SEARCH_SECONDS, saving after every batch; what is left follows on the next runs
(each index update embeds at least one batch). A search sends at most SEARCH_REMOTE_MAX
chunks to a network backend. A search over a partly embedded view answers from what is
there and says so once on stderr.
`refresh(store, budget=None)` embeds everything (for `maguyva-guard index`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from maguyva_guard import spec
from maguyva_guard.embed import backend as embedding
from maguyva_guard.embed import vectors
from maguyva_guard.embed.backend import SemanticUnavailable
from maguyva_guard.embed.hashed import HashEmbedder
from maguyva_guard.extract import classify
from maguyva_guard.records import Hit
from maguyva_guard.retrievers.base import SearchRequest

if TYPE_CHECKING:
    from maguyva_guard.index.store import Store

EAGER_SECONDS: Final = 1.0  # embedding time an index update may spend (then lazily)
SEARCH_SECONDS: Final = 3.0  # ... and a search, inside the engine's 5 s modality deadline
BATCH: Final = 2048  # chunks embedded (and saved) at a time
# An update's changed files hold chunks already embedded (one edited function in a file of
# 200): of those, at most this many missing ones are embedded without numpy (~15 ms each).
PLAIN_FILL_MAX: Final = 16
# A search embeds missing chunks through the network only when they are this few (about one
# quick request): a larger remote batch would outlive the engine's modality deadline, and
# the index update of the next run embeds them anyway.
SEARCH_REMOTE_MAX: Final = 100
# Vectors of chunks that left the view are kept (a branch switch back costs nothing) until
# the file holds this many times the view's chunks; then it is pruned to the view.
PRUNE_RATIO: Final = 2
MODULE_SYMBOL: Final = "<module>"

Progress = Callable[[int, int], None]
_lock = threading.Lock()  # one embedder/writer per process; files are replaced atomically


@dataclass(frozen=True)
class Place:
    """Where a chunk sits in the current view."""

    path: str
    symbol: str
    line_start: int
    line_end: int


@dataclass
class View:
    """The current view's chunks by key (several places may share one text)."""

    places: dict[bytes, list[Place]]
    digests: dict[bytes, str]  # key -> the store's content hash
    texts: dict[bytes, str]  # filled only by a store without chunk_places()
    whole: bool = True  # False: only the chunks an update changed (never prune by it)

    def texts_of(self, store: Store, keys: list[bytes]) -> list[str]:
        """The texts to embed, read from the store for just these chunks."""
        if not self.texts:
            by_hash = store.chunk_texts(self.digests[k] for k in keys)
            return [by_hash.get(self.digests[k], "") for k in keys]
        return [self.texts[k] for k in keys]


def current_view(store: Store, places: bool = True) -> View:
    """Where every chunk of the current view sits (with `places`; else only which chunks
    there are, all refresh needs); texts are read later, only for chunks to embed."""
    view = View({}, {}, {})
    if hasattr(store, "chunk_places"):
        rows: Any = store.chunk_places()
    else:  # an older store: everything at once
        rows = ((h, c.path, c.symbol, c.line_start, c.line_end) for h, c in store.chunks())
        view.texts.update((vectors.key_of(h), c.text) for h, c in store.chunks())
    for digest, path, symbol, start, end in rows:
        key = vectors.key_of(digest)
        if key not in view.digests:
            view.places[key] = []
            view.digests[key] = digest
        if places:
            view.places[key].append(Place(path, symbol, start, end))
    return view


def refresh(store: Store, progress: Progress | None = None, *, config: Any = None,
            budget: float | None = EAGER_SECONDS) -> int:
    """Embed the current view's chunks that the configured backend has not embedded yet,
    for at most `budget` seconds (None: all). Returns how many were embedded. A backend
    failure is reported once on stderr and leaves the index usable (returns 0)."""
    backend = embedding.select(_configured(store, config))
    path = vectors.file_for(store.index_dir, *embedding.tag(backend))
    try:
        changed = _changed_chunks(store, path)
        if changed is not None:
            # The previous view was fully embedded: only the changed files' chunks can be
            # missing (a one-file commit reads a few rows, not the whole view's 45k), with
            # a budget (check, query) or without (index) alike.
            done = _fill(store, backend, changed, budget, progress)
            _mark_complete(store, path, changed, backend.dimension, incremental=True)
            return done
        if budget is not None and getattr(store, "parse_count", None) == 0 and path.is_file():
            # The update parsed no new blob, so it brought no new chunk text: skip reading
            # the view (~0.2 s on 45k chunks). A chunk still missing (an earlier backlog)
            # is embedded by the next search.
            return 0
        view = current_view(store, places=False)
        done = _fill(store, backend, view, budget, progress)
        _mark_complete(store, path, view, backend.dimension)
        return done
    except SemanticUnavailable as exc:
        embedding.warn_once(f"semantic search unavailable: {exc.reason}")
        return 0
    except OSError as exc:  # a full disk: the vectors saved so far stay, the rest wait
        embedding.warn_once(f"semantic vectors not saved: {exc.strerror or exc}")
        return 0


def _configured(store: Store, config: Any) -> Any:
    """The settings to use: those given, else the repository's (refresh gets none)."""
    if config is not None:
        return config
    from maguyva_guard.config import load_config

    return load_config(store.root).semantic


def _fill(store: Store, backend: embedding.Backend, view: View, budget: float | None,
          progress: Progress | None, remote_max: int | None = None) -> int:
    """Embed missing chunks in batches, saving after each, until done or out of time.

    With `remote_max`, a network backend embeds nothing when more than that are missing.
    """
    path = vectors.file_for(store.index_dir, *embedding.tag(backend))
    with _lock:
        if isinstance(backend, HashEmbedder) and not view.whole:
            done = _fill_plain(store, backend, view, path, budget, progress)
            if done is not None:
                return done
        have, known = _load(path, backend.dimension)
        keys = list(have.keys) if have else []
        bits = have.bits if have else None
        missing = [k for k in view.places if k not in known]
        if remote_max is not None and backend.name != embedding.EMBEDDED \
                and len(missing) > remote_max:
            return 0
        started, done = time.monotonic(), 0
        for start in range(0, len(missing), BATCH):
            if budget is not None and start and time.monotonic() - started > budget:
                break
            batch = missing[start : start + BATCH]
            fresh = backend.embed(view.texts_of(store, batch), embedding.DOCUMENT)
            keys, bits = _save(path, keys + batch, fresh if bits is None else (bits, fresh),
                               view)
            done += len(batch)
            if progress is not None:
                progress(done, len(missing))
        return done


def _fill_plain(store: Store, backend: HashEmbedder, view: View, path: Path,
                budget: float | None, progress: Progress | None) -> int | None:
    """A few chunks (a commit's changed functions) embedded and appended in plain Python,
    in batches within the budget as _fill does: importing numpy and loading the matrix
    cost ~0.3 s of a hook's run, embedding one chunk ~15 ms. None (nothing done) when
    there is no file to append to, or too much to do this way."""
    known = vectors.read_keys(path, backend.dimension // 8)
    if known is None:
        return None
    missing = [k for k in view.places if k not in known]
    if len(missing) > PLAIN_FILL_MAX:
        return None
    started, done = time.monotonic(), 0
    for start in range(0, len(missing), BATCH):
        if budget is not None and start and time.monotonic() - started > budget:
            break
        batch = missing[start : start + BATCH]
        rows = [backend.embed_one(text) for text in view.texts_of(store, batch)]
        if not vectors.append(path, batch, rows):
            return done or None
        done += len(batch)
        if progress is not None:
            progress(done, len(missing))
    return done


def _known_keys(path: Path, dimension: int) -> set[bytes] | dict[bytes, int]:
    """The keys stored in `path`: from the loaded matrix if it is current, else read from
    the file without numpy."""
    cached = _loaded.get(path)
    if cached is not None and cached[0] == _stamp(path):
        return cached[2]
    return vectors.read_keys(path, dimension // 8) or set()


def _save(path: Path, keys: list[bytes], bits: Any, view: View) -> tuple[list[bytes], Any]:
    """Write keys and bits (an array, or a pair to concatenate); returns what was written."""
    import numpy as np

    matrix = np.concatenate(bits) if isinstance(bits, tuple) else bits
    if view.whole and len(keys) > PRUNE_RATIO * max(len(view.places), 1):
        keep = [i for i, k in enumerate(keys) if k in view.places]
        keys, matrix = [keys[i] for i in keep], matrix[keep]
    vectors.save(path, keys, matrix)
    return keys, matrix


# The order of a list (not the scores): measured with bench/queries.py on Django's 39
# how/why questions, tests at 0.9 took the fused hit@10 from 62% to 74% (0.97: 72%, 0.85:
# 74%, hit@1 lower).
CATEGORY_FACTOR: Final = {classify.SOURCE: 1.0, classify.TEST: 0.9}
OTHER_CATEGORY_FACTOR: Final = 0.85  # vendor, build, archive, generated


class SemanticRetriever:
    """Hamming top-k of the query's vector over the current view's chunk vectors."""

    modality = spec.SEMANTIC

    def __init__(self, store: Store, config: Any = None) -> None:
        """`config`: the semantic settings (None: the repository's configuration)."""
        self.store = store
        self.config = _configured(store, config)

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
            return h.score * CATEGORY_FACTOR.get(category, OTHER_CATEGORY_FACTOR)

        return sorted(hits, key=lambda h: -weighted(h))  # stable: ties keep the Hamming order

    def _search(self, backend: embedding.Backend, request: SearchRequest) -> list[Hit]:
        path = vectors.file_for(self.store.index_dir, *embedding.tag(backend))
        if _is_complete(self.store, path):
            return self._search_complete(backend, request, path)
        view = _cached_view(self.store)
        stored, candidates, found = _searchable(self.store, backend, view, path)
        if found < len(view.places):
            embedding.warn_once(
                f"semantic index incomplete: {found:,} of {len(view.places):,} chunks "
                "embedded so far (the rest follow on the next runs)")
        if stored is None or not found:
            return []
        _mark_complete(self.store, path, view, backend.dimension)
        query = _embed_query(backend, request)
        return _hits(stored, query[0], candidates, view, request, backend.dimension)

    def _search_complete(self, backend: embedding.Backend, request: SearchRequest,
                         path: Path) -> list[Hit]:
        """Every chunk of the view has a vector: search them all and read the places of
        the nearest only (a few SQL look-ups), not the whole view (~0.4 s on Django).
        Vectors of chunks that left the view have no place and are passed over."""
        if isinstance(backend, HashEmbedder):
            query_bits = backend.embed_one(request.query)  # no numpy on the hook's path

            def nearest_of(k: int) -> tuple[list[bytes], list[tuple[int, int]]]:
                return vectors.top_k_file(path, query_bits, k)
        else:
            with _lock:
                stored, _ = _load(path, backend.dimension)
            if stored is None or not len(stored.keys):
                return []
            query = _embed_query(backend, request)[0]

            def nearest_of(k: int) -> tuple[list[bytes], list[tuple[int, int]]]:
                found = vectors.top_k(stored.bits, query, k, None)
                return [stored.keys[row] for row, _ in found], found

        k = max(request.limit, 1) * 2
        while True:
            keys, nearest = nearest_of(k)
            hits = []
            for key, (_, distance) in zip(keys, nearest, strict=True):
                score = 1.0 - distance / backend.dimension
                for p in _places_of(self.store, key):
                    if p.path not in request.exclude_paths:
                        hits.append(Hit(p.path, p.line_start, p.line_end,
                                        p.symbol or MODULE_SYMBOL, score, spec.SEMANTIC))
            if len(hits) >= request.limit or len(nearest) < k:
                return hits[: request.limit]
            k *= 2


def _changed_chunks(store: Store, path: Path) -> View | None:
    """The chunks of the blobs the last update brought in, when the view before it had a
    vector for every chunk; None when that is not known (then the whole view is read)."""
    previous = getattr(store, "previous_view_digest", None)
    blobs = getattr(store, "changed_blobs", None)
    if not previous or blobs is None or store.meta_get(_complete_key(path)) != previous:
        return None
    view = View({}, {}, {}, whole=False)
    step = 500  # stay under SQLite's bound-parameter limit
    for i in range(0, len(blobs), step):
        part = blobs[i : i + step]
        rows = store.conn.execute(
            "SELECT c.hash FROM chunks c JOIN blobs b ON b.id = c.blob"
            f" WHERE b.oid IN ({','.join('?' * len(part))})", part)
        for (digest,) in rows:
            key = vectors.key_of(digest)
            view.places.setdefault(key, [])
            view.digests[key] = digest
    return view


def _embed_query(backend: embedding.Backend, request: SearchRequest) -> Any:
    as_code = request.intent == spec.FIND_SIMILAR  # code is embedded like the chunks
    return backend.embed([request.query], embedding.DOCUMENT if as_code else embedding.QUERY)


def _complete_key(path: Path) -> str:
    return f"semantic_complete:{path.name}"


def _mark_complete(store: Store, path: Path, view: View, dimension: int,
                   incremental: bool = False) -> None:
    """Remember that every chunk of this view has a vector in `path` (for the fast path).
    `incremental`: `view` holds only what the last update changed, the rest was complete."""
    with _lock:
        rows = _known_keys(path, dimension)
    complete = (bool(view.digests) or incremental) and all(k in rows for k in view.digests)
    digest = (store.meta_get("view_digest") or "") if complete else ""
    if store.meta_get(_complete_key(path)) != digest:
        store.meta_set(_complete_key(path), digest)


def _is_complete(store: Store, path: Path) -> bool:
    digest = store.meta_get("view_digest")
    return bool(digest) and store.meta_get(_complete_key(path)) == digest and path.is_file()


def _places_of(store: Store, key: bytes) -> list[Place]:
    """Where the chunks whose content hash starts with this key sit in the current view."""
    from maguyva_guard.index.store import module_prefix, qualify

    prefix = vectors.hash_prefix(key)
    rows = store.conn.execute(
        "SELECT f.path, f.language, c.symbol, c.line_start, c.line_end FROM chunks c"
        " JOIN files f ON f.blob_id = c.blob WHERE c.hash >= ? AND c.hash < ?",
        (prefix, prefix + "g"),
    )
    return [Place(p, qualify(module_prefix(p, lang), sym), a, b) for p, lang, sym, a, b in rows]


_searchables: dict[tuple[int, Path], tuple[Any, Any, Any, int]] = {}


def _searchable(store: Store, backend: embedding.Backend, view: View, path: Path,
                ) -> tuple[vectors.Vectors | None, Any, int]:
    """(stored vectors, rows of the view's chunks or None for all rows, how many of the
    view's chunks have a vector), embedding missing chunks first. Remembered per view and
    file version: the guard searches many times in one process."""
    import numpy as np

    memo = _searchables.get((id(view), path))
    if memo is not None and memo[0] == _stamp(path) and memo[3] == len(view.places):
        return memo[1], memo[2], memo[3]
    _fill(store, backend, view, SEARCH_SECONDS, None, SEARCH_REMOTE_MAX)
    with _lock:
        stored, rows = _load(path, backend.dimension)
    keys = [k for k in view.places if k in rows]
    candidates = None
    if stored is not None and len(keys) < len(stored.keys):
        candidates = np.fromiter((rows[k] for k in keys), dtype=np.int64, count=len(keys))
    _searchables.clear()
    _searchables[(id(view), path)] = (_stamp(path), stored, candidates, len(keys))
    return stored, candidates, len(keys)


def _hits(stored: vectors.Vectors, query: Any, candidates: Any, view: View,
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


_views: dict[tuple[str, str, str], View] = {}


def _cached_view(store: Store) -> View:
    """The current view, read once per process and view (the guard searches many times)."""
    ident = (str(store.index_dir), store.meta_get("view") or "", store.meta_get("view_digest")
             or "")
    with _lock:
        if ident not in _views:
            _views.clear()
            _views[ident] = current_view(store)
        return _views[ident]


_loaded: dict[Path, tuple[tuple[int, int, int], vectors.Vectors | None, dict[bytes, int]]] = {}


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _load(path: Path, dimension: int) -> tuple[vectors.Vectors | None, dict[bytes, int]]:
    """The stored vectors and their rows by key, re-read only when the file was replaced."""
    stamp = _stamp(path)
    if stamp is None:
        return None, {}
    cached = _loaded.get(path)
    if cached is None or cached[0] != stamp:
        found = vectors.load(path, dimension)
        cached = (stamp, found, found.rows() if found else {})
        _loaded.clear()
        _loaded[path] = cached
    return cached[1], cached[2]
