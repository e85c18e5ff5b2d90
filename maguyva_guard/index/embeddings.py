"""Embeddings at index time: the current view's chunks turned into vectors, time-boxed.

    refresh(store, progress, delta=...)   # the indexer, after each update: embed new chunks
    refresh(store, budget=None)           # `maguyva-guard index`: embed everything

Vectors are cached by chunk content hash, one file per backend (embed/vectors.py): a chunk
is embedded once per backend, an incremental update embeds only its new chunks, and
switching backends re-embeds into that backend's own file (vectors are never mixed).

Embedding is bounded in time, so an index update does not blow its budget on a cold index
of a big repository (Django: ~43k chunks, ~6 s of CPU for the embedded backend, minutes
through the network): `refresh` embeds for at most EAGER_SECONDS, saving after every batch;
what is left follows on the next runs (each update embeds at least one batch). The semantic
retriever (retrievers/semantic.py) reads what is here and fills gaps within its own budget.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from maguyva_guard.embed import backend as embedding
from maguyva_guard.embed import vectors
from maguyva_guard.embed.backend import SemanticUnavailable
from maguyva_guard.embed.hashed import HashEmbedder

if TYPE_CHECKING:
    from maguyva_guard.index.parse import Embedding
    from maguyva_guard.index.store import Store


@dataclass(frozen=True)
class Delta:
    """What an index update changed, as the embedding refresh needs it."""

    parsed: int = -1  # blobs the update parsed (0: no new chunk text; -1: not known)
    previous_view: str | None = None  # the view digest before the update
    changed_blobs: Sequence[str] | None = None  # blobs at the paths the update changed
    # Packed bits the parse workers computed (parse.Embedding), by chunk key: saved as they
    # are instead of embedded again. Only ever the embedded backend's, at its dimension.
    embedded: Mapping[bytes, bytes] | None = None


UNKNOWN: Final = Delta()  # a refresh outside an update: nothing is assumed

EAGER_SECONDS: Final = 1.0  # embedding time an index update may spend (then lazily)


BATCH: Final = 2048  # chunks embedded at a time
# Vectors are saved when this long has passed since the last save, and at the end: a run
# stopped half-way keeps most of its work, and a cold index of 500,000 chunks no longer
# rewrites the whole file after every batch (that was quadratic: 250 rewrites of up to 70 MB).
SAVE_SECONDS: Final = 10.0


# An update's changed files hold chunks already embedded (one edited function in a file of
# 200): of those, at most this many missing ones are embedded without numpy (~15 ms each).
PLAIN_FILL_MAX: Final = 16


# Vectors of chunks that left the view are kept (a branch switch back costs nothing) until
# the file holds this many times the view's chunks; then it is pruned to the view.
PRUNE_RATIO: Final = 2


Progress = Callable[[int, int], None]


lock = threading.Lock()  # one embedder/writer per process; files are replaced atomically


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
    whole: bool = True  # False: only the chunks an update changed (never prune by it)

    def texts_of(self, store: Store, keys: list[bytes]) -> list[str]:
        """The texts to embed, read from the store for just these chunks."""
        by_hash = store.chunk_texts(self.digests[k] for k in keys)
        return [by_hash.get(self.digests[k], "") for k in keys]


def current_view(store: Store, places: bool = True) -> View:
    """Where every chunk of the current view sits (with `places`; else only which chunks
    there are, all refresh needs); texts are read later, only for chunks to embed."""
    view = View({}, {})
    if not places:  # one column, each distinct hash once (a cold 100,000-file index: 500k)
        for digest in dict.fromkeys(store.chunk_hashes()):
            key = vectors.key_of(digest)
            if key not in view.digests:
                view.places[key] = []
                view.digests[key] = digest
        return view
    for digest, path, symbol, start, end in store.chunk_places():
        key = vectors.key_of(digest)
        if key not in view.digests:
            view.places[key] = []
            view.digests[key] = digest
        view.places[key].append(Place(path, symbol, start, end))
    return view


def refresh(store: Store, progress: Progress | None = None, *, config: Any = None,
            budget: float | None = EAGER_SECONDS, delta: Delta = UNKNOWN) -> int:
    """Embed the current view's chunks that the configured backend has not embedded yet,
    for at most `budget` seconds (None: all). Returns how many were embedded. A backend
    failure is reported once on stderr and leaves the index usable (returns 0)."""
    backend = embedding.select(configured(store, config))
    path = vectors.file_for(store.index_dir, *embedding.tag(backend))
    try:
        _discard_if_damaged(store, path, backend.dimension)
        changed = _changed_chunks(store, path, delta)
        if changed is not None:
            # The previous view was fully embedded: only the changed files' chunks can be
            # missing (a one-file commit reads a few rows, not the whole view's 45k), with
            # a budget (check, query) or without (index) alike.
            done = fill(store, backend, changed, budget, progress, embedded=delta.embedded)
            mark_complete(store, path, changed, backend.dimension, incremental=True)
            return done
        if budget is not None and delta.parsed == 0 and path.is_file():
            # The update parsed no new blob, so it brought no new chunk text: skip reading
            # the view (~0.2 s on 45k chunks). A chunk still missing (an earlier backlog)
            # is embedded by the next search.
            return 0
        view = current_view(store, places=False)
        done = fill(store, backend, view, budget, progress, embedded=delta.embedded)
        mark_complete(store, path, view, backend.dimension)
        return done
    except SemanticUnavailable as exc:
        embedding.warn_once(f"semantic search unavailable: {exc.reason}")
        return 0
    except OSError as exc:  # a full disk: the vectors saved so far stay, the rest wait
        embedding.warn_once(f"semantic vectors not saved: {exc.strerror or exc}")
        return 0


def rebuild_if_damaged(store: Store, progress: Progress | None = None) -> None:
    """For an unchanged view, before a search reads the vectors: a damaged file is rebuilt
    (refresh) with one warning; a sound one costs a read the search reuses (cached)."""
    try:
        backend = embedding.select(configured(store, None))
    except SemanticUnavailable:
        return
    path = vectors.file_for(store.index_dir, *embedding.tag(backend))
    if vectors.damage(path, backend.dimension // 8) is not None:
        refresh(store, progress)


def vectors_missing(store: Store) -> bool:
    """Whether the configured backend's vectors file is gone while the view was embedded
    (deleted by hand or by a cache cleaner): `index` then embeds the view again."""
    try:
        backend = embedding.select(configured(store, None))
    except SemanticUnavailable:
        return False
    return not vectors.file_for(store.index_dir, *embedding.tag(backend)).is_file()


def _discard_if_damaged(store: Store, path: Path, dimension: int) -> None:
    """A damaged vectors file would answer wrong or nothing, silently: remove it and its
    completeness mark (the refresh then embeds the whole view again, as for a new index)
    and say so once."""
    problem = vectors.damage(path, dimension // 8)
    if problem is None:
        return
    path.unlink(missing_ok=True)
    store.meta_set(complete_key(path), "")
    embedding.warn_once(f"semantic vectors were damaged ({problem}); rebuilding them")


def configured(store: Store, config: Any) -> Any:
    """The settings to use: those given, else the repository's (refresh gets none)."""
    if config is not None:
        return config
    from maguyva_guard.config import load_config

    return load_config(store.root).semantic


