"""JavaScript/TypeScript bindings the type guesses read from the text: a local bound by
object destructuring takes the type of the property it copies.

`const { _parentage } = this;` binds `_parentage` to `this._parentage` (rxjs's
Subscription.unsubscribe then calls `_parentage.remove(this)` and loops over it);
`const { a: b, c = 1 } = obj` binds `b` to `obj.a` and `c` to `obj.c`. Only a plain source
(a name or a dotted chain) is followed: `const { x } = f()` says nothing here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

# `const { a, b: c, d = 1 } = source;`: the braces' items and the source
_DESTRUCTURING: Final = re.compile(
    r"\b(?:const|let|var)\s*\{(?P<items>[^{}]*)\}\s*(?::[^=]*)?=\s*"
    r"(?P<source>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*;?\s*(?://.*)?$")
_ITEM: Final = re.compile(r"^\s*(?:\.\.\.)?([A-Za-z_$][\w$]*)\s*(?::\s*([A-Za-z_$][\w$]*))?"
                          r"\s*(?:=.*)?$")


def destructured(lines: Iterable[str], var: str) -> str | None:
    """The property chain `var` copies where `lines` destructure it (`this._parentage` for
    `const { _parentage } = this;`), the first such line; None where none does."""
    for line in lines:
        if var not in line or "{" not in line:
            continue
        m = _DESTRUCTURING.search(line)
        if m is None:
            continue
        for item in m.group("items").split(","):
            found = _ITEM.match(item)
            if found is None or found.group(0).lstrip().startswith("..."):
                continue
            prop, local = found.group(1), found.group(2) or found.group(1)
            if local == var:
                return f"{m.group('source')}.{prop}"
    return None


# `const delegate = {` (an object literal opened at the end of the line)
_OBJECT_LOCAL: Final = re.compile(
    r"^(?P<indent>\s*)(?:const|let|var)\s+(?P<name>[A-Za-z_$][\w$]*)\s*(?::[^=]*)?=\s*\{\s*$")
_RETURN_OBJECT: Final = re.compile(r"^\s*return\s*\{(?P<items>[^{}]*)\}\s*;?\s*$")


def holding_local(lines: list[str], first: int, line: int) -> str | None:
    """The local whose object literal holds the method defined at `line` (1-based; the
    function's lines start at `first`): the nearest `const name = {` above it, indented
    less than the method."""
    at = line - first
    if not 0 <= at < len(lines):
        return None
    indent = len(lines[at]) - len(lines[at].lstrip())
    for text in reversed(lines[:at]):
        m = _OBJECT_LOCAL.match(text)
        if m is not None and len(m.group("indent")) < indent:
            return m.group("name")
        if text.strip() and len(text) - len(text.lstrip()) < indent and m is None \
                and not text.rstrip().endswith(("{", ",", "(")):
            return None  # left the literal without finding its binding
    return None


def returned_as(lines: Iterable[str], local: str) -> str | None:
    """The property under which the function returns `local` in an object literal
    (`return { animate, delegate };` -> `delegate`, `return { d: delegate }` -> `d`)."""
    for text in lines:
        m = _RETURN_OBJECT.match(text)
        if m is None or local not in text:
            continue
        for item in m.group("items").split(","):
            key, _, value = item.partition(":")
            if (value or key).strip() == local and IDENTIFIER.fullmatch(key.strip()):
                return key.strip()
    return None


IDENTIFIER: Final = re.compile(r"[A-Za-z_$][\w$]*")


def result_reads(lines: list[str], callee: str, prop: str) -> list[int]:
    """Offsets of `lines` that read `prop` of what calling `callee` gave: `v = [this.]
    callee(...)` then `v.prop` (not called), or `callee(...).prop` on one line."""
    bound = re.compile(rf"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:this\.)?"
                       rf"{re.escape(callee)}\s*\(")
    direct = re.compile(rf"\b{re.escape(callee)}\s*\([^()]*\)\s*\.{re.escape(prop)}\b(?!\s*\()")
    names: set[str] = set()
    out: list[int] = []
    for at, text in enumerate(lines):
        m = bound.search(text)
        if m is not None:
            names.add(m.group(1))
        if direct.search(text) or any(
                re.search(rf"(?<![\w$.]){re.escape(n)}\.{re.escape(prop)}\b(?!\s*\()", text)
                for n in names):
            out.append(at)
    return out


def own_parameters(signature: str) -> str:
    """A function's signature with everything inside nested parentheses blanked: the
    parameters of function types (mobx's `reaction(expression: (r: IReactionPublic) => T,
    ...)`) and of its return type bind no name in its body, and `r: IReactionPublic` there
    hid the body's `const r = new Reaction(...)`. Only the first, outermost parameter list
    is kept."""
    out: list[str] = []
    depth = 0
    done = False  # the own parameter list has closed: later parentheses are types
    for c in signature:
        if c == "(":
            depth += 1
        keep = depth == 0 or (depth == 1 and not done)
        out.append(c if keep or c in "()" else " ")
        if c == ")":
            depth = max(depth - 1, 0)
            done = done or depth == 0
    return "".join(out)


def body_lines(lines: list[str]) -> list[str]:
    """A function's lines from where its body opens (the first `{` outside parentheses
    after its parameter list): the signature's own lines are read from `own_parameters`."""
    depth = 0
    opened = False
    for i, line in enumerate(lines):
        for c in line:
            if c == "(":
                depth += 1
                opened = True
            elif c == ")":
                depth -= 1
            elif c == "{" and depth == 0 and opened:
                return lines[i:]
    return lines
