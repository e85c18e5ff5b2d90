"""Receivers typed by what the callers pass in (Python, JavaScript/TypeScript): `def f(x):
x.m()` with `f(C())`, `function f(x) { x.m() }` with `f(new C())`.

Nothing in `f` says what `x` is; a caller does. One hop is followed, as for values passed
and invoked (passing.py): the parameter `x` reads, to the calls of `f` in the repository
(resolved: a call of another `f` is none of them), to the argument each passes in that
slot, typed in the caller's own scope (a constructor call, a typed local or attribute, a
function's return type). Where an instance of the target's class comes in, `x.m()` runs
the target: probable, with the chain through the caller that passes it. An attribute set
from a constructor's parameter (`self.c = c` in `__init__`, then `self.c.m()`) is that
parameter, its calls being the class's calls (Python; a JavaScript field set in a
constructor is not followed).

Only call sites on one line are read, and at most MAX_SITES of them per function; an
argument whose type does not show says nothing (the reference stays what it was: a
name-only match, listed apart).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from typing import Final

from maguyva_guard.extract.languages import language_for
from maguyva_guard.records import (
    AMBIGUOUS,
    CALL,
    FUNCTION,
    METHOD,
    MODULE_SYMBOL,
    USE,
    Definition,
    Reference,
)
from maguyva_guard.retrievers import rusttypes
from maguyva_guard.retrievers.passing import _arguments, _declared_parameters
from maguyva_guard.retrievers.protocols import is_instance_of, is_protocol_method, syntax_operands
from maguyva_guard.retrievers.pylocals import in_comment_or_string
from maguyva_guard.retrievers.resolution_base import IDENT, SELF_NAMES, Entity, closing_bracket
from maguyva_guard.retrievers.resolve import CLASS_KINDS, Resolver

# What one changed method may cost (a popular name, `filter`, has thousands of calls on
# parameters): the functions whose parameter is followed, the references of each one's name
# looked at. (An argument's type is resolved as any receiver is, from hop 0: the
# resolver's memos of return types and globals must not keep an answer cut short.)
MAX_SLOTS: Final = 16
MAX_SITES: Final = 32
LANGUAGES: Final = frozenset({"python", "javascript", "typescript", "tsx"})
_SELF_ATTRIBUTE: Final = re.compile(r"(?:self|cls)\.([A-Za-z_]\w*)")


class PassedTypes:
    """Which caller passes an instance of a given class into a function's parameter, for
    one resolver's view (memoised per parameter and class)."""

    def __init__(self, resolver: Resolver,
                 references: Callable[..., list[Reference]]) -> None:
        self.resolver = resolver
        self.references = references  # store.references(name=...): the call sites
        self._memo: dict[tuple[str, str, str, str, str], str | None] = {}
        self._slots: dict[tuple[str, str], int] = {}  # target -> functions followed
        self._values: dict[tuple[str, int, str], Entity | None] = {}

    def receivers(self, target: Definition, paths: set[str]) -> Iterator[tuple[Reference, str]]:
        """The references that run `target` (a Python method) on a parameter typed by what a
        caller passes, each with that caller: `x.m()` and `x.m` whose resolution found no
        type (a name-only match or nothing), and, for a special method, the syntax that
        calls it on such an operand in `paths` (the files that name its class)."""
        r = self.resolver
        owner = r.scope(target.path).by_qualified.get(target.parent) if target.parent else None
        if target.kind != METHOD or owner is None or owner.kind not in CLASS_KINDS:
            return
        for ref in self.references(name=target.name):
            if ref.kind not in (CALL, USE) or not _readable(ref.receiver) or not ref.scope \
                    or language_for(ref.path) not in LANGUAGES:
                continue
            res = r.resolve(ref)
            if res.definitions and res.confidence != AMBIGUOUS:
                continue  # typed already: the graph's own answer stands
            link = self.passed_from(ref.path, ref.scope, ref.receiver, target)
            if link is not None:
                yield ref, link
        if not is_protocol_method(target):
            return
        for path, number, where, operand in syntax_operands(r, target, paths):
            if not where or not _readable(operand):
                continue
            link = self.passed_from(path, where, operand, target)
            if link is not None and not is_instance_of(r, path, where, operand, target):
                yield Reference(path, target.name, CALL, number, where), link

    def passed_from(self, path: str, scope: str, expr: str, target: Definition) -> str | None:
        """The caller (qualified name, MODULE_SYMBOL for module-level code) that passes an
        instance whose class's `target.name` is `target` into the parameter `expr` reads
        in `scope` of `path`; None when no caller shows one."""
        slot = self._slot(path, scope, expr)
        if slot is None:
            return None
        fn, param = slot
        key = (fn.path, fn.qualified_name, param, target.path, target.qualified_name)
        if key not in self._memo:
            spent = self._slots.get((target.path, target.qualified_name), 0)
            if spent >= MAX_SLOTS:
                return None
            self._slots[(target.path, target.qualified_name)] = spent + 1
            self._memo[key] = self._passing_caller(fn, param, target)
        return self._memo[key]

    def _slot(self, path: str, scope: str, expr: str) -> tuple[Definition, str] | None:
        """(function, parameter) that `expr` reads: a bare parameter of the function
        around `scope`, or `self.attr` set from a parameter in a method of the class."""
        r = self.resolver
        fs = r.scope(path)
        if IDENT.fullmatch(expr) and expr not in SELF_NAMES:
            fn = fs.by_qualified.get(scope)
            if fn is None or fn.kind not in (FUNCTION, METHOD):
                return None
            return (fn, expr) if expr in parameters(fn) else None
        m = _SELF_ATTRIBUTE.fullmatch(expr)
        cls = r.enclosing_class(path, scope) if m is not None else None
        if m is None or cls is None:
            return None
        attr = re.escape(m.group(1))
        assigned = re.compile(rf"^\s*self\.{attr}\s*=\s*([A-Za-z_]\w*)\s*(?:#.*)?$")
        lines = r.lines(path)
        for d in fs.definitions:
            if d.parent != cls.qualified_name or d.kind != METHOD:
                continue
            names = parameters(d)
            for text in lines[d.line_start : d.line_end]:
                a = assigned.match(text)
                if a is not None and a.group(1) in names:
                    return d, a.group(1)
        return None

    def _passing_caller(self, fn: Definition, param: str, target: Definition) -> str | None:
        r = self.resolver
        names = parameters(fn)
        position = names.index(param)
        owner = r.scope(fn.path).by_qualified.get(fn.parent) if fn.parent else None
        constructor = fn.name == "__init__" and owner is not None and owner.kind in CLASS_KINDS
        callee = owner if constructor and owner is not None else fn
        wanted = (callee.path, callee.qualified_name)
        sites = 0
        for ref in self.references(name=callee.name):
            if ref.kind != CALL or language_for(ref.path) not in LANGUAGES:
                continue
            sites += 1
            if sites > MAX_SITES:
                break
            if wanted not in {(d.path, d.qualified_name) for d in r.resolve(ref).definitions}:
                continue
            value = argument(r.lines(ref.path), ref.line, callee.name, position, param)
            if value is None:
                continue
            rusttypes.resolving(r, ref.path, ref.line)  # the nearest binding above counts
            site = (ref.path, ref.line, value)  # one site serves several functions' slots
            if site not in self._values:
                self._values[site] = value_type(r, ref.path, ref.scope, value)
            e = self._values[site]
            if e is not None and e.kind == "instance" and e.definition is not None:
                found = r.class_member(e.definition, target.name)
                if found is not None and (found.path, found.qualified_name) == (
                        target.path, target.qualified_name):
                    return ref.scope or MODULE_SYMBOL
        return None


