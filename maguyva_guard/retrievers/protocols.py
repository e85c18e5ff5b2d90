"""Implicit calls: the syntax that calls a class's special methods without naming them.

`for x in Thing()` calls `__iter__`, `with Thing()` calls `__enter__` and `__exit__`,
`len(t)` calls `__len__`, `t[k]` `__getitem__`, `k in t` `__contains__`, `t + u` `__add__`,
`str(t)` `__str__`, `await t` `__await__`. A change to such a method breaks those sites, and
no reference names it. Here the lines of the files that use the class are scanned for that
syntax, and a site counts where the operand's type shows (it is resolved like a receiver:
a constructor call, a typed local or attribute, a function's return type). Where the type
does not show, a site is missed: the guard says so (IMPLICIT_REASON) instead of "complete".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final, Protocol

from maguyva_guard.records import CALL, METHOD, Definition, Reference
from maguyva_guard.retrievers.pylocals import in_comment_or_string
from maguyva_guard.retrievers.resolution_base import ResolverAPI
from maguyva_guard.retrievers.resolve import CLASS_KINDS, Entity, Resolver

# A name, a dotted chain or a call (`Thing()`, `Thing(100)`: its arguments on the line)
_OPERAND: Final = r"([A-Za-z_][\w.]*(?:\([^()]*\))?)"
_SYNTAX: Final[dict[str, tuple[str, ...]]] = {
    "__iter__": (rf"\bfor\s+[\w, ()]+\s+in\s+{_OPERAND}\s*:",
                 rf"\b(?:iter|list|tuple|set|sorted|enumerate)\(\s*{_OPERAND}\s*\)",
                 rf"\bin\s+{_OPERAND}\s*\]"),
    "__next__": (rf"\bnext\(\s*{_OPERAND}\s*[,)]", rf"\bfor\s+[\w, ()]+\s+in\s+{_OPERAND}\s*:"),
    "__enter__": (rf"^\s*with\s+{_OPERAND}\s*(?:as\b|:|,)",),
    "__exit__": (rf"^\s*with\s+{_OPERAND}\s*(?:as\b|:|,)",),
    "__aenter__": (rf"^\s*async\s+with\s+{_OPERAND}\s*(?:as\b|:|,)",),
    "__aexit__": (rf"^\s*async\s+with\s+{_OPERAND}\s*(?:as\b|:|,)",),
    "__len__": (rf"\blen\(\s*{_OPERAND}\s*\)",),
    "__getitem__": (rf"{_OPERAND}\[[^\]]*\](?!\s*=[^=])",),
    "__setitem__": (rf"{_OPERAND}\[[^\]]*\]\s*=[^=]",),
    "__delitem__": (rf"\bdel\s+{_OPERAND}\[",),
    "__contains__": (rf"\S\s+(?:not\s+)?in\s+{_OPERAND}\s*(?:$|[:)\],]|and\b|or\b|if\b)",),
    "__str__": (rf"\bstr\(\s*{_OPERAND}\s*\)",),
    "__repr__": (rf"\brepr\(\s*{_OPERAND}\s*\)",),
    "__hash__": (rf"\bhash\(\s*{_OPERAND}\s*\)",),
    "__bool__": (rf"\bbool\(\s*{_OPERAND}\s*\)",
                 rf"^\s*(?:if|while)\s+(?:not\s+)?{_OPERAND}\s*:"),
    "__await__": (rf"\bawait\s+{_OPERAND}",),
    "__call__": (rf"(?<![\w.]){_OPERAND}\(",),
    "__add__": (rf"{_OPERAND}\s*\+(?!=)",),
    "__sub__": (rf"{_OPERAND}\s*-(?![=>])",),
    "__mul__": (rf"{_OPERAND}\s*\*(?![*=])",),
    "__truediv__": (rf"{_OPERAND}\s*/(?![/=])",),
    "__eq__": (rf"{_OPERAND}\s*==",),
    "__lt__": (rf"{_OPERAND}\s*<(?![<=])",),
}
PROTOCOL_METHODS: Final = frozenset(_SYNTAX)
_FOR: Final = re.compile(r"\bfor\s+[\w, ()]+\s+in\s+$")
_PATTERNS: Final = {name: tuple(re.compile(p) for p in pats) for name, pats in _SYNTAX.items()}
# Per pattern of _SYNTAX, text that every match contains (one of the alternatives): a line
# without it is passed over before the search. The searches ran at every position of every
# line of the files that name the class (`OPERAND\s*==` for `__eq__`: 96,000 lines, 0.7 s
# of Django's 5.2.7 -> 5.2.8 check), and a line holds none of them far more often than not.
_NEEDS: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    "__iter__": (("for",), ("iter(", "list(", "tuple(", "set(", "sorted(", "enumerate("),
                 ("]",)),
    "__next__": (("next(",), ("for",)),
    "__enter__": (("with",),), "__exit__": (("with",),),
    "__aenter__": (("async",),), "__aexit__": (("async",),),
    "__len__": (("len(",),), "__getitem__": (("[",),), "__setitem__": (("[",),),
    "__delitem__": (("del",),), "__contains__": (("in",),), "__str__": (("str(",),),
    "__repr__": (("repr(",),), "__hash__": (("hash(",),),
    "__bool__": (("bool(",), ("if", "while")), "__await__": (("await",),),
    "__call__": (("(",),), "__add__": (("+",),), "__sub__": (("-",),), "__mul__": (("*",),),
    "__truediv__": (("/",),), "__eq__": (("==",),), "__lt__": (("<",),),
}
_CHECKS: Final = {name: tuple(zip(pats, _NEEDS[name], strict=True))
                  for name, pats in _PATTERNS.items()}


class Named(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def qualified_name(self) -> str: ...
    @property
    def kind(self) -> str: ...


def is_protocol_method(target: Named) -> bool:
    """A special method that syntax calls (`__iter__`, `__len__`, ...), of a class."""
    return target.name in PROTOCOL_METHODS and target.kind == METHOD


def implicit_reason(target: Named) -> str:
    """Why an answer about `target` is a lower bound: its implicit call sites are found
    only where the operand's type shows."""
    return (f"{target.qualified_name} is also called implicitly (by syntax, not by name); "
            "such sites are found only where the operand's type shows")


