"""What people paste: error messages and traces, against `git grep -F` (issue 23).

    python bench/pasted.py [--per-project 30] [--runs 3]

Messages (bench/pasted_messages.py): rendered at run time from the raise and log sites of
seven PyPI sdists (bench/corpus.py), half with the class (or log) prefix in front; a
sample of at most --per-project per project (every k-th site in path order; Django gets
twice as many). Traces (bench/pasted_traces.py): real Python tracebacks from failing
snippets against installed Django 5.2.8, real Node.js stacks from semver and uuid (npm),
real Go panics from google/uuid and Masterminds/semver (Go module proxy).

Systems, over a warm index (the index lives in the corpus repository's .git):
- `maguyva-guard`: engine.search in this process, limit 10, as `maguyva-guard query`;
- `git grep -F (pasted)`: `git grep -c -I -F -e <the pasted text>`; files by match count;
- `git grep -F (fragment)`: the same with the message's longest literal fragment (the run
  between its quoted values and numbers; the prefix removed, which a grep user has to
  know to do).
Per message: the rank of the first file holding a labelled site (file level, as grep
answers), zero results, and for maguyva-guard whether its first result's line lies in a
labelled site's statement. Per trace: whether the first result is the innermost project
frame (file and line, the truth taken from the runtime, not from our parser).
Latency: one warm-up call, then --runs timed calls, the median; Django on its own row.
Writes bench/results/pasted.md and pasted.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import baselines, measure, report  # noqa: E402
from bench.corpus import ensure_repo  # noqa: E402
from bench.pasted_messages import Message, half_prefixed, messages  # noqa: E402
from bench.pasted_traces import Trace, go_traces, node_traces, python_traces  # noqa: E402
from maguyva_guard.index.store import Store  # noqa: E402
from maguyva_guard.search import engine  # noqa: E402
from maguyva_guard.search.pasted import longest_fragment  # noqa: E402

PROJECTS = {  # name==version -> package folders walked for sites
    "django==5.2.8": ["django"], "requests==2.32.3": ["src/requests"],
    "flask==3.1.0": ["src/flask"], "click==8.1.8": ["src/click"],
    "jinja2==3.1.5": ["src/jinja2"], "werkzeug==3.1.3": ["src/werkzeug"],
    "packaging==24.2": ["src/packaging"],
}
CUTOFF = 10
TOP = 5
SYSTEMS = ("maguyva-guard", "git grep -F (pasted)", "git grep -F (fragment)")

Search = Callable[[str], list[tuple[str, int]]]  # text -> [(path, line)], best first


def sample(found: list[Message], n: int) -> list[Message]:
    if len(found) <= n:
        return found
    step = len(found) / n
    return [found[int(i * step)] for i in range(n)]


def engine_search(store: Any) -> Search:
    def search(text: str) -> list[tuple[str, int]]:
        response = engine.search(store, text, limit=CUTOFF)
        return [(r.path, r.line_start) for r in response.results]
    return search


def grep_search(repo: Path) -> Search:
    def search(text: str) -> list[tuple[str, int]]:
        run = measure.run(["git", "grep", "-c", "-I", "--no-color", "-F", "-e", text], repo)
        counts = [(p, int(n)) for p, n in (ln.rsplit(":", 1) for ln in run.stdout.splitlines()
                                           if ln)]
        return [(p, 0) for p, _ in sorted(counts, key=lambda pc: (-pc[1], pc[0]))][:CUTOFF]
    return search


def timed(search: Search, text: str, runs: int) -> tuple[list[tuple[str, int]], float]:
    search(text)
    times, found = [], []
    for _ in range(max(runs, 1)):
        started = time.perf_counter()
        found = search(text)
        times.append(time.perf_counter() - started)
    return found, statistics.median(times)


def score_message(m: Message, found: list[tuple[str, int]], sites: dict[str, list[range]],
                  ) -> dict[str, Any]:
    files = list(dict.fromkeys(p for p, _ in found))
    rank = next((i for i, f in enumerate(files, 1) if f in m.labels), None)
    line_ok = bool(found) and any(found[0][1] in r for r in sites.get(found[0][0], []))
    return {"rank": rank, "zero": not found, "line1": line_ok}


def run_messages(args: argparse.Namespace) -> tuple[list[dict[str, Any]], list[str]]:
    rows: list[dict[str, Any]] = []
    indexed = []
    for project, dirs in PROJECTS.items():
        name, version = project.split("==")
        repo = ensure_repo(name, version)
        index = baselines.mg_index(repo)
        summary = index.stderr.strip().splitlines()[-1] if index.stderr.strip() else "-"
        indexed.append(f"{project}: {summary}")
        found = messages(repo, dirs)
        chosen = half_prefixed(sample(found, args.per_project * (2 if name == "django" else 1)))
        sites: dict[str, list[range]] = {}
        for m in found:
            sites.setdefault(m.path, []).append(range(m.line, m.end_line + 1))
        with Store.open(repo) as store:
            systems = {SYSTEMS[0]: engine_search(store), SYSTEMS[1]: grep_search(repo),
                       SYSTEMS[2]: grep_search(repo)}
            for m in chosen:
                row: dict[str, Any] = {"project": project, "text": m.text, "path": m.path,
                                       "line": m.line, "labels": list(m.labels),
                                       "prefixed": bool(m.prefix)}
                for system, search in systems.items():
                    text = longest_fragment(m.message) if system == SYSTEMS[2] else m.text
                    hits, seconds = timed(search, text, args.runs)
                    row[system] = {**score_message(m, hits, sites), "ms": 1000 * seconds,
                                   "first": hits[0] if hits else None}
                rows.append(row)
        print(f"{project}: {len(chosen)} of {len(found)} messages", file=sys.stderr)
    return rows, indexed


def run_traces(args: argparse.Namespace) -> list[dict[str, Any]]:
    django = ensure_repo("django", "5.2.8")
    groups: list[tuple[Path, list[Trace]]] = [(django, python_traces(django))]
    groups += node_traces() + go_traces()
    rows = []
    for repo, traces in groups:
        index = baselines.mg_index(repo)
        if index.returncode != 0:
            raise SystemExit(f"index failed for {repo}: {index.stderr[-300:]}")
        with Store.open(repo) as store:
            search = engine_search(store)
            for t in traces:
                hits, seconds = timed(search, t.text, args.runs)
                rows.append({"project": t.project, "language": t.language, "path": t.path,
                             "line": t.line, "first": hits[0] if hits else None,
                             "ok": bool(hits) and hits[0] == (t.path, t.line),
                             "file_ok": bool(hits) and hits[0][0] == t.path,
                             "ms": 1000 * seconds, "text": t.text})
    return rows


def _pct(rows: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> str:
    return f"{100 * sum(map(test, rows)) / len(rows):.0f}%" if rows else "-"


def render(msgs: list[dict[str, Any]], traces: list[dict[str, Any]],
           meta: dict[str, Any]) -> str:
    lines = [f"# Pasted errors: {len(msgs)} messages, {len(traces)} traces", "",
             f"Date: {meta['date']}. Machine: {meta['machine']}, load average at start "
             f"{meta['load']:.1f}. Command: `{meta['command']}`.", "",
             "## Messages rendered from raise and log sites", "",
             "| system | n | site first (file) | in first 5 | zero results | first result "
             "on the site's line | median ms | median ms, Django |",
             "|---|---|---|---|---|---|---|---|"]
    for s in SYSTEMS:
        ms = [r[s]["ms"] for r in msgs]
        dj = [r[s]["ms"] for r in msgs if r["project"].startswith("django")]
        line1 = _pct(msgs, lambda r, s=s: r[s]["line1"]) if s == SYSTEMS[0] else "-"
        lines.append(
            f"| {s} | {len(msgs)} | {_pct(msgs, lambda r, s=s: r[s]['rank'] == 1)} "
            f"| {_pct(msgs, lambda r, s=s: r[s]['rank'] is not None and r[s]['rank'] <= TOP)} "
            f"| {_pct(msgs, lambda r, s=s: r[s]['zero'])} | {line1} "
            f"| {statistics.median(ms):.1f} | {statistics.median(dj) if dj else 0:.1f} |")
    lines += ["", "By project and prefix (maguyva-guard site first / grep pasted / grep "
              "fragment):", "", "| project | n | with prefix | without |", "|---|---|---|---|"]
    for project in PROJECTS:
        rows = [r for r in msgs if r["project"] == project]
        cells = []
        for prefixed in (True, False):
            part = [r for r in rows if r["prefixed"] == prefixed]
            cells.append(" / ".join(_pct(part, lambda r, s=s: r[s]["rank"] == 1)
                                    for s in SYSTEMS) + f" (n={len(part)})")
        lines.append(f"| {project} | {len(rows)} | {cells[0]} | {cells[1]} |")
    lines += ["", "## Tracebacks and stack traces", "",
              "| language | projects | n | innermost project frame first (file and line) "
              "| file only | median ms |", "|---|---|---|---|---|---|"]
    for language in dict.fromkeys(r["language"] for r in traces):
        rows = [r for r in traces if r["language"] == language]
        projects = ", ".join(dict.fromkeys(r["project"] for r in rows))
        lines.append(f"| {language} | {projects} | {len(rows)} | {_pct(rows, lambda r: r['ok'])}"
                     f" | {_pct(rows, lambda r: r['file_ok'])} "
                     f"| {statistics.median(r['ms'] for r in rows):.1f} |")
    lines.append(f"| all | | {len(traces)} | {_pct(traces, lambda r: r['ok'])} "
                 f"| {_pct(traces, lambda r: r['file_ok'])} | |")
    lines += ["", "## Misses of maguyva-guard (site not first)", "",
              "| project | pasted | expected | got |", "|---|---|---|---|"]
    for r in msgs:
        if r[SYSTEMS[0]]["rank"] != 1:
            got = r[SYSTEMS[0]]["first"]
            text = r["text"].replace("|", "\\|")[:110]
            lines.append(f"| {r['project']} | `{text}` | `{r['path']}:{r['line']}` "
                         f"| `{got[0]}:{got[1]}` |" if got else
                         f"| {r['project']} | `{text}` | `{r['path']}:{r['line']}` | (nothing) |")
    for r in traces:
        if not r["ok"]:
            lines.append(f"| {r['project']} | {r['language']} trace | `{r['path']}:{r['line']}`"
                         f" | `{r['first']}` |")
    lines += ["", "Indexes: " + "; ".join(meta["indexed"])]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-project", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    meta: dict[str, Any] = {
        "date": datetime.date.today().isoformat(), "machine": report.machine(),
        "load": os.getloadavg()[0],
        "command": " ".join(["python bench/pasted.py", *(argv or sys.argv[1:])])}
    msgs, meta["indexed"] = run_messages(args)
    traces = run_traces(args)
    markdown = render(msgs, traces, meta)
    report.RESULTS.mkdir(parents=True, exist_ok=True)
    (report.RESULTS / "pasted.md").write_text(markdown)
    small = [{**{k: v for k, v in t.items() if k != "text"},
              "error": t["text"].strip().splitlines()[-1][:200] if t["text"].strip() else ""}
             for t in traces]  # the whole traces would make the results file large
    (report.RESULTS / "pasted.json").write_text(json.dumps(
        {**meta, "messages": msgs, "traces": small}, indent=1))
    print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
