"""Which tests to run: `maguyva-guard tests` against the tests that really fail.

    python -m bench.tests oracle [--mutants 40] [--projects a,b]   # the dynamic oracle (slow)
    python -m bench.tests select [--projects a,b] [--testmon a,b]   # the selections, scored

The oracle: real projects from PyPI whose sdists ship their test suites, each built into a
git repository (bench/corpus.py), and seeded behaviour mutations inside function bodies
(bench/mutants.py). The whole suite runs once per mutant (one pytest at a time, a timeout
per run) and the tests that fail, minus those that fail without the mutant, are what a
selection must contain. Cached in bench/.cache/tests-oracle/<project>.json, resumable.

The selections, per mutant (the mutant staged in a clone of the corpus repository):
- maguyva-guard `tests` (in-process, warm index; its time is the selection's time);
- pytest-picked style: the test files among the changed files, plus each changed module's
  test file by name (src/pkg/core.py -> tests/test_core.py);
- pytest-testmon, when it installs and runs offline: `--testmon --collect-only` on a copy
  of the data its baseline run recorded.
Per mutant: recall of the failing tests, share of the suite selected, time. Results in
bench/results/tests.md and tests.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from bench import corpus, mutants, testsuite
from bench.testsuite import Project

PROJECTS = (
    Project("click", "8.1.7", "src", "tests", "src/click"),
    Project("itsdangerous", "2.2.0", "src", "tests", "src/itsdangerous"),
    Project("more-itertools", "10.5.0", ".", "tests", "more_itertools"),
    Project("toolz", "1.0.0", ".", "toolz/tests", "toolz"),
    Project("markupsafe", "2.1.5", "src", "tests", "src/markupsafe"),
    Project("python-dateutil", "2.9.0.post0", "src", "tests", "src/dateutil"),
    Project("humanize", "4.11.0", "src", "tests", "src/humanize"),
)
SEED = 21
ORACLE = corpus.CACHE / "tests-oracle"
WORK = corpus.CACHE / "tests-work"
TIMEOUT_FACTOR = 5  # a mutant run may take this many times the clean run (a mutant can loop)
MIN_TIMEOUT = 120.0  # at 30 s, 17 of humanize's 40 mutants timed out at load 20 (its clean
# run: 3.2 s); each was run again at this bound
MAX_TIMEOUT = 300.0  # a loop may run this long; at 90 s, 28 of 40 dateutil mutants timed out
# under load (its clean run: 28 s wall for 7 s CPU at load 11), and were left out of recall


def work_copy(project: Project) -> Path:
    """A clone of the corpus repository that mutants are applied to (the cache is never
    mutated); reset to its commit on every use."""
    repo = corpus.ensure_repo(project.name, project.version)
    work = WORK / project.label
    if not (work / ".git").is_dir():
        WORK.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(repo), str(work)], check=True)
    subprocess.run(["git", "reset", "-q", "--hard"], cwd=work, check=True)
    return work


def library_files(work: Path, project: Project) -> list[str]:
    listed = subprocess.run(["git", "ls-files", project.library], cwd=work, check=True,
                            capture_output=True, text=True).stdout.split()
    return [p for p in listed if p.endswith(".py") and not _is_test_path(p)]


def _is_test_path(path: str) -> bool:
    parts = path.split("/")
    return any(p in ("tests", "test", "testing") for p in parts[:-1]) or \
        parts[-1].startswith("test_") or parts[-1] == "conftest.py"


def oracle(project: Project, count: int) -> dict:  # type: ignore[type-arg]
    """Run the suite once clean and once per mutant; resumable from the cached file."""
    ORACLE.mkdir(parents=True, exist_ok=True)
    cache = ORACLE / f"{project.label}.json"
    work = work_copy(project)
    data = json.loads(cache.read_text()) if cache.exists() else {}
    if "suite" not in data:
        clean = testsuite.run_suite(work, project, timeout=900)
        data = {"project": project.label, "suite": testsuite.collect(work, project),
                "baseline_failed": sorted(clean.failed), "baseline_seconds": clean.seconds,
                "mutants": []}
    done = {m["key"] for m in data["mutants"]}
    timeout = min(MAX_TIMEOUT, max(MIN_TIMEOUT, TIMEOUT_FACTOR * data["baseline_seconds"]))
    for m in mutants.sample(work, library_files(work, project), count, SEED):
        if m.key in done:
            continue
        path = work / m.path
        original = path.read_text(encoding="utf-8")
        try:
            path.write_text(m.apply(original), encoding="utf-8")
            run = testsuite.run_suite(work, project, timeout)
        finally:
            path.write_text(original, encoding="utf-8")
        failed = testsuite.expand(run.failed, data["suite"]) - set(data["baseline_failed"])
        data["mutants"].append({
            "key": m.key, "path": m.path, "function": m.function, "kind": m.kind,
            "line": m.line, "col": m.col, "end_col": m.end_col, "before": m.before,
            "after": m.after, "failed": sorted(failed), "seconds": round(run.seconds, 2),
            "timed_out": run.timed_out})
        cache.write_text(json.dumps(data, indent=1))
        print(f"{project.label} {len(data['mutants'])}/{count} {m.key} {m.kind}: "
              f"{len(failed)} failing, {run.seconds:.1f} s", flush=True)
    return data


def _chosen(names: str | None) -> list[Project]:
    if not names:
        return list(PROJECTS)
    wanted = set(names.split(","))
    return [p for p in PROJECTS if p.name in wanted]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("phase", choices=("oracle", "select"))
    ap.add_argument("--mutants", type=int, default=40)
    ap.add_argument("--projects", default=None)
    ap.add_argument("--reuse", action="store_true",
                    help="select: take each project's rows from its last run when present")
    ap.add_argument("--testmon", default="itsdangerous",
                    help="projects to run pytest-testmon on (comma-separated; it runs tests)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    if args.phase == "oracle":
        for project in _chosen(args.projects):
            oracle(project, args.mutants)
    else:
        from bench import testselect

        testselect.run(_chosen(args.projects), set(args.testmon.split(",")), args.reuse)
    print(f"{args.phase}: {time.perf_counter() - t0:.0f} s wall", file=sys.stderr)


if __name__ == "__main__":
    main()
