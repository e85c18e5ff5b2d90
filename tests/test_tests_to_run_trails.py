"""`maguyva-guard tests` where the trail from a changed symbol to its tests is easy to lose:
type stubs, test modules importing the changed module itself. Each case selected far more
than its tests before (every test module, through the package's re-exports)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git
from test_tests_to_run import ADD_CHAINS, CORE, FILES, chains, selection, stage

from maguyva_guard.guard import batch
from maguyva_guard.index.store import Store
from maguyva_guard.retrievers.policy import Policy


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(FILES)


def test_a_type_stub_declaring_the_changed_function_selects_no_test_module(repo):
    # core.pyi declares add for type checkers: nothing runs it, so it leads to no test.
    stage(repo, {"app/core.pyi": "def add(a: int, b: int) -> int: ...\n"
                                 "def total(items: list[int]) -> int: ...\n"})
    git(repo, "commit", "-q", "-m", "stubs")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    sel = selection(repo)
    assert chains(sel) == ADD_CHAINS
    assert sel["reasons"] == [] and sel["run_all"] is False


def test_a_test_module_importing_the_changed_module_runs_the_tests_that_call_it(repo):
    stage(repo, {"tests/test_direct.py": "from app.core import add, half\n\n\n"
                                         "def test_it():\n    assert add(0, 0) == 0\n\n\n"
                                         "def test_half():\n    assert half(2) == 1\n"})
    git(repo, "commit", "-q", "-m", "direct")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    sel = selection(repo)
    assert chains(sel) == {**ADD_CHAINS, "tests/test_direct.py::test_it": [
        "tests.test_direct.test_it", "app.core.add"]}
    assert sel["reasons"] == []


def test_a_test_module_naming_the_changed_function_where_no_call_resolves_runs_whole(repo):
    # `mod.add` on a module object the resolver cannot type: add is reached elsewhere, but
    # not from this file, which imports its module and names it.
    stage(repo, {"tests/test_direct.py": "import app.core\n\n\ndef test_it():\n"
                                         "    mod = __import__('app.core').core\n"
                                         "    assert mod.add(0, 0) == 0\n"})
    git(repo, "commit", "-q", "-m", "direct")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    sel = selection(repo)
    direct = {k: v for k, v in chains(sel).items() if k.startswith("tests/test_direct.py")}
    assert direct == {"tests/test_direct.py": ["tests/test_direct.py", "app.core.add"]}
    assert [t["reason"] for t in sel["tests"] if t["id"] == "tests/test_direct.py"] == [
        "imports the module of app.core.add and names add where no call to it resolves"]


UNITS = ("class A:\n    def scale(self):\n        return 1\n\n\n"
         "class B:\n    def scale(self):\n        return 2\n")


def _stage_scale_change_behind_a_passed_object(repo: Path) -> None:
    """A.scale changed, reached from a test only through `measure(obj)`'s `obj.scale()`."""
    stage(repo, {"app/__init__.py": FILES["app/__init__.py"] + "from app.use import report\n",
                 "app/units.py": UNITS,
                 "app/use.py": "from app.units import A, B\n\n\ndef measure(obj):\n"
                               "    return obj.scale()\n\n\ndef report():\n"
                               "    return measure(A() if A else B())\n",
                 "tests/test_use.py": "from app import report\n\n\ndef test_report():\n"
                                      "    assert report() == 1\n"})
    git(repo, "commit", "-q", "-m", "units")
    stage(repo, {"app/units.py": UNITS.replace("return 1", "return 10")})


def test_a_caller_reached_through_a_name_only_edge_leads_on_to_its_own_callers(repo):
    # obj.scale() matches A.scale and B.scale by name only: the report stops at measure,
    # and measure's callers lead to the one test that runs it.
    _stage_scale_change_behind_a_passed_object(repo)
    sel = selection(repo)
    assert chains(sel) == {"tests/test_use.py::test_report": [
        "tests.test_use.test_report", "app.use.report", "app.use.measure", "app.units.A.scale"]}
    assert sel["reasons"] == [] and sel["run_all"] is False


def test_a_module_level_wrapper_leads_to_the_uses_of_the_name_it_binds(repo):
    # half_logged = logged(half): half runs wherever half_logged is called.
    stage(repo, {"app/__init__.py": FILES["app/__init__.py"] + "from app.wrap import half_logged\n",
                 "app/wrap.py": "from app.core import half\n\n\ndef logged(f):\n    return f\n\n\n"
                                "half_logged = logged(half)\n",
                 "tests/test_wrap.py": "from app import half_logged\n\n\ndef test_half():\n"
                                       "    assert half_logged(4) == 2\n\n\ndef test_none():\n"
                                       "    assert True\n"})
    git(repo, "commit", "-q", "-m", "wrap")
    stage(repo, {"app/core.py": CORE.replace("n // 2", "n // 3")})
    sel = selection(repo)
    assert chains(sel) == {"tests/test_wrap.py::test_half": [
        "tests.test_wrap.test_half", "app.wrap.half_logged", "app.core.half"]}
    assert sel["reasons"] == [] and sel["run_all"] is False


