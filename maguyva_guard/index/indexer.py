"""Bring the index up to date with a view (the staged index, or a commit's tree).

Only blobs the index has never seen are read and parsed (parse.py); a view that did not
change costs one `git ls-files` and one query. All writes of one update are one transaction:
a run killed half-way leaves the previous view intact.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from maguyva_guard import git
from maguyva_guard.extract import classify
from maguyva_guard.extract.detect import BY_CONTENT
from maguyva_guard.index import embeddings, quick
from maguyva_guard.index.embeddings import UNKNOWN, Delta
from maguyva_guard.index.schema import FileInfo
from maguyva_guard.index.store import Store
from maguyva_guard.index.writer import StoreWriter
from maguyva_guard.records import FileSymbols

Progress = Callable[[int, int], None]  # (done, total) blobs parsed (parse.Progress)
View = Mapping[str, git.Entry]  # path -> entry; size -1 when not known yet
STAGED_VIEW = "staged"  # the label of the staged-index view in meta "view"
COUNT_DELTA_MAX_PATHS = 500  # beyond this many changed paths, count the view afresh

PARSING = "parsing"  # progress steps (see step)
EMBEDDING = "embedding"

__all__ = ["IndexStats", "Progress", "View", "ensure_parsed", "index_repo", "staged_view",
           "symbols_for", "tree_view", "update", "update_tree"]


@dataclass(frozen=True)
class IndexStats:
    files: int  # paths in the view
    parsed: int  # blobs parsed by this update
    symbols: int  # definitions in the view
    references: int  # references in the view
    seconds: float
    embedded: bool = True  # every chunk of the view has its semantic vector (index_repo)
    background: int | None = None  # the process computing vectors and centrality (index_repo)
    # Set by update(later=...): vectors and centrality were left to the background job.
    later: bool = False


def staged_view(store: Store) -> dict[str, git.Entry]:
    """The staged index (GIT_INDEX_FILE honoured); sizes are fetched later, for new blobs."""
    return git.ls_index(store.root, sizes=False)


def tree_view(store: Store, rev: str) -> dict[str, git.Entry]:
    return git.ls_tree(store.root, git.resolve(store.root, rev))


def index_repo(path: str, rebuild: bool = False, progress: Progress | None = None,
               embed: bool = True, after: Callable[[Store], None] | None = None,
               background: bool = False) -> IndexStats:
    """`maguyva-guard index`: open (or rebuild) the repository's index and update it.

    `embed=False` (`--defer-embeddings`): the semantic vectors get an update's usual time
    box only (the parse workers do not embed), about 40% of a cold build's CPU; the next
    `index` embeds the rest, and searches until then fill what they can in their own budget
    and say that their semantic results are partial. `IndexStats.embedded` tells.
    A complete run leaves the stamp that lets the next one answer "unchanged" without the
    engine (index/quick.py); its inputs are taken before git is read. `after` derives
    more from a view this run changed, while the lock is held (the tests' view:
    guard/testview.py, which this stage may not import); an unchanged view imports and
    reads nothing more. `background` (the `index` command): when this run parses at least
    PARALLEL_MIN_BLOBS new blobs, it leaves the vectors and the centralities to a detached
    `index --vectors` (index/background.py), whose process id `IndexStats.background` is."""
    place = quick.locate(path) if embed else None
    taken = quick.inputs(place) if place is not None else None
    with Store.open(path, rebuild=rebuild, exclusive=True) as store:
        quick.forget(store.index_dir)
        viewed = store.meta_get("view_digest")
        stats = update(store, progress=progress, embed_all=embed, later=background)
        if not stats.later:
            from maguyva_guard.index import centrality

            centrality.refresh(store)  # so that the first hook run after `index` is warm
        if after is not None and store.meta_get("view_digest") != viewed:
            after(store)
        if stats.later:
            root, index_dir = store.root, store.index_dir
        elif embed:
            _stamp_on_close(store, place, taken, stats)
            return stats
        else:
            return replace(stats, embedded=embeddings.fully_embedded(store))
    # The writer lock is released: the job takes it only to write what it computed.
    from maguyva_guard.index import background as job

    return replace(stats, embedded=False, background=job.spawn(root, index_dir))


def _stamp_on_close(store: Store, place: quick.Place | None, taken: dict[str, str] | None,
                    stats: IndexStats) -> None:
    """Have the store write the no-change stamp once it is closed clean, when the view is
    the staged one and every chunk has its vector in the configured embedded backend."""
    vectors = embeddings.complete_file(store)
    if place is None or taken is None or vectors is None or place.root != store.root \
            or place.index_dir != store.index_dir or store.meta_get("view") != STAGED_VIEW:
        return
    counts = quick.Counts(stats.files, stats.symbols, stats.references)
    store.on_close.append(lambda: quick.save(place, taken, counts, vectors))


def update(store: Store, view: View | None = None, *, label: str = STAGED_VIEW,
           max_size: int | None = None, progress: Progress | None = None,
           embed_all: bool = False, later: bool = False) -> IndexStats:
    """Make `view` (default: the staged index) the index's current view.

    `label` names the view in meta "view" ("staged", or "tree:<commit>" from update_tree).
    An unchanged view is recognised by a digest of git's own listing, before any parsing.
    Embeddings: a changed view gets the semantic module's time-boxed refresh; `embed_all`
    (the `index` command) embeds every chunk still missing, changed view or not.
    `later` (with `embed_all`): an update that parses at least PARALLEL_MIN_BLOBS new blobs
    embeds nothing (IndexStats.later says so): a background job will (index_repo).
    """
    started = time.perf_counter()
    with store.lock():
        max_size = _check_extractor(store, max_size)
        raw = git.ls_index_raw(store.root) if view is None else None
        digest = _digest(raw) if raw is not None else _view_digest(view or {})
        if store.meta_get("view_digest") == digest:
            if store.meta_get("view") != label:
                store.meta_set("view", label)
            if embed_all and (store.meta_get("embedded_view") != digest
                              or embeddings.vectors_missing(store)):
                _embed(store, progress, UNKNOWN, everything=True)
                store.meta_set("embedded_view", digest)
            else:
                embeddings.rebuild_if_damaged(store, progress)
            return _stats(store, -1, 0, started)
        entries = git.ls_index(store.root, sizes=False, raw=raw) if view is None else view
        return _update(store, entries, digest, label, max_size, progress, started, embed_all,
                       later)


def update_tree(store: Store, rev: str, *, max_size: int | None = None,
                progress: Progress | None = None) -> IndexStats:
    """Make a revision's tree the current view (a tree id is its own digest)."""
    started = time.perf_counter()
    with store.lock():
        max_size = _check_extractor(store, max_size)
        tree = git.tree_id(store.root, rev)
        label = f"tree:{git.resolve(store.root, rev)}"
        if store.meta_get("view_digest") == f"tree:{tree}":
            if store.meta_get("view") != label:
                store.meta_set("view", label)
            return _stats(store, -1, 0, started)
        entries = git.ls_tree(store.root, tree)
        return _update(store, entries, f"tree:{tree}", label, max_size, progress, started)


