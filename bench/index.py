"""How fast is `maguyva-guard index`, next to the floor of parsing alone?

    python -m bench.index [--project django==5.2.8] [--runs 3]

Side by side, on a clone of the pinned sdist's repository (bench/corpus.py):
- floor: tree-sitter parsing every file we have a grammar for, in one process, nothing else
  (contents read from git beforehand, outside the timing);
- cold: `maguyva-guard index --rebuild`, end to end of the CLI (start-up, git, parsing,
  queries, SQLite, the text and semantic hooks when those modules exist);
- no change: `maguyva-guard index` again;
- one changed file: one source file edited and staged, then `maguyva-guard index`.
Each is the median of N runs, with files/s and the peak RSS of its process tree (os.wait4).
Targets: cold within 2x of the floor; no change under 0.2 s; one changed file under 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.corpus import ensure_repo
from bench.measure import Run, run

TARGET_COLD_RATIO = 2.0
TARGET_NO_CHANGE_S = 0.2
TARGET_ONE_CHANGE_S = 0.5
CLI = [sys.executable, "-m", "maguyva_guard"]


def floor(repo: Path) -> dict[str, float]:
    """Parse every supported file once (child-process mode: prints JSON)."""
    from tree_sitter_language_pack import get_parser

    from maguyva_guard import git, languages

    entries = git.ls_index(repo)
    wanted = {p: e for p, e in entries.items() if languages.language_for(p)}
    contents = git.read_blobs(repo, [e.blob for e in wanted.values()])
    parsers: dict[str, object] = {}
    started = time.perf_counter()
    for path, e in wanted.items():
        lang = languages.language_for(path)
        assert lang is not None
        parser = parsers.get(lang) or parsers.setdefault(lang, get_parser(lang))  # type: ignore[arg-type]
        parser.parse(contents[e.blob])  # type: ignore[attr-defined]
    return {"files": len(wanted), "seconds": time.perf_counter() - started}


def _cli(repo: Path, *args: str) -> Run:
    result = run([*CLI, "index", "--repo", str(repo), *args], cwd=repo)
    if result.returncode != 0:
        raise SystemExit(f"maguyva-guard index failed: {result.stderr.strip()}")
    return result


def _edit_one(repo: Path, path: str, n: int) -> None:
    with (repo / path).open("a") as f:
        f.write(f"\n\ndef bench_added_{n}():\n    return {n}\n")
    subprocess.run(["git", "-C", str(repo), "add", path], check=True)


def _pick_file(repo: Path) -> str:
    out = subprocess.run(["git", "-C", str(repo), "ls-files", "*.py"], capture_output=True,
                         text=True, check=True).stdout.split()
    return max((p for p in out if "/tests/" not in f"/{p}"), key=lambda p: (repo / p).stat().st_size)


def measure(project: str, runs: int) -> dict[str, dict[str, float]]:
    name, version = project.split("==")
    source = ensure_repo(name, version)
    with tempfile.TemporaryDirectory(prefix="bench-index-") as tmp:
        repo = Path(tmp) / name
        subprocess.run(["git", "clone", "-q", "--shared", str(source), str(repo)], check=True)
        rows: dict[str, list[Run]] = {"floor": [], "cold": [], "no change": [], "one change": []}
        for _ in range(runs):
            rows["floor"].append(run([sys.executable, "-m", "bench.index", "--floor",
                                      str(repo)], cwd=Path.cwd()))
        files = json.loads(rows["floor"][0].stdout)["files"]
        total_files = len(subprocess.run(["git", "-C", str(repo), "ls-files"],
                                         capture_output=True, text=True).stdout.splitlines())
        target = _pick_file(repo)
        for n in range(runs):
            rows["cold"].append(_cli(repo, "--rebuild"))
            rows["no change"].append(_cli(repo))
            _edit_one(repo, target, n)
            rows["one change"].append(_cli(repo))
        floor_seconds = [json.loads(r.stdout)["seconds"] for r in rows["floor"]]
        return _summary(rows, floor_seconds, files, total_files)


def _summary(rows: dict[str, list[Run]], floor_seconds: list[float], parsed_files: int,
             total_files: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for label, results in rows.items():
        seconds = floor_seconds if label == "floor" else [r.seconds for r in results]
        median = statistics.median(seconds)
        files = parsed_files if label in ("floor", "cold") else total_files
        out[label] = {"seconds": median, "files": files, "files_per_s": files / median,
                      "peak_mb": statistics.median(r.max_rss_mb for r in results)}
    out["cold"]["summary"] = rows["cold"][-1].stderr.strip()  # type: ignore[assignment]
    return out


def report(project: str, runs: int, figures: dict[str, dict[str, float]]) -> str:
    cold_ratio = figures["cold"]["seconds"] / figures["floor"]["seconds"]
    lines = [f"{project}: medians of {runs} runs ({figures['cold']['summary']})",
             f"{'':12}{'seconds':>9}{'files':>8}{'files/s':>10}{'peak MB':>9}  target"]
    targets = {"floor": "", "cold": f"<= {TARGET_COLD_RATIO:.0f}x floor: {cold_ratio:.2f}x",
               "no change": f"< {TARGET_NO_CHANGE_S} s", "one change": f"< {TARGET_ONE_CHANGE_S} s"}
    for label, f in figures.items():
        lines.append(f"{label:12}{f['seconds']:9.3f}{f['files']:8.0f}{f['files_per_s']:10.0f}"
                     f"{f['peak_mb']:9.0f}  {targets[label]}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default="django==5.2.8", help="NAME==VERSION on PyPI")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--floor", metavar="REPO", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        print(json.dumps(floor(Path(args.floor))))
        return
    figures = measure(args.project, args.runs)
    print(report(args.project, args.runs, figures))


if __name__ == "__main__":
    shutil.which("git") or sys.exit("git is needed")
    main()
