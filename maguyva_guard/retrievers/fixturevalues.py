"""A pytest fixture's parameter typed by what the fixture returns (Python).

`def test_quiet(_mod): _mod.quiet(1)` with a fixture `def _mod(): import pkg.util as m;
return m` calls `pkg.util.quiet`. Nothing in the test says what `_mod` is: pytest injects
the fixture's value by the parameter's name. Left untyped, the call was looked up among
methods only (policy.by_name), so the module function got no caller there: `tests` missed
the test when `quiet` had other callers, and `check` could call the caller list complete.

The parameter is typed when it is the fixture pytest would inject: the function taking it
is a test or fixture pytest fills (module level, or a method), no `parametrize` of its
own names it, and exactly one fixture of that name is the nearest visible one (its own
module first, then the deepest `conftest.py` above it; a fixture method of a class is
not followed). Each value the fixture returns or yields must resolve to a module
(`request.param` is each of the fixture's `params`, `pytest.param(x, ...)` being x); one
value of another or unknown type and nothing is said (the name lookup stays).
"""

from __future__ import annotations

import ast
import posixpath
import re
from typing import Final

from maguyva_guard.records import FUNCTION, METHOD, Definition
from maguyva_guard.retrievers.fixtures import CONFTEST, is_fixture, parameters
from maguyva_guard.retrievers.resolution_base import IDENT, Entity, ResolverAPI

_VALUE: Final = re.compile(r"\s*(?:return|yield)\b(.*?)(?:#.*)?$")
_PARAM: Final = "request.param"
MAX_VALUES: Final = 8  # values followed per fixture (params included)


def values(r: ResolverAPI, path: str, scope: str, var: str) -> list[Entity]:
    """What the fixture parameter `var` of the function `scope` holds (empty when it is
    no fixture parameter, or when any value the fixture gives is of unknown type)."""
    if not IDENT.fullmatch(var) or not path.endswith(".py"):
        return []
    taker = _taker(r, path, scope, var)
    if taker is None or not (_pytest_module(path) or is_fixture(taker)):
        return []  # (pytest fills the parameters of tests and fixtures only)
    fixture = _nearest(r, path, var)
    if fixture is None or fixture == taker:
        return []
    found: dict[tuple[str, str, str], Entity] = {}
    for expr, at in _given(r, fixture):
        e = r.resolve_expression(fixture.path, at, expr, 1)
        if e is None or e.kind != "module":
            # Only modules: typing a fixture's object (click's `runner`, a CliRunner())
            # made `runner.invoke(cli)` CliRunner.invoke instead of a name-only match, and
            # the callbacks it runs through Context.invoke are no edge the graph follows:
            # failing tests of click and itsdangerous were missed (bench/tests.py).
            return []
        key = (e.kind, e.path, e.definition.qualified_name if e.definition else "")
        found.setdefault(key, Entity(e.kind, path=e.path, definition=e.definition, sure=False))
    return list(found.values())


def _pytest_module(path: str) -> bool:
    name = posixpath.basename(path)
    return name == CONFTEST or name.startswith("test_") or name.endswith("_test.py")


def _taker(r: ResolverAPI, path: str, scope: str, var: str) -> Definition | None:
    """The function of `scope` (or around it: a closure sees it) whose parameter `var`
    is, when pytest fills that parameter with a fixture."""
    fs = r.scope(path)
    d = fs.by_qualified.get(scope) if scope else None
    while d is not None and d.kind in (FUNCTION, METHOD):
        if var in parameters(d):
            injected = d.kind == METHOD or not d.parent
            if not injected or re.search(r"parametrize\([^)]*\b" + var + r"\b", d.signature):
                return None  # a nested function's own argument; a parametrized value
            return d
        d = fs.by_qualified.get(d.parent) if d.parent else None
    return None


def _nearest(r: ResolverAPI, path: str, name: str) -> Definition | None:
    """The one fixture named `name` pytest injects in `path` (None when unsure)."""
    levels: dict[int, list[Definition]] = {}
    here = posixpath.dirname(path)
    for d in r.source.definitions(name=name):
        if not is_fixture(d) or re.search(r"\bname\s*=", d.signature.split("def ", 1)[0]):
            continue
        if d.path == path:
            if d.kind != FUNCTION or d.parent:
                return None  # a class's fixture method: visible to that class only
            levels.setdefault(1 << 20, []).append(d)
        elif posixpath.basename(d.path) == CONFTEST and d.kind == FUNCTION and not d.parent:
            folder = posixpath.dirname(d.path)
            if not folder or here == folder or here.startswith(folder + "/"):
                levels.setdefault(folder.count("/") + bool(folder), []).append(d)
    if not levels:
        return None
    best = levels[max(levels)]
    return best[0] if len(best) == 1 else None


def _given(r: ResolverAPI, fixture: Definition) -> list[tuple[str, str]]:
    """(expression, scope) of each value the fixture returns or yields; a value that is
    no plain expression is given as "" (unknown)."""
    out: list[tuple[str, str]] = []
    for line in r.lines(fixture.path)[fixture.line_start : fixture.line_end]:
        m = _VALUE.match(line)
        if m is None:
            continue
        value = m.group(1).strip()
        if value == _PARAM:
            out.extend((p, fixture.parent) for p in _params(fixture.signature))
        else:
            out.append((value, fixture.qualified_name))
        if len(out) > MAX_VALUES:
            return [("", "")]
    return out or [("", "")]


def _params(signature: str) -> list[str]:
    """The values of the fixture decorator's `params=` (each a dotted name, or the first
    argument of `pytest.param(...)`); [""] where one is anything else."""
    m = re.search(r"\bfixture\s*\(", signature)
    if m is None:
        return [""]
    depth, end = 0, len(signature)
    for i in range(m.end() - 1, len(signature)):
        depth += {"(": 1, ")": -1}.get(signature[i], 0)
        if depth == 0:
            end = i + 1
            break
    try:
        tree = ast.parse(signature[m.start():end], mode="eval")
    except SyntaxError:
        return [""]
    call = tree.body
    params = next((k.value for k in getattr(call, "keywords", ()) if k.arg == "params"), None)
    if not isinstance(params, (ast.Tuple, ast.List)):
        return [""]
    out = []
    for item in params.elts:
        if isinstance(item, ast.Call) and ast.unparse(item.func).endswith("param") \
                and item.args:
            item = item.args[0]
        out.append(ast.unparse(item) if isinstance(item, (ast.Name, ast.Attribute)) else "")
    return out
