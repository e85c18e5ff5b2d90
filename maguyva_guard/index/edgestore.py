"""The edge cache's rows (tables `edges` and `edge_deps`, schema.py): read and written as
opaque text. What they mean, and when a row may be used, is retrievers/edgecache.py's.

Writing is best effort: the cache only saves work, so an index that cannot be written (a
read-only folder, a full disk, a lock held elsewhere) keeps what it had and the check goes
on without a word; nothing here ever raises for a write.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable
from typing import Any, NamedTuple

CODE_KEY = "edges_code"  # meta: the resolver's code the rows were made by
MAX_ROWS = 400_000  # edges past which the cache starts again (rows of views long gone)
MAX_PER_SITE = 4  # answers kept per reference site (views of other branches, base and head)


class EdgeRow(NamedTuple):
    file: str  # the referring file (code, path, blob): its rows are read together
    site: str  # the reference in it
    deps: str  # JSON questions and answers
    result: str  # JSON resolution


class EdgeRows:
    """The cache's rows in one open index connection."""

    def __init__(self, conn: sqlite3.Connection, code: str) -> None:
        self.conn = conn
        self.code = code
        self._usable: bool | None = None
        self._files: dict[str, dict[str, list[tuple[int, int]]]] = {}

    def usable(self) -> bool:
        """Whether the rows were written by this code (else none of them is read)."""
        if self._usable is None:
            try:
                row = self.conn.execute("SELECT value FROM meta WHERE key = ?",
                                        (CODE_KEY,)).fetchone()
            except sqlite3.Error:
                row = None
            self._usable = row is not None and row[0] == self.code
        return self._usable

    def candidates(self, file: str, site: str) -> list[tuple[int, int]]:
        """(deps id, result id) of every answer kept for `site`, newest first (a file's
        rows are read at its first site: one query instead of one per reference)."""
        if not self.usable():
            return []
        sites = self._files.get(file)
        if sites is None:
            sites = self._files[file] = {}
            for s, deps, result in self._read("SELECT site, deps, result FROM edges"
                                              " WHERE file = ? ORDER BY deps DESC", file):
                sites.setdefault(s, []).append((deps, result))
        return sites.get(site, [])

    def questions(self, deps: int) -> str | None:
        rows = self._read("SELECT questions FROM edge_deps WHERE id = ?", deps)
        return rows[0][0] if rows else None

    def result(self, result: int) -> str | None:
        rows = self._read("SELECT result FROM edge_results WHERE id = ?", result)
        return rows[0][0] if rows else None

    def _read(self, sql: str, arg: object) -> list[tuple[Any, ...]]:
        """Rows of a read; none when the read fails (the cache is only ever a saving)."""
        try:
            return self.conn.execute(sql, (arg,)).fetchall()
        except sqlite3.Error:
            return []

    def save(self, rows: Iterable[EdgeRow]) -> bool:
        """Add `rows` in one transaction; False (and the index as it was) when it cannot."""
        rows = list(rows)
        if not rows:
            return True
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                self._prepare()
                deps = self._ids("edge_deps", "questions", {r.deps for r in rows})
                results = self._ids("edge_results", "result", {r.result for r in rows})
                conn.executemany("INSERT OR REPLACE INTO edges(file, site, deps, result)"
                                 " VALUES (?, ?, ?, ?)",
                                 [(r.file, r.site, deps[r.deps], results[r.result])
                                  for r in rows])
                for file in {r.file for r in rows}:
                    self._trim(file)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.Error:
            return False
        self._usable = True
        return True

    def _ids(self, table: str, column: str, texts: set[str]) -> dict[str, int]:
        """The row id of each text in `table` (added when new), by its digest."""
        out: dict[str, int] = {}
        for text in texts:
            digest = hashlib.sha1(text.encode()).hexdigest()
            self.conn.execute(f"INSERT OR IGNORE INTO {table}(digest, {column}) VALUES (?, ?)",
                              (digest, text))
            out[text] = self.conn.execute(f"SELECT id FROM {table} WHERE digest = ?",
                                          (digest,)).fetchone()[0]
        return out

    def _prepare(self) -> None:
        """Start again when another version of the code made the rows, or they grew past
        MAX_ROWS (rows of views long gone are never read again)."""
        conn = self.conn
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (CODE_KEY,)).fetchone()
        too_many = conn.execute("SELECT count(*) FROM edges").fetchone()[0] > MAX_ROWS
        if row is None or row[0] != self.code or too_many:
            for table in ("edges", "edge_deps", "edge_results"):
                conn.execute(f"DELETE FROM {table}")
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                         (CODE_KEY, self.code))

    def _trim(self, file: str) -> None:
        """At most MAX_PER_SITE answers per site, the newest."""
        seen: dict[str, int] = {}
        for site, deps in self.conn.execute(
                "SELECT site, deps FROM edges WHERE file = ? ORDER BY deps DESC",
                (file,)).fetchall():
            seen[site] = seen.get(site, 0) + 1
            if seen[site] > MAX_PER_SITE:
                self.conn.execute("DELETE FROM edges WHERE file = ? AND site = ? AND deps = ?",
                                  (file, site, deps))
