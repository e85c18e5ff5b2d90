"""Centrality of definitions (design §5), precomputed on the name-level graph of the view.

Every reference votes for the definitions that carry its name, its vote split evenly among
them; PageRank (rustworkx) runs over those weighted edges from the referring definition (or
the referring file, for top-level code) to the referred one. The result is scaled by the
number of nodes, so that the average node has centrality 1 (PageRank sums to 1), and stored
in the index with the view it was computed for. It is refreshed when the view has drifted by
more than REFRESH_DRIFT of its files, since a one-file commit moves centralities too little
to pay for a recomputation on the hook's hot path.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from maguyva_guard.index.store import Store, module_prefix, qualify
from maguyva_guard.records import MODULE_SYMBOL

REFRESH_DRIFT = 0.05
# A name with more definitions than this (get, save, __init__...) says nothing about which
# one a reference means; its votes would only add noise and quadratic edges.
MAX_FANOUT = 8
PAGERANK_ALPHA = 0.85  # the usual damping factor
TABLE = "graph_centrality"
CHECKED_KEY = "centrality_checked"  # the last view digest found close enough
CACHE_ATTRIBUTE = "_centrality_cache"  # answers already read, on the open store
LOOKUP_BATCH = 400  # keys per SQL statement (two parameters each; SQLite allows 32766)


def ensure_table(conn: sqlite3.Connection) -> None:
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {TABLE} (path TEXT, qualified_name TEXT, value REAL,"
        " PRIMARY KEY (path, qualified_name))"
    )


def view_signature(files: Mapping[str, object]) -> dict[str, str]:
    return {p: str(getattr(f, "blob", f)) for p, f in files.items()}


def needs_refresh(store: Store) -> bool:
    digest = store.meta_get("view_digest")
    if digest and store.meta_get(CHECKED_KEY) == digest:
        return False  # this very view was measured already (the hook's usual case)
    files = store.files()
    stamp = store.meta_get("centrality_view")
    if not stamp:
        return bool(files)
    # Lines "path\tblob" as refresh() stores them; set differences, not a parsed dict:
    # this runs on every check whose view changed (~7k lines on Django).
    now = {f"{p}\t{f.blob}" for p, f in files.items()}
    before = set(stamp.splitlines())
    gone = {line.partition("\t")[0] for line in before - now} - files.keys()
    changed = len(now - before) + len(gone)  # changed or added paths, plus removed ones
    drifted = changed > REFRESH_DRIFT * max(len(files), 1)
    if not drifted and digest:
        store.meta_set(CHECKED_KEY, digest)
    return drifted


def refresh(store: Store, force: bool = False) -> int:
    """Recompute and store centralities if the view drifted; returns the node count."""
    if not force and not needs_refresh(store):
        return 0
    return save(store, compute(store))


@dataclass(frozen=True)
class Ranks:
    """Centralities computed for one view, not stored yet (compute, then save)."""

    values: list[tuple[str, str, float]]  # (path, qualified name, centrality)
    stamp: str  # "path\tblob" lines of the view (meta centrality_view)
    digest: str  # the view digest they were computed for
    nodes: int


def compute(store: Store) -> Ranks:
    """The current view's centralities (reads only: a background job computes them without
    the writer lock, then saves them under it if the view is still this one)."""
    digest = store.meta_get("view_digest") or ""
    graph, nodes = build_graph(store.conn)
    ranks = pagerank(graph)
    scale = len(graph)
    files = view_signature(store.files())
    values = [(k[0], k[1], ranks[i] * scale) for k, i in nodes.items() if i in ranks]
    stamp = "\n".join(f"{p}\t{b}" for p, b in sorted(files.items()))
    return Ranks(values, stamp, digest, scale)


def save(store: Store, ranks: Ranks) -> int:
    """Store centralities from compute(); returns the node count."""
    conn = store.conn
    ensure_table(conn)
    with store.transaction():
        conn.execute(f"DELETE FROM {TABLE}")
        conn.executemany(f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?)", ranks.values)
        store.meta_set("centrality_view", ranks.stamp)
        store.meta_set(CHECKED_KEY, ranks.digest)
    setattr(store, CACHE_ATTRIBUTE, None)
    return ranks.nodes


def build_graph(conn: sqlite3.Connection) -> tuple[Any, dict[tuple[str, str], int]]:
    """The name-level rustworkx graph of the current view, and its node of each definition.

    Nodes are (path, qualified name): every definition, plus each file's top level as
    `<module>`. An edge runs from the referring scope to each definition carrying the
    referred name, weighted by the references' count split among those definitions."""
    import rustworkx as rx

    nodes: dict[tuple[str, str], int] = {}
    graph = rx.PyDiGraph(multigraph=True)
    by_name: dict[str, list[int]] = defaultdict(list)
    for path, language, local, name in conn.execute(
        "SELECT f.path, f.language, d.qname, d.name FROM defs d JOIN files f ON f.blob_id = d.blob"
    ):
        key = (path, qualify(module_prefix(path, language), local))
        nodes[key] = graph.add_node(key)
        by_name[name].append(nodes[key])
    weights: dict[tuple[int, int], float] = defaultdict(float)
    for path, language, scope, name, count in conn.execute(
        "SELECT f.path, f.language, r.scope, r.name, COUNT(*) FROM refs r"
        " JOIN files f ON f.blob_id = r.blob GROUP BY f.path, r.scope, r.name"
    ):
        targets = by_name.get(name)
        if not targets or len(targets) > MAX_FANOUT:
            continue
        key = (path, qualify(module_prefix(path, language), scope) or MODULE_SYMBOL)
        src = nodes.get(key)
        if src is None:
            src = nodes[key] = graph.add_node(key)
        share = count / len(targets)
        for t in targets:
            if t != src:
                weights[(src, t)] += share
    graph.add_edges_from([(s, t, w) for (s, t), w in weights.items()])
    return graph, nodes


