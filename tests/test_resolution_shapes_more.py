"""Issue 24's shapes in the languages where fixture tests did not cover them yet, each on a
real repository through the real CLI: class-body uses (Python, TypeScript, Java), an
inherited method through a subclass instance (Python), a function passed and invoked
(TypeScript), conditional definitions as build-tagged twin files (Go)."""

from __future__ import annotations

import pytest
from conftest import checked


def direct(report: dict) -> dict[tuple[str, int], tuple[str, str]]:
    return {(a["path"], a["line"]): (a["symbol"], a["confidence"]) for a in report["affected"]
            if a["depth"] == 1}


@pytest.mark.parametrize(("files", "path", "old", "new", "expected"), [
    ({"config.py": "class ConfigAttribute:\n    def __init__(self, name):\n"
                   "        self.name = name\n",
      "app.py": "from config import ConfigAttribute\n\n\nclass App:\n"
                "    testing = ConfigAttribute(\"TESTING\")\n"
                "    secret = ConfigAttribute(\"SECRET\")\n"},
     "config.py", "def __init__(self, name):", "def __init__(self, name, default):",
     {("app.py", 5): ("app.App", "exact")}),  # one entry per calling symbol
    ({"m.ts": "export function make(name: string): number {\n  return 1;\n}\n"
              "export class App {\n  testing = make(\"TESTING\");\n}\n"},
     "m.ts", "make(name: string)", "make(name: string, d: number)",
     {("m.ts", 5): ("m.App", "exact")}),
    ({"src/Attr.java": "package p;\npublic class Attr {\n"
                       "  public static Attr of(String n) { return new Attr(); }\n}\n",
      "src/App.java": "package p;\npublic class App {\n"
                      "  static final Attr TESTING = Attr.of(\"TESTING\");\n}\n"},
     "src/Attr.java", "of(String n)", "of(String n, int d)",
     {("src/App.java", 3): ("src.App.App.TESTING", "probable")}),  # the class's field
])
def test_a_factory_used_in_a_class_body_belongs_to_the_class(
        make_repo, files, path, old, new, expected) -> None:
    report = checked(make_repo, files, path, old, new)
    found = {k: v[0] for k, v in direct(report).items() if k[1] > 1}  # not the import line
    assert found == {k: v[0] for k, v in expected.items()}


def test_a_python_inherited_method_is_reached_through_a_subclass_instance(make_repo) -> None:
    files = {"m.py": "class A:\n    def run(self, x):\n        return x\n\n"
                     "class Other:\n    def run(self, x):\n        return x\n\n"
                     "class B(A):\n    pass\n\n"
                     "def go():\n    b = B()\n    return b.run(1)\n"}
    report = checked(make_repo, files, "m.py", "class A:\n    def run(self, x):",
                     "class A:\n    def run(self, x, y):")
    assert direct(report) == {("m.py", 14): ("m.go", "probable")}
    assert report["complete"] is True


def test_a_typescript_function_passed_as_a_value_breaks_where_it_is_invoked(make_repo) -> None:
    source = ("function target(x: number): number {\n  return x;\n}\n"
              "function apply(fn: (x: number) => number): number {\n  return fn(1);\n}\n"
              "export function main(): number {\n  return apply(target);\n}\n")
    report = checked(make_repo, {"m.ts": source}, "m.ts", "function target(x: number)",
                     "function target(x: number, y: number)")
    found = direct(report)
    assert found[("m.ts", 8)] == ("m.main", "exact")
    assert found[("m.ts", 5)] == ("m.apply", "probable")


def test_go_build_tagged_twin_definitions_are_both_reached(make_repo) -> None:
    """`//go:build linux` and `//go:build !linux` files each define `openFile`: a call in
    the package may run either, so a change to either reaches it."""
    files = {"go.mod": "module example.com/m\n\ngo 1.21\n",
             "open_linux.go": "//go:build linux\n\npackage m\n\n"
                              "func openFile(p string) int { return 1 }\n",
             "open_other.go": "//go:build !linux\n\npackage m\n\n"
                              "func openFile(p string) int { return 2 }\n",
             "use.go": "package m\n\nfunc Use() int {\n\treturn openFile(\"x\")\n}\n"}
    for path in ("open_linux.go", "open_other.go"):
        report = checked(make_repo, files, path, "func openFile(p string) int",
                         "func openFile(p string, flag int) int")
        assert set(direct(report)) == {("use.go", 4)}, path


def test_code_run_from_a_string_is_a_possible_caller_not_no_impact(make_repo) -> None:
    """PyCG's dynamic/eval: `eval("func()")` calls func, and no parser reads the string.
    It is a possible caller (listed apart, never counted), and the answer a lower bound:
    before, the check said "complete" with no caller, a false "no impact"."""
    report = checked(make_repo, {"main.py": "def func():\n    pass\n\neval(\"func()\")\n"},
                     "main.py", "def func():", "def func(extra):")
    assert direct(report) == {}
    assert [(a["path"], a["line"], a["confidence"]) for a in report["possible"]] == [
        ("main.py", 4, "ambiguous")]
    assert report["complete"] is False
