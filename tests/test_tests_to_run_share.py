"""`maguyva-guard tests` selects no more than the change can run: rules that narrow a
selection soundly (bench/tests.py measures the share of the suite each leaves)."""

from __future__ import annotations

from conftest import git
from test_tests_to_run import FILES, chains, selection, stage

UNITS = ("class A:\n    def scale(self):\n        return 1\n\n\n"
         "class B:\n    def scale(self):\n        return 2\n")


def test_a_test_calling_by_name_only_runs_alone_not_its_whole_file(make_repo):
    # `obj.scale()` in the test itself (obj: a loop variable) matches A.scale and B.scale
    # by name: whether it runs A.scale or not, the test is the caller; its neighbour that
    # calls nothing does not run it (a helper making the call would: its own callers are
    # not followed, so a helper's file runs whole).
    repo = make_repo(FILES)
    stage(repo, {"app/units.py": UNITS,
                 "tests/test_units.py": "from app.units import A\n\n\n"
                                        "def test_scale():\n    for obj in [A()]:\n"
                                        "        assert obj.scale() == 1\n"
                                        "\n\ndef test_nothing():\n    assert A\n"})
    git(repo, "commit", "-q", "-m", "units")
    stage(repo, {"app/units.py": UNITS.replace("return 1", "return 10")})
    sel = selection(repo)
    assert [(t["id"], t["reason"]) for t in sel["tests"]] == [
        ("tests/test_units.py::test_scale", "")]
    assert chains(sel)["tests/test_units.py::test_scale"] == [
        "tests.test_units.test_scale", "app.units.A.scale"]
