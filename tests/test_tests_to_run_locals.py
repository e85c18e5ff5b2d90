"""`maguyva-guard tests` and the name-only edges no call can take (guard/testlocals.py):
out of a function defined inside a test (it exists only while that test runs): the code
making such a call is no lost trail, the tests reaching it otherwise do not run for the
change; and `super().name()` towards a class that follows the caller's class in no order
of classes. And a test class's fixture used by a subclass's own test in another module."""

from __future__ import annotations

from contextlib import ExitStack

from test_tests_to_run import selection, stage

from maguyva_guard.commands import tests
from maguyva_guard.guard import impact, testlocals

UNITS = "def compute():\n    return 1\n"
# `options.cli` is passed on, so its type is unknown: a name-only use of every `cli`
SHELL = ("class Runner:\n    def go(self, options):\n        return invoke(options.cli)\n\n\n"
         "def invoke(f):\n    return f()\n\n\n"
         "def run(cli):\n    return Runner().go(Options(cli))\n\n\n"
         "class Options:\n    def __init__(self, cli):\n        self.cli = cli\n")
LOCAL_FILES = {
    "app/__init__.py": "", "app/units.py": UNITS, "app/shell.py": SHELL,
    "tests/test_local.py": ("from app.shell import run\nfrom app.units import compute\n\n\n"
                            "def test_local():\n    def cli():\n        return compute()\n\n"
                            "    assert run(cli) == 1\n"),
    "tests/test_other.py": ("from app.shell import run\n\n\n"
                            "def test_other():\n    assert run(lambda: 1) == 1\n"),
}


def _changed(make_repo, files: dict[str, str], path: str, old: str, new: str) -> dict:
    repo = make_repo(files)
    stage(repo, {path: files[path].replace(old, new)})
    return selection(repo)


def test_code_naming_a_function_local_to_a_test_is_no_trail_to_other_tests(make_repo):
    # Runner.go's `options.cli` matches the test's local `cli` by name only: it runs cli
    # inside test_local alone; test_other reaches Runner.go but never that cli
    sel = _changed(make_repo, LOCAL_FILES, "app/units.py", "return 1", "return 2")
    assert [t["id"] for t in sel["tests"]] == ["tests/test_local.py::test_local"]
    assert not sel["run_all"]


def test_the_same_name_in_code_under_test_keeps_the_trail(make_repo):
    # a `cli` of the code under test calls compute too: `self.cli()` may run it in any test
    files = LOCAL_FILES | {"app/cmds.py": "from app.units import compute\n\n\n"
                                          "def cli():\n    return compute()\n"}
    sel = _changed(make_repo, files, "app/units.py", "return 1", "return 2")
    assert [t["id"] for t in sel["tests"]] == [
        "tests/test_local.py::test_local", "tests/test_other.py::test_other"]


SIGNER = ("class Signer:\n    def sign(self):\n        return 1\n\n\n"
          "def make():\n    return Signer()\n")
BASE_TESTS = ("import pytest\n\nfrom app.signer import make\n\n\nclass TestSigner:\n"
              "    @pytest.fixture()\n    def signer(self):\n        return make()\n\n"
              "    def test_sign(self, signer):\n        assert signer.sign() == 1\n")
HEIR_TESTS = ("from tests.test_signer import TestSigner\n\n\nclass TestTimed(TestSigner):\n"
              "    def test_own(self, signer):\n        assert signer.sign() == 1\n\n"
              "    def test_plain(self):\n        assert True\n")


def test_a_fixture_of_a_test_class_reaches_its_subclass_in_another_module(make_repo):
    # TestTimed.test_own takes TestSigner's `signer` fixture, which alone calls make
    files = {"app/__init__.py": "", "app/signer.py": SIGNER, "tests/__init__.py": "",
             "tests/test_signer.py": BASE_TESTS, "tests/test_timed.py": HEIR_TESTS}
    sel = _changed(make_repo, files, "app/signer.py", "return Signer()", "return Signer() or 0")
    ids = [t["id"] for t in sel["tests"]]
    assert "tests/test_timed.py::TestTimed::test_own" in ids
    assert "tests/test_timed.py::TestTimed::test_plain" not in ids
    assert "tests/test_signer.py::TestSigner::test_sign" in ids


ERRORS = ("class Error(Exception):\n    def __init__(self, message):\n"
          "        super().__init__(message)\n        self.message = message\n")
BAR = "class Bar:\n    def __init__(self, n):\n        self.n = n\n"
SUPER_FILES = {
    "app/__init__.py": "", "app/errors.py": ERRORS, "app/bar.py": BAR,
    "tests/test_bar.py": "from app.bar import Bar\n\n\ndef test_bar():\n    assert Bar(1).n == 1\n",
}


def _kept(repo) -> set[str]:
    """The report's entries the tests are chosen from (commands.tests), by symbol."""
    views = tests.ViewReader()
    with ExitStack() as hold:
        report = impact.check(str(repo), depth=tests.TESTS_DEPTH, after=views, hold=hold)
        assert views.session is not None
        kept = testlocals.without_impossible_edges(report, views.view, views.session)
    return {a.symbol for a in (*kept.affected, *kept.possible)}


def test_super_init_towards_an_unrelated_class_is_dropped(make_repo):
    # Error's `super().__init__` matches every __init__ by name (the report lists it as a
    # possible caller of Bar.__init__); Bar follows Error in no class's order
    repo = make_repo(SUPER_FILES)
    stage(repo, {"app/bar.py": BAR.replace("self.n = n", "self.n = n + 1")})
    assert "app.errors.Error.__init__" not in _kept(repo)


def test_super_init_towards_a_class_mixed_in_after_it_is_kept(make_repo):
    # class Both(Error, Bar): in a Both, Error's super().__init__ runs Bar.__init__
    repo = make_repo(SUPER_FILES | {"app/both.py": (
        "from app.bar import Bar\nfrom app.errors import Error\n\n\n"
        "class Both(Error, Bar):\n    pass\n")})
    stage(repo, {"app/bar.py": BAR.replace("self.n = n", "self.n = n + 1")})
    assert "app.errors.Error.__init__" in _kept(repo)


def test_a_read_of_the_name_beside_a_super_call_in_one_expression_counts():
    """Every `.name` of a file is read, not the last of each run of non-blank characters:
    `x.close(super().close())` reads `close` of `x` too (a read the earlier pattern, which
    took the last `.close` of the run, passed over), so the entry keeps its trail."""
    assert testlocals._attribute_uses("x.close(super().close())", "close") == (True, False)
    assert testlocals._attribute_uses("return super().close()", "close") == (False, True)
    assert testlocals._attribute_uses("self.closed = 1", "close") == (False, False)
    assert testlocals._attribute_uses("super().close()\nx .close()", "close") == (True, True)
