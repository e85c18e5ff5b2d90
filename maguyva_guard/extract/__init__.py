"""Extraction: from a file's bytes to its definitions, references and chunks.

Owns the language registry (which files are which language, how modules are named), the
classification of paths and blobs (source, test, vendored, generated, binary), the
tree-sitter query files (queries/*.scm, one per language) and the one code path that runs
them (symbols.py with its helpers: query, scopes, imports, chunks, source_text). Pure
functions of their input: nothing here reads git or the index.

May import: the top-level basics (errors, spec, records, config).
"""
