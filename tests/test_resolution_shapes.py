"""The call shapes static resolution used to miss, each on a real repository through the
real CLI: nested definitions, inherited constructors, implicit protocol calls, values
passed and invoked, conditional definitions, loop and comprehension variables."""

from __future__ import annotations

import pytest
from conftest import checked
from conftest import direct_confidences as direct


def test_a_nested_function_is_called_by_the_function_around_it(make_repo) -> None:
    report = checked(make_repo, {"m.py": "def outer():\n    def helper(x):\n        return x\n"
                                         "    return helper(1)\n"},
                     "m.py", "def helper(x):", "def helper(x, y):")
    assert direct(report) == {("m.py", 4): "exact"}


def test_a_decorator_defined_inside_a_function_is_used_there(make_repo) -> None:
    report = checked(make_repo, {"m.py": "def outer():\n    def deco(fn):\n        return fn\n"
                                         "    @deco\n    def inner():\n        pass\n"
                                         "    return inner\n"},
                     "m.py", "def deco(fn):", "def deco(fn, extra):")
    assert direct(report) == {("m.py", 4): "exact"}


def test_a_subclass_without_its_own_constructor_runs_the_base_one(make_repo) -> None:
    report = checked(make_repo, {"m.py": "class A:\n    def __init__(self, x):\n"
                                         "        self.x = x\n\n"
                                         "class B(A):\n    pass\n\nclass C(B):\n    pass\n\n"
                                         "class D(A):\n    def __init__(self):\n"
                                         "        super().__init__(1)\n\n"
                                         "def make():\n    return B(1), C(2), D()\n"},
                     "m.py", "def __init__(self, x):", "def __init__(self, x, y):")
    found = {(a["symbol"], a["line"]): a["confidence"] for a in report["affected"]}
    assert found[("m.make", 16)] == "exact"  # B(1) and C(2): A.__init__ runs
    assert found[("m.D.__init__", 13)] == "exact"  # D's super().__init__(1)
    assert ("m.B", 5) in found and ("m.C", 8) not in found  # B's base list names A; C's B


@pytest.mark.parametrize(("method", "use"), [
    ("__iter__", "    for x in Thing():\n        print(x)\n"),
    ("__len__", "    t = Thing()\n    return len(t)\n"),
    ("__enter__", "    with Thing() as t:\n        print(t)\n"),
    ("__getitem__", "    t: Thing = make()\n    return t['k']\n"),
    ("__contains__", "    t = Thing()\n    return 'k' in t\n"),
])
def test_syntax_that_calls_a_special_method_is_a_caller_and_a_lower_bound(
        make_repo, method: str, use: str) -> None:
    files = {"m.py": f"class Thing:\n    def {method}(self):\n        return None\n\n"
                     f"def make() -> Thing:\n    return Thing()\n\ndef go():\n{use}"}
    report = checked(make_repo, files, "m.py", f"def {method}(self):",
                     f"def {method}(self, extra):")
    lines = {line for (_, line), conf in direct(report).items() if conf == "probable"}
    assert len(lines) == 1 and lines <= {9, 10}
    assert report["complete"] is False
    assert any("called implicitly" in r for r in report["incomplete_reasons"])


def test_a_function_passed_as_a_value_breaks_where_it_is_called(make_repo) -> None:
    report = checked(make_repo, {"m.py": "def target(x):\n    return x\n\n"
                                         "def apply(fn, times=1):\n    return fn(times)\n\n"
                                         "def main():\n    return apply(target)\n"},
                     "m.py", "def target(x):", "def target(x, y):")
    found = {(a["line"], a["symbol"]): a for a in report["affected"]}
    assert found[(8, "m.main")]["confidence"] == "exact"  # where the value is passed
    hop = found[(5, "m.apply")]  # where it is called
    assert hop["confidence"] == "probable" and hop["depth"] == 1


def test_a_function_passed_at_module_level_breaks_where_it_is_called(make_repo) -> None:
    """A script's statement `apply(target)` (PyCG's micro-benchmark args/call): the
    passing line and the call of the parameter inside `apply`, probable with the chain."""
    report = checked(make_repo, {"m.py": "def target(x):\n    return x\n\n"
                                         "def apply(fn):\n    return fn(1)\n\n"
                                         "apply(target)\n"},
                     "m.py", "def target(x):", "def target(x, y):")
    found = {(a["line"], a["symbol"]): a for a in report["affected"]}
    assert found[(7, "<module>")]["confidence"] == "exact"
    assert found[(5, "m.apply")]["confidence"] == "probable"
    assert found[(5, "m.apply")]["via"] == ["m.target", "<module>"]


