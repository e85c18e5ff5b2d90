"""`maguyva-guard tests` for a changed function that no call reaches: only test code naming
it can run it (a fixture returning `mod.quiet`, a test calling what the fixture returned),
so the tests naming it run, not every test importing its package. Where code outside the
repository may call it by name (a base class from the standard library), or the tests do
not name it, the import-level fallback stays."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git
from test_tests_to_run import selection, stage

NATIVE = ("import string\n\n\n"
          "def quiet(s):\n    return '' if s is None else str(s)\n\n\n"
          "class Fmt(string.Formatter):\n    def format_field(self, value, spec):\n"
          "        return str(value)\n")
FILES = {
    "app/__init__.py": "from app.native import Fmt, quiet\n",
    "app/native.py": NATIVE,
    # the module comes as a fixture's parameter (markupsafe: the native module or the C
    # speedups): `_mod.quiet` resolves to nothing
    "tests/conftest.py": ("import pytest\n\nimport app.native\n\n\n"
                          "@pytest.fixture(params=[app.native])\ndef _mod(request):\n"
                          "    return request.param\n\n\n"
                          "@pytest.fixture\ndef quiet_fn(_mod):\n    return _mod.quiet\n"),
    "tests/test_quiet.py": ("import app\n\n\n"
                            "def test_quiet(quiet_fn):\n    assert quiet_fn(None) == ''\n\n\n"
                            "def test_format():\n    assert app.Fmt().format('{}', 1) == '1'\n"),
    "tests/test_else.py": ("import app\n\n\n"
                           "def test_else():\n    assert app.Fmt is not None\n"),
}


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(FILES)


def test_a_function_only_a_fixture_names_selects_the_tests_taking_the_fixture(repo):
    stage(repo, {"app/native.py": NATIVE.replace("return ''", "return 'x'")})
    sel = selection(repo)
    assert [(t["id"], t["chain"]) for t in sel["tests"]] == [(
        "tests/test_quiet.py::test_quiet",
        ["tests.test_quiet.test_quiet", "tests.conftest.quiet_fn", "app.native.quiet"])]
    # `_mod` is what its fixture's params give (app.native): `_mod.quiet` resolves
    assert sel["reasons"] == []


def test_a_fixture_of_unknown_value_naming_the_function_selects_the_tests_taking_it(make_repo):
    conftest = FILES["tests/conftest.py"].replace("params=[app.native]",
                                                  "params=[getattr(app, 'native')]")
    repo = make_repo({**FILES, "tests/conftest.py": conftest})
    stage(repo, {"app/native.py": NATIVE.replace("return ''", "return 'x'")})
    sel = selection(repo)
    assert [(t["id"], t["chain"]) for t in sel["tests"]] == [(
        "tests/test_quiet.py::test_quiet",
        ["tests.test_quiet.test_quiet", "tests.conftest.quiet_fn", "app.native.quiet"])]
    assert sel["reasons"] == [
        "no resolved call reaches app.native.quiet: the tests naming quiet run"]


def test_a_helper_naming_the_function_runs_its_whole_file(repo):
    # `call` is no test: whichever test of the file uses it may run quiet
    stage(repo, {"tests/test_helper.py": (
        "import app.native\n\n\ndef call(mod):\n    return mod.quiet(None)\n\n\n"
        "def test_via_helper():\n    assert call(app.native) == ''\n")})
    git(repo, "commit", "-q", "-m", "helper")
    stage(repo, {"app/native.py": NATIVE.replace("return ''", "return 'x'")})
    sel = selection(repo)
    assert [(t["id"], t["reason"]) for t in sel["tests"]] == [
        ("tests/test_helper.py",  # (the fixture's call resolves: quiet has a caller)
         "imports the module of app.native.quiet and names quiet where no call to it "
         "resolves"),
        ("tests/test_quiet.py::test_quiet", "")]  # (through its fixture: a chain)


def test_a_method_a_standard_library_base_calls_by_name_runs_where_its_objects_are_made(repo):
    # string.Formatter.format calls self.format_field: no test names it, and it runs only
    # on a Fmt, which test_format alone makes (tests/test_tests_to_run_makers.py)
    stage(repo, {"app/native.py": NATIVE.replace("return str(value)", "return repr(value)")})
    ids = [t["id"] for t in selection(repo)["tests"]]
    assert ids == ["tests/test_quiet.py::test_format"]


def test_a_method_a_standard_library_base_calls_by_name_keeps_the_import_fallback(repo):
    # the class handed over as a value: objects of it can be made anywhere
    stage(repo, {"tests/test_else.py": FILES["tests/test_else.py"] + "\n\nKIND = app.Fmt\n"})
    git(repo, "commit", "-q", "-m", "kind")
    stage(repo, {"app/native.py": NATIVE.replace("return str(value)", "return repr(value)")})
    ids = [t["id"] for t in selection(repo)["tests"]]
    assert ids == ["tests/test_else.py", "tests/test_quiet.py"]
