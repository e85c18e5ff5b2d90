"""The SQLite index, in `<git common dir>/maguyva-guard/index-v<N>.sqlite`.

Tables are addressed by blob id: one parsed blob serves every path and every revision it
appears at. Records are stored exactly as `symbols.extract` returns them (qualified names
local to the file); the `files` table maps the current view's paths to blobs, and the read
API adds the path and the module prefix when it hands records out.

Writes happen in transactions in WAL mode: a run killed mid-write leaves the previous
state (SQLite's journal is the atomicity). An index of another format, or one that fails to
open or to pass `PRAGMA quick_check`, is moved aside and rebuilt (dbfile.py).
The format (tables, indexes, version and changelog) is in schema.py.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from maguyva_guard import git
from maguyva_guard.errors import FatalError
from maguyva_guard.index import dbfile as storefile
from maguyva_guard.index.schema import (
    BASES_SEP,
    INDEX_DIRNAME,
    SCHEMA,
    SCHEMA_VERSION,
    FileInfo,
    index_filename,
)
from maguyva_guard.index.writer import StoreWriter
from maguyva_guard.records import IMPORT, Chunk, Definition, FileSymbols, Reference, Span

_DEF_FIELDS = ("d.name, d.qname, d.kind, d.line_start, d.line_end, d.signature, d.doc, "
               "d.parent, d.bases")
_REF_FIELDS = "r.name, r.kind, r.line, r.scope, r.receiver, r.target, r.alias"
_DEF_COLS = f"f.path, f.language, {_DEF_FIELDS}"
_REF_COLS = f"f.path, f.language, {_REF_FIELDS}"


@lru_cache(maxsize=65536)
def module_prefix(path: str, language: str | None) -> str:
    """The dotted module a path's local names live in ("pkg/mod.py" -> "pkg.mod")."""
    if not language:
        return ""
    from maguyva_guard.extract import languages

    return languages.module_name(path, language)


def _note_detected(files: dict[str, FileInfo]) -> None:
    """Tell the registry which extension-less files are scripts of a language (shebang)."""
    from maguyva_guard.extract import languages

    # No dot in the file name past its first character (a string search, not a split:
    # this runs over every path of the view, twice a check).
    languages.note_detected((p, f.language) for p, f in files.items()
                            if p.rfind(".") <= p.rfind("/") + 1)


def qualify(prefix: str, local: str) -> str:
    """"mod" + "Class.method" -> "mod.Class.method"; a local "" (module level) stays ""."""
    if not local:
        return ""
    return f"{prefix}.{local}" if prefix else local


