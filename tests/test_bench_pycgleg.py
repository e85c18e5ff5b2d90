"""bench/pycgleg.py's parts that need no download: the expected graph inverted into
callers, the change appended to a definition, the functions a snippet defines, the scores."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import pycgleg  # noqa: E402


def test_the_expected_graph_is_read_as_callers_of_each_callee() -> None:
    graph = {"main": ["main.func", "main.A.__init__"], "main.func": ["main.func", "main.g"],
             "main.g": []}
    assert pycgleg.truth_for(graph) == {"main.func": {"main"}, "main.A.__init__": {"main"},
                                        "main.g": {"main.func"}}  # recursion is no caller


def test_a_required_parameter_is_appended_or_the_definition_skipped() -> None:
    source = "def f():\n    pass\n\nclass A:\n    def m(self, x,):\n        pass\n\n" \
             "def k(**kw):\n    pass\n"
    nodes = {n.name: n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)}
    assert pycgleg.with_parameter(source, nodes["f"]).startswith("def f(mg_extra):")
    assert "def m(self, x,mg_extra):" in pycgleg.with_parameter(source, nodes["m"])
    assert pycgleg.with_parameter(source, nodes["k"]) is None  # nothing may follow **kw


def test_a_snippets_functions_are_named_as_its_call_graph_names_them(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("def f():\n    def inner():\n        pass\n\n"
                                      "class A:\n    def m(self):\n        pass\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("def g():\n    pass\n")
    assert sorted(pycgleg.definitions(tmp_path)) == ["main.A.m", "main.f", "main.f.inner",
                                                     "pkg.g"]


def test_the_summary_splits_empty_answers_into_complete_and_lower_bound() -> None:
    rows = [{"case": "a/x", "truth": ["main"], "found": ["main"], "complete": True, "ok": True},
            {"case": "a/y", "truth": ["main"], "found": [], "complete": True, "ok": True},
            {"case": "a/y", "truth": ["main.f"], "found": [], "complete": False, "ok": True},
            {"case": "b/z", "truth": ["main"], "found": ["main", "main.g"], "complete": True,
             "ok": True}]
    s = pycgleg.summary(rows)
    assert (s["scenarios"], s["cases"], s["no_callers"]) == (4, 3, 2)
    assert (s["no_callers_complete"], s["no_callers_lower_bound"]) == (1, 1)
    assert (s["caller_precision"], s["caller_recall"]) == (2 / 3, 2 / 4)
