"""Rust expressions with calls, typed step by step: `Type::new(a)`, `self.pop().unwrap()
.unwrap_class_unicode()`, `parse(x)?.kind`, `cls1.clone()`, through declared return types
(rusttypes.py), an Option's or Result's `unwrap()`/`?`, fields' declared types and the
items of a sequence field; and a receiver read from a macro's tokens cut to its own
expression (tree-sitter leaves a macro's arguments as tokens)."""

from __future__ import annotations

import re
from typing import Final

from maguyva_guard.retrievers.resolution_base import CLASS_KINDS, MAX_HOPS, Entity, ResolverAPI
from maguyva_guard.retrievers.rusttypes import declared_return, instance_of_type

# Methods that give their receiver's type (`x.clone()`), and those that take what an
# Option or Result holds (`x.unwrap()`).
_SAME: Final = frozenset({"clone", "to_owned", "borrow", "borrow_mut", "as_ref", "as_mut",
                          "by_ref", "as_deref"})
_UNWRAP: Final = frozenset({"unwrap", "expect", "unwrap_or_default", "unwrap_unchecked"})
# A sequence's methods that give an Option of one of its items.
_ELEMENT: Final = frozenset({"pop", "last", "first", "get", "last_mut", "first_mut", "get_mut",
                             "pop_front", "pop_back", "front", "back"})


def chain_type(r: ResolverAPI, path: str, scope: str, expr: str, hops: int,
               unwrap: bool = False) -> Entity | None:
    """The type of a Rust expression with calls (`Type::new(a)`, `self.pop().unwrap()
    .unwrap_class_unicode()`, `parse(x)?.kind`), step by step through declared return
    and field types; `unwrap`: what the Option or Result it ends with holds."""
    parts = _segments(expr)
    if not parts or hops > MAX_HOPS:
        return None
    (head, called, tried), *rest = parts
    entity: Entity | None
    if called:
        entity, wrapped = _call_result(r, r.callee(path, scope, head, hops + 1), hops)
    else:
        entity, wrapped = r.resolve_expression(path, scope, head, hops + 1), False
    wrapped = wrapped and not tried
    so_far = head
    for name, called, tried in rest:
        d = entity.definition if entity is not None else None
        if d is None and called and name in _ELEMENT and "(" not in so_far:
            # `self.stack.pop()` with `stack: Vec<Frame>`: an Option of a Frame
            entity, wrapped = r.element_type(path, scope, so_far, False, hops + 1), True
            so_far = f"{so_far}.{name}()"
            wrapped = wrapped and not tried
            continue
        so_far = f"{so_far}.{name}{'()' if called else ''}"
        if d is None:
            return None
        if name in _UNWRAP and called:
            if not wrapped:
                return None  # an Option whose holding we did not read
            wrapped = False
        elif wrapped:
            return None  # `opt.map(..)`: a method of the Option, not of what it holds
        elif called and name in _SAME:
            pass
        elif called:
            method = r.class_member(d, name, hops + 1)
            found = Entity("definition", path=method.path, definition=method) if method else None
            entity, wrapped = _call_result(r, found, hops)
        else:
            entity = r.attribute_type(d, name, hops + 1)
        wrapped = wrapped and not tried
    if unwrap:
        return entity if wrapped else None
    return None if wrapped else entity


def _call_result(r: ResolverAPI, fn: Entity | None, hops: int) -> tuple[Entity | None, bool]:
    """What calling `fn` gives, and whether it comes wrapped in an Option or Result."""
    d = fn.definition if fn is not None else None
    if d is None:
        return None, False
    if d.kind in CLASS_KINDS:  # a tuple struct built: `Span(a, b)`
        return Entity("instance", path=d.path, definition=d, sure=False), False
    found = declared_return(r, d, hops + 1)
    if found is not None:
        return found, False
    return unwrapped_return(r, fn, hops + 1), True


def _segments(expr: str) -> list[tuple[str, bool, bool]]:
    """`a::b(x).c?.d` -> [("a::b", True, False), ("c", False, True), ("d", False, False)]:
    each step's name, whether it is called, whether `?` follows it."""
    out: list[tuple[str, bool, bool]] = []
    depth, name, called = 0, "", False
    for c in expr.strip() + ".":
        if c in "([{":
            depth += 1
            called = called or (c == "(" and depth == 1)
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and c == ".":
            tried = name.rstrip().endswith("?")
            text = _TURBOFISH.sub("", name.strip().rstrip("?").strip())
            if not IDENT_PATH.fullmatch(text):
                return []
            out.append((text, called, tried))
            name, called = "", False
            continue
        if depth == 0 and c not in ")]}":
            name += c
    return out


_TURBOFISH: Final = re.compile(r"::<.*>$")
IDENT_PATH: Final = re.compile(r"&?\s*(?:[A-Za-z_]\w*::)*[A-Za-z_]\w*")
_WRAPPED: Final = re.compile(
    r"->\s*(?:(?:Option|Result|Box)\s*<\s*)+&?\s*(?:'\w+\s*)?(?:mut\s+)?"
    r"((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)")


def unwrapped_return(r: ResolverAPI, fn: Entity | None, hops: int) -> Entity | None:
    """An instance of the type a function's `Option<T>` / `Result<T, E>` return holds."""
    d = fn.definition if fn is not None else None
    if d is None or d.kind in CLASS_KINDS or hops > MAX_HOPS:
        return None
    m = _WRAPPED.search(d.signature.replace("\n", " "))
    if m is None:
        return None
    return instance_of_type(r, d, m.group(1), hops)


def receiver_tail(receiver: str) -> str:
    """The receiver expression alone, where a call inside a macro's tokens gave the text
    before it too: `(0, props(r"a")` is `props(r"a")`, `("x"` is `"x"`, `[("x".f())` is
    `"x".f()` (tree-sitter leaves macro arguments as tokens)."""
    depth, quoted, start = 0, False, 0
    for i in range(len(receiver) - 1, -1, -1):
        c = receiver[i]
        if c == '"' and (i == 0 or receiver[i - 1] != "\\"):
            quoted = not quoted
        elif quoted:
            continue
        elif c in ")]}":
            depth += 1
        elif c in "([{":
            if depth == 0:
                start = i + 1
                break
            depth -= 1
        elif c == "," and depth == 0:
            start = i + 1
            break
    tail = receiver[start:].strip()
    if tail.startswith("(") and tail.endswith(")") and _balanced(tail[1:-1]):
        tail = tail[1:-1].strip()
    return tail


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += (c in "([{") - (c in ")]}")
        if depth < 0:
            return False
    return depth == 0
