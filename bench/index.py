"""How fast is `maguyva-guard index`, next to the floor of parsing alone?

    python -m bench.index [--project django==5.2.8] [--runs 3]

Side by side, on a clone of the pinned sdist's repository (bench/corpus.py):
- floor: tree-sitter parsing every file we have a grammar for, in one process, nothing else
  (contents read from git beforehand, outside the timing);
- cold: `maguyva-guard index --rebuild`, end to end of the CLI (start-up, git, parsing,
  queries, SQLite, the text and semantic hooks when those modules exist);
- no change: `maguyva-guard index` again;
- one changed file: one source file edited and staged, then `maguyva-guard index`;
- vectors: when the cold run left the semantic vectors and centralities to its background
  job, `maguyva-guard index --vectors` right after it (it waits for the job): cold + this
  is the wall until the index is complete. Its CPU is its own, not the job's (the job is
  not our child); the job's CPU is what `--embed-now` adds to a cold build.
Each is the median of N runs, with files/s and the peak RSS of its process tree (os.wait4).
Targets: cold within 2x of the floor; no change under 0.2 s; one changed file under 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.corpus import ensure_repo

TARGET_COLD_RATIO = 2.0
TARGET_NO_CHANGE_S = 0.2
TARGET_ONE_CHANGE_S = 0.5
CLI = [sys.executable, "-m", "maguyva_guard"]
_CORE_SECONDS = re.compile(r"· (\d+\.\d+) s$", re.MULTILINE)
_PARSED = re.compile(r"\(([\d,]+) parsed\)")


@dataclass(frozen=True)
class Run:
    seconds: float  # wall
    cpu: float  # user + system of the process tree (workers included: they are reaped)
    peak_mb: float
    stdout: str
    stderr: str


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> Run:
    """One child process, measured with os.wait4 (its own rusage, not all children's)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {stderr.strip()}")
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout, stderr)


def floor(repo: Path) -> dict[str, float]:
    """Parse every supported file once (child-process mode: prints JSON)."""
    from tree_sitter_language_pack import get_parser

    from maguyva_guard import git
    from maguyva_guard.config import MAX_FILE_BYTES
    from maguyva_guard.extract import languages

    entries = git.ls_index(repo)
    wanted = {p: e for p, e in entries.items() if languages.language_for(p)
              and e.size <= MAX_FILE_BYTES}
    contents = git.read_blobs(repo, [e.blob for e in wanted.values()])
    parsers = {lang: get_parser(lang) for lang in {languages.language_for(p) for p in wanted}}
    started, cpu = time.perf_counter(), time.process_time()
    for path, e in wanted.items():
        parsers[languages.language_for(path)].parse(contents[e.blob])
    return {"files": len(wanted), "seconds": time.perf_counter() - started,
            "cpu": time.process_time() - cpu}


def breakdown(repo: Path) -> dict[str, dict[str, float]]:
    """CPU seconds by component of a cold `index` and of a one-file update (child-process
    mode: prints JSON).

    Parsing runs in-process here so that its time is counted: each component is wrapped
    and timed with process_time; "index (own)" is what remains (git, classification,
    SQLite inserts and commit).
    """
    from maguyva_guard.index import fulltext, indexer
    from maguyva_guard.index import parse as blobparse
    from maguyva_guard.index import writer as storewrite
    from maguyva_guard.index.store import Store

    spent: dict[str, float] = {}

    def timed(owner: object, name: str, label: str) -> None:
        inner = getattr(owner, name)

        def wrapper(*args: object, **kwargs: object) -> object:
            started = time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - started

        setattr(owner, name, wrapper)

    def measured(store: Store, **kwargs: bool) -> dict[str, float]:
        spent.clear()
        started = time.process_time()
        indexer.update(store, **kwargs)
        total = time.process_time() - started
        out = dict(spent)
        out["index (own): the rest"] = total - sum(spent.values())
        out["total"] = total
        return out

    blobparse.PARALLEL_MIN_BLOBS = sys.maxsize
    timed(blobparse, "parse_one", "extract (symbols.extract)")
    timed(fulltext, "index_contents", "text index (index.fulltext)")
    timed(indexer, "_embed", "embeddings (index.embeddings)")
    timed(storewrite.StoreWriter, "add_rows", "index (own): record inserts")
    with Store.open(repo, rebuild=True) as store:
        cold = measured(store, embed_all=True)
        _edit_one(repo, _pick_file(repo), 99)
        one = measured(store)
    subprocess.run(["git", "-C", str(repo), "reset", "-q", "--hard"], check=True)
    return {"cold index": cold, "one changed file (update)": one}


def _cli(repo: Path, env: dict[str, str], *args: str) -> Run:
    return run([*CLI, "index", "--repo", str(repo), *args], cwd=repo, env=env)


def _snapshot_package(into: Path) -> dict[str, str]:
    """Copy the package and run the copy: colleagues editing the shared checkout during a
    long run would otherwise change the extractor between runs (and force re-parsing)."""
    import maguyva_guard

    shutil.copytree(Path(maguyva_guard.__file__).parent, into / "maguyva_guard",
                    ignore=shutil.ignore_patterns("__pycache__"))
    here = Path(__file__).resolve().parent.parent
    return {**os.environ, "PYTHONPATH": f"{into}{os.pathsep}{here}"}


def _edit_one(repo: Path, path: str, n: int) -> None:
    with (repo / path).open("a") as f:
        f.write(f"\n\ndef bench_added_{n}():\n    return {n}\n")
    subprocess.run(["git", "-C", str(repo), "add", path], check=True)


