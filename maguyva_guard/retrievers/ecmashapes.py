"""Whether a TypeScript type, as written, expects a member of a given name of every class
instance it could hold (ecmaconform.py's question).

`Partial<Observer<T>> | ((value: T) => void) | null` expects `next` of any instance: the
arm `Observer` (interface) declares it, `Partial<>` keeps the names, and no class instance
fits a function type or `null`. A type alias is followed to its right-hand side, an
interface or class is read in its body (its members are not definitions of their own). An
arm that might take an instance without the member (a type parameter, `any`, `object`, an
interface without it), or whose member is the changed one itself (the class, a base it
inherits the member from), makes the answer "no".
"""

from __future__ import annotations

import functools
import re
from typing import Final

from maguyva_guard.records import Definition
from maguyva_guard.retrievers.ecmacontext import split_top
from maguyva_guard.retrievers.resolution_base import CLASS_KINDS, Entity, ResolverAPI

_IDENT: Final = r"[A-Za-z_$][\w$]*"
# Arms no class instance fits.
_NO_INSTANCE: Final = frozenset({"null", "undefined", "void", "never", "string", "number",
                                 "boolean", "bigint", "symbol"})
# Mapped types that keep every member's name (`Partial<Observer<T>>` has `next`, optional).
_KEEPS_NAMES: Final = frozenset({"Partial", "Readonly", "Required"})
_TYPE_NAME: Final = re.compile(rf"^(?P<name>{_IDENT}(?:\.{_IDENT})*)\s*(?:<(?P<args>.*)>)?$")
MAX_DEPTH: Final = 4  # type aliases followed


def rejects(r: ResolverAPI, path: str, scope: str, written: str, target: Definition) -> bool:
    """Whether the type `written` in `path` expects a member named as `target` (not
    `target` itself) in every arm that a class instance could fit."""
    return verdict(r, path, scope, written, target, 0) is True


def verdict(r: ResolverAPI, path: str, scope: str, written: str, target: Definition,
             depth: int) -> bool | None:
    arms = _arms(written)
    if not arms or depth > MAX_DEPTH:
        return None
    verdicts = [_arm(r, path, scope, arm, target, depth) for arm in arms]
    if None in verdicts:
        return None
    return any(verdicts)


def _arm(r: ResolverAPI, path: str, scope: str, arm: str, target: Definition,
         depth: int) -> bool | None:
    if arm in _NO_INSTANCE or arm[:1] in "'\"`0123456789" or (
            arm.startswith("(") and "=>" in arm):
        return False
    if arm.startswith("{"):
        return True if _has_member(arm, target.name) else None
    m = _TYPE_NAME.match(arm)
    if m is None:
        return None
    if m.group("name") in _KEEPS_NAMES and m.group("args"):
        return verdict(r, path, scope, m.group("args"), target, depth + 1)
    e = r.resolve_expression(path, scope, m.group("name"))
    d = e.definition if e is not None else None
    if d is None or d.kind not in CLASS_KINDS:
        return None
    own = r.class_member(d, target.name)
    if own is not None:
        return None if own == target else True
    body = "\n".join(r.lines(d.path)[d.line_start - 1 : d.line_end])
    alias = re.search(rf"\btype\s+{re.escape(d.name)}\b[^=]*=(?P<rhs>[\s\S]*?);?\s*$", body)
    if alias is not None:
        return verdict(r, d.path, d.parent, alias.group("rhs"), target, depth + 1)
    return True if _has_member(_braces(body), target.name) else None


def _arms(written: str) -> list[str]:
    """The arms of a union type (`A | (() => void) | null`), parentheses around one arm
    removed."""
    arms = []
    for arm in (a.strip() for a in split_top(written.strip().lstrip("|").strip(), "|")):
        while arm.startswith("(") and arm.endswith(")") and "=>" not in _outside(arm[1:-1]):
            arm = arm[1:-1].strip()
        arms.append(arm)
    return [a for a in arms if a]


def _outside(text: str) -> str:
    """`text` without what its brackets hold (to tell `(A)` from `(a: A) => B`)."""
    depth, out = 0, []
    for c in text:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0:
            out.append(c)
    return "".join(out)


def _braces(body: str) -> str:
    at = body.find("{")
    return body[at:] if at >= 0 else ""


@functools.lru_cache(maxsize=1024)  # a class body is read once per member name
def _has_member(block: str, name: str) -> bool:
    """Whether the object type `block` (`{ ... }`) declares `name` at its own level."""
    depth, level = 0, []
    for i, c in enumerate(block):
        if c in "})]" or (c == ">" and block[i - 1 : i] != "="):
            depth -= 1
        if depth == 1:
            level.append(c)
        if c in "{([<":
            depth += 1
    return re.search(rf"(?:^|[;,{{\n])\s*(?:readonly\s+)?{re.escape(name)}\s*\??\s*[:(<]",
                     "".join(level)) is not None


def declared_return(signature: str) -> str | None:
    """The return type written after a signature's parameter list (`): Observer<T>`)."""
    at = signature.find("(")
    if at < 0:
        return None
    depth = 0
    for i in range(at, len(signature)):
        depth += {"(": 1, ")": -1}.get(signature[i], 0)
        if depth == 0:
            rest = signature[i + 1 :].strip()
            if not rest.startswith(":"):
                return None
            rest = rest[1:].strip().rstrip("{").strip()
            return rest or None
    return None


def declared_instance(r: ResolverAPI, fn: Definition, hops: int) -> Entity | None:
    """An instance of the one class or interface a TypeScript function declares it
    returns (`): Subscriber<T>`; rxjs's createOperatorSubscriber), probable; None for a
    union, a function type or a name the project does not define."""
    written = declared_return(fn.signature)
    m = _TYPE_NAME.match(written.strip()) if written else None
    if m is None:
        return None
    e = r.resolve_expression(fn.path, fn.qualified_name, m.group("name"), hops + 1)
    if e is None or e.definition is None or e.definition.kind not in CLASS_KINDS:
        return None
    return Entity("instance", path=e.path, definition=e.definition, sure=False)