def _update(store: Store, entries: View, digest: str, label: str, max_size: int,
            progress: Progress | None, started: float, embed_all: bool = False,
            later: bool = False) -> IndexStats:
    # Imported here: an unchanged view (the usual hook run) parses and reads nothing.
    from maguyva_guard.index import fulltext
    from maguyva_guard.index import parse as blobparse

    old = store.files()
    writer = store.writer()
    changes = _changes(old, entries)
    fresh = _new_blobs(writer, changes)
    # What changed, for the embedding refresh: it embeds the chunks of these blobs only,
    # when the previous view was fully embedded (instead of reading the whole view).
    previous_view = store.meta_get("view_digest")
    changed_blobs = [e.blob for e in changes.changed.values()]
    # `index` embeds everything anyway: then the parse workers embed too, on every core.
    in_workers = embeddings.worker_embedding(store) if embed_all and fresh else None
    # ... unless a background job is to embed (the embedded backend, many new blobs).
    later = later and in_workers is not None and len(fresh) >= blobparse.PARALLEL_MIN_BLOBS
    if later:
        in_workers = None
    step(progress, PARSING)
    with store.transaction():
        with writer.bulk():
            outcome = blobparse.index_blobs(
                str(store.root), writer, fresh, language_of, max_size, progress,
                meanwhile=lambda texts: fulltext.index_contents(store.conn, texts),
                embedding=in_workers)
        new = _final_view(store, old, changes, outcome.status)
        symbols, references = _counts(store, writer, old, new, changes)
        writer.set_view(old, new, (*changes.changed, *changes.removed))
        garbage = writer.collect_garbage()
        if garbage:
            fulltext.drop_blobs(store.conn, garbage)
        if symbols < 0:
            symbols, references = writer.view_counts()
        store.meta_set("view", label)
        store.meta_set("view_digest", digest)
        store.meta_set("counts", f"{len(entries)} {symbols} {references}")
    store.remember_view(digest, new)
    if later:
        return replace(_stats(store, len(entries), outcome.parsed, started), later=True)
    _embed(store, progress, Delta(outcome.parsed, previous_view, changed_blobs,
                                  outcome.vectors), everything=embed_all)
    if embed_all:  # so that the next `index` of this view need not ask again
        store.meta_set("embedded_view", digest)
    return _stats(store, len(entries), outcome.parsed, started)


