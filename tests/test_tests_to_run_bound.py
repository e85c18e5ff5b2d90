"""The walk past the report's unresolved edges (testtrails) is bounded by a count of
trails, never by time: the same change selects the same tests on an idle machine and on a
busy one, and past the bound the trails left select, honestly, the tests importing them."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from conftest import git
from test_tests_to_run import FILES, chains, selection, stage

from maguyva_guard.guard import testtrails

UNITS = ("class A:\n    def scale(self):\n        return 1\n\n\n"
         "class B:\n    def scale(self):\n        return 2\n")
# obj.scale() matches A.scale and B.scale by name only: the report stops at measure, and
# the trail walk goes on to measure's callers (report, then test_report).
NAME_ONLY = {"app/__init__.py": FILES["app/__init__.py"] + "from app.use import report\n",
             "app/units.py": UNITS,
             "app/use.py": "from app.units import A, B\n\n\ndef measure(obj):\n"
                           "    return obj.scale()\n\n\ndef report():\n"
                           "    return measure(A() if A else B())\n",
             "tests/test_use.py": "from app import report\n\n\ndef test_report():\n"
                                  "    assert report() == 1\n\n\ndef test_other():\n"
                                  "    assert True\n"}
FOLLOWED = {"tests/test_use.py::test_report": [
    "tests.test_use.test_report", "app.use.report", "app.use.measure", "app.units.A.scale"]}


@pytest.fixture
def repo(make_repo) -> Path:
    path = make_repo(FILES)
    stage(path, NAME_ONLY)
    git(path, "commit", "-q", "-m", "units")
    stage(path, {"app/units.py": UNITS.replace("return 1", "return 10")})
    return path


def test_a_busy_machine_selects_what_an_idle_one_does(repo, monkeypatch):
    idle = selection(repo)
    assert chains(idle) == FOLLOWED
    ticks = itertools.count(step=10.0)  # each look at the CPU clock: 10 s more spent
    monkeypatch.setattr("time.process_time", lambda: next(ticks))
    assert selection(repo) == idle


def test_past_the_bound_the_trails_left_run_the_tests_importing_them(repo, monkeypatch):
    # Without a walk, measure's trail is lost: test_use.py (which imports it through the
    # package) runs whole, and as no test is reached, so does every importer of units.py.
    monkeypatch.setattr(testtrails, "MAX_WALKS", 0)
    sel = selection(repo)
    reasons = {t["id"]: t["reason"] for t in sel["tests"]}
    assert sorted(reasons) == ["tests/test_add.py", "tests/test_other.py",
                               "tests/test_total.py", "tests/test_use.py"]
    assert "app.use.measure is reached through an ambiguous edge (name match only): the " \
        "tests importing it run" in sel["reasons"]
    assert "the walk past unresolved edges stopped at its bound of 0 trails: 1 left " \
        "unfollowed, the tests importing each run" in sel["reasons"]
    assert sel["run_all"] is False
