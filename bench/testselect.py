"""The selection half of bench/tests.py: each selector on each mutant of the oracle, scored.

Runs in its own clone (bench/.cache/tests-select/<project>) so that it can run beside the
oracle. Each mutant is written and staged (`git add`), the selectors run, and the clone is
reset. maguyva-guard runs in-process on a warm index: the first (clean) run builds it, so
each timed run costs what a pre-commit run costs, the staged blob included.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import time
from contextlib import ExitStack
from pathlib import Path

from bench import corpus, mutants, testcauses, testsuite
from bench.testsuite import Project

OUT = corpus.CACHE / "tests-select"
RESULTS = Path(__file__).resolve().parent / "results"
TESTMON_DATA = ".testmondata"


def _clone(project: Project) -> Path:
    repo = corpus.ensure_repo(project.name, project.version)
    work = OUT / project.label
    if not (work / ".git").is_dir():
        OUT.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(repo), str(work)], check=True)
    subprocess.run(["git", "reset", "-q", "--hard"], cwd=work, check=True)
    return work


def guard(work: Path, check: bool = False) -> tuple[list[tuple[str, str]], bool, float,
                                                   list[str], float]:
    """maguyva-guard's selection of the staged change: (id, reason) of each test, run_all,
    seconds (the whole command: index update, impact to depth 8, selection), reasons, and
    the seconds of the selection step alone (reading the tests' view of the index, then
    the rules). `check`: the section `check --format json` reports instead (the
    configured depth, no trail walked past it)."""
    from maguyva_guard.commands import tests
    from maguyva_guard.config import load_config
    from maguyva_guard.guard import impact

    depth = load_config(work).depth if check else tests.TESTS_DEPTH
    views = _TimedViews()
    with ExitStack() as hold:  # as the commands do: the index open until tests are chosen
        t0 = time.perf_counter()
        result = impact.check(str(work), depth=depth, after=views, hold=hold)
        t1 = time.perf_counter()
        s = tests.selection_for(str(work), result, views.view, base=None, head=None,
                                depth=depth, session=views.inner.session,
                                max_walks=tests.CHECK_WALKS if check else None)
        t2 = time.perf_counter()
    return [(t.id, t.reason) for t in s.tests], s.run_all, t2 - t0, list(s.reasons), \
        t2 - t1 + views.seconds


class _TimedViews:
    """commands.tests.ViewReader, timed: reading the tests' view is part of the selection."""

    def __init__(self) -> None:
        from maguyva_guard.commands.tests import ViewReader

        self.inner = ViewReader()
        self.seconds = 0.0

    def __call__(self, store: object) -> None:
        t0 = time.perf_counter()
        self.inner(store)  # type: ignore[arg-type]
        self.seconds = time.perf_counter() - t0

    @property
    def view(self) -> object:
        return self.inner.view


def picked(changed: str, suite_files: set[str]) -> list[str]:
    """pytest-picked's idea: changed test files, plus the test file named after each changed
    module (src/pkg/core.py -> any test_core.py or core_test.py)."""
    stem = Path(changed).stem
    names = {f"test_{stem}.py", f"{stem}_test.py"}
    return sorted(f for f in suite_files if f == changed or Path(f).name in names)


def testmon_baseline(work: Path, project: Project) -> bool:
    out, _, code = testsuite.pytest(work, project, "--testmon", "-o",
                                    f"cache_dir={work / '.testmon-cache'}", timeout=1800,
                                    cache=True)
    return code in (0, 1) and (work / TESTMON_DATA).exists()


def testmon(work: Path, project: Project) -> tuple[list[str], float]:
    """The tests testmon runs for the working tree (from a copy of its baseline data)."""
    shutil.copy(work.parent / f"{project.label}{TESTMON_DATA}", work / TESTMON_DATA)
    out, seconds, _ = testsuite.pytest(work, project, "--testmon", "-rA", "-o",
                                       f"cache_dir={work / '.testmon-cache'}", timeout=600,
                                       cache=True)
    ran = [_local(line.split(" ", 1)[1].split(" - ", 1)[0].strip(), project.label)
           for line in out.splitlines()
           if line.startswith(("PASSED ", "FAILED ", "ERROR ", "XFAIL ", "XPASS "))]
    return ran, seconds


def covered(selected: list[str], run_all: bool, tests: list[str]) -> set[str]:
    if run_all:
        return set(tests)
    chosen = set(selected)
    out = set()
    for t in tests:
        if t in chosen or t.split("::", 1)[0] in chosen:
            out.add(t)
            continue
        base = t.split("[", 1)[0]
        parts = base.split("::")
        if any("::".join(parts[:i]) in chosen for i in range(2, len(parts) + 1)):
            out.add(t)
    return out


