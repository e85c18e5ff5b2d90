"""The arguments of one call in TypeScript/JavaScript text, as ecmaconform.py reads them:
each top-level argument of the indexed call's parentheses (which may close lines below),
with its line and position, kept where it is a value whose class the resolver can tell (a
name or chain, `new C(...)`, a call `f(...)` typed by its declared return) and dropped
otherwise (a literal, an operator, a callback). Commas inside strings or type arguments
are not told apart: such a call's later arguments may be given the wrong index, and then
the type of the wrong parameter is asked (it must still expect the changed member for the
site to count).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from maguyva_guard.records import Reference

_IDENT: Final = r"[A-Za-z_$][\w$]*"
# An argument as a whole: a name or chain, `new C(...)`, or a call `f(...)` (the callee's
# arguments are not read: what it returns is typed by its declaration).
_ARGUMENT: Final = re.compile(
    rf"(?P<value>(?:new\s+)?(?:this\.)?{_IDENT}(?:\.{_IDENT})*)\s*(?:<[^()]*>\s*)?"
    r"(?P<call>\(.*\))?")
_KEYWORDS: Final = frozenset({"if", "for", "while", "switch", "catch", "function", "return",
                              "typeof", "await", "new", "yield", "throw", "case", "else"})
MAX_LINES_ON: Final = 40  # how far below an argument's call is looked for its `)`


def call_arguments(lines: list[str], ref: Reference) -> Iterator[tuple[int, str, int, bool]]:
    """(row, value, argument index, whether the call is `new`) of each argument of the
    call `ref` (its parentheses may close lines below) that is a name or chain, `new
    C(...)`, or a call `f(...)`, read as `f()`: what is_instance_of asks of a call."""
    row = ref.line - 1
    head = re.compile(rf"(?P<new>\bnew\s+)?(?<![\w$]){re.escape(ref.name)}\s*(?:<[^()]*>\s*)?\(")
    for m in head.finditer(lines[row] if 0 <= row < len(lines) else ""):
        text = "\n".join(lines[row : row + MAX_LINES_ON])
        for start, item in _split_arguments(text, m.end()):
            value = _value(item)
            if value is not None:
                at = start + len(item) - len(item.lstrip())
                yield row + text.count("\n", 0, at), value, len(_before(text, m.end(), start)), \
                    bool(m.group("new"))


def _split_arguments(text: str, at: int) -> list[tuple[int, str]]:
    """(offset, text) of each top-level argument of the parentheses opened before `at`."""
    out, depth, start = [], 0, at
    for i in range(at, len(text)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                out.append((start, text[start:i]))
                return out
            depth -= 1
        elif c == "," and depth == 0:
            out.append((start, text[start:i]))
            start = i + 1
    return []  # not closed within MAX_LINES_ON lines: no argument is read


def _before(text: str, at: int, start: int) -> list[int]:
    """The top-level commas between `at` and `start` (the argument's index)."""
    depth, out = 0, []
    for i in range(at, start):
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(text[i], 0)
        if text[i] == "," and depth == 0:
            out.append(i)
    return out


def _value(item: str) -> str | None:
    """An argument as _instance reads it: a name or chain, `new C(...)`, `f(...)` as
    `f()`; None for anything else (a literal, an operator, a callback)."""
    item = " ".join(item.split())
    m = _ARGUMENT.fullmatch(item)
    if m is None or m.group("value").split(".")[0] in _KEYWORDS:
        return None
    value, call = m.group("value"), m.group("call")
    if call:
        parts = _split_arguments(call, 1)
        if not parts or parts[-1][0] + len(parts[-1][1]) != len(call) - 1:
            return None  # `f(a) + g(b)`: the parentheses close before the end
    return value + "()" if call or value.startswith("new ") else value