class Store:
    """An open index: the connection, the lock, and the read API."""

    def __init__(self, repo: git.RepoInfo, index_dir: Path, conn: sqlite3.Connection) -> None:
        self.repo = repo
        self.root = repo.root
        self.index_dir = index_dir
        self.path = index_dir / index_filename()
        self.conn = conn
        self._files_cache: tuple[str, dict[str, FileInfo]] | None = None
        self._lock = storefile.IndexLock(index_dir / "lock")
        self._held = False  # the lock is kept until close() (open(exclusive=True))
        self._reader: git.BlobReader | None = None
        self._reader_lock = threading.Lock()  # retrievers run in threads and share the store
        # Run by close() once the file is marked clean, before the lock is released (the
        # no-change stamp of `index`: index/quick.py).
        self.on_close: list[Callable[[], None]] = []

    # --- lifecycle -------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str = ".", rebuild: bool = False,
             exclusive: bool = False) -> Store:
        """Open (creating, upgrading or repairing) the index of the repository at `path`.

        `exclusive` keeps the writer lock from here to close(): a whole `check` or `query`
        updates the index, reads it and may switch its view, so a second run waits once,
        at the start, instead of interleaving with the first (and waiting at every step).
        """
        repo = git.repo_info(path)
        index_dir = repo.common_dir / INDEX_DIRNAME
        try:
            index_dir.mkdir(exist_ok=True)
        except OSError as exc:
            msg = f"cannot create the index folder {index_dir}: {exc.strerror}"
            raise FatalError(msg) from None
        lock = storefile.IndexLock(index_dir / "lock")
        with lock:
            conn = storefile.open_checked(index_dir / index_filename(), SCHEMA_VERSION, SCHEMA,
                                          rebuild)
            store = cls(repo, index_dir, conn)
            store._lock = lock
            if exclusive:
                lock.__enter__()  # released by close()
                store._held = True
        return store

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        self.conn.close()
        storefile.mark_clean(self.path)
        for action in self.on_close:
            action()
        self.on_close = []
        if self._held:
            self._held = False
            self._lock.__exit__(None, None, None)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Held by the indexer while it writes: one writer across processes (bounded wait)."""
        with self._lock:
            yield

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception (then re-raised).

        A write SQLite cannot make (a full disk, an I/O error), even at COMMIT, becomes one
        FatalError line: the journal has kept the previous state, which stays usable."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as exc:
            raise self._write_error(exc) from None

    def _write_error(self, exc: sqlite3.Error) -> FatalError:
        return FatalError(f"cannot write the index {self.path}: {exc}; the previous one is kept")

    # --- meta ------------------------------------------------------------------------

    def meta_get(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def writer(self) -> StoreWriter:
        return StoreWriter(self.conn)

    def meta_set(self, key: str, value: str) -> None:
        try:
            self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                              (key, value))
        except sqlite3.OperationalError as exc:
            raise self._write_error(exc) from None

    # --- the current view ------------------------------------------------------------

    def files(self) -> dict[str, FileInfo]:
        """The current view. Read once per view digest: the guard asks for it many times
        (every modality, every changed symbol), and 7k rows cost ~20 ms a read on Django.
        In path order. Callers must not modify the returned mapping."""
        digest = self.meta_get("view_digest")
        cached = self._files_cache
        if digest is not None and cached is not None and cached[0] == digest:
            return cached[1]
        rows = self.conn.execute("SELECT path, blob, language, category FROM files"
                                 " ORDER BY path")
        files = {p: FileInfo(b, lang, c) for p, b, lang, c in rows}
        self._files_cache = (digest, files) if digest is not None else None
        _note_detected(files)
        return files

    def remember_view(self, digest: str, files: dict[str, FileInfo]) -> None:
        """What files() will answer for the view just written (its rows are `files`): the
        index update built it, so the first read after the update need not. In path order,
        as files() reads them."""
        self._files_cache = (digest, dict(sorted(files.items())))
        _note_detected(files)

    def category(self, path: str) -> str | None:
        row = self.conn.execute("SELECT category FROM files WHERE path = ?", (path,)).fetchone()
        return row[0] if row else None

    def text(self, path: str) -> str:
        """A file's content in the current view ("" for a path not in it)."""
        row = self.conn.execute("SELECT blob FROM files WHERE path = ?", (path,)).fetchone()
        return self.blob_text(row[0]) if row else ""

    def blob_text(self, blob: str) -> str:
        """A blob's content, decoded as UTF-8 (invalid bytes replaced), "" if missing."""
        with self._reader_lock:
            if self._reader is None:
                self._reader = git.BlobReader(self.root)
        data = self._reader.read(blob)
        return data.decode("utf-8", "replace") if data else ""

    # --- records ---------------------------------------------------------------------

    def definitions(self, name: str | None = None, qualified_name: str | None = None,
                    path: str | None = None, name_prefix: str | None = None,
                    name_caseless: str | None = None) -> list[Definition]:
        """Definitions of the current view, filtered by name, full qualified name, path, or
        the start of the name (case-sensitive, through the name index), or by name in any
        case (`name_caseless`: a scan, but in SQLite, about 5 ms on Django's 43k)."""
        if name_caseless is not None:
            return self._definitions_caseless(name_caseless)
        if qualified_name is not None:
            name = qualified_name.rsplit(".", 1)[-1]
        where, args = _filters(("d.name", name), ("f.path", path))
        if name_prefix:
            # A range rather than LIKE: LIKE ignores case and cannot use the index.
            where += f"{' AND' if where else ' WHERE'} d.name >= ? AND d.name < ?"
            args = (*args, name_prefix, name_prefix + "\U0010ffff")
        sql = f"SELECT {_DEF_COLS} FROM defs d JOIN files f ON f.blob_id = d.blob{where}"
        found = [_definition(row) for row in self.conn.execute(sql, args)]
        if qualified_name is not None:
            found = [d for d in found if d.qualified_name == qualified_name]
        return found

    def _definitions_caseless(self, name: str) -> list[Definition]:
        if not name.isascii():  # SQLite's NOCASE folds ASCII only: compare in Python
            lowered = name.lower()
            return [d for d in self.definitions() if d.name.lower() == lowered]
        sql = (f"SELECT {_DEF_COLS} FROM defs d JOIN files f ON f.blob_id = d.blob"
               " WHERE d.name = ? COLLATE NOCASE")
        return [_definition(row) for row in self.conn.execute(sql, (name,))]

    def definitions_in(self, path: str) -> list[Definition]:
        return self.definitions(path=path)

    def definition_spans(self, path: str) -> list[Span]:
        """(qualified name, kind, first line, last line) of a path's definitions, in
        definitions_in's order (the same statement, fewer columns): what a text hit's
        enclosing symbol needs, without the signatures and docstrings of full records
        (a release diff's text hits read a tenth of its callers' search in them)."""
        sql = ("SELECT f.language, d.qname, d.kind, d.line_start, d.line_end"
               " FROM defs d JOIN files f ON f.blob_id = d.blob WHERE f.path = ?")
        return [Span(qualify(module_prefix(path, language), qname), kind, start, end)
                for language, qname, kind, start, end in self.conn.execute(sql, (path,))]

    def references(self, name: str | None = None, path: str | None = None,
                   kinds: Iterable[str] | None = None) -> list[Reference]:
        where, args = _filters(("r.name", name), ("f.path", path))
        kind_set = tuple(kinds) if kinds is not None else None
        if kind_set is not None:
            marks = ",".join("?" * len(kind_set))
            where += f"{' AND' if where else ' WHERE'} r.kind IN ({marks})"
            args = (*args, *kind_set)
        sql = f"SELECT {_REF_COLS} FROM refs r JOIN files f ON f.blob_id = r.blob{where}"
        return [_reference(row) for row in self.conn.execute(sql, args)]

    def references_in(self, path: str) -> list[Reference]:
        return self.references(path=path)

    def imports_in(self, path: str) -> list[Reference]:
        """A file's import references, in the order references_in lists them."""
        return self.references(path=path, kinds=(IMPORT,))

    def chunks(self) -> Iterator[tuple[str, Chunk]]:
        """(content hash, chunk) for every chunk of the current view."""
        sql = ("SELECT f.path, f.language, c.symbol, c.line_start, c.line_end, c.hash, c.text "
               "FROM chunks c JOIN files f ON f.blob_id = c.blob")
        for path, language, symbol, start, end, digest, text in self.conn.execute(sql):
            prefix = module_prefix(path, language)
            yield digest, Chunk(path, qualify(prefix, symbol), start, end, text)

    def chunk_places(self) -> Iterator[tuple[str, str, str, int, int]]:
        """(content hash, path, symbol, line_start, line_end) of every chunk of the current
        view, without the text: the cheap way to find which chunks are new."""
        sql = ("SELECT c.hash, f.path, f.language, c.symbol, c.line_start, c.line_end "
               "FROM chunks c JOIN files f ON f.blob_id = c.blob")
        for digest, path, language, symbol, start, end in self.conn.execute(sql):
            yield digest, path, qualify(module_prefix(path, language), symbol), start, end

    def chunk_hashes(self) -> list[str]:
        """The content hash of every chunk of the current view, in chunk_places' order
        (one column: what the embedding refresh needs to know which chunks are new)."""
        sql = "SELECT c.hash FROM chunks c JOIN files f ON f.blob_id = c.blob"
        return [digest for (digest,) in self.conn.execute(sql)]

    def chunk_texts(self, hashes: Iterable[str]) -> dict[str, str]:
        """The text of each chunk content hash (any indexed blob's; unknown hashes left out)."""
        wanted = list(dict.fromkeys(hashes))
        found: dict[str, str] = {}
        step = 500  # stay under SQLite's bound-parameter limit
        for i in range(0, len(wanted), step):
            part = wanted[i : i + step]
            sql = f"SELECT hash, text FROM chunks WHERE hash IN ({','.join('?' * len(part))})"
            found.update(self.conn.execute(sql, part))
        return found

    def symbols_of(self, blob: str, path: str, definitions_only: bool = False
                   ) -> FileSymbols | None:
        """Everything indexed for a blob, as if it sat at `path` (any revision's blob);
        `definitions_only`: without its references and chunks (the diff's changed symbols
        need its definitions only: reading the rest was a quarter of their cost, 30,000
        references for a 50-file diff on Django).

        None when the blob is not indexed (see indexer.ensure_parsed), or was not parsed
        (binary, too large, generated, no grammar for its language).
        """
        row = self.conn.execute(
            "SELECT id, language, parse_errors FROM blobs WHERE oid = ? AND status = 'parsed'",
            (blob,)).fetchone()
        if row is None:
            return None
        blob_id, language, errors = row
        args = (path, language, blob_id)
        defs = self.conn.execute(f"SELECT ?, ?, {_DEF_FIELDS} FROM defs d WHERE d.blob = ?", args)
        if definitions_only:
            return FileSymbols(language=language or "",
                               definitions=tuple(_definition(r) for r in defs),
                               references=(), chunks=(), parse_errors=errors)
        refs = self.conn.execute(f"SELECT ?, ?, {_REF_FIELDS} FROM refs r WHERE r.blob = ?", args)
        prefix = module_prefix(path, language)
        chunks = self.conn.execute(
            "SELECT symbol, line_start, line_end, text FROM chunks WHERE blob = ?", (blob_id,))
        return FileSymbols(
            language=language or "",
            definitions=tuple(_definition(r) for r in defs),
            references=tuple(_reference(r) for r in refs),
            chunks=tuple(Chunk(path, qualify(prefix, s), a, b, t) for s, a, b, t in chunks),
            parse_errors=errors,
        )


