"""Search quality and latency of the engine on real queries over Django (issue 5).

    python bench/queries.py [--project django==5.2.8] [--runs 3] [--only SYSTEM ...]

The query set (bench/queries.json) holds labelled queries over the pinned sdist's
repository (bench/corpus.py), each with the files a user would want, read off Django's
source by hand: definitions and bare identifiers (the defining file), references and
impact questions (every file with a call site), literals (the file that raises the
message), how/why questions (the file that implements the thing).

Systems, all over the same warm index, all in this one process (git grep excepted):
- `fused:default`, `fused:thorough`: engine.search, limit 10, as `maguyva-guard query`;
- `structural`, `text`, `graph`, `semantic`: one retriever alone, asked exactly what the
  engine would ask it (the classifier's intent and terms, the engine's candidate count,
  a retriever built per query as engine.search builds them), its hits cut to the first
  10 distinct files in its own order. This is not engine.search under a preset: the plan
  never runs a zero-weight modality (graph and semantic for exact_match), and the
  baseline is what each retriever finds when it does run;
- `git grep`: one process per query on the corpus working tree. Its terms are the
  classifier's (the same information the engine has): the first term, `-w` for an
  identifier (a dotted one: its last part), `-i -F` for a literal; a query with no term
  (most how/why questions) greps its words of 4+ letters outside a stopword list, any of
  them, case-insensitively. Files rank by matching-line count (`git grep -c`), ties by path.

Per query and system: the 1-based rank of the first labelled file among the first 10
distinct result files (hit@1, hit@10), whether the answer was empty, and the latency: one
warm-up call, then --runs timed calls (perf_counter around the search), their median.
Queries are grouped by the intent the engine's classifier gives them. Writes
bench/results/queries.md and queries.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import baselines, measure, report  # noqa: E402
from bench.corpus import ensure_repo  # noqa: E402
from bench.scoring import percentile  # noqa: E402
from maguyva_guard import config, spec
from maguyva_guard.retrievers.base import SearchRequest  # noqa: E402
from maguyva_guard.search import engine, modalities
from maguyva_guard.search.intent import classify

QUERY_SET = Path(__file__).resolve().parent / "queries.json"
CUTOFF = 10  # hit@10, and the engine's limit (`maguyva-guard query` shows 10)
ZERO_TARGET = 0.05  # SPEC 6: the zero-result rate under 5%
FUSED = ("fused:default", "fused:thorough")
SINGLES = spec.MODALITIES  # text, structural, graph, semantic
GREP = "git grep"
SYSTEMS = (*FUSED, *SINGLES, GREP)
KINDS = ("definition", "identifier", "references", "impact", "literal", "how")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_WORD = re.compile(r"[A-Za-z][A-Za-z_]{3,}")
_STOP = frozenset("""does what when where which with from that this into have their there
    about after before being them they then than your work works explain""".split())


@dataclass(frozen=True)
class Query:
    text: str
    kind: str
    labels: tuple[str, ...]
    note: str = ""


@dataclass(frozen=True)
class Answer:
    files: tuple[str, ...]  # distinct files, best first, at most CUTOFF
    seconds: float  # median of the timed runs
    error: str = ""


def load(path: Path = QUERY_SET) -> tuple[str, list[Query]]:
    data = json.loads(path.read_text())
    return data["project"], [Query(q["query"], q["kind"], tuple(q["labels"]), q.get("note", ""))
                             for q in data["queries"]]


def rank_of(files: Iterable[str], labels: Iterable[str]) -> int | None:
    """1-based rank of the first labelled file, None when none is listed."""
    wanted = set(labels)
    return next((i for i, f in enumerate(files, 1) if f in wanted), None)


def distinct_files(paths: Iterable[str], limit: int = CUTOFF) -> tuple[str, ...]:
    return tuple(dict.fromkeys(paths))[:limit]


# --- the systems --------------------------------------------------------------------------

Search = Callable[[str], tuple[str, ...]]


def fused(store: Any, settings: Any, preset: str) -> Search:
    def search(text: str) -> tuple[str, ...]:
        response = engine.search(store, text, preset=preset, limit=CUTOFF, config=settings)
        return distinct_files(r.path for r in response.results)

    return search


def single(store: Any, settings: Any, modality: str) -> Search:
    factory = modalities.retriever_factories(store, settings)[modality]
    wanted = max(CUTOFF, spec.MODALITY_CANDIDATES_MIN)  # what engine.search asks each one

    def search(text: str) -> tuple[str, ...]:
        found = classify(text)
        request = SearchRequest(query=text, intent=found.intent, terms=found.terms,
                                limit=wanted)
        return distinct_files(h.path for h in factory().search(request))

    return search


def grep_args(text: str) -> list[str]:
    """The git grep arguments for a query (see the module doc)."""
    terms = classify(text).terms
    if terms:
        term = terms[0]
        if _IDENT.fullmatch(term):
            return ["-w", "-F", "-e", term.rsplit(".", 1)[-1]]
        return ["-i", "-F", "-e", term]
    words = [w for w in dict.fromkeys(_WORD.findall(text.lower())) if w not in _STOP]
    words = words or text.split()[:1]
    return ["-i", "-w", "-F", *(a for w in words for a in ("-e", w))]


def rank_grep_counts(stdout: str) -> tuple[str, ...]:
    """`git grep -c` output (path:count lines) -> files by count, ties by path."""
    counts = [(path, int(n)) for path, n in (line.rsplit(":", 1) for line in
                                             stdout.splitlines() if line)]
    return tuple(p for p, _ in sorted(counts, key=lambda pc: (-pc[1], pc[0])))[:CUTOFF]


def grep(repo: Path) -> Search:
    def search(text: str) -> tuple[str, ...]:
        run = measure.run(["git", "grep", "-c", "-I", "--no-color", *grep_args(text)], repo)
        if run.returncode not in (0, 1):
            raise RuntimeError(run.stderr.strip()[-200:])
        return rank_grep_counts(run.stdout)

    return search


def timed(search: Search, text: str, runs: int) -> Answer:
    """One warm-up call, then `runs` timed ones; the files of the last, the median time."""
    try:
        search(text)
        times, files = [], ()
        for _ in range(max(runs, 1)):
            started = time.perf_counter()
            files = search(text)
            times.append(time.perf_counter() - started)
        return Answer(files, statistics.median(times))
    except Exception as exc:  # one failing query is a failure to report, not a crash
        return Answer((), 0.0, f"{type(exc).__name__}: {exc}"[:300])


# --- scoring -------------------------------------------------------------------------------

def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """rows: {"rank", "files", "seconds"} per query -> rates and latency."""
    n = len(rows)
    if not n:
        return {"n": 0}
    ms = [1000 * r["seconds"] for r in rows]
    return {"n": n,
            "zero": sum(not r["files"] for r in rows) / n,
            "hit1": sum(r["rank"] == 1 for r in rows) / n,
            "hit10": sum(r["rank"] is not None and r["rank"] <= CUTOFF for r in rows) / n,
            "mrr": sum(1 / r["rank"] for r in rows if r["rank"]) / n,
            "median_ms": statistics.median(ms), "p95_ms": percentile(ms, 0.95)}


def score_all(queries: list[Query], intents: list[str],
              answers: dict[str, list[Answer]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for system, per_query in answers.items():
        rows = [{"rank": rank_of(a.files, q.labels), "files": a.files, "seconds": a.seconds}
                for q, a in zip(queries, per_query, strict=True)]
        out[system] = {
            "overall": summarise(rows),
            "by_intent": {i: summarise([r for r, qi in zip(rows, intents, strict=True)
                                        if qi == i]) for i in spec.INTENTS if i in intents},
            "by_kind": {k: summarise([r for r, q in zip(rows, queries, strict=True)
                                      if q.kind == k]) for k in KINDS},
        }
    return out


# --- the report ------------------------------------------------------------------------------

def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.0f}%"


def _row(name: str, s: dict[str, Any]) -> str:
    if not s.get("n"):
        return f"| {name} | 0 | - | - | - | - | - | - |"
    return (f"| {name} | {s['n']} | {_pct(s['zero'])} | {_pct(s['hit1'])} | {_pct(s['hit10'])} "
            f"| {s['mrr']:.2f} | {s['median_ms']:.1f} | {s['p95_ms']:.1f} |")


HEAD = ("| {} | n | zero results | hit@1 | hit@10 | MRR@10 | median ms | p95 ms |\n"
        "|---|---|---|---|---|---|---|---|")


def render(scores: dict[str, Any], queries: list[Query], intents: list[str],
           answers: dict[str, list[Answer]], meta: dict[str, Any]) -> str:
    lines = [f"# Search quality on {meta['project']}: {len(queries)} labelled queries", "",
             f"Date: {meta['date']}. Machine: {meta['machine']}, load average at start "
             f"{meta['load']:.1f}. Command: `{meta['command']}`. Index: {meta['index']}.", "",
             f"Latency: median of {meta['runs']} warm runs per query (after one warm-up), "
             "in-process for the engine and the retrievers, one `git grep` process per "
             "query. Systems and the git grep mapping: see bench/queries.py.", "",
             "## Overall", "", HEAD.format("system")]
    lines += [_row(s, scores[s]["overall"]) for s in scores]
    lines += ["", f"SPEC 6 target: zero results under {100 * ZERO_TARGET:.0f}%.", ""]
    present = [i for i in spec.INTENTS if i in intents]
    lines += ["## By the intent the classifier chose", ""]
    for intent in present:
        lines += [f"### {intent}", "", HEAD.format("system")]
        lines += [_row(s, scores[s]["by_intent"][intent]) for s in scores]
        lines.append("")
    lines += ["## By kind of query (the query set's own labels)", "",
              "hit@1 / hit@10 per system.", "",
              "| kind | n | " + " | ".join(scores) + " |", "|---|---|" + "---|" * len(scores)]
    for kind in KINDS:
        cells = [f"{_pct(scores[s]['by_kind'][kind].get('hit1'))} / "
                 f"{_pct(scores[s]['by_kind'][kind].get('hit10'))}" for s in scores]
        n = sum(q.kind == kind for q in queries)
        lines.append(f"| {kind} | {n} | " + " | ".join(cells) + " |")
    lines += ["", "## Misses of fused:default (no labelled file at rank 1)", "",
              "| query | intent | kind | rank | expected | got (first 3) |",
              "|---|---|---|---|---|---|"]
    main = answers.get(FUSED[0], [])
    for q, intent, a in zip(queries, intents, main, strict=False):
        rank = rank_of(a.files, q.labels)
        if rank == 1:
            continue
        expected = ", ".join(f"`{p}`" for p in q.labels[:2]) + (" ..." if len(q.labels) > 2
                                                                 else "")
        got = ", ".join(f"`{p}`" for p in a.files[:3]) or ("error: " + a.error if a.error
                                                            else "(nothing)")
        text = q.text.replace("|", "\\|")
        lines.append(f"| {text} | {intent} | {q.kind} | {rank or '-'} | {expected} | {got} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", default="django==5.2.8", help="NAME==VERSION on PyPI")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per query and system")
    parser.add_argument("--only", nargs="+", choices=SYSTEMS, help="run these systems only")
    args = parser.parse_args(argv)
    project, queries = load()
    if args.project != project:
        parser.error(f"the query set is labelled for {project}, not {args.project}")
    name, version = project.split("==")
    repo = ensure_repo(name, version)
    index = baselines.mg_index(repo)  # the index lives in .git: the corpus files stay as built
    if index.returncode != 0:
        raise SystemExit(f"maguyva-guard index failed: {index.stderr.strip()[-300:]}")
    meta = {"project": project, "date": datetime.date.today().isoformat(),
            "machine": report.machine(), "load": os.getloadavg()[0], "runs": args.runs,
            "index": index.stderr.strip().splitlines()[-1] if index.stderr.strip() else "-",
            "command": " ".join(["python bench/queries.py", *(argv or sys.argv[1:])])}
    from maguyva_guard.index.store import Store

    intents = [classify(q.text).intent for q in queries]
    answers: dict[str, list[Answer]] = {}
    with Store.open(repo) as store:
        settings = config.load_config(store.root).semantic
        systems: dict[str, Search] = {
            "fused:default": fused(store, settings, spec.DEFAULT),
            "fused:thorough": fused(store, settings, spec.THOROUGH),
            **{m: single(store, settings, m) for m in SINGLES}, GREP: grep(repo)}
        for system in args.only or SYSTEMS:
            started = time.perf_counter()
            answers[system] = [timed(systems[system], q.text, args.runs) for q in queries]
            print(f"{system}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    scores = score_all(queries, intents, answers)
    markdown = render(scores, queries, intents, answers, meta)
    report.RESULTS.mkdir(parents=True, exist_ok=True)
    (report.RESULTS / "queries.md").write_text(markdown)
    raw = {**meta, "scores": scores, "queries": [
        {"query": q.text, "kind": q.kind, "intent": intent, "labels": list(q.labels),
         "systems": {s: {"rank": rank_of(answers[s][i].files, q.labels),
                         "ms": round(1000 * answers[s][i].seconds, 2),
                         "files": list(answers[s][i].files), "error": answers[s][i].error}
                     for s in answers}}
        for i, (q, intent) in enumerate(zip(queries, intents, strict=True))]}
    (report.RESULTS / "queries.json").write_text(json.dumps(raw, indent=1))
    print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
