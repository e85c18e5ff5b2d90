"""Bring the index up to date with a view (the staged index, or a commit's tree).

Only blobs the index has never seen are read (one `git cat-file --batch`) and parsed; a
view that did not change costs one `git ls-files` and one query. Parsing runs in worker
processes when there are many new blobs. All writes of one update are one transaction.
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from maguyva_guard import classify, git
from maguyva_guard.records import FileSymbols
from maguyva_guard.store import BlobRecord, FileInfo, Store, StoreWriter

Progress = Callable[[int, int], None]  # (done, total) blobs parsed
View = Mapping[str, git.Entry]  # path -> entry; size -1 when not known yet
Texts = list[tuple[str, str]]  # (blob, decoded content) for the text retriever

PARALLEL_MIN_BLOBS = 200  # below this, starting workers costs more than it saves
PARALLEL_BATCH = 32  # blobs per task sent to a worker
STAGED = "staged"  # the label of the staged-index view in meta "view"


@dataclass(frozen=True)
class IndexStats:
    files: int  # paths in the view
    parsed: int  # blobs parsed by this update
    symbols: int  # definitions in the view
    references: int  # references in the view
    seconds: float


def staged_view(store: Store) -> dict[str, git.Entry]:
    """The staged index (GIT_INDEX_FILE honoured); sizes are fetched later, for new blobs."""
    return git.ls_index(store.root, sizes=False)


def tree_view(store: Store, rev: str) -> dict[str, git.Entry]:
    return git.ls_tree(store.root, git.resolve(store.root, rev))


def update(store: Store, view: View | None = None, *, label: str = STAGED,
           max_size: int = classify.MAX_FILE_BYTES,
           progress: Progress | None = None) -> IndexStats:
    """Make `view` (default: the staged index) the index's current view."""
    started = time.perf_counter()
    with store.lock():
        entries = staged_view(store) if view is None else view
        old = store.files()
        new = {p: FileInfo(e.blob, _language(p), "") for p, e in entries.items()}
        store.parse_count = 0
        if _same_view(old, new):
            if store.meta_get("view") != label:
                store.meta_set("view", label)
            return _stats(store, len(new), 0, started)
        writer = store.writer()
        fresh = _new_blobs(writer, old, entries)
        records, texts = _index_blobs(store, fresh, max_size, progress)
        status = {r.blob: r.status for r in records}
        status.update(_statuses(store, {p: e.blob for p, e in entries.items()}, status))
        final = {p: FileInfo(i.blob, i.language, classify.file_category(p, status.get(i.blob, "")))
                 for p, i in new.items()}
        with store.transaction():
            writer.add_blobs(records)
            _text_hook("index_contents", store, texts)
            writer.set_view(old, final)
            _text_hook("drop_blobs", store, writer.collect_garbage())
            symbols, references = writer.view_counts()
            store.meta_set("view", label)
            store.meta_set("counts", f"{symbols} {references}")
        store.parse_count = sum(1 for r in records if r.symbols is not None)
        _semantic_refresh(store, progress)
        return _stats(store, len(new), store.parse_count, started)


def ensure_parsed(store: Store, blobs: Mapping[str, str],
                  max_size: int = classify.MAX_FILE_BYTES) -> int:
    """Index blobs outside the current view ({blob: a path it sits at}): for a diff's old
    side. They are kept until the view changes twice. Returns how many were parsed."""
    with store.lock():
        writer = store.writer()
        missing = set(blobs) - writer.known(blobs)
        fresh = {b: blobs[b] for b in missing}
        records, texts = _index_blobs(store, {b: (p, -1) for b, p in fresh.items()}, max_size)
        with store.transaction():
            writer.add_blobs(records)
            _text_hook("index_contents", store, texts)
        return sum(1 for r in records if r.symbols is not None)


def _same_view(old: Mapping[str, FileInfo], new: Mapping[str, FileInfo]) -> bool:
    if len(old) != len(new):
        return False
    return all((o := old.get(p)) is not None and o.blob == i.blob and o.language == i.language
               for p, i in new.items())


def _new_blobs(writer: StoreWriter, old: Mapping[str, FileInfo],
               entries: View) -> dict[str, tuple[str, int]]:
    """Blobs of changed paths that the index lacks: blob -> (a path, size or -1)."""
    candidates: dict[str, tuple[str, int]] = {}
    for path, e in entries.items():
        prior = old.get(path)
        if (prior is None or prior.blob != e.blob) and e.blob not in candidates:
            candidates[e.blob] = (path, e.size)
    known = writer.known(candidates)
    return {b: v for b, v in candidates.items() if b not in known}