def test_iterating_over_a_constructor_call_with_arguments_calls_iter(make_repo) -> None:
    """`for i in Countdown(100):` (PyCG's generators/iterable) runs Countdown.__iter__."""
    files = {"m.py": "class Countdown:\n    def __init__(self, n):\n        self.n = n\n\n"
                     "    def __iter__(self):\n        return iter([])\n\n"
                     "for i in Countdown(100):\n    pass\n"}
    report = checked(make_repo, files, "m.py", "def __iter__(self):",
                     "def __iter__(self, extra):")
    assert direct(report) == {("m.py", 8): "probable"}


def test_a_name_defined_in_both_branches_reaches_both(make_repo) -> None:
    files = {"fast.py": "def parse(s):\n    return s\n",
             "m.py": "try:\n    from fast import parse\nexcept ImportError:\n"
                     "    def parse(s):\n        return s\n\ndef use():\n    return parse('a')\n"}
    report = checked(make_repo, files, "fast.py", "def parse(s):", "def parse(s, strict):")
    assert ("m.py", 8) in direct(report)  # the call, not only the import line
    local = checked(make_repo, files, "m.py", "    def parse(s):", "    def parse(s, strict):")
    assert ("m.py", 8) in direct(local)


def test_a_loop_variable_over_built_items_is_typed(make_repo) -> None:
    files = {"m.py": "class Attr:\n    def evolve(self, x):\n        return x\n\n"
                     "class Other:\n    def evolve(self, x):\n        return x\n\n"
                     "def fields() -> list[Attr]:\n    return []\n\n"
                     "def build(given: list[Attr]):\n"
                     "    attrs = [Attr(), Attr()]\n"
                     "    for a in attrs:\n        a.evolve(1)\n"
                     "    for f in fields():\n        f.evolve(2)\n"
                     "    return [g.evolve(3) for g in given]\n"}
    report = checked(make_repo, files, "m.py", "class Attr:\n    def evolve(self, x):",
                     "class Attr:\n    def evolve(self, x, y):")
    assert [(a["symbol"], a["confidence"]) for a in report["affected"]] == [
        ("m.build", "probable")]  # one entry per calling function
    assert report["complete"] is True  # no ambiguous guess between Attr and Other
    assert report["possible"] == []


def test_each_loop_over_a_list_built_in_the_same_function_is_typed(make_repo) -> None:
    """The sequence is a local of the function that loops over it (not only a module
    global): each call site, not just one per function, resolves."""
    files = {"m.py": "class Attr:\n    def evolve(self, x):\n        return x\n\n"
                     "class Other:\n    def evolve(self, x):\n        return x\n\n"
                     "def build():\n    attrs = [Attr(), Attr()]\n"
                     "    for a in attrs:\n        a.evolve(1)\n\n"
                     "def again():\n    items = [Attr()]\n"
                     "    return [b.evolve(2) for b in items]\n"}
    report = checked(make_repo, files, "m.py", "class Attr:\n    def evolve(self, x):",
                     "class Attr:\n    def evolve(self, x, y):")
    assert direct(report) == {("m.py", 12): "probable", ("m.py", 16): "probable"}
    assert report["possible"] == [] and report["complete"] is True


def test_a_local_typed_through_another_local_is_typed(make_repo) -> None:
    """click's test_stderr: `runner = CliRunner(...)`, `result = runner.invoke(cli)`,
    `result.stderr` reads Result's property (the function's own locals, not only the
    module's, type the receiver; bench/compare.py's click scenario answered no caller)."""
    files = {"testing.py": "class Result:\n    @property\n    def stderr(self) -> str:\n"
                           "        return ''\n\n"
                           "class Other:\n    @property\n    def stderr(self) -> str:\n"
                           "        return ''\n\n"
                           "class CliRunner:\n    def invoke(\n        self,\n        cli,\n"
                           "    ) -> Result:\n        return Result()\n",
             "test_it.py": "from testing import CliRunner\n\n\ndef test_stderr():\n"
                           "    runner = CliRunner()\n    result = runner.invoke(None)\n"
                           "    assert result.stderr == ''\n"}
    report = checked(make_repo, files, "testing.py",
                     "class Result:\n    @property\n    def stderr(self) -> str:",
                     "class Result:\n    @property\n    def stderr(self, *, extra) -> str:")
    assert direct(report) == {("test_it.py", 7): "probable"}
    assert report["complete"] is True


