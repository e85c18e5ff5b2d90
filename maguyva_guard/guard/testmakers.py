"""A method no call reaches runs only on an object of its class: where those objects are made.

markupsafe's `EscapeFormatter.format_field` overrides `string.Formatter.format_field`: the
standard library calls it, so no call in the repository does, and its trail was lost (every
test importing markupsafe ran, 96% of the suite). But it runs only on an EscapeFormatter,
and the repository makes one in two places, `Markup.format` and `Markup.format_map`: the
method runs only inside what follows from those calls, so their callers lead on to the
tests (test_format, test_format_map, ...).

The makers of a class K are the functions whose code calls K (`K(...)`, resolved to K),
and K's own methods that make another object of their class (`cls(...)`,
`self.__class__(...)`, `type(self)(...)`); a module-level `x = K(...)` is followed as the
uses of `x` (an object made on import), as for `__call__` (testinstances.py). Where objects
of K can come from elsewhere, nothing is said and the trail stays lost: a class derived
from K, K named in any other way than a call, an import or an `isinstance` test (passed as
a value, aliased, a decorator: `partial(K, ...)`), a base class of K with a method making
objects of the class it is called on (`Base.make()` doing `cls()`), more than MAX_SITES calls.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from maguyva_guard.records import (
    AMBIGUOUS,
    CALL,
    FUNCTION,
    IMPORT,
    INHERIT,
    METHOD,
    MODULE_SYMBOL,
    Affected,
    Definition,
    Link,
)

if TYPE_CHECKING:
    from maguyva_guard.guard.testview import TestView
    from maguyva_guard.index.store import Store
    from maguyva_guard.retrievers.graph import GraphRetriever
    from maguyva_guard.retrievers.resolution_base import ResolverAPI

MAX_SITES: Final = 32
STUBS: Final = (".pyi", ".d.ts")
_SELF_MADE: Final = re.compile(r"(?<![\w.])(?:cls|self\.__class__|type\(self\))\(")
_TESTED: Final = re.compile(r"\b(?:isinstance|issubclass)\(")


def makers(graph: GraphRetriever, store: Store, view: TestView, a: Affected
           ) -> list[Affected] | None:
    """Entries for the places that make objects of the class of `a`, a method of code
    under test (each ambiguous: its own callers are to be followed); None when objects of
    the class may come from somewhere else."""
    if a.kind != METHOD or a.path in view.files or not a.path.endswith(".py"):
        return None
    r = graph.resolver
    cls = r.scope(a.path).by_qualified.get(a.symbol.rsplit(".", 1)[0])
    if cls is None or cls.kind != "class":
        return None
    sites: list[tuple[str, str, int]] = []  # (path, scope, line)
    for ref in store.references(name=cls.name):
        if ref.kind == IMPORT or ref.path.endswith(STUBS):
            continue
        if ref.kind == INHERIT:
            return None  # a derived class's objects run the method too
        lines = r.lines(ref.path)
        text = lines[ref.line - 1] if 0 < ref.line <= len(lines) else ""
        if ref.kind != CALL:
            if _TESTED.search(text) and cls.name + "(" not in text.replace(" ", ""):
                continue  # `isinstance(x, K)` makes nothing
            if (ref.path, ref.scope) == (cls.path, cls.qualified_name) or \
                    ref.scope.startswith(cls.qualified_name + "."):
                continue  # its own body naming itself (`split.__doc__`, annotations)
            return None
        if not any(d.qualified_name == cls.qualified_name and d.path == cls.path
                   for d in r.resolve(ref).definitions):
            return None  # a call of another K, or of K among others: unsure
        sites.append((ref.path, ref.scope, ref.line))
    lines = r.lines(cls.path)
    for m in r.scope(cls.path).definitions:
        if m.parent == cls.qualified_name and m.kind == METHOD and any(
                _SELF_MADE.search(t) for t in lines[m.line_start : m.line_end]):
            sites.append((cls.path, m.qualified_name, m.line_start))
    if _inherits_a_maker(r, cls):
        return None
    if not sites or len(sites) > MAX_SITES:
        return None
    via = (*a.via, a.symbol)
    out = []
    for path, scope, line in sites:
        d = r.scope(path).by_qualified.get(scope) if scope else None
        if d is not None and d.kind not in (FUNCTION, METHOD):
            return None  # a class attribute: any object of that class holds it
        symbol = scope if d is not None else MODULE_SYMBOL
        kind = d.kind if d is not None else a.kind
        out.append(replace(a, path=path, symbol=symbol, line=line, kind=kind,
                           depth=a.depth + 1, confidence=AMBIGUOUS, via=via, contributions=(),
                           links=tuple(Link(c, a.depth + 1, AMBIGUOUS, via)
                                       for c in a.because_of)))
    return out


def _inherits_a_maker(r: ResolverAPI, cls: Definition) -> bool:
    """Whether a base class of `cls` in the repository has a method making an object of
    the class it is called on (`cls(...)` in a classmethod: `K.create()` makes a K)."""
    todo = list(r.bases(cls))
    seen: set[tuple[str, str]] = set()
    while todo and len(seen) < 32:
        base = todo.pop()
        if (base.path, base.qualified_name) in seen:
            continue
        seen.add((base.path, base.qualified_name))
        lines = r.lines(base.path)
        if any(m.parent == base.qualified_name and m.kind == METHOD and any(
                _SELF_MADE.search(t) for t in lines[m.line_start : m.line_end])
               for m in r.scope(base.path).definitions):
            return True
        todo.extend(r.bases(base))
    return False
