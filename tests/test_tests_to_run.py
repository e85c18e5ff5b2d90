"""`maguyva-guard tests`: the tests a change can break, each with its chain, and the honest
fallbacks (run a whole file, or everything, with the reason) where no call graph leads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import git, write_files

from maguyva_guard.cli import main
from maguyva_guard.integrations import tests_output

CORE = (
    "def add(a, b):\n"
    "    return a + b\n"
    "\n"
    "\n"
    "def total(items):\n"
    "    s = 0\n"
    "    for i in items:\n"
    "        s = add(s, i)\n"
    "    return s\n"
    "\n"
    "\n"
    "def half(n):\n"
    "    return n // 2\n"
    "\n"
    "\n"
    "class Calc:\n"
    "    def double(self, x):\n"
    "        return add(x, x)\n"
)
# The tests import through the package, as users do: no test module imports app.core
# itself, so what selects them is the call graph, test by test.
FILES = {
    "app/__init__.py": "from app.core import Calc, add, half, total\n",
    "app/core.py": CORE,
    "app/other.py": "def unrelated():\n    return 1\n",
    "tests/conftest.py": (
        "import pytest\n\nfrom app import add\n\n\n@pytest.fixture\ndef three():\n"
        "    return add(1, 2)\n"),
    "tests/test_add.py": (
        "import pytest\n\nfrom app import add\n\n\ndef test_add():\n"
        "    assert add(1, 2) == 3\n\n\n"
        '@pytest.mark.parametrize("a,b,c", [(1, 1, 2), (2, 2, 4)])\n'
        "def test_add_param(a, b, c):\n    assert add(a, b) == c\n"),
    "tests/test_total.py": (
        "from app import Calc, total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n\n\n"
        "def test_fixture(three):\n    assert three == 3\n\n\n"
        "class TestCalc:\n    def test_double(self):\n        assert Calc().double(2) == 4\n"),
    "tests/test_other.py": (
        "from app.other import unrelated\n\n\ndef test_unrelated():\n"
        "    assert unrelated() == 1\n"),
}


def run_tests(repo: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["tests", "--repo", str(repo), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


def selection(repo: Path, *args: str) -> dict:
    code, out, err = run_tests(repo, "--format", "json", *args)
    assert code == 0, err
    return json.loads(out)


def chains(sel: dict) -> dict[str, list[str]]:
    return {t["id"]: t["chain"] for t in sel["tests"]}


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(FILES)


def stage(repo: Path, files: dict[str, str]) -> None:
    write_files(repo, files)
    git(repo, "add", "-A")


# What changing app.core.add selects in FILES, each test with the chain that selects it.
ADD_CHAINS = {
    # a direct test caller
    "tests/test_add.py::test_add": ["tests.test_add.test_add", "app.core.add"],
    # a parametrized test: one node id for all its parameters
    "tests/test_add.py::test_add_param": ["tests.test_add.test_add_param", "app.core.add"],
    # two levels: the test calls total, which calls add
    "tests/test_total.py::test_total": ["tests.test_total.test_total", "app.core.total",
                                        "app.core.add"],
    # a conftest fixture that calls the changed function: the test takes it by name
    "tests/test_total.py::test_fixture": ["tests.test_total.test_fixture",
                                          "tests.conftest.three", "app.core.add"],
    # a test class
    "tests/test_total.py::TestCalc::test_double": [
        "tests.test_total.TestCalc.test_double", "app.core.Calc.double", "app.core.add"],
}


def test_a_body_change_selects_each_test_that_reaches_it_with_its_chain(repo):
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    sel = selection(repo)
    assert sel["version"] == 1 and sel["run_all"] is False
    assert chains(sel) == ADD_CHAINS
    assert sel["reasons"] == []
    assert {t["symbol"] for t in sel["tests"]} >= {"tests.test_total.TestCalc.test_double"}


def test_the_pytest_format_prints_node_ids_one_a_line(repo):
    stage(repo, {"app/core.py": CORE.replace("return add(x, x)", "return 2 * add(x, 0) + x")})
    code, out, _ = run_tests(repo, "--format", "pytest")
    assert code == 0
    assert out == "tests/test_total.py::TestCalc::test_double\n"


def test_the_text_format_shows_the_chain(repo):
    stage(repo, {"app/core.py": CORE.replace("s = 0", "s = 1")})
    code, out, _ = run_tests(repo)
    assert code == 0
    assert out == (
        "maguyva-guard: 1 to run (1 test file)\n"
        "  tests/test_total.py::test_total  <- tests.test_total.test_total -> app.core.total\n")


def test_a_floor_division_change_is_a_change(repo):
    # `//` is Python's floor division, not a comment: n // 2 -> n // 3 changes half().
    stage(repo, {"app/core.py": CORE.replace("n // 2", "n // 3")})
    sel = selection(repo)
    assert sel["tests"] or sel["run_all"], "a behaviour change selected no test"
    assert "app.core.half" in " ".join(t for s in sel["tests"] for t in s["chain"]) \
        + " ".join(sel["reasons"])


def test_a_test_module_importing_the_changed_module_runs_whole_when_no_call_resolves(repo):
    # getattr by a string: no reference names half, so no chain leads to test_it.
    stage(repo, {"tests/test_direct.py": "from app import core\n\n\ndef test_it():\n"
                                         "    assert getattr(core, 'half')(2) == 1\n"})
    git(repo, "commit", "-q", "-m", "direct")
    stage(repo, {"app/core.py": CORE.replace("n // 2", "n // 3")})
    direct = [t for t in selection(repo)["tests"] if t["path"] == "tests/test_direct.py"]
    assert direct == [{"id": "tests/test_direct.py", "path": "tests/test_direct.py",
                       "symbol": "", "chain": ["tests/test_direct.py", "app.core.half"],
                       "reason": "imports the module of app.core.half"}]


@pytest.mark.parametrize(("path", "text", "why"), [
    ("requirements.txt", "requests==2.32.3\n", "the dependencies every test runs against"),
    ("poetry.lock", "# lock\n", "the dependencies every test runs against"),
    ("pytest.ini", "[pytest]\naddopts = -x\n", "it can configure how every test runs"),
    ("pyproject.toml", "[tool.pytest.ini_options]\n", "it can configure how every test runs"),
])
def test_lock_files_and_test_configuration_run_everything(repo, path, text, why):
    stage(repo, {path: text})
    sel = selection(repo)
    assert sel["run_all"] is True and sel["tests"] == []
    assert sel["reasons"] == [f"{path} changed: {why}"]
    code, out, err = run_tests(repo, "--format", "pytest")
    assert (code, out) == (0, "")  # `pytest $(...)` with no ids runs the whole suite
    assert err == f"maguyva-guard: run all tests: {path} changed: {why}\n"


def test_a_changed_conftest_runs_every_test_module_under_its_folder(repo):
    stage(repo, {"tests/conftest.py": FILES["tests/conftest.py"] + "\n\nVALUE = 4\n"})
    sel = selection(repo)
    assert sel["run_all"] is False
    assert [t["id"] for t in sel["tests"]] == [
        "tests/test_add.py", "tests/test_other.py", "tests/test_total.py"]
    assert sel["reasons"][0].startswith("tests/conftest.py changed: its fixtures reach")


def test_a_module_level_change_runs_the_test_modules_that_import_it(repo):
    stage(repo, {"app/other.py": "import os\n\nos.environ.setdefault('APP_MODE', 'test')\n\n\n"
                                 "def unrelated():\n    return 1\n"})
    sel = selection(repo)
    assert sel["run_all"] is False
    assert [t["id"] for t in sel["tests"]] == ["tests/test_other.py"]
    assert "module-level code changed" in sel["reasons"][0]


def test_a_file_without_symbol_support_runs_everything(repo):
    stage(repo, {"app/schema.graphql": "type Query { add: Int }\n"})
    sel = selection(repo)
    assert sel["run_all"] is True
    assert "(generic tier): no call graph to follow" in sel["reasons"][0]


def test_docs_alone_select_no_test(repo):
    stage(repo, {"README.md": "# app\n"})
    code, out, err = run_tests(repo, "--format", "pytest")
    assert (code, out, err) == (0, "", "maguyva-guard: no tests reach this change\n")


SHAPES = ("class Base:\n    def area(self):\n        return 0\n\n"
          "    def describe(self):\n        return f'area {self.area()}'\n\n\n"
          "class Square(Base):\n    def area(self):\n        return 4\n")


def test_an_override_is_reached_through_the_callers_of_the_method_it_overrides(repo):
    # self.area() in Base resolves to Base.area: Square().describe() runs Square.area.
    stage(repo, {"app/__init__.py": FILES["app/__init__.py"] + "from app.shapes import Square\n",
                 "app/shapes.py": SHAPES,
                 "tests/test_shapes.py": "from app import Square\n\n\n"
                                         "def test_describe():\n"
                                         "    assert Square().describe() == 'area 4'\n\n\n"
                                         "def test_type():\n    assert Square\n"})
    git(repo, "commit", "-q", "-m", "shapes")
    stage(repo, {"app/shapes.py": SHAPES.replace("return 4", "return 5")})
    sel = selection(repo)
    assert chains(sel) == {"tests/test_shapes.py::test_describe": [
        "tests.test_shapes.test_describe", "app.shapes.Base.describe", "app.shapes.Base.area",
        "app.shapes.Square.area"]}
    assert sel["reasons"] == []


def test_a_special_method_runs_the_importers_of_its_module(repo):
    # __repr__ is called by repr() and f-strings: no reference names it.
    stage(repo, {"app/shapes.py": SHAPES + "\n    def __repr__(self):\n        return 'sq'\n",
                 "tests/test_shapes.py": "from app.shapes import Square\n\n\n"
                                         "def test_repr():\n    assert f'{Square()!r}'\n"})
    git(repo, "commit", "-q", "-m", "shapes")
    stage(repo, {"app/shapes.py": SHAPES + "\n    def __repr__(self):\n        return 'sq2'\n"})
    sel = selection(repo)
    assert [t["id"] for t in sel["tests"]] == ["tests/test_shapes.py"]
    assert any("a dunder, or an override called through a base class" in r
               for r in sel["reasons"])


UNITS = ("class A:\n    def scale(self):\n        return 1\n\n\n"
         "class B:\n    def scale(self):\n        return 2\n")
UNITS_TESTS = ("from app.units import A, B\n\n\n"
               "def helper(obj):\n    return obj.scale()\n\n\n"
               "def test_scale():\n    assert helper(A() if A else B()) == 1\n\n\n"
               "def test_other():\n    assert helper(B()) == 2\n")


def _stage_units(repo: Path, tests: str) -> dict:
    """A.scale changed, reached from test_units.py through `obj.scale()` on a parameter of
    unknown type: two classes define scale, a name-only edge."""
    stage(repo, {"app/units.py": UNITS, "tests/test_units.py": tests})
    git(repo, "commit", "-q", "-m", "units")
    stage(repo, {"app/units.py": UNITS.replace("return 1", "return 10")})
    return selection(repo)


def test_an_ambiguous_edge_runs_the_whole_test_file(repo):
    # An A made on import: any test of the file may hold one (tests_to_run_dispatch).
    sel = _stage_units(repo, UNITS_TESTS + "\n\nSHARED = A()\n")
    units = [t for t in sel["tests"] if t["path"] == "tests/test_units.py"]
    assert units and units[0]["id"] == "tests/test_units.py"
    assert "ambiguous edge" in units[0]["reason"]


def test_an_ambiguous_edge_runs_only_the_tests_of_its_file_that_can_hold_the_class(repo):
    # Only test_scale names A: test_other makes the same call on a B, never A.scale.
    sel = _stage_units(repo, UNITS_TESTS)
    assert chains(sel) == {"tests/test_units.py::test_scale": [
        "tests.test_units.test_scale", "tests.test_units.helper", "app.units.A.scale"]}
    assert sel["tests"][0]["reason"] == (
        "reached through an ambiguous edge, of its file only the tests that name the class "
        "of an override on the chain")


def test_check_json_and_markdown_carry_the_tests_to_run(repo):
    stage(repo, {"app/core.py": CORE.replace("s = 0", "s = 1")})
    result = CliRunner().invoke(main, ["check", "--repo", str(repo), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["tests"] == {
        "tests": [{"id": "tests/test_total.py::test_total", "path": "tests/test_total.py",
                   "symbol": "tests.test_total.test_total",
                   "chain": ["tests.test_total.test_total", "app.core.total"], "reason": ""}],
        "run_all": False, "reasons": []}
    result = CliRunner().invoke(main, ["check", "--repo", str(repo), "--format", "markdown"])
    assert result.exit_code == 0, result.output
    assert "\n### Tests to run\n" in result.stdout
    assert "<code>tests/test&#95;total.py::test&#95;total</code>" in result.stdout


def test_bad_input_is_one_line_and_exit_2(repo):
    code, out, err = run_tests(repo, "--head", "HEAD")
    assert (code, out) == (2, "")
    assert err == "maguyva-guard: error: --head needs --base\n"
    code, _, err = run_tests(repo, "--format", "xml")
    assert code == 2 and err.count("\n") == 1 and err.startswith("maguyva-guard: error:")


def test_the_action_outputs_the_selection_on_one_line():
    sel = {"tests": [{"id": "t/test_a.py::test_x", "path": "t/test_a.py"},
                     {"id": "t/test_a.py::test_y", "path": "t/test_a.py"}],
           "run_all": False, "reasons": []}
    assert tests_output.outputs(sel, "pytest") == {
        "tests": "t/test_a.py::test_x t/test_a.py::test_y", "tests-run-all": "false"}
    assert tests_output.outputs(sel, "paths")["tests"] == "t/test_a.py"
    assert tests_output.outputs({**sel, "run_all": True}, "pytest") == {
        "tests": "", "tests-run-all": "true"}


def test_a_test_class_imported_by_another_test_module_selects_its_tests_there_too(repo):
    # pytest collects an imported test class again, and its subclasses inherit its tests;
    # the importing module's other tests do not run the change.
    stage(repo, {"tests/__init__.py": "",
                 "tests/test_base.py": "from app import add\n\n\nclass TestAdd:\n"
                                       "    def test_it(self):\n        assert add(1, 1) == 2\n",
                 "tests/test_more.py": "from tests.test_base import TestAdd\n\n\n"
                                       "class TestMore(TestAdd):\n    pass\n\n\n"
                                       "class TestDeeper(TestMore):\n    pass\n\n\n"
                                       "def test_unrelated():\n    assert True\n",
                 "tests/test_last.py": "from tests.test_more import TestMore\n\n\n"
                                       "class TestLast(TestMore):\n    pass\n"})
    git(repo, "commit", "-q", "-m", "classes")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    ids = chains(selection(repo))
    base = ["tests.test_base.TestAdd.test_it", "app.core.add"]
    assert ids["tests/test_base.py::TestAdd::test_it"] == base
    assert ids["tests/test_more.py::TestAdd::test_it"] == ["tests.test_more.TestAdd.test_it",
                                                          *base]
    assert ids["tests/test_more.py::TestMore::test_it"] == [
        "tests.test_more.TestMore.test_it", *base]
    assert ids["tests/test_more.py::TestDeeper::test_it"] == [
        "tests.test_more.TestDeeper.test_it", *base]
    # imported from test_more in turn: collected there, and derived from
    assert ids["tests/test_last.py::TestMore::test_it"][:2] == [
        "tests.test_last.TestMore.test_it", "tests.test_more.TestMore.test_it"]
    assert ids["tests/test_last.py::TestLast::test_it"][0] == "tests.test_last.TestLast.test_it"
    assert not any(k.startswith("tests/test_more.py::test_unrelated") or
                   k in ("tests/test_more.py", "tests/test_last.py") for k in ids)


def test_a_test_class_imported_under_another_name_selects_its_tests_by_that_name(repo):
    # `from m import TestAdd as Base`: pytest collects no `TestAdd` there (the module binds
    # `Base`, not a test name), but `class TestMore(Base)` runs TestAdd's tests again. The
    # node ids given to pytest must all exist: a missing one fails the whole run.
    stage(repo, {"tests/__init__.py": "",
                 "tests/test_base.py": "from app import add\n\n\nclass TestAdd:\n"
                                       "    def test_it(self):\n        assert add(1, 1) == 2\n",
                 "tests/test_more.py": "from tests.test_base import TestAdd as Base\n\n\n"
                                       "class TestMore(Base):\n    pass\n"})
    git(repo, "commit", "-q", "-m", "classes")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    ids = chains(selection(repo))
    assert ids["tests/test_more.py::TestMore::test_it"][:2] == [
        "tests.test_more.TestMore.test_it", "tests.test_base.TestAdd.test_it"]
    more = sorted(k for k in ids if k.startswith("tests/test_more.py"))
    assert more == ["tests/test_more.py::TestMore::test_it"]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         *sorted(k for k in ids if "::" in k)],
        cwd=repo, capture_output=True, text=True)
    assert collected.returncode == 0, collected.stdout + collected.stderr


BASE_WITH_CONSTANT = ("from app import add\n\nVALUE = add(1, 1)\n\n\n"
                      "def helper():\n    return 2\n\n\nclass TestAdd:\n"
                      "    def test_it(self):\n        assert helper() == 2\n")


def test_a_test_module_selected_whole_selects_its_classes_where_they_are_imported(repo):
    # test_base.py runs whole (add is called on import); test_more.py collects TestAdd
    # again and derives TestMore from it, and imports test_base, which calls add on
    # import: its tests fail with it, so it runs whole too.
    stage(repo, {"tests/__init__.py": "",
                 "tests/test_base.py": BASE_WITH_CONSTANT,
                 "tests/test_more.py": "from tests.test_base import TestAdd\n\n\n"
                                       "class TestMore(TestAdd):\n    pass\n\n\n"
                                       "def test_unrelated():\n    assert True\n"})
    git(repo, "commit", "-q", "-m", "classes")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    tests = {t["id"]: t["reason"] for t in selection(repo)["tests"]}
    assert tests["tests/test_base.py"] == "reached through module-level code: the whole file runs"
    assert tests["tests/test_more.py"] == ("imports tests/test_base.py, whose module-level code "
                                           "runs the change on import: the whole file runs")


def test_a_test_module_selected_whole_selects_only_its_classes_in_a_subclassing_module(repo):
    # test_base.py runs whole (a helper at the depth bound); test_more.py imports only
    # TestAdd from it: TestAdd and TestMore run there, test_unrelated does not.
    stage(repo, {"tests/__init__.py": "",
                 "tests/test_base.py": "from app import total\n\n\ndef helper():\n"
                                       "    return total([1])\n\n\nclass TestAdd:\n"
                                       "    def test_it(self):\n        assert helper() == 1\n",
                 "tests/test_more.py": "from tests.test_base import TestAdd\n\n\n"
                                       "class TestMore(TestAdd):\n    pass\n\n\n"
                                       "def test_unrelated():\n    assert True\n"})
    git(repo, "commit", "-q", "-m", "classes")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    ids = chains(selection(repo, "--depth", "2"))
    assert ids["tests/test_base.py"][0] == "tests.test_base.helper"
    assert ids["tests/test_more.py::TestAdd"][:2] == ["tests.test_more.TestAdd",
                                                      "tests.test_base.helper"]
    assert ids["tests/test_more.py::TestMore"][:2] == ["tests.test_more.TestMore",
                                                       "tests.test_base.helper"]
    assert not any(k.startswith("tests/test_more.py::test_unrelated") or k == "tests/test_more.py"
                   for k in ids)


def test_a_test_module_importing_a_test_class_module_as_an_object_runs_whole(repo):
    # `base.TestAdd` used some other way than as a base class: nothing tells which tests
    # run it, so the importing module runs whole.
    stage(repo, {"tests/__init__.py": "",
                 "tests/test_base.py": "from app import add\n\n\nclass TestAdd:\n"
                                       "    def test_it(self):\n        assert add(1, 1) == 2\n",
                 "tests/test_more.py": "from tests import test_base\n\n\n"
                                       "TestAgain = test_base.TestAdd\n"})
    git(repo, "commit", "-q", "-m", "classes")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    ids = chains(selection(repo))
    assert ids["tests/test_more.py"] == ["tests/test_more.py", "tests/test_base.py"]
