"""The "tests to run" section of `check --format json|markdown`: the call graph the report
walked, without the trails `maguyva-guard tests` follows past it (each walk costs a graph
query, a second of a one-symbol Django check): where a trail is left, the section runs
the tests importing its module and says it is coarser, and how; elsewhere it is the same
selection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_tests_to_run import CORE, FILES, chains, selection, stage
from test_tests_to_run_trails import _stage_scale_change_behind_a_passed_object

from maguyva_guard.cli import main
from maguyva_guard.guard import testtrails


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(FILES)


def check_section(repo: Path) -> dict:
    result = CliRunner().invoke(main, ["check", "--repo", str(repo), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["tests"]


def covers(coarse: dict, fine: dict) -> bool:
    """Whether every test `fine` selects runs under `coarse` (by id or by its file)."""
    ids = {t["id"] for t in coarse["tests"]}
    return all(t["id"] in ids or t["path"] in ids for t in fine["tests"])


def test_past_a_name_only_edge_the_section_runs_the_importers_and_says_it_is_coarser(
        repo, monkeypatch):
    # obj.scale() matches A.scale and B.scale by name only: `tests` follows measure's
    # callers to the one test; the check's section walks no trail: measure's importers
    # (every test module, through the package's re-exports) run, and it says why.
    _stage_scale_change_behind_a_passed_object(repo)
    fine = selection(repo)
    assert list(chains(fine)) == ["tests/test_use.py::test_report"]
    walked = []
    real = testtrails.SharedWalk.callers
    monkeypatch.setattr(testtrails.SharedWalk, "callers",
                        lambda self, *a: walked.append(a) or real(self, *a))
    coarse = check_section(repo)
    assert walked == []
    assert covers(coarse, fine) and coarse["run_all"] is False
    assert [t["id"] for t in coarse["tests"]] == [
        "tests/test_add.py", "tests/test_other.py", "tests/test_total.py", "tests/test_use.py"]
    assert coarse["reasons"][-2:] == [
        "the walk past unresolved edges stopped at its bound of 0 trails: 1 left "
        "unfollowed, the tests importing each run",
        "coarser than `maguyva-guard tests`, which follows the trails left here (to depth 8 "
        "and past name-only edges) and may select fewer"]


def test_where_no_trail_is_left_the_section_is_the_same_selection_as_tests(repo):
    # add's callers all resolve within the report's depth: nothing is left to walk, and
    # the section is what `tests` selects, chains included.
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    section = check_section(repo)
    assert section == {k: v for k, v in selection(repo).items() if k != "version"}
    assert section["reasons"] == []