def _local(node_id: str, label: str) -> str:
    """A node id relative to the project: without an ini file of its own (toolz), pytest
    takes this repository's as the rootdir and prefixes ids with the way to the clone."""
    for folder in ("tests-work", "tests-select"):
        marker = f"{folder}/{label}/"
        if marker in node_id:
            return node_id.split(marker, 1)[1]
    return node_id


def run_project(project: Project, with_testmon: bool) -> dict:  # type: ignore[type-arg]
    oracle = json.loads((corpus.CACHE / "tests-oracle" / f"{project.label}.json").read_text())
    suite: list[str] = [_local(t, project.label) for t in oracle["suite"]]
    for m in oracle["mutants"]:
        m["failed"] = [_local(t, project.label) for t in m["failed"]]
    suite_files = {t.split("::", 1)[0] for t in suite}
    work = _clone(project)
    guard(work)  # builds the index: later runs are warm
    use_testmon = with_testmon and testmon_baseline(work, project)
    if use_testmon:
        shutil.copy(work / TESTMON_DATA, work.parent / f"{project.label}{TESTMON_DATA}")
    rows = []
    for m in oracle["mutants"]:
        mutant = mutants.Mutant(m["path"], m["function"], m["kind"], m["line"], m["col"],
                                m["end_col"], m["before"], m["after"])
        path = work / m["path"]
        original = path.read_text(encoding="utf-8")
        path.write_text(mutant.apply(original), encoding="utf-8")
        subprocess.run(["git", "add", m["path"]], cwd=work, check=True)
        try:
            row = {"key": m["key"], "failed": m["failed"], "timed_out": m["timed_out"],
                   "picked": _score(picked(m["path"], suite_files), False, m["failed"], suite)}
            for name, check in (("guard", False), ("check", True)):
                tests, run_all, seconds, reasons, select_s = guard(work, check)
                ids = [tid for tid, _ in tests]
                row[name] = _score(ids, run_all, m["failed"], suite) | {
                    "seconds": round(seconds, 3), "select_seconds": round(select_s, 3),
                    "run_all": run_all, "reasons": reasons, "ids": ids,
                    "causes": testcauses.shares(tests, run_all, suite)}
            if use_testmon:
                ran, tm_seconds = testmon(work, project)
                row["testmon"] = _score(ran, False, m["failed"], suite) | {
                    "seconds": round(tm_seconds, 2)}
        finally:
            subprocess.run(["git", "reset", "-q"], cwd=work, check=True)
            path.write_text(original, encoding="utf-8")
        rows.append(row)
        print(f"{project.label} {m['key']}: guard recall {row['guard']['recall']} share "
              f"{row['guard']['share']:.2f} {row['guard']['seconds']:.2f} s; check section "
              f"recall {row['check']['recall']} share {row['check']['share']:.2f}", flush=True)
    return {"project": project.label, "suite": len(suite), "mutants": rows}


def _score(selected: list[str], run_all: bool, failed: list[str], suite: list[str]) -> dict:  # type: ignore[type-arg]
    chosen = covered(selected, run_all, suite)
    hit = [t for t in failed if t in chosen]
    return {"recall": None if not failed else round(len(hit) / len(failed), 4),
            "missed": [t for t in failed if t not in chosen],
            "share": round(len(chosen) / len(suite), 4)}


def run(projects: list[Project], testmon_projects: set[str], reuse: bool = False) -> None:
    """Score every project (or, with `reuse`, take the rows of an earlier run of it)."""
    results = []
    for project in projects:
        cached = OUT / f"{project.label}.result.json"
        if reuse and cached.exists():
            results.append(json.loads(cached.read_text()))
        else:
            results.append(run_project(project, project.name in testmon_projects))
            cached.write_text(json.dumps(results[-1]))
        (RESULTS / "tests.json").write_text(json.dumps(_compact(results), indent=1))
    from bench import testtables

    (RESULTS / "tests.md").write_text(testtables.markdown(results))
    print(testtables.markdown(results))


def _compact(results: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    """The rows without the id lists (bench/results stays small): counts and the first
    missed ids."""
    out = []
    for res in results:
        rows = []
        for r in res["mutants"]:
            row = {"key": r["key"], "failed": len(r["failed"]), "timed_out": r["timed_out"]}
            for name in ("guard", "check", "picked", "testmon"):
                if name in r:
                    sel = {k: v for k, v in r[name].items() if k not in ("ids", "missed")}
                    row[name] = sel | {"missed": r[name]["missed"][:5]}
            rows.append(row)
        out.append({"project": res["project"], "suite": res["suite"], "mutants": rows})
    return out


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0