def fill(store: Store, backend: embedding.Backend, view: View, budget: float | None,
          progress: Progress | None, remote_max: int | None = None,
          embedded: Mapping[bytes, bytes] | None = None) -> int:
    """Embed missing chunks in batches until done or out of time, saving every
    SAVE_SECONDS and at the end.

    With `remote_max`, a network backend embeds nothing when more than that are missing.
    `embedded`: bits the parse workers already computed (Delta.embedded), used as they are.
    """
    path = vectors.file_for(store.index_dir, *embedding.tag(backend))
    with lock:
        if isinstance(backend, HashEmbedder) and not view.whole:
            done = _fill_plain(store, backend, view, path, budget, progress)
            if done is not None:
                return done
        have, known = load(path, backend.dimension)
        keys = list(have.keys) if have else []
        bits = have.bits if have else None
        missing = [k for k in view.places if k not in known]
        if remote_max is not None and backend.name != embedding.EMBEDDED \
                and len(missing) > remote_max:
            return 0
        started = saved = time.monotonic()
        done = 0
        pending: list[bytes] = []  # keys embedded since the last save, and their bits:
        pieces: list[Any] = []
        for start in range(0, len(missing), BATCH):
            if budget is not None and start and time.monotonic() - started > budget:
                break
            batch = missing[start : start + BATCH]
            pieces.append(_embed_batch(store, backend, view, batch, embedded))
            pending += batch
            done += len(batch)
            if time.monotonic() - saved >= SAVE_SECONDS:
                keys, bits = _save(path, keys + pending, (bits, *pieces), view)
                pending, pieces, saved = [], [], time.monotonic()
            if progress is not None:
                progress(done, len(missing))
        if pending:
            keys, bits = _save(path, keys + pending, (bits, *pieces), view)
        return done


def _embed_batch(store: Store, backend: embedding.Backend, view: View, batch: list[bytes],
                 embedded: Mapping[bytes, bytes] | None) -> Any:
    """The packed bits of these chunks: those the workers computed, the rest embedded now
    (reading only their texts)."""
    if not embedded or not isinstance(backend, HashEmbedder):
        return backend.embed(view.texts_of(store, batch), embedding.DOCUMENT)
    import numpy as np

    todo = [k for k in batch if k not in embedded]
    fresh = dict(zip(todo, backend.embed(view.texts_of(store, todo), embedding.DOCUMENT)
                     if todo else [], strict=True))
    rows = [embedded[k] if k in embedded else fresh[k].tobytes() for k in batch]
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(batch), -1)