def test_an_attribute_typed_in_a_base_class_types_the_subclass_instance(make_repo) -> None:
    """flask: `current_app: Flask = LocalProxy(...)`, Flask(App), `self.json: JSONProvider`
    in App's __init__; `current_app.json.load(fp)` calls JSONProvider.load
    (bench/compare.py's flask scenario answered no caller, a lower bound)."""
    files = {"provider.py": "class JSONProvider:\n    def load(self, fp):\n        return fp\n\n"
                            "class Other:\n    def load(self, fp):\n        return fp\n",
             "sansio.py": "from provider import JSONProvider\n\n\nclass App:\n"
                          "    def __init__(self):\n        self.json: JSONProvider = make()\n",
             "app.py": "from sansio import App\n\n\nclass Flask(App):\n    pass\n",
             "globals.py": "from app import Flask\n\ncurrent_app: Flask = proxy()\n",
             "use.py": "from globals import current_app\n\n\ndef load(fp):\n"
                       "    return current_app.json.load(fp)\n"}
    report = checked(make_repo, files, "provider.py",
                     "class JSONProvider:\n    def load(self, fp):",
                     "class JSONProvider:\n    def load_renamed(self, fp):")
    assert direct(report) == {("use.py", 5): "probable"}
    assert report["complete"] is True


UNION_CORE = '''import typing as t


class BaseCommand:
    def shell_complete(self, ctx, incomplete):
        return []


class Parameter:
    def shell_complete(self, ctx, incomplete):
        return []


class Other:
    def shell_complete(self, ctx, incomplete):
        return []
'''

UNION_USE = '''import typing as t

from core import BaseCommand, Parameter


def _resolve_incomplete(
    ctx, args, incomplete
) -> t.Tuple[t.Union[BaseCommand, Parameter], str]:
    return ctx.command, incomplete


class ShellComplete:
    def get_completions(self, args, incomplete):
        obj, incomplete = _resolve_incomplete(None, args, incomplete)
        return obj.shell_complete(None, incomplete)


def annotated(p: "BaseCommand | Parameter"):
    return p.shell_complete(None, "")
'''


def test_a_receiver_declared_as_a_union_reaches_each_members_method(make_repo) -> None:
    """click's get_completions: `obj, incomplete = _resolve_incomplete(...)` returning
    `t.Tuple[t.Union[BaseCommand, Parameter], str]`, then `obj.shell_complete(...)`; and a
    parameter annotated `"BaseCommand | Parameter"`: calls of Parameter's method (and of
    BaseCommand's), not of Other's (bench/compare.py's click scenario answered no caller)."""
    files = {"core.py": UNION_CORE, "completion.py": UNION_USE}
    old = "class Parameter:\n    def shell_complete(self, ctx, incomplete):"
    report = checked(make_repo, files, "core.py", old, old.replace("complete(", "complete_x("))
    assert direct(report) == {("completion.py", 15): "probable", ("completion.py", 19): "probable"}
    assert report["complete"] is True
    other = checked(make_repo, files, "core.py", "class Other:\n    def shell_complete(",
                    "class Other:\n    def shell_complete_x(")
    assert direct(other) == {} and other["possible"] == []


ATTRS_TRANSFORM = '''class Attribute:
    def __init__(self, name):
        self.name = name

    @classmethod
    def from_counting_attr(cls, name, ca):
        return cls(name)

    def evolve(self, **changes):
        return self


class Other:
    def evolve(self, **changes):
        return self


def transform(ca_list, kw_only):
    a = Other()  # another binding of the name, before the comprehension's
    a.evolve()
    own_attrs = [
        Attribute.from_counting_attr(name=n, ca=ca)
        for n, ca in ca_list
    ]
    if kw_only:
        own_attrs = [a.evolve(kw_only=True) for a in own_attrs]
    return own_attrs
'''