@pytest.mark.parametrize("line", ["print(half(4))", "VALUE = half(4)"])
def test_a_call_on_import_still_runs_the_tests_importing_its_module(repo, line):
    # half runs when app.wrap is imported (and may fail there): every importer runs.
    stage(repo, {"app/__init__.py": FILES["app/__init__.py"] + "from app import wrap\n",
                 "app/wrap.py": f"from app.core import half\n\n{line}\n"})
    git(repo, "commit", "-q", "-m", "wrap")
    stage(repo, {"app/core.py": CORE.replace("n // 2", "n // 3")})
    sel = selection(repo)
    assert [t["id"] for t in sel["tests"]] == [
        "tests/test_add.py", "tests/test_other.py", "tests/test_total.py"]
    assert any(r.endswith("the tests importing it run")  # the module-level use
               or r.endswith("the tests importing its module (through any module) run")
               for r in sel["reasons"])  # (VALUE is a constant the index defines)


def test_a_selected_test_method_selects_it_in_the_subclasses_of_its_class_too(repo):
    # pytest runs TestAdd's tests again as TestSub's: TestSub::test_it runs add as well.
    stage(repo, {"tests/test_sub.py": "from app import add\n\n\nclass TestAdd:\n"
                                      "    def test_it(self):\n        assert add(1, 1) == 2\n\n"
                                      "    def test_other(self):\n        assert True\n\n\n"
                                      "class TestSub(TestAdd):\n    pass\n"})
    git(repo, "commit", "-q", "-m", "sub")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    sub = {k: v for k, v in chains(selection(repo)).items() if k.startswith("tests/test_sub")}
    assert sub == {
        "tests/test_sub.py::TestAdd::test_it": ["tests.test_sub.TestAdd.test_it", "app.core.add"],
        "tests/test_sub.py::TestSub::test_it": ["tests.test_sub.TestSub.test_it",
                                                "tests.test_sub.TestAdd.test_it", "app.core.add"]}


GROUPS = ("class Group:\n    def group(self):\n        return 'g'\n\n\n"
          "class Other:\n    def group(self):\n        return 'o'\n\n\n"
          "def make(f):\n    return Group()\n\n\ndef run():\n    return Group().group()\n")


def test_a_method_called_on_a_receiver_a_decorator_made_runs_the_tests_calling_it(repo):
    # cli is whatever @make returned: cli.group() matches every group by name (a name-only
    # edge the test itself makes), so that test runs; the test module that does not name
    # group does not.
    stage(repo, {"app/__init__.py": FILES["app/__init__.py"] + "from app.cmd import make\n",
                 "app/cmd.py": GROUPS,
                 "tests/test_cmd.py": "from app import make\n\n\n@make\ndef cli():\n    pass\n"
                                      "\n\ndef test_group():\n    assert cli.group() == 'g'\n",
                 "tests/test_run.py": "from app.cmd import run\n\n\ndef test_run():\n"
                                      "    assert run() == 'g'\n"})
    git(repo, "commit", "-q", "-m", "cmd")
    stage(repo, {"app/cmd.py": GROUPS.replace("return 'g'", "return 'G'")})
    sel = selection(repo)
    assert [(t["id"], t["reason"]) for t in sel["tests"]] == [
        ("tests/test_cmd.py::test_group",
         "its own call is an ambiguous edge (a name match): the test runs"),
        ("tests/test_run.py::test_run", "")]
    assert sel["run_all"] is False


SHAPES = ("def _fmt(n):\n    return n\n\n\n"
          "class Base:\n    def area(self):\n        return 0\n\n"
          "    def describe(self):\n        return f'area {self.area()}'\n\n\n"
          "class Square(Base):\n    def area(self):\n        return _fmt(4)\n")


def test_a_caller_that_overrides_a_method_leads_on_through_the_overridden_one(repo):
    # _fmt's caller Square.area runs when Base.describe calls self.area().
    stage(repo, {"app/__init__.py": FILES["app/__init__.py"] + "from app.shapes import Square\n",
                 "app/shapes.py": SHAPES,
                 "tests/test_shapes.py": "from app import Square\n\n\n"
                                         "def test_describe():\n"
                                         "    assert Square().describe() == 'area 4'\n"})
    git(repo, "commit", "-q", "-m", "shapes")
    stage(repo, {"app/shapes.py": SHAPES.replace("return n", "return n + 1")})
    sel = selection(repo)
    assert chains(sel) == {"tests/test_shapes.py::test_describe": [
        "tests.test_shapes.test_describe", "app.shapes.Base.describe", "app.shapes.Base.area",
        "app.shapes.Square.area", "app.shapes._fmt"]}
    assert sel["reasons"] == []


