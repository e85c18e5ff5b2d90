"""A local or parameter named like a module-level function hides it: mobx's `autorun()`
keeps its Reaction in `let reaction: Reaction` beside the module's own `function
reaction()`, and `reaction.getDisposer_()` was read as an attribute of that function,
resolved to nothing, and `Reaction.getDisposer_` got a complete "no callers" there. Each
case on a real repository through the real CLI, Python and TypeScript; and the bindings
that must still win (a function defined inside the caller, a module imported by the
name, a name only passed as an argument)."""

from __future__ import annotations

from conftest import checked
from conftest import direct_confidences as direct

PY_CORE = "class Reaction:\n    def get_disposer(self):\n        return 1\n"
PY_API = """from pkg.core import Reaction


def autorun(name):
    reaction = Reaction()
    return reaction.get_disposer()


def each(reactions: list[Reaction]):
    for reaction in reactions:
        reaction.get_disposer()


def passed(reaction: Reaction):
    return reaction.get_disposer()


def reaction(name):
    return name
"""
PY_FILES = {"pkg/__init__.py": "", "pkg/core.py": PY_CORE, "pkg/api.py": PY_API}

TS_REACTION = """export class Reaction {
  constructor(public name: string) {}
  getDisposer_(): () => void {
    return () => {};
  }
}
"""
TS_AUTORUN = """import { Reaction } from './reaction';

export function autorun(name: string) {
  let reaction: Reaction;
  reaction = new Reaction(name);
  return reaction.getDisposer_();
}

export function all(items: Reaction[]) {
  items.forEach((reaction: Reaction) => reaction.getDisposer_());
}

export function passed(reaction: Reaction) {
  return reaction.getDisposer_();
}

export function reaction(name: string) {
  return name;
}
"""
TS_FILES = {"reaction.ts": TS_REACTION, "autorun.ts": TS_AUTORUN}


def _line(text: str, needle: str) -> int:
    return text.splitlines().index(next(x for x in text.splitlines() if needle in x)) + 1


def test_a_python_local_named_like_a_module_function_is_the_local(make_repo) -> None:
    """`reaction = Reaction()`, a loop variable and a parameter, each named like the
    module's `def reaction`: all three calls reach Reaction.get_disposer."""
    report = checked(make_repo, PY_FILES, "pkg/core.py", "def get_disposer(self):",
                     "def get_disposer(self, force):")
    found = {k for k in direct(report) if k[0] == "pkg/api.py"}
    assert found == {("pkg/api.py", _line(PY_API, "return reaction.get_disposer()")),
                     ("pkg/api.py", _line(PY_API, "        reaction.get_disposer()")),
                     ("pkg/api.py", _line(PY_API, "def passed") + 1)}


def test_a_typescript_local_named_like_a_module_function_is_the_local(make_repo) -> None:
    """`let reaction: Reaction`, an arrow function's parameter and a function's parameter,
    beside the module's `function reaction`: all three calls reach getDisposer_."""
    report = checked(make_repo, TS_FILES, "reaction.ts", "getDisposer_(): () => void {",
                     "getDisposer_(force: boolean): () => void {")
    found = {k for k in direct(report) if k[0] == "autorun.ts"}
    assert found == {("autorun.ts", _line(TS_AUTORUN, "  return reaction.getDisposer_();")),
                     ("autorun.ts", _line(TS_AUTORUN, "items.forEach")),
                     ("autorun.ts", _line(TS_AUTORUN, "export function passed") + 1)}


NESTED = """from pkg import helpers


def outer():
    def helpers():
        return 1
    return helpers.run()


def uses_module(helpers_list):
    print(helpers_list)
    return helpers.run()
"""
HELPERS = "def run():\n    return 1\n"


def test_a_module_is_still_the_module_where_no_local_hides_it(make_repo) -> None:
    """`helpers.run()` in a function that binds only `helpers_list`: the imported module's
    run (depth 1); a nested `def helpers` inside outer() is outer's own binding, which
    has no `run`, so outer() is no caller."""
    files = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/use.py": NESTED}
    report = checked(make_repo, files, "pkg/helpers.py", "def run():", "def run(fast):")
    found = {k for k in direct(report) if k[0] == "pkg/use.py"}
    assert found == {("pkg/use.py", _line(NESTED, "def uses_module") + 2)}


TS_OPTIONS = """import { Reaction } from './reaction';

export interface Public {
  dispose(): void;
}

export function reaction(
  expression: (r: Public) => void,
  effect: (value: number, r: Public) => void,
): () => void {
  const r = new Reaction('r');
  expression(r);
  return r.getDisposer_();
}

export function autorun(view: (r: Reaction) => void) {
  let reaction: Reaction;
  reaction = new Reaction('a');
  function runner() {
    view(reaction);
  }
  runner();
}
"""


def test_a_function_types_parameter_in_the_signature_binds_nothing_in_the_body(
        make_repo) -> None:
    """mobx's `reaction(expression: (r: IReactionPublic) => T, ...)` then `const r = new
    Reaction(...)`: `r` in the body is the Reaction (the call reaches getDisposer_), not
    the interface the callback type's parameter names."""
    files = {"reaction.ts": TS_REACTION, "options.ts": TS_OPTIONS}
    report = checked(make_repo, files, "reaction.ts", "getDisposer_(): () => void {",
                     "getDisposer_(force: boolean): () => void {")
    found = {k for k in direct(report) if k[0] == "options.ts"}
    assert found == {("options.ts", _line(TS_OPTIONS, "return r.getDisposer_();"))}


def test_a_closure_reading_its_functions_local_is_no_caller_of_the_module_function(
        make_repo) -> None:
    """`view(reaction)` in a closure of autorun(), which declares `let reaction`: the
    local, not the module's `function reaction` (changed here), so runner() is not its
    caller; nothing in the file calls the function."""
    files = {"reaction.ts": TS_REACTION, "options.ts": TS_OPTIONS}
    report = checked(make_repo, files, "options.ts", "): () => void {\n  const r",
                     "  extra?: number,\n): () => void {\n  const r")
    assert {k for k in direct(report) if k[0] == "options.ts"} == set()