@lru_cache(maxsize=1)
def extractor_fingerprint() -> str:
    """A digest of the package version and of the extraction code and queries."""
    import maguyva_guard

    return quick.fingerprint(Path(maguyva_guard.__file__).parent, maguyva_guard.__version__)


def _check_extractor(store: Store, max_size: int | None) -> int:
    """Forget every record if another version of the extractor made them; forget the blobs
    whose fate depends on the size limit if the limit changed. Returns the limit in force:
    `max_size`, or the repository's configured one (so that `index`, `query` and `check`
    always agree, whoever calls without a limit)."""
    if max_size is None:
        from maguyva_guard import config

        max_size = config.load_config(store.root).max_file_size
    fingerprint = extractor_fingerprint()
    if store.meta_get("extractor") != fingerprint:
        with store.transaction():
            store.writer().forget_all()
            store.meta_set("extractor", fingerprint)
            store.meta_set("max_size", str(max_size))
    elif store.meta_get("max_size") != str(max_size):
        with store.transaction():
            store.writer().forget_size_dependent(max_size)
            store.meta_set("max_size", str(max_size))
    return max_size


class Changes(NamedTuple):
    """How a view differs from the index's: worked out once per update (each step used to
    compare all 100,000 paths of a large repository again, six passes a warm check)."""

    changed: dict[str, git.Entry]  # new paths and paths at another blob, in the view's order
    removed: list[str]  # paths of the index's view that the view lacks, in path order


def _changes(old: Mapping[str, FileInfo], entries: View) -> Changes:
    changed = {p: e for p, e in entries.items() if (o := old.get(p)) is None or o.blob != e.blob}
    added = sum(1 for p in changed if p not in old)
    # Every path of `old` stays unless fewer of them remain than it has.
    removed = [p for p in old if p not in entries] if len(entries) - added < len(old) else []
    return Changes(changed, removed)


def _counts(store: Store, writer: StoreWriter, old: Mapping[str, FileInfo],
            new: Mapping[str, FileInfo], changes: Changes) -> tuple[int, int]:
    """The new view's (definitions, references), from the old counts and the changed paths
    (counting the whole view joins every reference: 50 ms on Django); (-1, -1) when a full
    count is needed."""
    prior = (store.meta_get("counts") or "").split()
    touched = [*changes.changed, *changes.removed]
    if len(prior) != 3 or len(touched) > COUNT_DELTA_MAX_PATHS:
        return -1, -1
    lost = writer.blob_counts([old[p].blob for p in touched if p in old])
    gained = writer.blob_counts([new[p].blob for p in touched if p in new])
    return int(prior[1]) - lost[0] + gained[0], int(prior[2]) - lost[1] + gained[1]


def _digest(raw: bytes) -> str:
    return "index:" + hashlib.sha1(raw).hexdigest()


def _view_digest(view: View) -> str:
    h = hashlib.sha1()
    for path, e in sorted(view.items()):
        h.update(f"{path}\0{e.blob}\0".encode("utf-8", "surrogateescape"))
    return "view:" + h.hexdigest()


def ensure_parsed(store: Store, blobs: Mapping[str, str],
                  max_size: int | None = None) -> int:
    """Index blobs outside the current view ({blob: a path it sits at}), e.g. a diff's old
    side, so that `store.symbols_of` answers for them. They are kept until the view changes
    (the garbage collector keeps only the current and the previous view). Returns how many
    were parsed."""
    with store.lock():
        max_size = _check_extractor(store, max_size)
        writer = store.writer()
        fresh = {b: (p, -1) for b, p in blobs.items() if b not in writer.known(blobs)}
        if not fresh:
            return 0
        from maguyva_guard.index import fulltext
        from maguyva_guard.index import parse as blobparse

        with store.transaction():
            outcome = blobparse.index_blobs(
                str(store.root), writer, fresh, language_of, max_size,
                meanwhile=lambda texts: fulltext.index_contents(store.conn, texts))
        return outcome.parsed


