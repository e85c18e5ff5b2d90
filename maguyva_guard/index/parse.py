"""Read, classify and parse the blobs an update has not seen, writing them as they come.

Contents come through one `git cat-file --batch`. Blobs over the size limit are not read;
binary, generated and unsupported ones are recorded with the reason and not parsed. With
many blobs to parse, worker processes parse (fork: the grammars are already loaded) and
turn records into row tuples themselves, while this process writes the rows of finished
batches into the open transaction: parsing and SQLite overlap. Asked to (`Embedding`, a
cold `index` with the embedded backend), the workers also embed the chunks they extract,
so that the SimHash, the other half of a cold build's CPU, runs on every core too.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from maguyva_guard import git
from maguyva_guard.extract import classify
from maguyva_guard.extract.detect import BY_CONTENT, language_of_source
from maguyva_guard.index.writer import BlobRows, Row, StoreWriter, symbol_rows

if TYPE_CHECKING:
    from maguyva_guard.embed.hashed import HashEmbedder

Progress = Callable[[int, int], None]  # (done, total) blobs parsed
Job = tuple[int, bytes, str]  # (blob id, content, language)
Texts = list[tuple[str, str]]  # (oid, decoded text) for the text retriever
Vectors = dict[bytes, bytes]  # chunk key (vectors.key_of) -> packed sign bits

PARALLEL_MIN_BLOBS = 200  # below this, starting workers costs more than it saves
PARALLEL_BATCH = 16  # blobs per task sent to a worker
WRITE_BATCH = 64  # parsed blobs whose rows go to SQLite in one executemany
PARENT_POLL_SECONDS = 0.5  # how soon a worker notices that its parent was killed
# Features whose random rows a worker keeps (about 200 bytes each): a quarter of the
# embedder's default, since every worker has its own (20,000 files: 557 MB for the process
# tree with the default, against a 500 MB target).
WORKER_FEATURE_CACHE = 50_000


@dataclass
class Outcome:
    parsed: int = 0
    status: dict[str, str] = field(default_factory=dict)  # oid -> blob status
    texts: Texts = field(default_factory=list)  # emptied once `meanwhile` has them
    vectors: Vectors = field(default_factory=dict)  # embedded by the workers (Embedding)


@dataclass(frozen=True)
class Embedding:
    """What parse workers embed: chunks of the embedded backend at this dimension whose
    key is not in `known` (the vectors file has them already)."""

    dimension: int
    known: frozenset[bytes] = frozenset()


_embedding: Embedding | None = None  # in a worker: set by the pool's initializer


def index_blobs(root: str, writer: StoreWriter, fresh: Mapping[str, tuple[str, int]],
                language_of: Callable[[str], str | None], max_size: int,
                progress: Progress | None = None,
                meanwhile: Callable[[Texts], None] | None = None,
                embedding: Embedding | None = None) -> Outcome:
    """Record every blob of `fresh` ({oid: (a path, size or -1)}) in the open transaction.

    `meanwhile(texts)` runs in this process while the workers parse (the text index).
    `embedding`: worker processes (not an in-process parse) embed the chunks, returned in
    `Outcome.vectors` for the embedding refresh to save.
    """
    unknown = [b for b, (_, size) in fresh.items() if size < 0]
    sizes = {b: size for b, (_, size) in fresh.items()}
    sizes.update(git.blob_sizes(root, unknown) if unknown else {})
    by_name = {b for b, (path, _) in fresh.items() if classify.binary_by_name(path)}
    wanted = [b for b in fresh if 0 <= sizes.get(b, -1) <= max_size and b not in by_name]
    with git.BlobReader(root) as reader:
        contents = {b: data for b, data in reader.read_many(wanted) if data is not None}
    out = Outcome()
    jobs: list[Job] = []
    pending: dict[int, tuple[str, str, int]] = {}  # id -> (oid, language, size)
    next_id = writer.next_id()
    for oid, (path, _) in fresh.items():
        blob_id, next_id = next_id, next_id + 1
        data, size, language = contents.get(oid, b""), max(sizes.get(oid, 0), 0), language_of(path)
        if language in BY_CONTENT and data:  # a `.h` header, a file without an extension
            language = language_of_source(path, data)
        status = (classify.SKIPPED_BINARY if oid in by_name
                  else _status(path, data, size, language, max_size))
        if oid in contents and status not in (classify.SKIPPED_BINARY, classify.SKIPPED_SIZE) \
                and classify.text_indexed(path):
            out.texts.append((oid, data.decode("utf-8", "replace")))
        if status == classify.PARSED and language is not None:
            jobs.append((blob_id, data, language))
            pending[blob_id] = (oid, language, size)
        else:
            writer.add_blob(blob_id, oid, language, size, status)
            out.status[oid] = status
    contents.clear()
    batch: list[BlobRows] = []
    def text_index() -> None:  # then drop the decoded texts: a large repository's bytes
        if meanwhile is not None:
            meanwhile(out.texts)
        out.texts = []

    for blob_id, rows in parse_all(jobs, progress, text_index, embedding):
        oid, language, size = pending[blob_id]
        status = classify.PARSED if rows is not None else classify.SKIPPED_ERROR
        writer.add_blob(blob_id, oid, language, size, status, rows.parse_errors if rows else 0)
        out.status[oid] = status
        if rows is not None:
            out.parsed += 1
            batch.append(rows)
            out.vectors.update(rows.vectors)
        if len(batch) >= WRITE_BATCH:
            writer.add_rows(batch)
            batch = []
    writer.add_rows(batch)
    return out


def _status(path: str, data: bytes, size: int, language: str | None, max_size: int) -> str:
    status = classify.blob_status(data, size, language, max_size)
    if status == classify.PARSED and path.endswith((".min.js", ".min.mjs", ".min.css")):
        return classify.SKIPPED_GENERATED  # minified by name, even with short lines
    return status


def parse_all(jobs: list[Job], progress: Progress | None,
              meanwhile: Callable[[], object] | None = None,
              embedding: Embedding | None = None,
              ) -> Iterator[tuple[int, BlobRows | None]]:
    """Parse in-process, or in worker processes when there are many blobs; `meanwhile()`
    runs here once the workers have their jobs (before parsing when in-process). The
    worker path consumes `jobs` (the list is emptied: its contents go as they are sent). Only
    workers embed (`embedding`): in-process, numpy would cost a small update more than
    the embedding refresh's plain-Python path."""
    total = len(jobs)
    workers = os.cpu_count() or 1
    if total < PARALLEL_MIN_BLOBS or workers < 2:
        if meanwhile:
            meanwhile()
        for done, job in enumerate(jobs, 1):
            yield parse_one(job)
            if progress:
                progress(done, total)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # Largest first, so that one big file does not finish last on a single worker.
    jobs.sort(key=lambda j: -len(j[1]))
    count = -(-total // PARALLEL_BATCH)  # batches of similar total size: strided over the sort
    batches = [jobs[i::count] for i in range(count)]
    jobs.clear()
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    done = 0
    with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                             initializer=start_worker,
                             initargs=(os.getpid(), embedding)) as pool:
        # No reference to the batches or their futures is kept here: the pool drops a
        # batch's contents once it is done, and as_completed a future once it is yielded,
        # so a finished batch's rows are freed once written instead of piling up until the
        # last one (a 100,000-file repository's contents and records at once).
        finishing = as_completed([pool.submit(parse_batch, b) for b in batches])
        batches.clear()
        if meanwhile:
            meanwhile()
        for future in finishing:
            results = future.result()
            del future
            yield from results
            done += len(results)
            if progress:
                progress(done, total)


