"""The graph retriever on a real corpus: graph build, PageRank, and callers queries (issue 3).

    python bench/graph.py [--project django==5.2.8] [--runs 5] [--targets 40] [--seed 1]

In one run, on the index benchmark's corpus (Django 5.2.8 built into a git repository):
- the whole-view graph that centrality is computed on: build (from the index's definitions
  and references) and PageRank, each the median of --runs;
- callers queries for a seeded sample of functions, methods and classes: the first query
  on a freshly opened index (opening it and building the resolver included), then each
  target warm (median of --runs, on one open index), at depth 1 and depth 2;
- `git grep -n -w NAME` for the same names, one process each, as a user would type it.

Targets: a warm callers query under 20 ms; build plus PageRank under 3 s.
Writes bench/results/graph.md and graph.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import ensure_repo  # noqa: E402
from maguyva_guard.index import centrality
from maguyva_guard.index.store import Store
from maguyva_guard.retrievers.graph import GraphRetriever  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
QUERY_TARGET_MS = 20.0
BUILD_TARGET_S = 3.0
KINDS = ("function", "method", "class")
FIRST_QUERIES = 7  # targets asked first on a freshly opened index
MIN_NAME = 4  # shorter names (`get`, `run`) are what every tool finds everywhere


def _median_seconds(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _sample(store: Store, count: int, seed: int) -> list:
    """Seeded functions, methods and classes outside tests whose name occurs in another file."""
    files = store.files()
    pool = [d for d in store.definitions()
            if d.kind in KINDS and len(d.name) >= MIN_NAME and not d.name.startswith("__")
            and files.get(d.path) is not None and files[d.path].category == "source"]
    pool.sort(key=lambda d: (d.path, d.qualified_name))
    random.Random(seed).shuffle(pool)
    chosen = []
    for d in pool:
        refs = store.conn.execute(
            "SELECT COUNT(DISTINCT f.path) FROM refs r JOIN files f ON f.blob_id = r.blob"
            " WHERE r.name = ? AND f.path != ?", (d.name, d.path)).fetchone()[0]
        if refs:
            chosen.append(d)
        if len(chosen) == count:
            break
    return chosen


def _grep_seconds(repo: Path, name: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    out = subprocess.run(["git", "grep", "-n", "-w", name], cwd=repo, capture_output=True,
                         text=True).stdout
    return time.perf_counter() - t0, len(out.splitlines())


def measure(repo: Path, runs: int, targets: int, seed: int) -> dict:
    subprocess.run([sys.executable, "-m", "maguyva_guard", "index"], cwd=repo, check=True,
                   capture_output=True)
    with Store.open(repo) as store:
        build = _median_seconds(lambda: centrality.build_graph(store.conn), runs)
        graph, _ = centrality.build_graph(store.conn)
        rank = _median_seconds(lambda: centrality.pagerank(graph), runs)
        sample = _sample(store, targets, seed)
    figures = {"nodes": len(graph), "edges": graph.num_edges(), "build_s": build,
               "pagerank_s": rank, "targets": len(sample)}

    firsts = []  # a run's first query: open the index, build the resolver, one target
    for d in sample[:FIRST_QUERIES]:
        t0 = time.perf_counter()
        with Store.open(repo) as store:
            GraphRetriever(store).callers(d, depth=1)
        firsts.append(time.perf_counter() - t0)
    figures["first_query_s"] = statistics.median(firsts)

    rows = []
    with Store.open(repo) as store:
        retriever = GraphRetriever(store)
        for d in sample:
            retriever.callers(d, depth=1)  # warm this target's files once
        for d in sample:
            one = _median_seconds(lambda d=d: retriever.callers(d, depth=1), runs)
            two = _median_seconds(lambda d=d: retriever.callers(d, depth=2), max(1, runs // 2))
            callers = {(e.ref.path, e.caller) for e in retriever.callers(d, depth=1)}
            grep_s, grep_lines = min(_grep_seconds(repo, d.name) for _ in range(runs))
            rows.append({"symbol": d.qualified_name, "kind": d.kind, "depth1_ms": one * 1e3,
                         "depth2_ms": two * 1e3, "callers": len(callers),
                         "grep_ms": grep_s * 1e3, "grep_lines": grep_lines})
    figures["queries"] = rows
    return figures


def summarise(figures: dict) -> dict:
    rows = figures["queries"]
    out = {}
    for key in ("depth1_ms", "depth2_ms", "grep_ms"):
        values = [r[key] for r in rows]
        out[key] = {"median": statistics.median(values), "p90": _p(values, 0.9),
                    "max": max(values)}
    out["ratio_median"] = out["depth1_ms"]["median"] / out["grep_ms"]["median"]
    out["under_target"] = sum(r["depth1_ms"] < QUERY_TARGET_MS for r in rows) / len(rows)
    return out


def render(project: str, figures: dict, summary: dict, runs: int) -> str:
    total = figures["build_s"] + figures["pagerank_s"]
    d1, d2, grep = summary["depth1_ms"], summary["depth2_ms"], summary["grep_ms"]
    lines = [
        f"# Graph retriever on {project} (`python bench/graph.py`, medians of {runs} runs)",
        "",
        f"Graph: {figures['nodes']:,} nodes, {figures['edges']:,} edges.",
        "",
        "| what | figure | target |",
        "|---|---|---|",
        f"| graph build (from the index) | {figures['build_s']:.2f} s | |",
        f"| PageRank (rustworkx) | {figures['pagerank_s']:.3f} s | |",
        f"| build + PageRank | {total:.2f} s | < {BUILD_TARGET_S:.0f} s |",
        f"| first callers query on a freshly opened index (median of {FIRST_QUERIES} targets)"
        f" | {figures['first_query_s'] * 1e3:.0f} ms | |",
        f"| warm callers query, depth 1 ({figures['targets']} targets) | median "
        f"{d1['median']:.1f} ms, p90 {d1['p90']:.1f} ms, max {d1['max']:.0f} ms | "
        f"< {QUERY_TARGET_MS:.0f} ms ({summary['under_target']:.0%} of targets under) |",
        f"| warm callers query, depth 2 | median {d2['median']:.1f} ms, p90 {d2['p90']:.1f} ms,"
        f" max {d2['max']:.0f} ms | |",
        f"| `git grep -n -w NAME`, same names | median {grep['median']:.1f} ms, p90 "
        f"{grep['p90']:.1f} ms | |",
        f"| warm depth-1 query / git grep (medians) | {summary['ratio_median']:.2f}x | |",
        "",
        "| symbol | kind | callers | depth 1 ms | depth 2 ms | git grep ms (lines) |",
        "|---|---|---|---|---|---|",
    ]
    for r in figures["queries"]:
        lines.append(f"| `{r['symbol']}` | {r['kind']} | {r['callers']} | {r['depth1_ms']:.1f} |"
                     f" {r['depth2_ms']:.1f} | {r['grep_ms']:.1f} ({r['grep_lines']}) |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default="django==5.2.8", help="NAME==VERSION on PyPI")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--targets", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    name, version = args.project.split("==")
    repo = ensure_repo(name, version)
    figures = measure(repo, args.runs, args.targets, args.seed)
    summary = summarise(figures)
    text = render(args.project, figures, summary, args.runs)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "graph.md").write_text(text)
    (RESULTS / "graph.json").write_text(json.dumps({"figures": figures, "summary": summary},
                                                   indent=1))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