def implicit_calls(resolver: Resolver, target: Definition,
                   paths: set[str]) -> Iterator[Reference]:
    """The sites in `paths` whose syntax calls `target` on an operand whose type is
    `target`'s class (or a subclass that does not override it)."""
    # One answer per operand where it is read: `len(self.items)` recurs line after line,
    # and each answer resolves the operand's type from scratch.
    known: dict[tuple[str, str, str], bool] = {}
    done: tuple[str, int] | None = None  # one site per line
    for path, number, where, operand in syntax_operands(resolver, target, paths):
        if (path, number) != done and known_instance(known, resolver, path, where, operand,
                                                     target):
            done = (path, number)
            yield Reference(path, target.name, CALL, number, where)


def syntax_operands(resolver: Resolver, target: Definition,
                    paths: set[str]) -> Iterator[tuple[str, int, str, str]]:
    """(path, line, enclosing name, operand) of each site in `paths` whose syntax would
    call `target` on its operand, whatever the operand's type (each pattern that matches
    a line, in the patterns' order)."""
    owner = resolver.scope(target.path).by_qualified.get(target.parent)
    if owner is None or owner.kind not in CLASS_KINDS:
        return
    checks = _CHECKS[target.name]
    for path in sorted(paths):
        if not path.endswith((".py", ".pyi")):
            continue
        scope = resolver.scope(path)
        for number, line in enumerate(resolver.lines(path), start=1):
            for pattern, needs in checks:
                if not any(n in line for n in needs):
                    continue
                m = pattern.search(line)
                if m is None or in_comment_or_string(line, m.start(1)):
                    continue
                if target.name == "__contains__" and _FOR.search(line[: m.start(1)]):
                    continue  # `for x in t` iterates; it does not ask `in`
                yield path, number, enclosing_name(scope.definitions, number), m.group(1)


def enclosing_name(definitions: list[Definition], line: int) -> str:
    """The qualified name of the innermost definition around `line` ("" at module level)."""
    inside = [d for d in definitions if d.line_start <= line <= d.line_end]
    return max(inside, key=lambda d: d.line_start).qualified_name if inside else ""


def known_instance(known: dict[tuple[str, str, str], bool], resolver: ResolverAPI, path: str,
                   scope: str, operand: str, target: Definition,
                   classes_only: bool = False) -> bool:
    """is_instance_of, asked once per (path, scope, operand) of one search (`known`)."""
    key = (path, scope, operand)
    if key not in known:
        known[key] = is_instance_of(resolver, path, scope, operand, target, classes_only)
    return known[key]


def is_instance_of(resolver: ResolverAPI, path: str, scope: str, operand: str,
                   target: Definition, classes_only: bool = False) -> bool:
    """Whether `operand` is an instance of a class whose `target.name` is `target`
    (`classes_only`: of a definition that is a class, not of a type alias or the like)."""
    e: Entity | None
    if operand.endswith(")"):
        e = resolver.called(resolver.callee(path, scope, operand[: operand.index("(")]), 0)
    else:
        e = resolver.resolve_expression(path, scope, operand)
    if e is None or e.kind != "instance" or e.definition is None or (
            classes_only and e.definition.kind not in CLASS_KINDS):
        return False
    found = resolver.class_member(e.definition, target.name)
    return found is not None and (found.path, found.qualified_name) == (
        target.path, target.qualified_name)