def test_a_comprehension_over_items_built_by_a_classmethod_is_typed(make_repo) -> None:
    """attrs's `_transform_attrs`: `own_attrs = [` then `Attribute.from_counting_attr(...)
    for ...` on the next line; `[a.evolve(...) for a in own_attrs]` calls Attribute's
    evolve, whatever `a` was bound to before in the function (bench/compare.py's attrs
    scenario answered no caller, a lower bound)."""
    report = checked(make_repo, {"m.py": ATTRS_TRANSFORM}, "m.py",
                     "    def evolve(self, **changes):\n        return self\n\n\nclass Other",
                     "    def evolve(self, *, extra, **changes):\n        return self\n\n\n"
                     "class Other")
    assert direct(report) == {("m.py", 26): "probable"}
    assert report["complete"] is True


@pytest.mark.parametrize(("files", "path", "old", "new", "caller"), [
    ({"m.ts": "class A {\n  run(x: number): number {\n    return x;\n  }\n}\n"
              "class B extends A {}\nexport function go(): number {\n  const b = new B();\n"
              "  return b.run(1);\n}\n"},
     "m.ts", "run(x: number): number {", "run(x: number, y: number): number {",
     ("m.ts", "m.go", "probable")),
    ({"src/A.java": "package p;\npublic class A {\n  public int run(int x) { return x; }\n}\n",
      "src/B.java": "package p;\npublic class B extends A {}\n",
      "src/Use.java": "package p;\npublic class Use {\n  int go() {\n    B b = new B();\n"
                      "    return b.run(1);\n  }\n}\n"},
     "src/A.java", "public int run(int x)", "public int run(int x, int y)",
     ("src/Use.java", "src.Use.Use.go", "probable")),
])
def test_an_inherited_method_is_reached_through_a_subclass_instance(
        make_repo, files, path, old, new, caller) -> None:
    report = checked(make_repo, files, path, old, new)
    assert [(a["path"], a["symbol"], a["confidence"]) for a in report["affected"]] == [caller]
    assert report["complete"] is True


@pytest.mark.parametrize(("files", "path", "old", "new", "caller"), [
    ({"m.js": "function outer() {\n  function helper(x) {\n    return x;\n  }\n"
              "  return helper(1);\n}\nmodule.exports = { outer };\n"},
     "m.js", "function helper(x) {", "function helper(x, z) {", ("m.js", "m.outer")),
    ({"src/lib.rs": "pub fn outer() -> i32 {\n    fn helper(x: i32) -> i32 { x }\n"
                    "    helper(1)\n}\n"},
     "src/lib.rs", "fn helper(x: i32)", "fn helper(x: i32, y: i32)",
     ("src/lib.rs", "src.outer")),
])
def test_a_nested_function_in_javascript_and_rust_is_called_by_its_parent(
        make_repo, files, path, old, new, caller) -> None:
    report = checked(make_repo, files, path, old, new)
    assert [(a["path"], a["symbol"]) for a in report["affected"]] == [caller]


def test_a_loop_over_a_typed_attribute_or_method_result_is_typed(make_repo) -> None:
    files = {"core.py": (
        "import typing as t\n\n"
        "class Parameter:\n    def shell_complete(self, ctx):\n        return []\n\n"
        "class Other:\n    def shell_complete(self, ctx):\n        return []\n\n"
        "class Command:\n"
        "    def __init__(self, params=None):\n"
        "        self.params: t.List[\"Parameter\"] = params or []\n\n"
        "    def get_params(self, ctx) -> t.List[\"Parameter\"]:\n        return self.params\n\n"
        "    def complete(self, ctx):\n"
        "        for param in self.get_params(ctx):\n            param.shell_complete(ctx)\n\n"
        "    def again(self, ctx):\n"
        "        for param in self.params:\n            param.shell_complete(ctx)\n")}
    report = checked(make_repo, files, "core.py",
                     "class Parameter:\n    def shell_complete(self, ctx):",
                     "class Parameter:\n    def shell_complete(self, ctx, incomplete):")
    assert sorted((a["symbol"], a["confidence"]) for a in report["affected"]) == [
        ("core.Command.again", "probable"), ("core.Command.complete", "probable")]
    assert report["complete"] is True


def test_a_methods_first_parameter_plays_self_whatever_its_name(make_repo) -> None:
    """click's `Context.forward(__self, __cmd, ...)` calls `__self.invoke(...)`."""
    report = checked(make_repo, {"m.py": "class Ctx:\n    def invoke(self, cmd):\n"
                                         "        return cmd\n\n"
                                         "    def forward(__self, __cmd):\n"
                                         "        return __self.invoke(__cmd)\n"},
                     "m.py", "def invoke(self, cmd):", "def invoke(self, cmd, extra):")
    assert direct(report) == {("m.py", 6): "exact"}



