"""Values passed and invoked: `apply(target)` where `def apply(fn): return fn(1)`.

The passing site reads `target` as a value and is reported like any use; the call that
breaks when `target`'s signature changes is `fn(1)` inside `apply`. One hop is followed:
the argument to the parameter it binds, to the calls of that parameter in the called
function's own body (Python; JavaScript/TypeScript, Go and Rust by their signatures'
parameter lists). What cannot be matched (a `*args` spread, a callee
outside the repository, a parameter passed on again) is left out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from maguyva_guard.extract.languages import language_for
from maguyva_guard.records import CALL, FUNCTION, METHOD, Definition, Reference
from maguyva_guard.retrievers.pylocals import in_comment_or_string
from maguyva_guard.retrievers.resolve import Resolver

_CALL = re.compile(r"([A-Za-z_][\w.]*)\s*\(")


def invoked_parameters(resolver: Resolver, use: Reference) -> Iterator[Reference]:
    """Calls of the parameter that `use` (a name passed as an argument) binds."""
    lines = resolver.lines(use.path)
    if not 0 < use.line <= len(lines):
        return
    line = lines[use.line - 1]
    for callee_text, position, keyword in _argument_slots(line, use.name):
        e = resolver.callee(use.path, use.scope, callee_text)
        fn = e.definition if e is not None else None
        if fn is None or fn.kind not in (FUNCTION, METHOD):
            continue
        param = _parameter(fn, position, keyword)
        if param is not None:
            yield from _calls_of(resolver, fn, param)


def assigned_calls(resolver: Resolver, use: Reference) -> Iterator[Reference]:
    """JavaScript/TypeScript, Go, Rust: `f = target` (or `let f = target`, `f := target`),
    then `f(...)` below it: those calls run `target`. Inside a function, its own calls of
    `f`; at module level (`if (win) { f = winImpl } else { f = posixImpl }`, a binding
    per platform) the calls of `f` in the rest of the file, each in its function."""
    lines = resolver.lines(use.path)
    fs = resolver.scope(use.path)
    fn = fs.by_qualified.get(use.scope)
    if (use.scope and fn is None) or not 0 < use.line <= len(lines):
        return
    last = fn.line_end if fn is not None else len(lines)
    for m in _ASSIGNED.finditer(lines[use.line - 1]):
        if m.group(2) != use.name and not m.group(2).endswith("." + use.name):
            continue
        call = re.compile(rf"(?<![\w.$]){re.escape(m.group(1))}\s*\(")
        for number in range(use.line + 1, last + 1):
            if call.search(lines[number - 1]):
                scope = fn.qualified_name if fn is not None else _innermost(fs.definitions,
                                                                            number)
                yield Reference(use.path, m.group(1), CALL, number, scope)


def _innermost(definitions: list[Definition], line: int) -> str:
    inside = [d for d in definitions if d.line_start <= line <= d.line_end]
    return max(inside, key=lambda d: d.line_start).qualified_name if inside else ""


_ASSIGNED = re.compile(r"(?:^|[;{(]|\b(?:let|const|var)\s+)\s*(?:mut\s+)?([A-Za-z_$][\w$]*)"
                       r"\s*:?=\s*([A-Za-z_$][\w$.]*)\s*(?:;|$|\})")


def _argument_slots(line: str, name: str) -> Iterator[tuple[str, int, str]]:
    """(callee, position, keyword) of each call on `line` that takes `name` as a whole
    argument: position -1 for a keyword argument."""
    for m in _CALL.finditer(line):
        if in_comment_or_string(line, m.start()):
            continue
        args = _arguments(line, m.end())
        if args is None:
            continue
        for i, arg in enumerate(args):
            key, _, value = arg.partition("=") if "=" in arg and "==" not in arg else ("", "", arg)
            if value.strip() == name:
                yield m.group(1), (-1 if key else i), key.strip()


def _arguments(line: str, start: int) -> list[str] | None:
    """The top-level arguments of the call whose `(` ends at `start`, if on this line."""
    depth, current, out = 1, "", []
    for c in line[start:]:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                out.append(current)
                return [a for a in out if a.strip()]
        if c == "," and depth == 1:
            out.append(current)
            current = ""
        else:
            current += c
    return None


def _parameter(fn: Definition, position: int, keyword: str) -> str | None:
    if language_for(fn.path) != "python":
        names = _declared_parameters(fn)
        return names[position] if not keyword and 0 <= position < len(names) else None
    header = fn.signature[fn.signature.find("def "):] if "def " in fn.signature else ""
    try:
        tree = ast.parse(header.removeprefix("async ").rstrip(":") + ": pass")
    except SyntaxError:
        return None
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        return None
    names = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    if fn.kind == METHOD and names and names[0] in ("self", "cls"):
        names = names[1:]
    if keyword:
        kwonly = [a.arg for a in node.args.kwonlyargs]
        return keyword if keyword in names or keyword in kwonly else None
    return names[position] if 0 <= position < len(names) else None


def _declared_parameters(fn: Definition) -> list[str]:
    """The parameter names of a JavaScript/TypeScript, Go or Rust function, read from its
    signature: the first identifier of each top-level item of the list after its name
    (`fn: (x: number) => number`, `fn func(int) int`, `mut f: F`); Rust's `self` and Go's
    receiver are no parameters of the call."""
    sig = fn.signature
    at = sig.find(fn.name)
    start = sig.find("(", at + len(fn.name) if at >= 0 else 0)
    if start < 0:
        return []
    args = _arguments(sig, start + 1)
    if args is None:
        return []
    names = []
    for arg in args:
        m = _PARAMETER_NAME.match(arg)
        if m is None:
            return []  # a pattern (`{ a, b }`, `(x, y): (i32, i32)`): positions unknown
        if m.group(1) != "self":
            names.append(m.group(1))
    return names


_PARAMETER_NAME = re.compile(r"\s*(?:\.\.\.)?(?:&\s*)?(?:mut\s+)?([A-Za-z_$][\w$]*)")


def _calls_of(resolver: Resolver, fn: Definition, param: str) -> Iterator[Reference]:
    call = re.compile(rf"(?<![\w.]){re.escape(param)}\s*\(")
    body = resolver.lines(fn.path)[fn.line_start : fn.line_end]  # after the def line
    for offset, text in enumerate(body, start=fn.line_start + 1):
        m = call.search(text)
        if m is not None and not in_comment_or_string(text, m.start()):
            yield Reference(fn.path, param, CALL, offset, fn.qualified_name)
