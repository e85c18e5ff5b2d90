"""The text index: which FTS5 table shape, and how the text retriever compares to git grep.

    python -m bench.text [--project django==5.2.8] [--under django/] [--suffix .py]
                         [--runs 5] [--build-runs 3] [--json]

On the pinned sdist's repository (bench/corpus.py), with the texts the indexer would hand
over (<= MAX_FILE_BYTES, not binary, one per distinct blob):
1. each FTS5 table shape is built into a fresh on-disk database in WAL mode (as the store
   opens it): build seconds (wall and CPU, the best of --build-runs), database bytes (and
   x the source), and the median latency of the candidate look-up alone (FTS only, no
   verification) for each query;
2. the shape we ship (textindex.py) end to end: TextRetriever.search (FTS candidates, read,
   verify, comment check, rank; definitions are not looked up, the stand-in store has none)
   against `git grep -n -I` (-w -F for identifiers, -i -F for literals), both medians of N,
   wall and CPU time (CPU is what to compare on a loaded machine; git grep is threaded).
The retriever keeps at most MAX_HITS_PER_FILE lines a file, so its hit count is below git
grep's line count for terms like `self`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

from bench.corpus import ensure_repo
from maguyva_guard import git
from maguyva_guard.config import MAX_FILE_BYTES
from maguyva_guard.extract import classify
from maguyva_guard.index.fulltext import match_expression
from maguyva_guard.index.schema import FileInfo
from maguyva_guard.retrievers.base import SearchRequest

QUERIES = ("cached_property", "ImproperlyConfigured", "get_queryset", "self",
           "is not a valid", "db")

# name -> (FTS options, content layout): "inline" = FTS keeps the text, "external" = our
# table keeps it and FTS points at it, "zlib" = contentless FTS + zlib-compressed text.
SHAPES: dict[str, tuple[str, str]] = {
    "detail=full (default)": ("", "inline"),
    "detail=column": (", detail=column", "inline"),
    "detail=none": (", detail=none", "inline"),
    "detail=none columnsize=0 external (shipped)": (", detail=none, columnsize=0", "external"),
    "detail=none columnsize=0 contentless+zlib": (", detail=none, columnsize=0", "zlib"),
}


def load_texts(repo: Path, under: str,
               suffix: str = "") -> tuple[dict[str, FileInfo], dict[str, str]]:
    """The view (path -> FileInfo) and blob -> text, filtered as the indexer does."""
    entries = {p: e for p, e in git.ls_index(repo).items()
               if p.startswith(under) and p.endswith(suffix)}
    small = {e.blob for e in entries.values() if e.size <= MAX_FILE_BYTES}
    texts = {b: data.decode("utf-8", "replace") for b, data in git.read_blobs(repo, small).items()
             if not classify.is_binary(data)}
    view = {p: FileInfo(e.blob, "python" if p.endswith(".py") else None,
                        classify.path_category(p)) for p, e in entries.items() if e.blob in texts}
    return view, texts


def build_shape(path: Path, options: str, layout: str,
                texts: dict[str, str]) -> tuple[float, float]:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    started, cpu = time.perf_counter(), time.process_time()
    conn.execute("BEGIN")
    conn.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, blob TEXT UNIQUE NOT NULL, content)")
    content = {"inline": "", "external": ", content='t', content_rowid='id'",
               "zlib": ", content=''"}[layout]
    conn.execute(f"CREATE VIRTUAL TABLE f USING fts5(content{content}, tokenize='trigram'"
                 f"{options})")
    for blob, text in texts.items():
        stored = {"inline": None, "external": text,
                  "zlib": zlib.compress(text.encode(), 6)}[layout]
        rowid = conn.execute("INSERT INTO t(blob, content) VALUES (?, ?)", (blob, stored)).lastrowid
        conn.execute("INSERT INTO f(rowid, content) VALUES (?, ?)", (rowid, text))
    conn.execute("COMMIT")
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return seconds, cpu


def lookup_ms(path: Path, options: str, runs: int) -> dict[str, float]:
    conn = sqlite3.connect(path)
    out = {}
    for q in QUERIES:
        expression = match_expression(q)
        if expression is None:
            continue
        if "detail=none" not in options and "detail=column" not in options:
            expression = '"' + q.replace('"', '""') + '"'  # detail=full can run the phrase
        out[q] = _median_ms(lambda e=expression: conn.execute(
            "SELECT rowid FROM f WHERE f MATCH ?", (e,)).fetchall(), runs)
    conn.close()
    return out


def _median_ms(fn: Any, runs: int, clock: Any = time.perf_counter) -> float:
    times = []
    for _ in range(runs):
        started = clock()
        fn()
        times.append(clock() - started)
    return round(statistics.median(times) * 1000, 2)


def _children_cpu() -> float:
    """CPU seconds of reaped children: git grep's own cost, whatever the machine's load."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class _Store:
    def __init__(self, conn: sqlite3.Connection, view: dict[str, FileInfo]) -> None:
        self.conn, self._view = conn, view

    def files(self) -> dict[str, FileInfo]:
        return self._view

    def definitions_in(self, path: str) -> list[Any]:
        return []


