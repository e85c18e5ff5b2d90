"""The index: a blob-addressed SQLite file in the repository's git directory.

Owns the format (schema.py), opening, checking, locking and rebuilding the file (dbfile.py),
the read API (store.py), the write side (writer.py), parsing new blobs (parse.py), the update
that brings the index to a view of the repository (indexer.py), the full-text tables
(fulltext.py), centrality (centrality.py) and the embeddings made at index time
(embeddings.py).

May import: the top-level basics, extract and embed.
"""
