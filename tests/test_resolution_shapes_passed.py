"""Issue 24's last empty answers of PyCG's micro-benchmark, each on a real repository
through the real CLI: a receiver typed only by what a caller passes in (a parameter, or an
attribute a constructor sets from one), a special method of an object passed as an
argument, and a method read through a tuple assignment. A name-only match is never made a
caller: an argument of another class leaves the call a possible caller, as before."""

from __future__ import annotations

import pytest
from conftest import checked


def direct(report: dict) -> dict[tuple[str, int], tuple[str, str, list[str]]]:
    return {(a["path"], a["line"]): (a["symbol"], a["confidence"], a["via"])
            for a in report["affected"] if a["depth"] == 1}


def possible_lines(report: dict) -> set[tuple[str, int]]:
    return {(p["path"], p["line"]) for p in report.get("possible", [])}


TWO_RUNNERS = ("class Runner:\n    def run(self, x):\n        return x\n\n\n"
               "class Other:\n    def run(self, x):\n        return x\n\n\n")


def test_a_parameter_is_typed_by_what_a_caller_passes_in(make_repo) -> None:
    """`def use(r): r.run(1)` with `use(Runner())`: the call in `use` runs Runner.run,
    probable, the chain through `main`, which passes the instance; `other(Other())` passes
    an Other: its `o.run(1)` stays a possible caller, never counted."""
    source = (TWO_RUNNERS + "def use(r):\n    return r.run(1)\n\n\n"
              "def other(o):\n    return o.run(1)\n\n\n"
              "def main():\n    other(Other())\n    return use(Runner())\n")
    report = checked(make_repo, {"m.py": source}, "m.py",
                     "class Runner:\n    def run(self, x):",
                     "class Runner:\n    def run(self, x, y):")
    assert direct(report) == {("m.py", 12): ("m.use", "probable", ["m.Runner.run", "m.main"])}
    assert ("m.py", 16) in possible_lines(report)


def test_a_parameter_passed_by_keyword_or_a_typed_local_is_typed(make_repo) -> None:
    source = (TWO_RUNNERS + "def use(n, r=None):\n    return r.run(n)\n\n\n"
              "def main():\n    runner = Runner()\n    return use(1, r=runner)\n")
    report = checked(make_repo, {"m.py": source}, "m.py",
                     "class Runner:\n    def run(self, x):",
                     "class Runner:\n    def run(self, x, y):")
    assert direct(report) == {("m.py", 12): ("m.use", "probable", ["m.Runner.run", "m.main"])}


def test_an_attribute_set_from_a_constructor_parameter_is_typed_by_its_callers(
        make_repo) -> None:
    """PyCG's classes/nested_class_calls: `self.c = c` in B.__init__, `self.c.func()` in
    B.func, and A passes its own `self.c = C()` to `B(self.c)`."""
    source = ("class C:\n    def func(self):\n        pass\n\n"
              "class B:\n    def __init__(self, c):\n        self.c = c\n\n"
              "    def func(self):\n        self.c.func()\n\n"
              "class A:\n    def __init__(self):\n        self.c = C()\n\n"
              "    def func(self):\n        b = B(self.c)\n        b.func()\n")
    report = checked(make_repo, {"main.py": source}, "main.py",
                     "class C:\n    def func(self):", "class C:\n    def func(self, x):")
    assert direct(report) == {("main.py", 10): ("main.B.func", "probable",
                                                ["main.C.func", "main.A.func"])}


def test_a_special_method_of_an_object_passed_as_an_argument_is_called(make_repo) -> None:
    """PyCG's generators/iter_param: `def func(c): for i in c` with `func(Cls())` at
    module level calls Cls.__iter__ inside func; still a lower bound (implicit calls)."""
    source = ("def func(c):\n    for i in c:\n        pass\n\n"
              "class Cls:\n    def __iter__(self):\n        return iter([])\n\n"
              "def skip(d):\n    for i in d:\n        pass\n\n"
              "skip([1])\nfunc(Cls())\n")
    report = checked(make_repo, {"main.py": source}, "main.py", "def __iter__(self):",
                     "def __iter__(self, n):")
    assert direct(report) == {("main.py", 2): ("main.func", "probable",
                                               ["main.Cls.__iter__", "<module>"])}
    assert report["complete"] is False


def test_a_method_read_through_a_tuple_assignment_is_reached(make_repo) -> None:
    """PyCG's classes/tuple_assignment: `a, b = MyClass(), MyClass2()` types `a`, so the
    bound method read as `a.func1` (then called as `c()`) is MyClass.func1's."""
    source = ("class MyClass:\n    def func1(self):\n        pass\n\n"
              "class MyClass2:\n    def func1(self):\n        pass\n\n"
              "a, b = MyClass(), MyClass2()\n"
              "c, d = a.func1, b.func1\n"
              "c()\n")
    report = checked(make_repo, {"main.py": source}, "main.py",
                     "class MyClass:\n    def func1(self):",
                     "class MyClass:\n    def func1(self, x):")
    assert {k: v[:2] for k, v in direct(report).items()} == {
        ("main.py", 10): ("<module>", "probable")}


def test_a_tuple_assignment_in_a_function_types_each_target(make_repo) -> None:
    source = (TWO_RUNNERS + "def main():\n    first, second = Other(), Runner()\n"
              "    first.run(1)\n    return second.run(2)\n")
    report = checked(make_repo, {"m.py": source}, "m.py",
                     "class Runner:\n    def run(self, x):",
                     "class Runner:\n    def run(self, x, y):")
    assert {k: v[:2] for k, v in direct(report).items()} == {
        ("m.py", 14): ("m.main", "probable")}


JS_SOURCE = ("class Runner {\n  run(x) {\n    return x;\n  }\n}\n\n"
             "class Other {\n  run(x) {\n    return x;\n  }\n}\n\n"
             "function use(r) {\n  return r.run(1);\n}\n\n"
             "function other(o) {\n  return o.run(1);\n}\n\n"
             "export function main() {\n  other(new Other());\n  return use(new Runner());\n}\n")


@pytest.mark.parametrize("path", ["m.js", "m.ts"])
def test_a_javascript_parameter_is_typed_by_what_a_caller_passes_in(make_repo, path) -> None:
    """`function use(r) { return r.run(1); }` with `use(new Runner())`: Runner.run runs
    there, probable, the chain through `main`; `other(new Other())` stays possible."""
    report = checked(make_repo, {path: JS_SOURCE}, path, "class Runner {\n  run(x) {",
                     "class Runner {\n  run(x, y) {")
    assert direct(report) == {(path, 14): ("m.use", "probable", ["m.Runner.run", "m.main"])}
    assert (path, 18) in possible_lines(report)
