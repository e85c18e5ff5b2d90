"""Values passed and invoked: `apply(target)` where `def apply(fn): return fn(1)`.

The passing site reads `target` as a value and is reported like any use; the call that
breaks when `target`'s signature changes is `fn(1)` inside `apply`. One hop is followed:
the argument to the parameter it binds, to the calls of that parameter in the called
function's own body. Python only; what cannot be matched (a `*args` spread, a callee
outside the repository, a parameter passed on again) is left out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

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


def _calls_of(resolver: Resolver, fn: Definition, param: str) -> Iterator[Reference]:
    call = re.compile(rf"(?<![\w.]){re.escape(param)}\s*\(")
    body = resolver.lines(fn.path)[fn.line_start : fn.line_end]  # after the def line
    for offset, text in enumerate(body, start=fn.line_start + 1):
        m = call.search(text)
        if m is not None and not in_comment_or_string(text, m.start()):
            yield Reference(fn.path, param, CALL, offset, fn.qualified_name)
