"""`maguyva-guard tests` where a test's own call is a name-only edge: `obj.scale()` on a
receiver of unknown type matches every class's scale. The test making that call runs; the
other tests of its file run only when they make a call of that name too (their own
name-only edge) or when the file can reach the method some way no call names (getattr)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git
from test_tests_to_run import selection, stage

UNITS = ("class A:\n    def scale(self):\n        return 1\n\n\n"
         "class B:\n    def scale(self):\n        return 2\n")
# SHARED: an A made on import, so that no test can be told apart by the class it names
# (tests_to_run_dispatch's narrowing does not apply): only the name-only edges decide.
TESTS = ("import pytest\n\nfrom app.units import A, B\n\nSHARED = A()\n\n\n"
         "@pytest.mark.parametrize('obj', [SHARED, B()])\n"
         "def test_scale(obj):\n    assert obj.scale() >= 1\n\n\n"
         "@pytest.mark.parametrize('thing', [SHARED])\n"
         "def test_scale_again(thing):\n    assert thing.scale() == 1\n\n\n"
         "def test_unrelated():\n    assert SHARED is not None\n")
FILES = {"app/__init__.py": "", "app/units.py": UNITS, "tests/test_units.py": TESTS}


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(FILES)


def _change_a(repo: Path, tests: str | None = None) -> dict:
    if tests is not None:
        stage(repo, {"tests/test_units.py": tests})
        git(repo, "commit", "-q", "-m", "tests")
    stage(repo, {"app/units.py": UNITS.replace("return 1", "return 10")})
    return selection(repo)


def test_a_test_whose_own_call_is_name_only_runs_without_its_whole_file(repo):
    sel = _change_a(repo)
    assert [t["id"] for t in sel["tests"]] == [
        "tests/test_units.py::test_scale", "tests/test_units.py::test_scale_again"]
    assert sel["tests"][0]["chain"] == ["tests.test_units.test_scale", "app.units.A.scale"]
    assert sel["tests"][0]["reason"] == (
        "its own call is an ambiguous edge (a name match): the test runs")
    assert not sel["run_all"]


def test_a_test_reaching_the_method_by_getattr_keeps_the_whole_file(repo):
    # test_dynamic never names scale in a call: getattr with a string reaches it.
    dynamic = TESTS + ("\n\ndef test_dynamic():\n"
                       "    assert getattr(SHARED, 'sc' + 'ale')() == 1\n")
    sel = _change_a(repo, dynamic)
    assert [t["id"] for t in sel["tests"]] == ["tests/test_units.py"]
    assert "ambiguous edge" in sel["tests"][0]["reason"]


CLI = ("class Command:\n    def run(self):\n        return 1\n\n\n"
       "def command(f):\n    return Command()\n")
CLI_FILES = {
    "app/__init__.py": "from app.cli import Command, command\n",
    "app/cli.py": CLI,
    "tests/test_direct.py": ("from app.cli import Command\n\n\n"
                             "def test_direct():\n    assert Command().run() == 1\n"),
    # through the package: no test module of these imports app.cli itself
    "tests/test_decorated.py": ("from app import command\n\n\n"
                                "def test_decorated():\n    @command\n    def cli():\n"
                                "        pass\n\n    assert cli.run() == 1\n\n\n"
                                "def test_unrelated():\n    assert command\n"),
}


def test_a_call_on_a_decorated_function_reaches_what_the_decorator_may_return(make_repo):
    # `cli` is whatever `command` returned (a Command): `cli.run()` may run Command.run
    repo = make_repo(CLI_FILES)
    stage(repo, {"app/cli.py": CLI.replace("return 1", "return 2")})
    sel = selection(repo)
    assert [t["id"] for t in sel["tests"]] == [
        "tests/test_decorated.py::test_decorated", "tests/test_direct.py::test_direct"]
    assert sel["tests"][0]["chain"] == ["tests.test_decorated.test_decorated",
                                        "app.cli.Command.run"]