def end_to_end(repo: Path, pathspec: str, view: dict[str, FileInfo], texts: dict[str, str],
               runs: int, workdir: Path) -> dict[str, dict[str, float]]:
    from maguyva_guard.index.fulltext import index_contents
    from maguyva_guard.retrievers.text import TextRetriever, request_terms

    conn = sqlite3.connect(workdir / "shipped.sqlite", isolation_level=None)
    conn.execute("BEGIN")
    index_contents(conn, list(texts.items()))
    conn.execute("COMMIT")
    retriever = TextRetriever(_Store(conn, view))
    out = {}
    for q in QUERIES:
        request = SearchRequest(query=q, intent="exact_match", terms=(q,), limit=100_000)
        hits = retriever.search(request)
        term = request_terms(request)[0]
        flags = ["-w"] if term.identifier else ["-i"]
        grep = ["git", "-C", str(repo), "grep", "-n", "-I", "-F", *flags, "-e", q, "--",
                pathspec]
        lines = subprocess.run(grep, capture_output=True, text=True).stdout.count("\n")

        def search(r: SearchRequest = request) -> None:
            retriever.search(r)

        def grep_run(g: list[str] = grep) -> None:
            subprocess.run(g, capture_output=True)

        out[q] = {
            "retriever_ms": _median_ms(search, runs),
            "retriever_cpu_ms": _median_ms(search, runs, time.process_time),
            "hits": len(hits),
            "git_grep_ms": _median_ms(grep_run, runs),
            "git_grep_cpu_ms": _median_ms(grep_run, runs, _children_cpu),
            "git_grep_lines": lines,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default="django==5.2.8")
    parser.add_argument("--under", default="", help="only paths under this prefix")
    parser.add_argument("--suffix", default="", help="only paths ending so (e.g. .py)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--build-runs", type=int, default=1, help="report the best of N builds")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    name, version = args.project.split("==")
    repo = ensure_repo(name, version)
    view, texts = load_texts(repo, args.under, args.suffix)
    source = sum(len(t.encode()) for t in texts.values())
    report: dict[str, Any] = {"project": args.project, "under": args.under + "*" + args.suffix,
                              "paths": len(view),
                              "blobs": len(texts), "source_bytes": source, "shapes": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for label, (options, layout) in SHAPES.items():
            builds = []
            for n in range(args.build_runs):  # the best of N: the machine is shared
                db = Path(tmp) / f"{len(report['shapes'])}-{n}.sqlite"
                builds.append(build_shape(db, options, layout, texts))
            seconds, cpu = min(b[0] for b in builds), min(b[1] for b in builds)
            size = os.path.getsize(db)
            report["shapes"][label] = {"build_s": round(seconds, 2),
                                       "build_cpu_s": round(cpu, 2), "bytes": size,
                                       "x_source": round(size / source, 2),
                                       "lookup_ms": lookup_ms(db, options, args.runs)}
        pathspec = f"{args.under}*{args.suffix}" if args.suffix else (args.under or ".")
        report["end_to_end"] = end_to_end(repo, pathspec, view, texts, args.runs, Path(tmp))
    print(json.dumps(report, indent=2) if args.json else _table(report))
    return 0


def _table(report: dict[str, Any]) -> str:
    lines = [f"{report['project']} {report['under'] or '(all)'}: {report['paths']} paths, "
             f"{report['blobs']} blobs, {report['source_bytes'] / 1e6:.1f} MB of text", ""]
    for label, r in report["shapes"].items():
        looks = " ".join(f"{q}={ms}" for q, ms in r["lookup_ms"].items())
        lines.append(f"{label:45s} build {r['build_s']:5.2f}s (cpu {r['build_cpu_s']:5.2f}s) "
                     f"{r['bytes'] / 1e6:6.1f} MB "
                     f"({r['x_source']:.2f}x)  lookup ms: {looks}")
    lines += ["", f"{'query':16s} {'retriever ms (cpu)':>19s} {'hits':>6s} "
              f"{'git grep ms (cpu)':>18s} {'lines':>6s}"]
    for q, r in report["end_to_end"].items():
        lines.append(f"{q:16s} {r['retriever_ms']:10.1f} ({r['retriever_cpu_ms']:6.1f}) "
                     f"{r['hits']:6d} {r['git_grep_ms']:9.1f} ({r['git_grep_cpu_ms']:6.1f}) "
                     f"{r['git_grep_lines']:6d}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