def _readable(expr: str) -> bool:
    """A receiver this module can follow: a bare name (not `self`) or `self.attr`."""
    return (IDENT.fullmatch(expr) is not None and expr not in SELF_NAMES) or \
        _SELF_ATTRIBUTE.fullmatch(expr) is not None


def value_type(r: Resolver, path: str, scope: str, value: str) -> Entity | None:
    """What an argument's text holds: a call's result (`C()`, `make()`) or a name's or an
    attribute chain's type."""
    if value.endswith(")") and "(" in value:
        head = value[: value.index("(")].strip().removeprefix("new ").strip()
        if not re.fullmatch(r"[A-Za-z_][\w.]*", head) or \
                closing_bracket(value, value.index("(")) != len(value) - 1:
            return None  # not one call: `A() if a else B()`, `f(x)[0]`
        return r.called(r.callee(path, scope, head), 0)
    return r.resolve_expression(path, scope, value)


def argument(lines: list[str], line: int, name: str, position: int, param: str) -> str | None:
    """The text of the argument passed for `param` (at `position`, or by keyword) in the
    call of `name` on `line` (1-based), when the call's arguments are on that line."""
    if not 0 < line <= len(lines):
        return None
    text = lines[line - 1]
    for m in re.finditer(rf"(?<![\w]){re.escape(name)}\s*\(", text):
        if in_comment_or_string(text, m.start()):
            continue
        args = _arguments(text, m.end())
        if args is None:
            continue
        positional = [a.strip() for a in args if not _keyword(a)]
        for a in args:
            key = _keyword(a)
            if key == param:
                return a.split("=", 1)[1].strip()
        if any(a.lstrip().startswith("*") for a in args):
            return None  # a spread: positions unknown
        return positional[position] if position < len(positional) else None
    return None


def _keyword(arg: str) -> str:
    m = re.match(r"\s*([A-Za-z_]\w*)\s*=(?!=)", arg)
    return m.group(1) if m else ""


def parameters(fn: Definition) -> list[str]:
    """A function's parameter names, as a caller passes them: Python's positional and
    keyword ones (a method's `self`/`cls` left out; none when its header does not parse
    alone), JavaScript/TypeScript's from its signature."""
    if language_for(fn.path) != "python":
        return _declared_parameters(fn)
    header = fn.signature[fn.signature.find("def "):] if "def " in fn.signature else ""
    try:
        tree = ast.parse(header.removeprefix("async ").rstrip().rstrip(":") + ": pass")
    except SyntaxError:
        return []
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef):
        return []
    names = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    if fn.kind == METHOD and names and "@staticmethod" not in fn.signature:
        names = names[1:]
    return names + [a.arg for a in node.args.kwonlyargs]
