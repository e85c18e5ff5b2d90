"""Python receivers whose declared type is a union of repository classes.

click's `ShellComplete.get_completions` does `obj, incomplete = _resolve_incomplete(...)`
with `_resolve_incomplete(...) -> t.Tuple[t.Union[BaseCommand, Parameter], str]`, then
`obj.shell_complete(ctx, incomplete)`: the call runs BaseCommand's or Parameter's method.
The single-class guesses (inference.py) say nothing about such a receiver, and the call was
a name-only match. Here the union's members are the candidates, each probable: the
receiver of a tuple unpacked from a call whose return annotation names a tuple (its item
at the variable's position), or of a variable or parameter annotated with the union
(`x: A | B`, `t.Optional[A]` is A), or assigned the call of a function annotated so.
"""

from __future__ import annotations

import re
from typing import Final

from maguyva_guard.records import FUNCTION, METHOD
from maguyva_guard.retrievers.resolution_base import (
    CLASS_KINDS,
    IDENT,
    Entity,
    ResolverAPI,
)

MAX_MEMBERS: Final = 6  # a wider union says little about which class is meant
_UNPACKED: Final = (r"^\s*\(?\s*(?P<names>[\w\s,]*\b{name}\b[\w\s,]*?)\)?\s*=\s*"
                   r"(?P<callee>[A-Za-z_][\w.]*)\s*\(")
_ANNOTATED: Final = r"(?<![\w.]){name}\s*:\s*(?P<type>[^=,)]+(?:\[[^\]]*\][^=,)]*)?)"
_ASSIGNED: Final = r"^\s*{name}\s*=\s*(?P<callee>[A-Za-z_][\w.]*)\s*\("
_RETURNS: Final = re.compile(r"->\s*(?P<type>.+?)\s*:?\s*$")
_WRAPPER: Final = re.compile(r"^(?:[A-Za-z_]\w*\.)?(Union|Optional|Tuple|tuple)\[(.*)\]$")


def split_top(text: str) -> list[str]:
    """The comma-separated items of `text` at bracket depth 0."""
    depth, current, out = 0, "", []
    for c in text:
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        if c == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += c
    if current.strip():
        out.append(current.strip())
    return out


def members(annotation: str, position: int | None = None) -> list[str]:
    """The class names a type annotation allows (`t.Union[A, B]`, `A | B`, `Optional[A]`,
    `"A"`), after taking item `position` of a tuple type; `None` and builtins dropped."""
    text = annotation.strip().strip("'\"")
    m = _WRAPPER.match(text)
    if position is not None:
        if m is None or m.group(1) not in ("Tuple", "tuple"):
            return []
        items = split_top(m.group(2))
        return members(items[position]) if position < len(items) else []
    if m is not None and m.group(1) in ("Union", "Optional"):
        return [n for item in split_top(m.group(2)) for n in members(item)]
    if "|" in text and "[" not in text:
        return [n for item in text.split("|") for n in members(item)]
    return [text] if re.fullmatch(r"[A-Za-z_][\w.]*", text) and text != "None" else []


def union_receiver(r: ResolverAPI, path: str, scope: str, var: str) -> list[Entity]:
    """The classes `var` may hold where its function declares a union (see above); empty
    where it does not, or names fewer than two repository classes."""
    if not IDENT.fullmatch(var):
        return []
    fn = r.scope(path).by_qualified.get(scope)
    if fn is None or fn.kind not in (FUNCTION, METHOD):
        return []
    lines = [fn.signature, *r.lines(path)[fn.line_start : fn.line_end]]
    name = re.escape(var)
    for line in lines:
        if var not in line:
            continue
        found = _from_line(r, fn.path, scope, name, var, line)
        if found:
            return found
    return []


def _from_line(r: ResolverAPI, path: str, scope: str, name: str, var: str,
               line: str) -> list[Entity]:
    m = re.search(_UNPACKED.replace("{name}", name), line)
    if m is not None and "," in m.group("names"):
        names = [n.strip() for n in m.group("names").split(",")]
        return _returned(r, path, scope, m.group("callee"), names.index(var)) \
            if var in names else []
    m = re.search(_ASSIGNED.replace("{name}", name), line)
    if m is not None:
        return _returned(r, path, scope, m.group("callee"), None)
    m = re.search(_ANNOTATED.replace("{name}", name), line)
    if m is not None:
        return _classes(r, path, scope, members(m.group("type")))
    return []


def _returned(r: ResolverAPI, path: str, scope: str, callee: str,
              position: int | None) -> list[Entity]:
    e = r.callee(path, scope, callee)
    fn = e.definition if e is not None else None
    if fn is None or fn.kind not in (FUNCTION, METHOD):
        return []
    m = _RETURNS.search(fn.signature)
    if m is None:
        return []
    return _classes(r, fn.path, fn.qualified_name, members(m.group("type"), position))


def _classes(r: ResolverAPI, path: str, scope: str, names: list[str]) -> list[Entity]:
    if not 2 <= len(names) <= MAX_MEMBERS:
        return []
    out = []
    for n in names:
        e = r.resolve_expression(path, scope, n, 1)
        if e is None or e.definition is None or e.definition.kind not in CLASS_KINDS:
            return []  # a member outside the repository: any class may be meant
        out.append(Entity("instance", path=e.path, definition=e.definition, sure=False))
    return out


def annotated_union(line: str, var: str) -> bool:
    """Whether `line` annotates `var` with a union of two or more classes (then no single
    class is its type: union_receiver answers for it)."""
    m = re.search(_ANNOTATED.replace("{name}", re.escape(var)), line)
    return m is not None and len(members(m.group("type"))) >= 2
