"""The text retriever's tables: file contents, blob-addressed, under an FTS5 trigram index.

    text_blobs(id, blob, content)   the decoded text of each blob, stored once
    text_fts                        FTS5 over text_blobs.content (external content)

Why this shape (measured on Django 5.2, django/ package: 734 distinct blobs, 5.7 MB; see
bench/text.py): the default FTS5 table (`detail=full`) builds in about 1.0 s and weighs
3.2x the source, because it keeps every trigram's positions. We verify every candidate
against its text anyway (word boundaries, exact case, exact lines), so positions buy us
nothing: `detail=none` keeps only which blobs hold a trigram, and `columnsize=0` drops
the per-row size table (used by bm25, which we do not use). The index is then 1.4x the
source with the text included, builds in about 0.7 s, and a candidate lookup takes about
0.2 ms. External content (`content='text_blobs'`) keeps the text once, in our own table,
keyed by the blob id; FTS5 can still rebuild itself from it ('rebuild').

Trade-offs: `detail=none` does not support phrase queries, so a term is looked up as the
AND of its trigrams (a superset of the files that contain it, which verification narrows).
The trigram tokenizer folds case (`case_sensitive 0`): one index serves case-sensitive and
case-insensitive queries (a `case_sensitive 1` index could not answer the latter). A term
of fewer than 3 characters has no trigram and is answered by a scan (see the retriever).

Callers run the writes inside their own transaction (the indexer's); nothing here commits.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Final

from maguyva_guard.errors import FatalError

TRIGRAM: Final = 3  # FTS5's trigram tokenizer indexes every run of 3 characters
MAX_TRIGRAMS: Final = 24  # a long literal is looked up by this many of its trigrams, spread

_SCHEMA = """
CREATE TABLE IF NOT EXISTS text_blobs(id INTEGER PRIMARY KEY, blob TEXT NOT NULL UNIQUE,
    content TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS text_fts USING fts5(content, content='text_blobs',
    content_rowid='id', tokenize='trigram', detail=none, columnsize=0);
"""
_PROBE = ("CREATE VIRTUAL TABLE temp.maguyva_guard_fts5_probe "
          "USING fts5(a, tokenize='trigram', detail=none)")
_checked: set[int] = set()  # id() of connections already probed


def check_fts5(conn: sqlite3.Connection) -> None:
    """Raise FatalError unless this SQLite has FTS5 and its trigram tokenizer (3.34+)."""
    if id(conn) in _checked:
        return
    try:
        conn.execute(_PROBE)
        conn.execute("DROP TABLE temp.maguyva_guard_fts5_probe")
    except sqlite3.OperationalError as exc:
        raise FatalError(
            f"text search needs SQLite with FTS5 and the trigram tokenizer (3.34 or newer); "
            f"this Python's SQLite is {sqlite3.sqlite_version}: {exc}") from None
    _checked.add(id(conn))


def ensure_tables(conn: sqlite3.Connection) -> None:
    check_fts5(conn)
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)


def index_contents(conn: sqlite3.Connection, items: list[tuple[str, str]]) -> None:
    """Add (blob id, text) pairs; a blob already present is left as it is."""
    ensure_tables(conn)
    for blob, text in items:
        cur = conn.execute(
            "INSERT INTO text_blobs(blob, content) VALUES (?, ?) ON CONFLICT(blob) DO NOTHING",
            (blob, text))
        if cur.rowcount == 1:
            conn.execute("INSERT INTO text_fts(rowid, content) VALUES (?, ?)",
                         (cur.lastrowid, text))


def drop_blobs(conn: sqlite3.Connection, blobs: list[str]) -> None:
    """Remove blobs' contents and their index entries (unknown ids are ignored)."""
    ensure_tables(conn)
    for blob in blobs:
        row = conn.execute("SELECT id, content FROM text_blobs WHERE blob = ?",
                           (blob,)).fetchone()
        if row is None:
            continue
        # An external-content table forgets a row only when told the exact old values.
        conn.execute("INSERT INTO text_fts(text_fts, rowid, content) VALUES ('delete', ?, ?)",
                     row)
        conn.execute("DELETE FROM text_blobs WHERE id = ?", (row[0],))


def match_expression(term: str) -> str | None:
    """The FTS5 query for a term: the AND of its trigrams (None under 3 characters)."""
    grams = list(dict.fromkeys(term[i : i + TRIGRAM] for i in range(len(term) - TRIGRAM + 1)))
    if not grams:
        return None
    if len(grams) > MAX_TRIGRAMS:  # any subset is still a superset filter; keep the ends
        step = (len(grams) - 1) / (MAX_TRIGRAMS - 1)
        grams = [grams[round(i * step)] for i in range(MAX_TRIGRAMS)]
    return " AND ".join('"' + g.replace('"', '""') + '"' for g in grams)


def candidate_blobs(conn: sqlite3.Connection, term: str) -> set[str] | None:
    """Blobs that may contain `term` in any case (None: too short for the index)."""
    expression = match_expression(term)
    if expression is None:
        return None
    sql = ("SELECT b.blob FROM text_fts JOIN text_blobs b ON b.id = text_fts.rowid "
           "WHERE text_fts MATCH ?")
    return {row[0] for row in _read(conn, sql, expression)}


def read_texts(conn: sqlite3.Connection, blobs: Iterable[str]) -> dict[str, str]:
    """blob -> text for those of `blobs` that are indexed."""
    wanted = list(blobs)
    if not wanted:
        return {}
    # One statement whatever the count: json_each avoids SQLite's bound-parameter limit.
    sql = "SELECT blob, content FROM text_blobs WHERE blob IN (SELECT value FROM json_each(?))"
    return dict(_read(conn, sql, json.dumps(wanted)))  # type: ignore[arg-type]


def _read(conn: sqlite3.Connection, sql: str, arg: str) -> list[tuple[str, ...]]:
    """Run a read; an index whose text tables were never created reads as empty (a search
    must not write, nor wait on the indexer's lock, to create them)."""
    check_fts5(conn)
    try:
        return conn.execute(sql, (arg,)).fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return []
        raise