FOREIGN_CALLERS = '''from typing import Mapping
from wsgiref.types import WSGIEnvironment

def a(environ: WSGIEnvironment):
    return environ.get("X")

def b(**kwargs):
    return kwargs.get("x")

def c(options: dict[str, str]):
    return options.get("x")

def d():
    seen = {}
    return seen.get("x")

def e(obj):
    return obj.get("x")

def f(m: Mapping):
    return m.get("x")

def g(m: "Store | None"):
    return m.get("x")
'''


def test_a_call_on_a_receiver_shown_to_be_of_an_outside_type_is_no_caller(make_repo) -> None:
    """werkzeug: `environ.get(...)` with `environ: WSGIEnvironment` matched every `get` of
    the repository by name. A builtin or imported concrete type, `**kwargs` and a literal
    say the receiver is none of them; an unknown, abstract (Mapping) or union-typed
    receiver stays an ambiguous (possible) caller."""
    files = {"store.py": "class Store:\n    def get(self, key):\n        return key\n",
             "other.py": "class Other:\n    def get(self, key):\n        return key\n",
             "use.py": FOREIGN_CALLERS}
    report = checked(make_repo, files, "store.py", "def get(self, key):",
                     "def get(self, key, default):")
    assert direct(report) == {}  # name matches only: possible callers, listed apart
    assert {(a["path"], a["line"]): a["confidence"] for a in report["possible"]} == {
        ("use.py", 18): "ambiguous", ("use.py", 21): "ambiguous", ("use.py", 24): "ambiguous"}


PROPERTY_USE = '''from functools import cached_property

from store import Store


class Request:
    @cached_property
    def args(self) -> Store:
        return Store()

    @property
    def form(self):
        return Store()

    def first(self):
        return self.args.get("a")


def view(request: Request):
    return request.form.get("b")
'''


def test_a_property_is_typed_by_what_it_returns(make_repo) -> None:
    """werkzeug: `request.args.get(...)` with `args` a cached_property `-> MultiDict`: the
    receiver's type is the property's return type, not unknown (a name-only match)."""
    files = {"store.py": "class Store:\n    def get(self, key):\n        return key\n",
             "other.py": "class Other:\n    def get(self, key):\n        return key\n",
             "req.py": PROPERTY_USE}
    report = checked(make_repo, files, "store.py", "def get(self, key):",
                     "def get(self, key, default):")
    assert direct(report) == {("req.py", 16): "probable", ("req.py", 20): "probable"}


@pytest.mark.parametrize(("path", "source", "old", "new"), [
    # (Rust's operators are searched where the operand's type shows: see
    # test_resolution_shapes_dyn.py.)
    ("v.cpp",
     "struct V { int x; V operator+(const V& o) const { return V{x + o.x}; } };\n"
     "V total(V a, V b) { return a + b; }\n",
     "V operator+(const V& o) const", "V operator+(const V& o, int k) const"),
    ("V.kt",
     "class V(val x: Int) {\n    operator fun plus(o: V): V = V(x + o.x)\n}\n"
     "fun total(a: V, b: V): V = a + b\n",
     "operator fun plus(o: V): V", "operator fun plus(o: V, k: Int): V"),
])
def test_an_operator_method_in_another_language_makes_the_answer_a_lower_bound(
        make_repo, path: str, source: str, old: str, new: str) -> None:
    # `a + b` names no method: its sites are not searched outside Python, so the answer
    # must not read "complete" for a changed operator method.
    report = checked(make_repo, {path: source}, path, old, new)
    assert report["changed_symbols"], report
    assert report["complete"] is False
    assert any("called implicitly" in r and ("not searched" in r or "type shows" in r)
               for r in report["incomplete_reasons"])


def test_an_ordinary_method_in_another_language_is_no_implicit_lower_bound(make_repo) -> None:
    files = {"src/v.rs": "pub struct V { x: i32 }\nimpl V {\n"
                         "    pub fn area(&self) -> i32 { self.x }\n}\n"
                         "pub fn total(v: V) -> i32 { v.area() }\n"}
    report = checked(make_repo, files, "src/v.rs", "fn area(&self) -> i32",
                     "fn area(&self, k: i32) -> i32")
    assert report["changed_symbols"]
    assert not any("called implicitly" in r for r in report["incomplete_reasons"])
