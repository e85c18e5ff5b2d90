"""TypeScript's contextual typing of a callback's parameters: an unannotated parameter of an
arrow function (or `function` expression) passed as an argument takes the type that the
callee declares for that argument.

rxjs writes nearly every operator as `operate((source, subscriber) => { ...
subscriber.next(v) })` and every creation function as `new Observable((subscriber) =>
...)`: `subscriber` is written without a type, and tsc gives it `Subscriber<R>` from
`operate(init: (liftedSource: Observable<T>, subscriber: Subscriber<R>) => ...)` and from
`constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => ...)`.

Only what the text shows is followed: the callback opens on the line that names the
variable, inside the callee's parentheses on that same line; the callee resolves to one
function, method or class (its `constructor`) of the project; the declared parameter is a
function type whose parameter at that position names one class (`A | B`, a type
parameter, a type alias: unknown, and the call stays a possible caller).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final, NamedTuple

from maguyva_guard.records import FUNCTION, METHOD
from maguyva_guard.retrievers.resolution_base import CLASS_KINDS, Entity, ResolverAPI

_IDENT: Final = r"[A-Za-z_$][\w$]*"
# `(a, b) =>`, `async (a) =>`, `function (a, b) {` / `function name(a) {`, `a =>`
_CALLBACK: Final = re.compile(
    rf"(?:\bfunction\s*(?:{_IDENT})?\s*\((?P<fparams>[^()]*)\)|\((?P<aparams>[^()]*)\)\s*"
    rf"(?::\s*[^=]+)?=>|(?<![\w$.])(?P<single>{_IDENT})\s*=>)")
_CALLEE: Final = re.compile(rf"(?P<new>\bnew\s+)?(?P<name>{_IDENT}(?:\.{_IDENT})*)\s*$")
_TYPE_NAME: Final = re.compile(rf"^(?P<name>{_IDENT}(?:\.{_IDENT})*)\s*(?:<.*>)?$")


class Callback(NamedTuple):
    """Where a variable is a callback's parameter: the callee as written, whether it is
    `new`, the argument's position and the parameter's position in the callback."""

    callee: str
    new: bool
    argument: int
    parameter: int
    at: int = -1  # where the call's parenthesis is in the text searched


def callback_parameter(lines: Iterable[str], var: str, spanning: bool = False
                       ) -> Callback | None:
    """The first of `lines` where `var` is an unannotated parameter of a callback passed
    to a call on the same line (`spanning`: or opened on an earlier line of `lines`, as
    rxjs's range() writes `new Observable(\n scheduler\n ? (subscriber) => ...`); None
    where none is."""
    lines = list(lines)
    for row, line in enumerate(lines):
        for m in _CALLBACK.finditer(line):
            params = m.group("fparams") if m.group("fparams") is not None else \
                m.group("aparams")
            names = [m.group("single")] if params is None else _names(params)
            if var not in names:
                continue
            found = call_around(line, m.start(), names.index(var))
            if found is None and spanning:
                above = call_above(lines, row, m.start(), names.index(var))
                found = above[0] if above is not None else None
            if found is not None:
                return found
    return None


def call_above(lines: list[str], row: int, column: int, parameter: int = 0,
               above: bool = True) -> tuple[Callback, int] | None:
    """call_around for what starts at `column` of `lines[row]`, the call's parenthesis
    on that line or up to MAX_LINES_BACK lines above (comments skipped), with how many
    lines above it is. `above` False: lines above only where nothing precedes `column`
    on its line (an argument starting a line)."""
    if not above and lines[row][:column].strip():
        text = lines[row][:column].replace("?.", ".")
        found = call_around(text, len(text), parameter)
        return None if found is None else (found, 0)
    head = [_code(text) for text in lines[max(0, row - MAX_LINES_BACK) : row]]
    text = "\n".join([*head, lines[row][:column]]).replace("?.", ".")
    found = call_around(text, len(text), parameter)
    return None if found is None else (found, text.count("\n", found.at))


MAX_LINES_BACK: Final = 30  # how far above a callback its call's parenthesis is looked for
_LINE_COMMENT: Final = re.compile(r"(?<![:\w])//.*$")


def _code(line: str) -> str:
    """A line without its `//` comment (a comment line: nothing)."""
    if line.lstrip().startswith(("*", "/*")):
        return ""
    return _LINE_COMMENT.sub("", line)


def _names(params: str) -> list[str]:
    """The parameters' names, "" for one written with a type, a default or a pattern."""
    out = []
    for item in split_top(params):
        item = item.strip()
        out.append(item if re.fullmatch(_IDENT, item) else "")
    return out


def call_around(line: str, at: int, parameter: int) -> Callback | None:
    """The call whose parentheses hold the callback starting at `at`: its callee and the
    callback's argument position."""
    depth, commas = 0, 0
    for i in range(at - 1, -1, -1):
        c = line[i]
        if c in "<>" and not _type_bracket(line, i):
            continue  # an arrow or a comparison (`n < end`), no type argument
        if c in ")]}>":
            depth += 1
        elif c in "([{<":
            if depth == 0 and c == "(":
                head = _strip_type_arguments(line[:i].rstrip())
                m = _CALLEE.search(head)
                if m is None or m.group("name") in ("function", "if", "while", "for"):
                    return None
                return Callback(m.group("name"), bool(m.group("new")), commas, parameter, i)
            if depth == 0:
                return None  # inside an array or object literal: no argument's type
            depth -= 1
        elif c == "," and depth == 0:
            commas += 1
        elif c == ";" and depth == 0:
            return None  # the statement before: the callback is passed to no call
    return None


def _type_bracket(text: str, i: int) -> bool:
    """Whether the `<` or `>` at `i` encloses type arguments: `Observable<T>` is written
    without spaces around them, a comparison `n < end` with them; `=>` is an arrow."""
    before = text[i - 1 : i]
    if text[i] == "<":
        return bool(before) and (before.isalnum() or before in "_$")
    return bool(before) and not before.isspace() and before != "="


def _strip_type_arguments(head: str) -> str:
    """`new Observable<{ a: number }>` -> `new Observable`."""
    if not head.endswith(">"):
        return head
    depth = 0
    for i in range(len(head) - 1, -1, -1):
        depth += {">": 1, "<": -1}.get(head[i], 0)
        if depth == 0:
            return head[:i].rstrip()
    return head


def split_top(text: str, separator: str = ",") -> list[str]:
    """`text` split at the `separator`s (commas; `|` for a union's arms) outside brackets
    and type arguments (an arrow's `=>` closes none); empty parts dropped."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{<":
            depth += 1
        elif c in ")]}>" and not (c == ">" and text[i - 1 : i] == "="):
            depth -= 1
        elif c == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


def contextual_type(r: ResolverAPI, path: str, scope: str, lines: Iterable[str], var: str,
                    hops: int) -> Entity | None:
    """An instance of the class that the callee declares for `var`, a parameter of a
    callback passed to it (probable); None where the text does not show one class."""
    lines = list(lines)
    found = callback_parameter(lines, var)
    if found is None and any(_CALLBACK.search(line) for line in lines):
        # The callback may be an argument of a call opened on an earlier line, which the
        # lines naming `var` do not hold: read the enclosing function's.
        # (Overloads share the name: the implementation is the longest of them.)
        d = max((d for d in r.scope(path).definitions if d.qualified_name == scope),
                key=lambda d: d.line_end - d.line_start, default=None)
        body = r.lines(path)[d.line_start - 1 : d.line_end] if d is not None else []
        found = callback_parameter(body, var, spanning=True)
    if found is None:
        return None
    target = r.resolve_expression(path, scope, found.callee, hops + 1)
    d = target.definition if target is not None else None
    if d is not None and d.kind in CLASS_KINDS and found.new:
        d = r.class_member(d, "constructor", hops + 1)
    if d is None or d.kind not in (FUNCTION, METHOD):
        return None
    declared = parameter_type(d.signature, found.argument)
    written = _function_parameter(declared, found.parameter) if declared else None
    if written is None:
        return None
    e = r.resolve_expression(d.path, d.parent or d.qualified_name, written, hops + 1)
    if e is None or e.definition is None or e.definition.kind not in CLASS_KINDS:
        return None
    return Entity("instance", path=e.path, definition=e.definition, sure=False)


def parameter_type(signature: str, index: int) -> str | None:
    """The type written for the `index`th parameter of a signature (`this:` skipped)."""
    params = _parenthesised(signature, _after_name(signature))
    if params is None:
        return None
    items = [p for p in split_top(params) if not p.strip().startswith("this:")]
    if index >= len(items) or items[index].strip().startswith("..."):
        return None
    _, colon, written = items[index].partition(":")
    return written.strip() if colon else None


def _function_parameter(function_type: str, index: int) -> str | None:
    """The class named by the `index`th parameter of a function type `(a: A, b: B<T>) =>
    R` (`this:` skipped): `B`; None for anything but one plain (generic) name."""
    function_type = function_type.strip()
    if not function_type.startswith("("):
        return None
    written = parameter_type(function_type, index)
    if written is None or "|" in written or "&" in written:
        return None
    m = _TYPE_NAME.match(written)
    return m.group("name") if m else None


def _after_name(signature: str) -> int:
    """Where a signature's parameter list may start: after its type parameters."""
    at = signature.find("(")
    lt = signature.find("<")
    if 0 <= lt < at:  # `function operate<T, R>(`: skip the type parameters
        depth = 0
        for i in range(lt, len(signature)):
            depth += {"<": 1, ">": -1}.get(signature[i], 0)
            if depth == 0:
                return i + 1
    return 0


def _parenthesised(text: str, start: int) -> str | None:
    """The text inside the first balanced parentheses at or after `start`."""
    at = text.find("(", start)
    if at < 0:
        return None
    depth = 0
    for i in range(at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[at + 1 : i]
    return None

