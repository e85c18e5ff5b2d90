"""What a cold `maguyva-guard index` leaves to a process of its own: the semantic vectors
and the centralities.

A cold build of a large repository (at least PARALLEL_MIN_BLOBS new blobs, the embedded
backend) commits its records and returns; `spawn` then starts `maguyva-guard index
--vectors` detached, which computes the centralities and the SimHash of every chunk (about
a third of a cold build's CPU) while the caller goes on. Neither holds the writer lock
while it computes: a check started meanwhile is not kept waiting, ranks with centralities
it computes itself if they are not stored yet, and says that its semantic results are
partial while vectors are missing (as after `--defer-embeddings`). Results are written
under the writer lock, merged with what checks embedded meanwhile, and only for the view
they were computed for. `index --vectors` run by hand does the same, waiting first for a
job already running (one at a time: LOCK_NAME), so it also means "wait for the vectors".
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from maguyva_guard.index import dbfile

if TYPE_CHECKING:
    from maguyva_guard.index.store import Store

LOCK_NAME = dbfile.JOB_LOCK_NAME  # held by the job that is computing (one at a time)
LOG_NAME = "background.log"  # the job's stderr (a warning, a failure), kept for inspection
WAIT_SECONDS = 3600.0  # how long a job waits for the writer lock or for another job
SAVE_SECONDS = 10.0  # vectors are merged into the file at least this often


@dataclass(frozen=True)
class Finished:
    embedded: int  # chunks this job embedded
    ranked: bool  # whether it stored centralities
    complete: bool  # every chunk of the current view has its vector


def spawn(root: Path, index_dir: Path) -> int | None:
    """Start `maguyva-guard index --vectors` for `root`, detached (its own session, no
    terminal, stderr to LOG_NAME); its process id, or None if it could not start."""
    command = [sys.executable, "-m", "maguyva_guard", "index", "--vectors", "--repo",
               str(root)]
    try:
        with open(index_dir / LOG_NAME, "wb") as log:
            job = subprocess.Popen(command, cwd=root, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=log,
                                   start_new_session=True, close_fds=True)
    except OSError:
        return None
    return job.pid


def finish(path: str) -> Finished:
    """`maguyva-guard index --vectors`: store the centralities and the vectors the current
    view lacks (after any job already at it has finished)."""
    from maguyva_guard.index.store import Store as Opened

    previous = dbfile.wait_at_most(WAIT_SECONDS)
    try:
        with Opened.open(path) as store, dbfile.IndexLock(store.index_dir / LOCK_NAME,
                                                         WAIT_SECONDS):
            ranked = _centrality(store)
            embedded, complete = _vectors(store)
    finally:
        dbfile.wait_at_most(previous)
    return Finished(embedded, ranked, complete)


def _centrality(store: Store) -> bool:
    from maguyva_guard.index import centrality

    with store.lock():
        if not centrality.needs_refresh(store):
            return False
    ranks = centrality.compute(store)
    with store.lock():
        if store.meta_get("view_digest") != ranks.digest:
            return False  # the view moved on: whoever moved it ranks it
        centrality.save(store, ranks)
    return True


def _vectors(store: Store) -> tuple[int, bool]:
    """Embed every chunk of the view the vectors file lacks, outside the writer lock;
    merge into the file under it every SAVE_SECONDS and at the end."""
    from maguyva_guard.embed import backend as embedding
    from maguyva_guard.embed import vectors
    from maguyva_guard.embed.backend import SemanticUnavailable
    from maguyva_guard.index import embeddings

    try:
        backend = embedding.select(embeddings.configured(store, None))
    except SemanticUnavailable as exc:
        embedding.warn_once(f"semantic search unavailable: {exc.reason}")
        return 0, False
    path = vectors.file_for(store.index_dir, *embedding.tag(backend))
    digest = store.meta_get("view_digest")
    view = embeddings.current_view(store, places=False)
    _, known = embeddings.load(path, backend.dimension)
    # In key order: the file's rows, hence the order of equally distant search hits, are
    # then the same whichever parse worker finished first (not so for the workers' vectors).
    missing = sorted(k for k in view.places if k not in known)
    keys: list[bytes] = []
    pieces: list[Any] = []
    done, saved = 0, time.monotonic()
    for start in range(0, len(missing), embeddings.BATCH):
        batch = missing[start : start + embeddings.BATCH]
        pieces.append(backend.embed(view.texts_of(store, batch), embedding.DOCUMENT))
        keys += batch
        if time.monotonic() - saved >= SAVE_SECONDS:
            done += _merge(store, path, backend.dimension, keys, pieces)
            keys, pieces, saved = [], [], time.monotonic()
    with store.lock():
        done += _merge(store, path, backend.dimension, keys, pieces)
        now = embeddings.current_view(store, places=False)
        embeddings.mark_complete(store, path, now, backend.dimension)
        complete = embeddings.is_complete(store, path)
        if complete and digest and digest == store.meta_get("view_digest"):
            store.meta_set("embedded_view", digest)
    return done, complete


def _merge(store: Store, path: Path, dimension: int, keys: list[bytes], pieces: list[Any]
           ) -> int:
    """Add these vectors to the file, keeping what it holds now (a check may have embedded
    and saved some meanwhile); returns how many were added."""
    if not keys:
        return 0
    import numpy as np

    from maguyva_guard.embed import vectors
    from maguyva_guard.index import embeddings

    with store.lock(), embeddings.lock:
        have, held = embeddings.load(path, dimension)
        bits = np.concatenate(pieces)
        new = [i for i, k in enumerate(keys) if k not in held]
        old_keys = list(have.keys) if have is not None else []
        parts = ([np.asarray(have.bits)] if have is not None else []) + [bits[new]]
        vectors.save(path, old_keys + [keys[i] for i in new], np.concatenate(parts))
    return len(new)


def running(index_dir: Path) -> bool:
    """Whether a job holds LOCK_NAME now: a search then leaves the missing vectors to it
    instead of embedding them on the check's own time."""
    import fcntl
    import os

    try:
        fd = os.open(index_dir / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
