"""Why a selection is as large as it is: per mutant, the reasons `maguyva-guard tests` gave.

    python -m bench.testwhy [--projects a,b] [--mutants 40] [--only KEY]

No oracle needed: the mutants are drawn as bench/tests.py draws them (same seed), each is
staged in a clone of its own (bench/.cache/tests-why/<project>: a `select` run may be using
the selection's clone at the same time), and the selection is
printed: how many test files it selects whole, how many single tests, whether it runs
everything, and each reason with the number of test files it selected.
"""

from __future__ import annotations

import argparse
import subprocess
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

from bench import corpus, mutants
from bench.tests import PROJECTS, SEED, library_files
from bench.testsuite import Project

WHY = corpus.CACHE / "tests-why"


def _clone(project: Project) -> Path:
    repo = corpus.ensure_repo(project.name, project.version)
    work = WHY / project.label
    if not (work / ".git").is_dir():
        WHY.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(repo), str(work)], check=True)
    subprocess.run(["git", "reset", "-q", "--hard"], cwd=work, check=True)
    return work


def _explain(work: object, verbose: bool) -> str:
    from maguyva_guard.commands import tests
    from maguyva_guard.guard import impact

    views = tests.ViewReader()
    with ExitStack() as hold:  # as the command does: the index open until tests are chosen
        result = impact.check(str(work), depth=tests.TESTS_DEPTH, after=views, hold=hold)
        s = tests.selection_for(str(work), result, views.view, base=None, head=None,
                                depth=tests.TESTS_DEPTH, session=views.session)
    modules = len(views.view.test_modules())
    whole = [t for t in s.tests if t.id == t.path]
    files = {t.path for t in s.tests}
    by_reason = Counter(t.reason for t in whole)
    lines = [f"  run_all={s.run_all} files {len(files)}/{modules} whole {len(whole)} "
             f"single {len(s.tests) - len(whole)}"]
    lines += [f"  reason: {r}" for r in s.reasons]
    lines += [f"  {n:3} files: {r}" for r, n in by_reason.most_common()]
    if verbose:
        lines += [f"    {t.id} <- {' -> '.join(t.chain)}" for t in s.tests]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--projects", default=None)
    ap.add_argument("--mutants", type=int, default=40)
    ap.add_argument("--only", default=None, help="one mutant key (path:line:col:kind)")
    ap.add_argument("-v", action="store_true", help="print every selected test and chain")
    args = ap.parse_args(argv)
    wanted = set(args.projects.split(",")) if args.projects else None
    for project in PROJECTS:
        if wanted and project.name not in wanted:
            continue
        work = _clone(project)
        _explain(work, False)  # builds the index
        for m in mutants.sample(work, library_files(work, project), args.mutants, SEED):
            if args.only and m.key != args.only:
                continue
            path = work / m.path
            original = path.read_text(encoding="utf-8")
            path.write_text(m.apply(original), encoding="utf-8")
            subprocess.run(["git", "add", m.path], cwd=work, check=True)
            try:
                print(f"{project.label} {m.key} {m.function}", flush=True)
                print(_explain(work, args.v), flush=True)
            finally:
                subprocess.run(["git", "reset", "-q"], cwd=work, check=True)
                path.write_text(original, encoding="utf-8")


if __name__ == "__main__":
    main()
