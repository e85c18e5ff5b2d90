"""The write side of the index, used by the indexer inside one transaction, under the lock.

Records become plain row tuples as early as possible (`symbol_rows`, which parse workers
call themselves): tuples of strings and ints cross a process boundary several times
cheaper than dataclasses, and go straight into `executemany`.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from maguyva_guard.index.schema import BASES_SEP, RECORD_INDEXES, FileInfo
from maguyva_guard.records import FileSymbols

if TYPE_CHECKING:  # not imported at run time: it loads tree-sitter, which a hook may not need
    from maguyva_guard.extract.symbols import Extracted

Row = tuple[object, ...]


@dataclass(frozen=True)
class BlobRows:
    """One parsed blob as rows of defs, refs and chunks, its id already in each row."""

    defs: list[Row]
    refs: list[Row]
    chunks: list[Row]
    parse_errors: int = 0
    vectors: dict[bytes, bytes] = field(default_factory=dict)  # chunk key -> packed bits


@dataclass(frozen=True)
class BlobRecord:
    """What the indexer learnt about one blob (symbols None unless status is "parsed")."""

    blob: str
    language: str | None
    size: int
    status: str
    symbols: FileSymbols | None = None


def symbol_rows(blob_id: int, symbols: FileSymbols | Extracted) -> BlobRows:
    """The rows of one file's records; from `symbols.extract_fields` (what parse workers
    call), each reference is its fields already."""
    refs: list[Row]
    if isinstance(symbols, FileSymbols):
        refs = [(blob_id, r.name, r.kind, r.line, r.scope, r.receiver, r.target, r.alias)
                for r in symbols.references]
    else:
        refs = [(blob_id, *fields) for fields in symbols.references]
    return BlobRows(
        [(blob_id, d.name, d.qualified_name, d.kind, d.line_start, d.line_end, d.signature,
          d.doc, d.parent, BASES_SEP.join(d.bases)) for d in symbols.definitions],
        refs,
        [(blob_id, c.symbol, c.line_start, c.line_end, content_hash(c.text), c.text)
         for c in symbols.chunks],
        symbols.parse_errors,
    )


def content_hash(text: str) -> str:
    """The key of a chunk's text (embeddings are cached by it): sha1 of its UTF-8."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