def start_worker(parent: int, embedding: Embedding | None) -> None:
    global _embedding
    _embedding = embedding
    watch_parent(parent)


def watch_parent(parent: int) -> None:
    """In each worker: exit once the parent is gone. A parent killed with SIGKILL (a hook
    stopped hard) cannot shut its pool down; its workers would wait for jobs forever,
    holding the hook's output pipes open, so whoever ran the hook would hang too."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def parse_batch(jobs: list[Job]) -> list[tuple[int, BlobRows | None]]:
    """A worker's task: parse each blob, then embed the chunks of all of them at once (one
    embedding call per file cost a tenth more: numpy's fixed costs, per call)."""
    results = [parse_one(job) for job in jobs]
    if _embedding is not None:
        parsed = [rows for _, rows in results if rows is not None and rows.chunks]
        found = embed_chunks([row for rows in parsed for row in rows.chunks], _embedding)
        for rows in parsed:  # each blob's rows carry the vectors of its own chunks
            keys = {vectors_key(str(row[4])) for row in rows.chunks}
            rows.vectors.update((k, found[k]) for k in keys if k in found)
    return results


def parse_one(job: Job) -> tuple[int, BlobRows | None]:
    from maguyva_guard.extract import symbols

    blob_id, data, language = job
    try:
        rows = symbol_rows(blob_id, symbols.extract_fields(data, language))
    except Exception:  # noqa: BLE001 - one file a grammar chokes on must not stop the index
        return blob_id, None
    return blob_id, rows


def vectors_key(content_hash: str) -> bytes:
    from maguyva_guard.embed import vectors

    return vectors.key_of(content_hash)


def embed_chunks(chunks: list[Row], embedding: Embedding) -> Vectors:
    """The packed bits of these chunk rows (writer.symbol_rows: hash 5th, text 6th) that
    `embedding.known` lacks, by the embedded backend: the very bits the refresh computes."""
    from maguyva_guard.embed import vectors

    wanted: dict[bytes, str] = {}
    for row in chunks:
        key = vectors.key_of(str(row[4]))
        if key not in embedding.known:
            wanted.setdefault(key, str(row[5]))
    if not wanted:
        return {}
    bits = embedder(embedding.dimension).embed(list(wanted.values()))
    return {key: row.tobytes() for key, row in zip(wanted, bits, strict=True)}


@lru_cache(maxsize=1)
def embedder(dimension: int) -> HashEmbedder:
    """One embedder per worker: it caches each feature's random row across blobs."""
    from maguyva_guard.embed.hashed import HashEmbedder

    return HashEmbedder(dimension, cache_limit=WORKER_FEATURE_CACHE)
