"""The index's format: its tables, their indexes, the version and the format changelog.

Format changelog (bump SCHEMA_VERSION, and the file name with it, on any change):
  0: prototype (tests/fixtures/index-v0.sqlite); never released
  1: first format
  2: integer blob ids in defs/refs/chunks (a third smaller, appends instead of random
     inserts into the blob indexes); files.blob_id for the joins
  3: index on chunks(hash), for chunk_texts
  4: edge cache (retrievers/edgecache.py, index/edgestore.py): `edges` holds resolved
     references by referring file, each with the ids of the set of questions to the view
     its answer read (`edge_deps`) and of the answer (`edge_results`, shared: thousands of
     calls of `get` have one answer), so a warm check re-uses an answer only while every
     question's answer is the same
"""

from __future__ import annotations

from typing import NamedTuple

SCHEMA_VERSION = 4
INDEX_DIRNAME = "maguyva-guard"
BASES_SEP = "\x1f"  # joins a class's bases in one column (a base's text may hold any printable)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blobs(id INTEGER PRIMARY KEY, oid TEXT NOT NULL UNIQUE,
    language TEXT, size INTEGER NOT NULL, status TEXT NOT NULL,
    parse_errors INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS defs(blob INTEGER NOT NULL, name TEXT NOT NULL, qname TEXT NOT NULL,
    kind TEXT NOT NULL, line_start INTEGER NOT NULL, line_end INTEGER NOT NULL,
    signature TEXT NOT NULL, doc TEXT NOT NULL, parent TEXT NOT NULL, bases TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS refs(blob INTEGER NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
    line INTEGER NOT NULL, scope TEXT NOT NULL, receiver TEXT NOT NULL, target TEXT NOT NULL,
    alias TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks(blob INTEGER NOT NULL, symbol TEXT NOT NULL,
    line_start INTEGER NOT NULL, line_end INTEGER NOT NULL, hash TEXT NOT NULL,
    text TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, blob TEXT NOT NULL,
    blob_id INTEGER NOT NULL, language TEXT, category TEXT NOT NULL);
-- The previous view, as the paths where it differs from `files` (blob NULL: absent then).
CREATE TABLE IF NOT EXISTS previous(path TEXT PRIMARY KEY, blob TEXT);
-- The edge cache: a reference site (`file`: a digest of the resolver's code, the referring
-- path and blob; `site`: the reference in it) -> its resolution (JSON in edge_results),
-- valid while every question of its `deps` row (JSON [kind, argument, answer] triples) has
-- the same answer in the current view.
CREATE TABLE IF NOT EXISTS edge_deps(id INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE,
    questions TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS edge_results(id INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE,
    result TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS edges(file TEXT NOT NULL, site TEXT NOT NULL, deps INTEGER NOT NULL,
    result INTEGER NOT NULL, PRIMARY KEY(file, site, deps)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS files_blob ON files(blob_id);
CREATE INDEX IF NOT EXISTS files_oid ON files(blob);
CREATE INDEX IF NOT EXISTS previous_blob ON previous(blob);
"""
# The indexes of the record tables: a cold build drops them and builds them after the
# inserts (one sort instead of a quarter million random B-tree inserts; see storewrite).
RECORD_INDEXES = {
    "defs_name": "defs(name)", "defs_blob": "defs(blob)",
    "refs_name": "refs(name)", "refs_blob": "refs(blob)",
    "chunks_blob": "chunks(blob)", "chunks_hash": "chunks(hash)",
}
SCHEMA += "".join(f"CREATE INDEX IF NOT EXISTS {n} ON {on};\n" for n, on in RECORD_INDEXES.items())

class FileInfo(NamedTuple):
    """A path of the current view. A NamedTuple: files() makes thousands of them per run."""

    blob: str
    language: str | None
    category: str


def index_filename(version: int = SCHEMA_VERSION) -> str:
    return f"index-v{version}.sqlite"
