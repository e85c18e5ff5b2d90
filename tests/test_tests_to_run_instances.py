"""`maguyva-guard tests` where code under test reaches a changed function through an
object made at module level: calling the object (`rrulestr = _rrulestr()`, then
`rrulestr(s)` runs `_rrulestr.__call__`), or a bound method bound to a module-level name
(`isoparse = DEFAULT_ISOPARSER.isoparse`). The graph resolves `rrulestr(s)` to the class
and `isoparse(s)` to nothing: each chain ended there, and python-dateutil's tests of
rrulestr and isoparse were missed (bench/tests.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git
from test_tests_to_run import ADD_CHAINS, CORE, FILES, chains, selection, stage


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(FILES)


MAKER = ("from app.core import add\n\n\n"
         "class _Maker:\n"
         "    def _build(self, s):\n        return add(s, 1)\n\n"
         "    def __call__(self, s):\n        return self._build(s)\n\n\n"
         "maker = _Maker()\n")


def test_calling_a_module_level_object_runs_its_call_method(repo):
    stage(repo, {"app/__init__.py": FILES["app/__init__.py"] + "from app.rr import maker\n",
                 "app/rr.py": MAKER,
                 "tests/test_rr.py": "from app import maker\n\n\ndef test_maker():\n"
                                     "    assert maker(1) == 2\n\n\n"
                                     "def test_other():\n    assert True\n"})
    git(repo, "commit", "-q", "-m", "maker")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    sel = selection(repo)
    assert chains(sel) == {**ADD_CHAINS, "tests/test_rr.py::test_maker": [
        "tests.test_rr.test_maker", "app.rr.maker", "app.rr._Maker.__call__",
        "app.rr._Maker._build", "app.core.add"]}
    assert sel["reasons"] == [] and sel["run_all"] is False


ISO = ("from app.core import add\n\n\n"
       "class Iso:\n"
       "    def parse(self, s):\n        return self._parse(s)\n\n"
       "    def _parse(self, s):\n        return add(s, 0)\n\n\n"
       "DEFAULT = Iso()\n"
       "isoparse = DEFAULT.parse\n")


def test_a_bound_method_bound_to_a_module_level_name_leads_to_the_uses_of_the_name(repo):
    stage(repo, {"app/__init__.py": FILES["app/__init__.py"] + "from app.iso import isoparse\n",
                 "app/iso.py": ISO,
                 "tests/test_iso.py": "from app import isoparse\n\n\ndef test_iso():\n"
                                      "    assert isoparse(1) == 1\n\n\n"
                                      "def test_other():\n    assert True\n"})
    git(repo, "commit", "-q", "-m", "iso")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    sel = selection(repo)
    assert chains(sel) == {**ADD_CHAINS, "tests/test_iso.py::test_iso": [
        "tests.test_iso.test_iso", "app.iso.isoparse", "app.iso.Iso.parse",
        "app.iso.Iso._parse", "app.core.add"]}
    assert sel["reasons"] == [] and sel["run_all"] is False


def test_a_test_helper_calling_the_object_leads_to_the_tests_calling_the_helper(repo):
    # dateutil's RRuleTest._rrulestr_reverse_test(rule) calls rrulestr(...): the helper is
    # no test, its callers are (found by walking on from it, not by the name's uses).
    stage(repo, {"app/__init__.py": FILES["app/__init__.py"] + "from app.rr import maker\n",
                 "app/rr.py": MAKER,
                 "tests/test_rr.py": "from app import maker\n\n\nclass TestRR:\n"
                                     "    def _check(self, n):\n"
                                     "        assert maker(n) == n + 1\n\n"
                                     "    def test_one(self):\n        self._check(1)\n\n"
                                     "    def test_other(self):\n        assert True\n"})
    git(repo, "commit", "-q", "-m", "maker")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    sel = selection(repo)
    assert chains(sel) == {**ADD_CHAINS, "tests/test_rr.py::TestRR::test_one": [
        "tests.test_rr.TestRR.test_one", "tests.test_rr.TestRR._check", "app.rr.maker",
        "app.rr._Maker.__call__", "app.rr._Maker._build", "app.core.add"]}
    assert sel["reasons"] == [] and sel["run_all"] is False


def test_a_caller_at_the_depth_bound_leads_on_to_its_tests_not_its_importers(repo):
    # --depth 1: the report stops at total (add's caller); the trail goes on to
    # test_total instead of running every test that imports app.core's package.
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    sel = selection(repo, "--depth", "1")
    assert chains(sel) == ADD_CHAINS
    assert sel["reasons"] == [] and sel["run_all"] is False


def test_a_module_level_constant_of_a_test_file_calling_the_change_runs_the_file(repo):
    # VALUE = total(...) runs on import (the index keeps it as a definition of its own,
    # not as module-level code): a failure there fails every test of the file.
    stage(repo, {"tests/test_value.py": "import pytest\n\nfrom app import total\n\n"
                                        "VALUE = total([1, 2])\n\n\n"
                                        "@pytest.mark.parametrize('v', [VALUE])\n"
                                        "def test_value(v):\n    assert v\n\n\n"
                                        "def test_other():\n    assert True\n"})
    git(repo, "commit", "-q", "-m", "value")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    sel = selection(repo)
    assert [(t["id"], t["reason"]) for t in sel["tests"] if "test_value" in t["id"]] == [
        ("tests/test_value.py", "reached through module-level code: the whole file runs")]
