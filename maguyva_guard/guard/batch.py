"""Batched impact: every changed symbol of a check goes through the engine together.

Asked one symbol at a time, each retriever read the same referring files, ran the same
name queries and searched the same text again for every symbol (Django, 50 changed
symbols: 10 s, growing by 0.1 to 0.5 s a symbol). Here one check shares, across all its
symbols and both intents:

- one read-through view of the index (`CheckStore`): each file's definitions, references
  and text are read once, each name's definitions and references are queried once, for
  all the retrievers (the graph's resolver and the text retriever used to read the same
  files twice over);
- one text retriever, behind one memo: the graph's own exact-match scans (attribute reads,
  name uses, data attributes) and the guard's text modality ask each distinct question
  once;
- one resolver: each reference is resolved once whichever symbol reaches it;
- one semantic sweep: the vectors are ranked for all the symbols' queries at once (numpy),
  and each symbol's search slices its ranking;
- the edge cache (retrievers/edgecache.py): a reference resolved by an earlier check is
  answered from the index while everything its answer read is unchanged, and the new
  answers are kept when the side's symbols are done (`save_edges`);

The answers are the per-symbol answers exactly (the same requests, answered from shared
state that a single check never changes), so the report and its JSON are unchanged;
tests/test_batch.py compares both paths on a repository in every supported language.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from maguyva_guard import spec
from maguyva_guard.index import fulltext
from maguyva_guard.index.edgestore import EdgeRows
from maguyva_guard.records import Definition, Reference, Span
from maguyva_guard.search import engine

# Below this many symbols the semantic sweep's numpy import (~0.2 s) costs more than the
# plain-Python scans it saves (~50 ms each on Django).
SEMANTIC_SWEEP_MIN = 4
# "0" turns the edge cache off (neither read nor written): the uncached reference.
EDGE_CACHE_ENV = "MAGUYVA_GUARD_EDGE_CACHE"


class CheckStore:
    """A read-through view of an open Store for one check's query phase, which never
    writes: record look-ups are answered once and kept. Everything else goes to the store.
    Callers get a fresh list each time (some filter or extend what they get)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.graph: Any = None  # the check's graph retriever over this view (recorders)
        self._memo: dict[tuple[Any, ...], list[Any]] = {}
        self._texts: dict[str, str] = {}
        self._files: Any = None

    def files(self) -> Any:
        """The view, read once: nothing writes while the check asks its symbols (the store
        asks the index for its view digest at every call: 800 queries for five symbols)."""
        if self._files is None:
            self._files = self._store.files()
        return self._files

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def _cached(self, key: tuple[Any, ...], fetch: Any) -> list[Any]:
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = fetch()
        return list(found)

    def definitions(self, name: str | None = None, qualified_name: str | None = None,
                    path: str | None = None, name_prefix: str | None = None,
                    name_caseless: str | None = None) -> list[Definition]:
        key = ("defs", name, qualified_name, path, name_prefix, name_caseless)
        return self._cached(key, lambda: self._store.definitions(
            name=name, qualified_name=qualified_name, path=path, name_prefix=name_prefix,
            name_caseless=name_caseless))

    def definitions_in(self, path: str) -> list[Definition]:
        return self.definitions(path=path)

    def definition_spans(self, path: str) -> list[Span]:
        """A path's definition spans: from its records when this check read them, else
        the store's lighter read (kept as well)."""
        defs = self._memo.get(("defs", None, None, path, None, None))
        if defs is not None:
            return [Span(d.qualified_name, d.kind, d.line_start, d.line_end) for d in defs]
        return self._cached(("spans", path), lambda: self._store.definition_spans(path))

    def references(self, name: str | None = None, path: str | None = None,
                   kinds: Iterable[str] | None = None) -> list[Reference]:
        kind_key = tuple(kinds) if kinds is not None else None
        key = ("refs", name, path, kind_key)
        return self._cached(key, lambda: self._store.references(name=name, path=path,
                                                                kinds=kind_key))

    def references_in(self, path: str) -> list[Reference]:
        return self.references(path=path)

    def category(self, path: str) -> str | None:
        """A file's category, read once per check (fusion asks it for every hit of every
        search: 11,000 look-ups on a 50-symbol Django check)."""
        key = ("category", path)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = [self._store.category(path)]
        return found[0]  # type: ignore[no-any-return]

    def imports_in(self, path: str) -> list[Reference]:
        return self._cached(("imports", path), lambda: self._store.imports_in(path))

    def text(self, path: str) -> str:
        """A file's text, from the text index's copy of its blob (the same decoded text,
        one SQLite read), else from git as the store reads it."""
        found = self._texts.get(path)
        if found is None:
            info = self.files().get(path)
            stored = fulltext.read_texts(self._store.conn, [info.blob]) if info else {}
            found = stored.get(info.blob) if info else None
            if found is None:
                found = self._store.text(path)
            self._texts[path] = found
        return found


def recorders(store: CheckStore, config: object | None, recorder: Any) -> dict[str, Any]:
    """The check's retrievers over the shared view, each behind a memo (`recorder`: the
    guard's Recorder class); the graph's own text scans go through the text memo."""
    built = {m: recorder(r) for m, r in engine.retrievers_for(store, config).items()}
    graph, text = built.get(spec.GRAPH), built.get(spec.TEXT)
    store.graph = graph.inner if graph is not None else None
    recovered = getattr(graph.inner, "recovered", None) if graph is not None else None
    if recovered is not None and text is not None:
        recovered.text = text  # the graph's own text retriever, replaced by the shared memo
    resolver = getattr(graph.inner, "resolver", None) if graph is not None else None
    if resolver is not None:
        use_edge_cache(resolver, store.conn)
    return built


def use_edge_cache(resolver: Any, conn: Any) -> None:
    """Answer `resolver`'s references from the index's edge cache where still valid (and
    note the new answers, for `save_edges`), unless EDGE_CACHE_ENV turns it off."""
    if os.environ.get(EDGE_CACHE_ENV) != "0":
        from maguyva_guard.retrievers.edgecache import code_digest

        resolver.use_edge_cache(EdgeRows(conn, code_digest()))


def save_edges(recorders: dict[str, Any]) -> tuple[int, int]:
    """Keep the references this side resolved in the index's edge cache (before the view
    changes: their questions are answered in it); (resolved, answered from the cache)."""
    graph = recorders.get(spec.GRAPH)
    resolver = getattr(graph.inner, "resolver", None) if graph is not None else None
    edges = getattr(resolver, "edges", None)
    if edges is None:
        return 0, 0
    edges.save()
    return edges.resolved, edges.reused


def prepare(recorders: dict[str, Any], queries: list[str], preset: str) -> None:
    """Work done once for all the symbols' queries before they are asked one by one."""
    semantic = recorders.get(spec.SEMANTIC)
    planned = any(spec.SEMANTIC in spec.preset_modalities(preset, i)
                  for i in (spec.IMPACT_ANALYSIS, spec.FIND_REFERENCES))
    if semantic is not None and planned and len(set(queries)) >= SEMANTIC_SWEEP_MIN:
        getattr(semantic.inner, "prepare", lambda q: None)(queries)


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a check runs: it builds hundreds of thousands of
    long-lived records (none of them in cycles), and each full collection walked them all
    again (a quarter of a 50-symbol check's CPU on Django). A check is one short process;
    collection resumes when it ends, past what the check built: re-enabled with millions of
    objects in its youngest generation, the collector walked them all again at the next
    allocation (half a second after a 50-symbol check on Django). Frozen objects are still
    freed by reference counting; only a cycle among them would wait (none is made)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.enable()