def test_a_module_got_by_a_string_selects_the_test_that_gets_it(repo):
    # import_module gives a module object: core.add(...) on it resolves to nothing.
    stage(repo, {"tests/test_dyn.py": "import importlib\n\n\ndef test_dyn():\n"
                                      "    core = importlib.import_module('app.core')\n"
                                      "    assert core.add(1, 1) == 2\n\n\n"
                                      "def test_other():\n    assert True\n"})
    git(repo, "commit", "-q", "-m", "dynamic import")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    sel = selection(repo)
    assert chains(sel) == {**ADD_CHAINS, "tests/test_dyn.py::test_dyn": [
        "tests.test_dyn.test_dyn", "app.core", "app.core.add"]}
    assert sel["reasons"] == []


def test_a_module_named_in_unittest_load_tests_selects_no_more_under_pytest(repo):
    # more-itertools' test_more.py adds more.py's doctests in load_tests, which pytest
    # never calls: that string does not make the whole file run (it made 80% of the suite).
    stage(repo, {"tests/test_doc.py": "import doctest\n\nfrom app import add\n\n\n"
                                      "def load_tests(loader, tests, ignore):\n"
                                      "    tests.addTests(doctest.DocTestSuite('app.core'))\n"
                                      "    return tests\n\n\n"
                                      "def test_add():\n    assert add(1, 1) == 2\n\n\n"
                                      "def test_other():\n    assert True\n"})
    git(repo, "commit", "-q", "-m", "doctests")
    stage(repo, {"app/core.py": CORE.replace("return a + b", "return b + a")})
    doc = {k: v for k, v in chains(selection(repo)).items() if k.startswith("tests/test_doc")}
    assert doc == {"tests/test_doc.py::test_add": ["tests.test_doc.test_add", "app.core.add"]}


def _edge_sites(repo: Path) -> set[str]:
    """The reference sites the index's edge cache holds an answer for ("name kind line")."""
    with Store.open(repo) as store:
        rows = store.conn.execute("SELECT site FROM edges").fetchall()
    return {" ".join(site.split("\x1f")[:3]) for (site,) in rows}


def test_the_trails_keep_and_reuse_resolved_edges_and_select_the_same_tests(
        repo, monkeypatch):
    # The trail past obj.scale() resolves measure's callers, which the check itself never
    # asks about: those answers are kept in the edge cache like the check's own, and the
    # selection is the same with the cache off, on, and answered from it.
    _stage_scale_change_behind_a_passed_object(repo)
    monkeypatch.setenv(batch.EDGE_CACHE_ENV, "0")
    plain = selection(repo)
    monkeypatch.delenv(batch.EDGE_CACHE_ENV)
    assert "measure call 9" not in _edge_sites(repo)
    first = selection(repo)
    assert "measure call 9" in _edge_sites(repo)  # report's call of measure: a trail's edge
    assert selection(repo) == first == plain
    assert chains(plain) == {"tests/test_use.py::test_report": [
        "tests.test_use.test_report", "app.use.report", "app.use.measure", "app.units.A.scale"]}


def test_the_trails_go_on_in_the_checks_open_index_with_its_resolved_references(
        repo, monkeypatch):
    # `tests` and a JSON `check` continue the trails in the check's own view, still open:
    # no second opening of the index, and no reference the check resolved resolved again
    # (the walk past obj.scale() resolves only measure's callers).
    _stage_scale_change_behind_a_passed_object(repo)
    selection(repo)  # indexes the staged view
    monkeypatch.setenv(batch.EDGE_CACHE_ENV, "0")  # every answer worked out in this run
    opened, resolved = [], []
    real_open, real_resolve = Store.open.__func__, Policy._resolve

    def counting_open(cls, *args, **kwargs):  # noqa: ANN001, ANN202
        opened.append(args)
        return real_open(cls, *args, **kwargs)

    def counting_resolve(self, ref):  # noqa: ANN001, ANN202
        resolved.append((ref.path, ref.name, ref.line))
        return real_resolve(self, ref)

    monkeypatch.setattr(Store, "open", classmethod(counting_open))
    monkeypatch.setattr(Policy, "_resolve", counting_resolve)
    sel = selection(repo)
    assert chains(sel)["tests/test_use.py::test_report"][-2:] == [
        "app.use.measure", "app.units.A.scale"]
    assert len(opened) == 1
    assert len(resolved) == len(set(resolved)), sorted(resolved)