def _filters(*pairs: tuple[str, str | None]) -> tuple[str, tuple[str, ...]]:
    used = [(col, value) for col, value in pairs if value is not None]
    if not used:
        return "", ()
    return " WHERE " + " AND ".join(f"{c} = ?" for c, _ in used), tuple(v for _, v in used)


# The records are frozen dataclasses, whose __init__ sets each field through
# object.__setattr__: 3 to 8 microseconds a record, and a 50-symbol check on Django reads
# 60,000 of them (a sixth of its callers' search). Filled in directly here, with every field
# (tests/test_store_records.py compares both ways field by field).
_new = object.__new__


def _definition(row: tuple) -> Definition:  # type: ignore[type-arg]
    path, language, name, qname, kind, start, end, signature, doc, parent, bases = row
    prefix = module_prefix(path, language)
    d = _new(Definition)
    d.__dict__.update(
        path=path, name=name, qualified_name=qualify(prefix, qname), kind=kind,
        line_start=start, line_end=end, signature=signature, doc=doc,
        parent=qualify(prefix, parent), bases=tuple(bases.split(BASES_SEP)) if bases else (),
    )
    return d


def _reference(row: tuple) -> Reference:  # type: ignore[type-arg]
    path, language, name, kind, line, scope, receiver, target, alias = row
    r = _new(Reference)
    r.__dict__.update(path=path, name=name, kind=kind, line=line,
                      scope=qualify(module_prefix(path, language), scope),
                      receiver=receiver, target=target, alias=alias)
    return r