def symbols_for(store: Store, blob: str, path: str) -> FileSymbols | None:
    """store.symbols_of, parsing the blob first if the index has not seen it (a diff's other
    side). None for a blob that cannot be parsed."""
    found = store.symbols_of(blob, path)
    if found is None and ensure_parsed(store, {blob: path}):
        found = store.symbols_of(blob, path)
    return found


@lru_cache(maxsize=1 << 17)
def language_of(path: str) -> str | None:
    from maguyva_guard.extract import languages

    return languages.language_for(path)


def _blob_language(store: Store, path: str, blob: str) -> str | None:
    """The language the index parsed a blob as, where the path alone may be wrong (a C++
    `.h`, a script without an extension: extract/detect.py)."""
    by_name = language_of(path)
    if by_name not in BY_CONTENT:
        return by_name
    row = store.conn.execute("SELECT language FROM blobs WHERE oid = ?", (blob,)).fetchone()
    return row[0] if row is not None and row[0] else by_name


def warm_parsers(store: Store, blobs: Mapping[str, str]) -> None:
    """Start compiling, in the background, the queries of the languages of those blobs
    (blob -> a path) that the index has not parsed yet: the update or the change mapper
    that parses them will find the query compiled (symbol_query.warm)."""
    if not blobs:
        return
    known = store.writer().known(blobs)
    wanted = {language_of(path) for blob, path in blobs.items() if blob not in known}
    wanted.discard(None)
    if wanted:
        from maguyva_guard.extract import query as symbol_query

        symbol_query.warm(w for w in wanted if w is not None)


def _new_blobs(writer: StoreWriter, changes: Changes) -> dict[str, tuple[str, int]]:
    """Blobs of changed paths that the index lacks: blob -> (a path, size or -1)."""
    candidates: dict[str, tuple[str, int]] = {}
    for path, e in changes.changed.items():
        if e.blob not in candidates:
            candidates[e.blob] = (path, e.size)
    known = writer.known(candidates)
    return {b: v for b, v in candidates.items() if b not in known}


def _final_view(store: Store, old: Mapping[str, FileInfo], changes: Changes,
                fresh_status: Mapping[str, str]) -> dict[str, FileInfo]:
    """Path -> FileInfo; unchanged paths keep theirs, changed ones are classified. (In no
    particular order: the store keeps the view in path order.)"""
    changed = {p: e.blob for p, e in changes.changed.items()}
    status = dict(fresh_status)
    missing = {b for b in changed.values() if b not in status}
    if missing:
        rows = store.conn.execute("SELECT oid, status FROM blobs WHERE status != ?",
                                  (classify.PARSED,))
        status.update((b, s) for b, s in rows if b in missing)
    view = dict(old)  # copied whole: a few paths change among 100,000
    for p in changes.removed:
        del view[p]
    for p, blob in changed.items():
        category = classify.file_category(p, status.get(blob, classify.PARSED))
        view[p] = FileInfo(blob, _blob_language(store, p, blob), category)
    return view


def _embed(store: Store, progress: Progress | None, delta: Delta,
           everything: bool = False) -> None:
    """The embedding refresh: its own time budget, or none (`everything`). Within a budget,
    nothing while a background job embeds the view (index/background.py): it does."""
    from maguyva_guard.index import background

    if not everything and background.running(store.index_dir):
        return
    step(progress, EMBEDDING)
    if everything:
        embeddings.refresh(store, progress, budget=None, delta=delta)
    else:
        embeddings.refresh(store, progress, budget=embeddings.EAGER_SECONDS, delta=delta)


def step(progress: Progress | None, label: str) -> None:
    """Tell a progress display which step it counts now (PARSING, EMBEDDING), so that each
    bar says what it measures; a plain (done, total) callable is left alone."""
    name = getattr(progress, "step", None)
    if name is not None:
        name(label)


def _stats(store: Store, files: int, parsed: int, started: float) -> IndexStats:
    counts = (store.meta_get("counts") or "0 0 0").split()
    files = files if files >= 0 else int(counts[0])
    return IndexStats(files, parsed, int(counts[1]), int(counts[2]),
                      time.perf_counter() - started)
