"""The benchmark rig's own parts: scenario changes, enclosing symbols, the oracle, scores."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import oracle, scenarios  # noqa: E402
from bench.oracle import Caller, Mapper, Reference  # noqa: E402
from bench.pysource import Enclosing, scopes  # noqa: E402
from bench.scoring import Outcome, score  # noqa: E402

GIT_ENV = ["-c", "user.name=t", "-c", "user.email=t@t"]

LIB = textwrap.dedent('''\
    import functools


    def helper(a, b=2**3, **kw):
        return a


    @functools.lru_cache
    def cached(x):
        return helper(x)


    class Box:
        def put(self, item):
            def inner():
                return helper(item)
            return inner()

        def __repr__(self):
            return "Box"


    VALUE = helper(1)
    ''')

USER = textwrap.dedent('''\
    from pkg.lib import helper, Box


    def use():
        return helper(3) + Box().put(1)
    ''')


def _scope(source: str, qualname: str):
    return next(s for s in scopes(source) if s.qualname == qualname)


def _function_args(source: str, name: str) -> ast.arguments:
    tree = ast.parse(source)
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                and n.name == name).args


@pytest.mark.parametrize(("params", "kwonly"), [
    ("a, b", ["extra"]),
    ("", ["extra"]),
    ("self, *args, **kw", ["extra"]),
    ("a, b=2**3, **kw", ["extra"]),
    ("a, *, key=1", ["key", "extra"]),
    ("\n    a,\n    b,\n", ["extra"]),
])
def test_signature_change_adds_a_required_keyword_only_parameter(params, kwonly):
    source = f"def target({params}):\n    return 1\n"
    new = scenarios.change_source(source, _scope(source, "target"), "signature")
    args = _function_args(new, "target")
    assert [a.arg for a in args.kwonlyargs] == kwonly
    assert args.kw_defaults[-1] is None  # required: every caller is now broken
    assert new.splitlines()[-1] == "    return 1"


def test_default_change_and_rename_touch_only_the_definition():
    scope = _scope(LIB, "helper")
    changed = scenarios.change_source(LIB, scope, "default")
    assert "def helper(a, b=None, **kw):" in changed
    renamed = scenarios.change_source(LIB, scope, "rename")
    assert "def helper_renamed(a, b=2**3, **kw):" in renamed
    assert renamed.count("helper(") == LIB.count("helper(") - 1
    assert scenarios.kinds_for(LIB, scope) == scenarios.KINDS
    assert scenarios.kinds_for(LIB, _scope(LIB, "Box")) == ("rename",)


def test_candidates_are_used_top_level_definitions_outside_tests():
    texts = {"pkg/lib.py": LIB, "pkg/user.py": USER, "tests/test_lib.py": "def test_x(): pass\n"}
    found = {c.qualname for c in scenarios.candidates("demo", texts)}
    # nested `inner`, dunder `__repr__`, the test and `use` (named once) are not candidates
    assert found == {"helper", "Box", "Box.put"}


def test_enclosing_maps_decorators_nesting_and_module_level():
    enc = Enclosing(scopes(LIB))
    lines = LIB.splitlines()
    assert enc.at(lines.index("@functools.lru_cache") + 1) == "cached"
    assert enc.at(lines.index("            return helper(item)") + 1) == "Box.put.inner"
    assert enc.at(lines.index("VALUE = helper(1)") + 1) == "<module>"
    assert enc.resolve("pkg.lib.Box.put") == "Box.put"
    assert enc.resolve("/abs/pkg/lib.py::cached") == "cached"
    assert enc.resolve("somewhere.else", line=lines.index("VALUE = helper(1)") + 1) == "<module>"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "lib.py").write_text(LIB)
    (tmp_path / "pkg" / "user.py").write_text(USER)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", *GIT_ENV, "add", "-A"], cwd=tmp_path, check=True)
    subprocess.run(["git", *GIT_ENV, "commit", "-qm", "init"], cwd=tmp_path, check=True)
    return tmp_path


def test_apply_stages_the_change_and_revert_restores_the_clone(repo: Path, tmp_path: Path):
    clone = scenarios.scratch_clone(repo, tmp_path / "scratch" / "clone")
    texts = scenarios.read_tracked(clone)
    cand = next(c for c in scenarios.candidates("demo", texts) if c.qualname == "helper")
    scenario = scenarios.with_change(cand, texts[cand.path], seed=3)
    assert scenario.kind in scenarios.KINDS and scenario.patch.startswith("--- a/pkg/lib.py")
    scenarios.apply(clone, scenario)
    staged = subprocess.run(["git", "diff", "--cached", "--name-only"], cwd=clone,
                            capture_output=True, text=True, check=True).stdout
    assert staged.split() == ["pkg/lib.py"]
    scenarios.revert(clone, scenario)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True,
                            text=True, check=True).stdout
    assert status == ""
    assert (repo / "pkg" / "lib.py").read_text() == LIB  # the corpus was never touched


def test_oracle_references_become_enclosing_callers(repo: Path):
    pytest.importorskip("jedi")  # the bench extra
    oracle.set_limits(lifted=True)
    scope = _scope(LIB, "helper")
    refs = oracle.references(repo, "pkg/lib.py", scope.name_line, scope.name_col)
    assert Reference("pkg/lib.py", scope.name_line, scope.name_col) not in refs
    callers = Mapper(scenarios.read_tracked(repo)).callers(refs, Caller("pkg/lib.py", "helper"))
    assert set(callers) == {
        Caller("pkg/lib.py", "cached"), Caller("pkg/lib.py", "Box.put.inner"),
        Caller("pkg/lib.py", "<module>"), Caller("pkg/user.py", "<module>"),
        Caller("pkg/user.py", "use"),
    }


def test_stub_files_hold_no_callers():
    mapper = Mapper({"pkg/lib.py": LIB, "pkg/lib.pyi": "def helper(a: int) -> int: ...\n"})
    refs = [Reference("pkg/lib.pyi", 1, 4), Reference("pkg/lib.py", 24, 8)]
    assert mapper.callers(refs, Caller("pkg/lib.py", "helper")) == [
        Caller("pkg/lib.py", "<module>")]


def test_scores_pool_callers_and_count_false_safe_and_crashes():
    a, b, c = Caller("x.py", "a"), Caller("x.py", "b"), Caller("y.py", "c")
    outcomes = [
        Outcome(frozenset({a, b}), (a, c), True, 1.0, 10.0),
        Outcome(frozenset({c}), (), True, 2.0, 20.0),  # said "nothing": false-safe
        Outcome(frozenset({a}), (), False, 3.0, 30.0),  # crashed
    ]
    s = score(outcomes)
    assert (s.caller_precision, s.caller_recall) == (0.5, 0.25)
    assert s.file_precision == 0.5 and s.file_recall == pytest.approx(1 / 3)
    assert s.false_safe_rate == 0.5 and s.crash_rate == pytest.approx(1 / 3)
    assert s.median_seconds == 1.5 and s.peak_rss_mb == 20.0


def test_measure_runs_a_tool_with_its_bytecode_cache_as_an_installed_package_has_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from bench import measure

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    probe = [sys.executable, "-c", "import sys; print(sys.dont_write_bytecode)"]
    assert measure.run(probe, tmp_path).stdout.strip() == "False"
    assert measure.run(probe, tmp_path, env={"PYTHONDONTWRITEBYTECODE": "1"}
                       ).stdout.strip() == "False"


def test_measure_reports_the_tools_own_peak_memory_and_kills_on_timeout(tmp_path: Path):
    from bench import measure

    ballast = b"x" * (250 * 1024 * 1024)  # resident: the benchmark's size must not leak in
    run = measure.run([sys.executable, "-c", "x = bytearray(60_000_000); print(len(x))"],
                      tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "60000000"
    if measure.GNU_TIME.exists():
        assert 55 < run.max_rss_mb < 200
    assert measure.run(["false"], tmp_path).returncode == 1
    slow = measure.run(["sleep", "5"], tmp_path, timeout=0.2)
    assert slow.timed_out and slow.seconds < 2
    del ballast


def test_oracle_goto_sweep_types_pytest_fixture_parameters(tmp_path: Path):
    """`get_references` misses calls on a conftest fixture parameter; the sweep asks `goto`
    at each occurrence (a fresh Script each time: jedi types only the first fixture
    parameter of one Script) and keeps only those landing on the definition."""
    pytest.importorskip("jedi")
    files = {
        "pkg/__init__.py": "",
        "pkg/app.py": "class App:\n    def route(self, rule):\n        return rule\n",
        "pkg/other.py": "class Other:\n    def route(self, rule):\n        return rule\n",
        "tests/conftest.py": ("import pytest\nfrom pkg.app import App\n\n\n@pytest.fixture\n"
                              "def app():\n    return App()\n"),
        "tests/test_a.py": ("from pkg.other import Other\n\n\ndef test_one(app):\n"
                            "    app.route('/a')\n\n\ndef test_two(app):\n    app.route('/b')\n\n\n"
                            "def test_other():\n    Other().route('/c')\n"),
    }
    _commit(tmp_path, files)
    oracle.set_limits(lifted=True)
    project = oracle.make_project(tmp_path)
    known = set(oracle.references(tmp_path, "pkg/app.py", 2, 8, project))
    swept = oracle.goto_sweep(tmp_path, "pkg/app.py", 2, 8, project, known)
    assert {(r.path, r.line) for r in known | set(swept)} >= {("tests/test_a.py", 5),
                                                             ("tests/test_a.py", 9)}
    assert ("tests/test_a.py", 13) not in {(r.path, r.line) for r in known | set(swept)}
    assert all(r not in known for r in swept)


def test_oracle_goto_sweep_skips_overriding_definitions(tmp_path: Path):
    """jedi's `goto` on an overriding method's own name answers with the base method: such
    a definition is not a reference."""
    pytest.importorskip("jedi")
    _commit(tmp_path, {"m.py": "class Base:\n    def tick(self):\n        pass\n\n\n"
                              "class Child(Base):\n    def tick(self):\n"
                              "        return Base.tick(self)\n"})
    oracle.set_limits(lifted=True)
    project = oracle.make_project(tmp_path)
    swept = oracle.goto_sweep(tmp_path, "m.py", 2, 8, project, set())
    assert {(r.line, r.col) for r in swept} == {(8, 20)}


def _commit(repo: Path, files: dict[str, str]) -> None:
    """A git repository holding `files` (the oracle reads what git tracks)."""
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", *GIT_ENV, "commit", "-q", "-m", "x"], cwd=repo, check=True)


def test_oracle_paths_with_the_root_folder_doubled_map_back_to_tracked_files(tmp_path: Path):
    """jedi answered attrs references as ROOT/attrs-24.2.0/src/... (the sdist folder
    doubled, a path that does not exist): each such caller scored as a miss of every tool."""
    root = tmp_path / "attrs-24.2.0"
    (root / "src" / "attr").mkdir(parents=True)
    (root / "src" / "attr" / "_make.py").write_text("x = 1\n")
    doubled = root / "attrs-24.2.0" / "src" / "attr" / "_make.py"
    assert oracle.project_path(root, doubled) == "src/attr/_make.py"
    assert oracle.project_path(root, root / "src" / "attr" / "_make.py") == "src/attr/_make.py"
    assert oracle.project_path(root, tmp_path / "elsewhere.py") is None
    mapper = Mapper({"src/attr/_make.py": "def f():\n    g()\n"})
    refs = [Reference("attrs-24.2.0/src/attr/_make.py", 2, 4)]  # as cached answers hold it
    assert mapper.callers(refs, Caller("src/attr/_make.py", "g")) == [
        Caller("src/attr/_make.py", "f")]


def test_prs_asks_the_oracle_at_the_implementation_not_an_overload_stub():
    """werkzeug's Headers.get: five `@t.overload` stubs, then the implementation. Asked at
    the first stub (nearest the changed symbol's first line), jedi found the stubs only."""
    from bench import prs

    text = ("import typing as t\n\nclass H:\n"
            "    @t.overload\n    def get(self, k: str) -> str: ...\n"
            "    @t.overload\n    def get(self, k: int) -> int: ...\n"
            "    def get(self, k):\n        return k\n")
    sym = {"path": "h.py", "kind": "method", "qualified_name": "h.H.get", "line_start": 4}
    assert prs._scope_of(sym, {"h.py": text}).start == 8