def pagerank(graph: Any) -> Mapping[int, float]:
    """PageRank of every node (summing to 1); empty for an empty graph."""
    import rustworkx as rx

    return rx.pagerank(graph, alpha=PAGERANK_ALPHA, weight_fn=float) if len(graph) else {}


def lookup(store: Store, keys: list[tuple[str, str]]) -> dict[tuple[str, str], float]:
    """Centrality of (path, qualified name) pairs; 0 for what is off the graph.

    Answers are memoised on the open store; only keys not seen yet go to SQLite, a few
    hundred per statement.
    """
    memo = known(store, keys)
    return {key: memo[key] for key in keys}


def known(store: Store, keys: list[tuple[str, str]]) -> Mapping[tuple[str, str], float]:
    """lookup() without the copy: a read-only view of the store's memo, which holds every
    one of `keys` (and earlier ones). A search asks for every hit's key, thousands on a
    large repository, and reads back only the few it ranks."""
    memo: dict[tuple[str, str], float] | None = getattr(store, CACHE_ATTRIBUTE, None)
    if memo is None:
        memo = {}
        setattr(store, CACHE_ATTRIBUTE, memo)
    missing = list({k for k in keys if k not in memo})
    if missing:
        conn = store.conn
        ensure_table(conn)
        for i in range(0, len(missing), LOOKUP_BATCH):
            batch = missing[i : i + LOOKUP_BATCH]
            marks = ",".join("(?, ?)" for _ in batch)
            # A join, not `(path, qualified_name) IN (VALUES ...)`: SQLite scans the whole
            # table for each batch of an IN list of row values (50 ms a batch on Django)
            # but searches the primary key for each row of a join.
            rows = conn.execute(
                f"SELECT g.path, g.qualified_name, g.value FROM (VALUES {marks}) AS k"
                f" JOIN {TABLE} AS g ON g.path = k.column1 AND g.qualified_name = k.column2",
                [x for key in batch for x in key],
            )
            memo.update({key: 0.0 for key in batch})
            memo.update({(p, q): float(v) for p, q, v in rows})
    return MappingProxyType(memo)