class StoreWriter:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def known(self, blobs: Iterable[str]) -> set[str]:
        """Which of these blobs are already indexed."""
        wanted = list(blobs)
        found: set[str] = set()
        step = 500  # stay under SQLite's bound-parameter limit
        for i in range(0, len(wanted), step):
            part = wanted[i : i + step]
            sql = f"SELECT oid FROM blobs WHERE oid IN ({','.join('?' * len(part))})"
            found.update(row[0] for row in self.conn.execute(sql, part))
        return found

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """Around the inserts of an update: when the record tables are empty (a cold build),
        their indexes are dropped first and built once at the end, in the same transaction."""
        cold = self.conn.execute("SELECT NOT EXISTS (SELECT 1 FROM blobs)").fetchone()[0]
        if cold:
            for name in RECORD_INDEXES:
                self.conn.execute(f"DROP INDEX IF EXISTS {name}")
        yield
        if cold:
            for name, on in RECORD_INDEXES.items():
                self.conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {on}")

    def next_id(self) -> int:
        """The first free blob id (ids are handed out before parsing, under the lock)."""
        return int(self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM blobs").fetchone()[0])

    def add_blob(self, blob_id: int, oid: str, language: str | None, size: int, status: str,
                 parse_errors: int = 0) -> None:
        self.conn.execute("INSERT INTO blobs VALUES (?, ?, ?, ?, ?, ?)",
                          (blob_id, oid, language, size, status, parse_errors))

    def add_rows(self, rows: Iterable[BlobRows]) -> None:
        batch = list(rows)
        self.conn.executemany("INSERT INTO defs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                              [r for b in batch for r in b.defs])
        self.conn.executemany("INSERT INTO refs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                              [r for b in batch for r in b.refs])
        self.conn.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?)",
                              [r for b in batch for r in b.chunks])

    def add_blobs(self, records: Iterable[BlobRecord]) -> None:
        """Records with their symbols, ids assigned here (tests and small updates)."""
        next_id = self.next_id()
        for rec in records:
            errors = rec.symbols.parse_errors if rec.symbols else 0
            self.add_blob(next_id, rec.blob, rec.language, rec.size, rec.status, errors)
            if rec.symbols is not None:
                self.add_rows([symbol_rows(next_id, rec.symbols)])
            next_id += 1

    def set_view(self, old: Mapping[str, FileInfo], new: Mapping[str, FileInfo],
                 differ: Iterable[str] | None = None) -> int:
        """Make `new` the current view; remember `old` where it differs. Returns changes.

        Every blob of `new` must be in the blobs table already (same transaction).
        `differ`: the paths whose entry differs, when the caller worked them out (the
        update: comparing 100,000 paths again costs 50 ms).
        """
        if differ is None:
            changed = [p for p, info in new.items() if old.get(p) != info]
            removed = [p for p in old if p not in new]
        else:
            differ = list(differ)
            changed = [p for p in differ if p in new]
            removed = [p for p in differ if p not in new]
        if not changed and not removed:
            return 0
        self.conn.execute("DELETE FROM previous")
        self.conn.executemany(
            "INSERT INTO previous VALUES (?, ?)",
            [(p, old[p].blob if p in old else None) for p in (*changed, *removed)])
        self.conn.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in removed])
        self.conn.executemany(
            "INSERT OR REPLACE INTO files SELECT ?, oid, id, ?, ? FROM blobs WHERE oid = ?",
            [(p, new[p].language, new[p].category, new[p].blob) for p in changed])
        return len(changed) + len(removed)

    def collect_garbage(self) -> list[str]:
        """Drop blobs of neither the current nor the previous view; returns their ids."""
        dead = self.conn.execute(
            "SELECT id, oid FROM blobs WHERE oid NOT IN (SELECT blob FROM files) "
            "AND oid NOT IN (SELECT blob FROM previous WHERE blob IS NOT NULL)").fetchall()
        ids = [(i,) for i, _ in dead]
        for table, column in (("defs", "blob"), ("refs", "blob"), ("chunks", "blob"),
                              ("blobs", "id")):
            self.conn.executemany(f"DELETE FROM {table} WHERE {column} = ?", ids)
        return [oid for _, oid in dead]

    def forget_all(self) -> None:
        """Drop every blob and the view (the next update starts from nothing)."""
        for table in ("defs", "refs", "chunks", "blobs", "files", "previous"):
            self.conn.execute(f"DELETE FROM {table}")
        self.conn.execute("DELETE FROM meta WHERE key IN ('view', 'view_digest', 'counts')")

    def forget_size_dependent(self, max_size: int) -> None:
        """Under a new size limit, drop the blobs it changes (skipped as too large but now
        small enough, or parsed but now too large) and the paths that show them, so that
        the next update takes those paths as new."""
        ids = [(i,) for (i,) in self.conn.execute(
            "SELECT id FROM blobs WHERE (status = 'skipped-size') = (size <= ?)", (max_size,))]
        for table, column in (("defs", "blob"), ("refs", "blob"), ("chunks", "blob"),
                              ("files", "blob_id"), ("blobs", "id")):
            self.conn.executemany(f"DELETE FROM {table} WHERE {column} = ?", ids)
        self.conn.execute("DELETE FROM meta WHERE key IN ('view_digest', 'counts')")

    def blob_counts(self, oids: Iterable[str]) -> tuple[int, int]:
        """(definitions, references) summed over these blobs, each as often as listed."""
        defs = refs = 0
        for oid in oids:
            row = self.conn.execute(
                "SELECT (SELECT count(*) FROM defs WHERE blob = b.id), "
                "(SELECT count(*) FROM refs WHERE blob = b.id) FROM blobs b WHERE oid = ?",
                (oid,)).fetchone()
            if row is not None:
                defs, refs = defs + row[0], refs + row[1]
        return defs, refs

    def view_counts(self) -> tuple[int, int]:
        """(definitions, references) in the current view, counting each path."""
        defs = self.conn.execute(
            "SELECT count(*) FROM defs d JOIN files f ON f.blob_id = d.blob").fetchone()[0]
        refs = self.conn.execute(
            "SELECT count(*) FROM refs r JOIN files f ON f.blob_id = r.blob").fetchone()[0]
        return int(defs), int(refs)
