"""`super().name()` past the repository's part of a class hierarchy (Python).

`super(C, self).m()` (or `super().m()` in C) runs the next `m` in the method resolution
order of `type(self)`, after C. Where C's bases in the repository define no `m`, the call
was matched by name against every method `m` of the repository (ambiguous): python-dateutil's
metaclass `_TzSingleton(type)` calls `super(_TzSingleton, cls).__call__()`, which runs
`type.__call__`, and was taken for a caller of every `__call__` (its `gettz` function
object's among them), so a change under `gettz` ran every test importing `dateutil.tz`.

The next `m` after C is a class of the MRO of some class derived from C: C's own ancestors,
or a class another class inherits beside C (a mixin). So only the methods `m` of classes
that are bases (transitively) of C or of a class derived from C are kept; a class nobody
derives from, whose bases are outside the repository, reaches none. Derived classes are
found by their base lists (the index's inheritance references, by name: a same-named
class elsewhere counts too, which keeps more); past MAX_HEIRS, the name match stays.
The answer reads references the edge cache does not track, so it is not kept there.
"""

from __future__ import annotations

import re
from typing import Final

from maguyva_guard.records import INHERIT, Definition, Reference
from maguyva_guard.retrievers.resolution_base import (
    CLASS_KINDS,
    UNRESOLVED,
    Resolution,
    ResolverAPI,
)

MAX_HEIRS: Final = 64
_TWO_ARGUMENTS: Final = re.compile(
    r"super\(\s*([A-Za-z_]\w*|self\.__class__|type\(self\))\s*,\s*[A-Za-z_]\w*\s*\)")
# `super(self.__class__, self)`: super() for an instance of the class itself (of a derived
# class, the method of the class itself again: a recursion, no caller of anything new)
_OWN_CLASS: Final = ("self.__class__", "type(self)")


def normalized(r: ResolverAPI, path: str, scope: str, receiver: str) -> str:
    """`super(C, self)` inside C's own methods is `super()`, as is
    `super(self.__class__, self)`."""
    m = _TWO_ARGUMENTS.fullmatch(receiver)
    if m is None:
        return receiver
    cls = r.enclosing_class(path, scope)
    own = m.group(1) in _OWN_CLASS or (cls is not None and cls.name == m.group(1))
    return "super()" if cls is not None and own else receiver


def past_hierarchy(r: ResolverAPI, ref: Reference, cls: Definition) -> Resolution:
    """The methods `ref.name` that `super().name()` in `cls` can reach, its own bases
    having none."""
    found = r.by_name(ref)
    references = getattr(r.view, "references", None)
    if not found.definitions or references is None:
        return found
    related = _related(r, cls, references)
    if related is None:
        return found
    kept = tuple(d for d in found.definitions if (d.path, d.parent) in related)
    return Resolution(kept, found.confidence) if kept else UNRESOLVED


def _related(r: ResolverAPI, cls: Definition, references: object
             ) -> set[tuple[str, str]] | None:
    """(path, qualified name) of every class in the MRO of `cls` or of a class derived
    from it; None past MAX_HEIRS derived classes."""
    if r.tracker is not None:
        r.tracker.taint()  # read outside the tracked questions: not kept in the edge cache
    heirs = [cls]
    seen = {(cls.path, cls.qualified_name)}
    todo = [cls]
    while todo:
        c = todo.pop()
        for ref in references(name=c.name):  # type: ignore[operator]
            if ref.kind != INHERIT:
                continue
            sub = _class_at(r, ref)
            if sub is None or (sub.path, sub.qualified_name) in seen:
                continue
            if len(heirs) >= MAX_HEIRS:
                return None
            seen.add((sub.path, sub.qualified_name))
            heirs.append(sub)
            todo.append(sub)
    related: set[tuple[str, str]] = set()
    todo = list(heirs)
    while todo:
        c = todo.pop()
        if (c.path, c.qualified_name) in related:
            continue
        related.add((c.path, c.qualified_name))
        todo.extend(r.bases(c))
    return related


def _class_at(r: ResolverAPI, ref: Reference) -> Definition | None:
    """The class whose base list holds the inheritance reference `ref`."""
    d = r.scope(ref.path).by_qualified.get(ref.scope)
    return d if d is not None and d.kind in CLASS_KINDS else None