def worker_embedding(store: Store) -> Embedding | None:
    """For a cold `index`: the parse workers embed the new chunks (parse.Embedding) when
    the embedded backend is configured (a network backend is called from here only),
    skipping chunks the vectors file already holds."""
    try:
        backend = embedding.select(configured(store, None))
    except SemanticUnavailable:
        return None
    if not isinstance(backend, HashEmbedder):
        return None
    path = vectors.file_for(store.index_dir, *embedding.tag(backend))
    known = vectors.read_keys(path, backend.dimension // 8) if path.is_file() else None
    from maguyva_guard.index.parse import Embedding

    return Embedding(backend.dimension, frozenset(known or ()))


def _fill_plain(store: Store, backend: HashEmbedder, view: View, path: Path,
                budget: float | None, progress: Progress | None) -> int | None:
    """A few chunks (a commit's changed functions) embedded and appended in plain Python,
    in batches within the budget as fill does: importing numpy and loading the matrix
    cost ~0.3 s of a hook's run, embedding one chunk ~15 ms. None (nothing done) when
    there is no file to append to, or too much to do this way."""
    known = vectors.held(path, backend.dimension // 8, list(view.places))
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
    if cached is not None and cached[0] == file_stamp(path):
        return cached[2]
    return vectors.read_keys(path, dimension // 8) or set()


def _held(path: Path, dimension: int, keys: list[bytes]) -> set[bytes]:
    """Which of `keys` `path` holds (a commit's few chunks: see vectors.held)."""
    cached = _loaded.get(path)
    if cached is not None and cached[0] == file_stamp(path):
        return {k for k in keys if k in cached[2]}
    return vectors.held(path, dimension // 8, keys) or set()


def _save(path: Path, keys: list[bytes], bits: Any, view: View) -> tuple[list[bytes], Any]:
    """Write keys and bits (an array, or a pair to concatenate); returns what was written."""
    import numpy as np

    if isinstance(bits, tuple):
        bits = tuple(b for b in bits if b is not None)
    matrix = np.concatenate(bits) if isinstance(bits, tuple) else bits
    if view.whole and len(keys) > PRUNE_RATIO * max(len(view.places), 1):
        keep = [i for i, k in enumerate(keys) if k in view.places]
        keys, matrix = [keys[i] for i in keep], matrix[keep]
    vectors.save(path, keys, matrix)
    return keys, matrix


def _changed_chunks(store: Store, path: Path, delta: Delta) -> View | None:
    """The chunks of the blobs the last update brought in, when the view before it had a
    vector for every chunk; None when that is not known (then the whole view is read)."""
    previous, blobs = delta.previous_view, delta.changed_blobs
    if not previous or blobs is None or store.meta_get(complete_key(path)) != previous:
        return None
    view = View({}, {}, whole=False)
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


def complete_key(path: Path) -> str:
    return f"semantic_complete:{path.name}"


def mark_complete(store: Store, path: Path, view: View, dimension: int,
                   incremental: bool = False) -> None:
    """Remember that every chunk of this view has a vector in `path` (for the fast path).
    `incremental`: `view` holds only what the last update changed, the rest was complete."""
    with lock:
        rows = _held(path, dimension, list(view.digests)) if incremental \
            else _known_keys(path, dimension)
    complete = (bool(view.digests) or incremental) and all(k in rows for k in view.digests)
    digest = (store.meta_get("view_digest") or "") if complete else ""
    if store.meta_get(complete_key(path)) != digest:
        store.meta_set(complete_key(path), digest)


def fully_embedded(store: Store) -> bool:
    """Whether the configured backend has a vector for every chunk of the current view
    (True when semantic search is unavailable: nothing is left to embed)."""
    try:
        backend = embedding.select(configured(store, None))
    except SemanticUnavailable:
        return True
    path = vectors.file_for(store.index_dir, *embedding.tag(backend))
    if is_complete(store, path):
        return True
    with lock:
        known = _known_keys(path, backend.dimension)
    return all(key in known for key in current_view(store, places=False).places)


def complete_file(store: Store) -> Path | None:
    """The vectors file of the configured backend when it is the embedded one as configured
    (nothing to warn about on each run) and holds every chunk of the view; else None."""
    chosen = embedding.settings(configured(store, None))
    if chosen.backend != embedding.EMBEDDED or chosen.model != HashEmbedder.model:
        return None
    try:
        backend = embedding.select(configured(store, None))
    except SemanticUnavailable:
        return None
    path = vectors.file_for(store.index_dir, *embedding.tag(backend))
    return path if is_complete(store, path) else None


def is_complete(store: Store, path: Path) -> bool:
    digest = store.meta_get("view_digest")
    return bool(digest) and store.meta_get(complete_key(path)) == digest and path.is_file()


_loaded: dict[Path, tuple[tuple[int, int, int], vectors.Vectors | None, dict[bytes, int]]] = {}


def file_stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def load(path: Path, dimension: int) -> tuple[vectors.Vectors | None, dict[bytes, int]]:
    """The stored vectors and their rows by key, re-read only when the file was replaced."""
    stamp = file_stamp(path)
    if stamp is None:
        return None, {}
    cached = _loaded.get(path)
    if cached is None or cached[0] != stamp:
        found = vectors.load(path, dimension)
        cached = (stamp, found, found.rows() if found else {})
        _loaded.clear()
        _loaded[path] = cached
    return cached[1], cached[2]