def _pick_file(repo: Path) -> str:
    out = subprocess.run(["git", "-C", str(repo), "ls-files", "*.py"], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    sources = [p for p in out if "/tests/" not in f"/{p}"]
    return max(sources, key=lambda p: (repo / p).stat().st_size)  # the slowest to re-parse


def measure(project: str, runs: int) -> dict[str, dict[str, float]]:
    name, version = project.split("==")
    source = ensure_repo(name, version)
    here = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="bench-index-") as tmp:
        repo = Path(tmp) / name
        subprocess.run(["git", "clone", "-q", "--shared", str(source), str(repo)], check=True)
        env = _snapshot_package(Path(tmp) / "pkg")
        rows: dict[str, list[Run]] = {"floor": [], "cold": [], "vectors": [], "no change": [],
                                      "one change": []}
        for _ in range(runs):
            rows["floor"].append(run([sys.executable, "-m", "bench.index", "--floor",
                                      str(repo)], cwd=here, env=env))
        split = json.loads(run([sys.executable, "-m", "bench.index", "--breakdown", str(repo)],
                               cwd=here, env=env).stdout)
        target = _pick_file(repo)
        for n in range(runs):
            rows["cold"].append(_cli(repo, env, "--rebuild"))
            if "in the background" in rows["cold"][-1].stderr:
                rows["vectors"].append(_cli(repo, env, "--vectors"))
            rows["no change"].append(_cli(repo, env))
            _edit_one(repo, target, n)
            rows["one change"].append(_cli(repo, env))
        figures = _summary(rows)
        figures["breakdown"] = split
        return figures


def _summary(rows: dict[str, list[Run]]) -> dict[str, dict[str, float]]:
    floor = [json.loads(r.stdout) for r in rows["floor"]]
    parsed_files = floor[0]["files"]
    out: dict[str, dict[str, float]] = {}
    for label, results in rows.items():
        if not results:
            continue
        if label == "vectors":
            ready = [c.seconds + v.seconds for c, v in zip(rows["cold"], results, strict=True)]
            out[label] = {"seconds": statistics.median(r.seconds for r in results),
                          "cpu": statistics.median(r.cpu for r in results), "parsed": 0,
                          "core": statistics.median(ready), "files_per_s": 0.0,
                          "peak_mb": statistics.median(r.peak_mb for r in results)}
            continue
        if label == "floor":
            seconds = [f["seconds"] for f in floor]
            cpu = [f["cpu"] for f in floor]
            core = seconds
            parsed = {parsed_files}
        else:
            seconds = [r.seconds for r in results]
            cpu = [r.cpu for r in results]
            core = [float(_CORE_SECONDS.search(r.stderr.strip()).group(1))  # type: ignore[union-attr]
                    for r in results]
            parsed = {int(_PARSED.search(r.stderr).group(1).replace(",", ""))  # type: ignore[union-attr]
                      for r in results}
        median = statistics.median(seconds)
        out[label] = {"seconds": median, "cpu": statistics.median(cpu), "parsed": max(parsed),
                      "core": statistics.median(core),
                      "files_per_s": parsed_files / median,
                      "peak_mb": statistics.median(r.peak_mb for r in results)}
    out["summary"] = {"text": next(line for line in rows["cold"][-1].stderr.splitlines()
                                   if line.startswith("indexed")),  # type: ignore[dict-item]
                      "parsed_files": parsed_files}
    return out


def report(project: str, runs: int, figures: dict[str, dict[str, float]]) -> str:
    summary = figures.pop("summary")
    split = figures.pop("breakdown")
    floor, cold = figures["floor"], figures["cold"]
    lines = [f"{project}: medians of {runs} runs; cold: {summary['text']}",
             f"floor = tree-sitter parse of the {summary['parsed_files']} supported files, "
             "one process; the rest is the CLI end to end (core = the summary's own seconds)",
             f"{'':12}{'wall s':>8}{'cpu s':>8}{'core s':>8}{'parsed':>8}{'files/s':>9}"
             f"{'peak MB':>9}  target"]
    targets = {
        "floor": "",
        "cold": f"<= {TARGET_COLD_RATIO:.0f}x floor: wall {cold['seconds'] / floor['seconds']:.1f}x"
                f", cpu {cold['cpu'] / floor['cpu']:.1f}x",
        "no change": f"< {TARGET_NO_CHANGE_S} s",
        "one change": f"< {TARGET_ONE_CHANGE_S} s",
        "vectors": "core = wall from the cold start until the vectors are stored",
    }
    for label, f in figures.items():
        lines.append(f"{label:12}{f['seconds']:8.3f}{f['cpu']:8.3f}{f['core']:8.3f}"
                     f"{f['parsed']:8.0f}"
                     + (f"{f['files_per_s']:9.0f}" if label in ("floor", "cold") else f"{'':9}")
                     + f"{f['peak_mb']:9.0f}"
                     f"  {targets[label]}")
    floor_cpu = floor["cpu"]
    for title, parts in split.items():
        lines.append(f"{title}, CPU by component (one process, parsing in-process; floor "
                     f"{floor_cpu:.2f} s):")
        for label, seconds in parts.items():  # type: ignore[attr-defined]
            lines.append(f"  {label:36}{seconds:7.2f} s{seconds / floor_cpu:6.1f}x floor")
    lines.append(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default="django==5.2.8", help="NAME==VERSION on PyPI")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--floor", metavar="REPO", help=argparse.SUPPRESS)
    parser.add_argument("--breakdown", metavar="REPO", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        print(json.dumps(floor(Path(args.floor))))
        return
    if args.breakdown:
        print(json.dumps(breakdown(Path(args.breakdown))))
        return
    figures = measure(args.project, args.runs)
    print(report(args.project, args.runs, figures))


if __name__ == "__main__":
    main()