def _statuses(store: Store, paths: Mapping[str, str], have: Mapping[str, str]) -> dict[str, str]:
    """Statuses of the view's already-indexed blobs (for the generated category)."""
    wanted = {b for b in paths.values() if b not in have}
    rows = store.conn.execute("SELECT blob, status FROM blobs WHERE status != ?",
                              (classify.PARSED,))
    return {b: s for b, s in rows if b in wanted}


def _index_blobs(store: Store, fresh: Mapping[str, tuple[str, int]], max_size: int,
                 progress: Progress | None = None) -> tuple[list[BlobRecord], Texts]:
    """Read, classify and parse new blobs: their records, and (blob, text) for text search."""
    unknown = [b for b, (_, size) in fresh.items() if size < 0]
    sizes = {b: size for b, (_, size) in fresh.items()}
    sizes.update(git.blob_sizes(store.root, unknown) if unknown else {})
    wanted = [b for b in fresh if 0 <= sizes.get(b, -1) <= max_size]
    with git.BlobReader(store.root) as reader:
        contents = {b: data for b, data in reader.read_many(wanted) if data is not None}
    records: dict[str, BlobRecord] = {}
    texts: list[tuple[str, str]] = []
    jobs: list[tuple[str, bytes, str]] = []
    for blob, (path, _) in fresh.items():
        data, size, language = contents.get(blob, b""), sizes.get(blob, 0), _language(path)
        status = classify.blob_status(data, size, language, max_size)
        if status == classify.PARSED and classify.path_category(path) == classify.GENERATED:
            status = classify.SKIPPED_GENERATED
        if blob in contents and status not in (classify.SKIPPED_BINARY, classify.SKIPPED_SIZE):
            texts.append((blob, data.decode("utf-8", "replace")))
        if status == classify.PARSED and language is not None:
            jobs.append((blob, data, language))
        records[blob] = BlobRecord(blob, language, size, status)
    for blob, symbols in _parse_all(jobs, progress):
        rec = records[blob]
        status = classify.PARSED if symbols is not None else classify.SKIPPED_ERROR
        records[blob] = BlobRecord(blob, rec.language, rec.size, status, symbols)
    return list(records.values()), texts


def _parse_all(jobs: list[tuple[str, bytes, str]],
               progress: Progress | None) -> Iterable[tuple[str, FileSymbols | None]]:
    """Parse in-process, or in worker processes when there are many blobs."""
    total = len(jobs)
    workers = os.cpu_count() or 1
    if total < PARALLEL_MIN_BLOBS or workers < 2:
        for done, job in enumerate(jobs, 1):
            yield _parse_one(job)
            if progress:
                progress(done, total)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    batches = [jobs[i : i + PARALLEL_BATCH] for i in range(0, total, PARALLEL_BATCH)]
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    done = 0
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for future in as_completed([pool.submit(_parse_batch, b) for b in batches]):
            results = future.result()
            yield from results
            done += len(results)
            if progress:
                progress(done, total)


def _parse_batch(jobs: list[tuple[str, bytes, str]]) -> list[tuple[str, FileSymbols | None]]:
    return [_parse_one(job) for job in jobs]


def _parse_one(job: tuple[str, bytes, str]) -> tuple[str, FileSymbols | None]:
    from maguyva_guard import symbols

    blob, data, language = job
    try:
        return blob, symbols.extract(data, language)
    except Exception:  # noqa: BLE001 - one file a grammar chokes on must not stop the index
        return blob, None


def _language(path: str) -> str | None:
    from maguyva_guard import languages

    return languages.language_for(path)


def _text_hook(name: str, store: Store, items: list) -> None:  # type: ignore[type-arg]
    """Hand contents to the text retriever's own tables, when that module exists."""
    if not items or importlib.util.find_spec("maguyva_guard.retrievers.text") is None:
        return
    from maguyva_guard.retrievers import text

    hook = getattr(text, name, None)
    if hook is not None:
        hook(store.conn, items)


def _semantic_refresh(store: Store, progress: Progress | None) -> None:
    if importlib.util.find_spec("maguyva_guard.retrievers.semantic") is None:
        return
    from maguyva_guard.retrievers import semantic

    refresh = getattr(semantic, "refresh", None)
    if refresh is not None:
        refresh(store, progress)


def _stats(store: Store, files: int, parsed: int, started: float) -> IndexStats:
    counts = (store.meta_get("counts") or "0 0").split()
    return IndexStats(files, parsed, int(counts[0]), int(counts[1]),
                      time.perf_counter() - started)


def index_repo(path: str, rebuild: bool = False,
               progress: Progress | None = None) -> IndexStats:
    """`maguyva-guard index`: open (or rebuild) the repository's index and update it."""
    with Store.open(path, rebuild=rebuild) as store:
        return update(store, progress=progress)
