"""The edge cache's rows (tables `edges` and `edge_deps`, schema.py): read and written as
opaque text. What they mean, and when a row may be used, is retrievers/edgecache.py's.

Writing is best effort: the cache only saves work, so an index that cannot be written (a
read-only folder, a full disk, a lock held elsewhere) keeps what it had and the check goes
on without a word; nothing here ever raises for a write.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import NamedTuple

CODE_KEY = "edges_code"  # meta: the resolver's code the rows were made by
MAX_ROWS = 400_000  # past this the cache starts again (a few hundred bytes a row)
MAX_PER_SITE = 4  # answers kept per reference site (views of other branches, base and head)


class EdgeRow(NamedTuple):
    site: str
    digest: str  # of `questions`
    questions: str
    result: str


class EdgeRows:
    """The cache's rows in one open index connection."""

    def __init__(self, conn: sqlite3.Connection, code: str) -> None:
        self.conn = conn
        self.code = code
        self._usable: bool | None = None

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

    def candidates(self, site: str) -> list[tuple[int, str]]:
        """(deps id, result) of every answer kept for `site`, newest first."""
        if not self.usable():
            return []
        rows = self.conn.execute("SELECT deps, result FROM edges WHERE site = ?", (site,))
        return sorted(rows, key=lambda r: -r[0])

    def questions(self, deps: int) -> str | None:
        row = self.conn.execute("SELECT questions FROM edge_deps WHERE id = ?",
                                (deps,)).fetchone()
        return row[0] if row else None

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
                ids: dict[str, int] = {}
                for row in rows:
                    if row.digest not in ids:
                        conn.execute("INSERT OR IGNORE INTO edge_deps(digest, questions)"
                                     " VALUES (?, ?)", (row.digest, row.questions))
                        ids[row.digest] = conn.execute(
                            "SELECT id FROM edge_deps WHERE digest = ?", (row.digest,)
                        ).fetchone()[0]
                    conn.execute("INSERT OR REPLACE INTO edges(site, deps, result)"
                                 " VALUES (?, ?, ?)", (row.site, ids[row.digest], row.result))
                    self._trim(row.site)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.Error:
            return False
        self._usable = True
        return True

    def _prepare(self) -> None:
        """Start again when another version of the code made the rows, or they grew past
        MAX_ROWS (rows of views long gone are never read again)."""
        conn = self.conn
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (CODE_KEY,)).fetchone()
        too_many = conn.execute("SELECT count(*) FROM edges").fetchone()[0] > MAX_ROWS
        if row is None or row[0] != self.code or too_many:
            conn.execute("DELETE FROM edges")
            conn.execute("DELETE FROM edge_deps")
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                         (CODE_KEY, self.code))

    def _trim(self, site: str) -> None:
        ids = [r[0] for r in self.conn.execute(
            "SELECT deps FROM edges WHERE site = ? ORDER BY deps DESC", (site,))]
        for old in ids[MAX_PER_SITE:]:
            self.conn.execute("DELETE FROM edges WHERE site = ? AND deps = ?", (site, old))
