"""Objects made at module level, the two ways the call graph loses a chain through them.

- Calling the object: `rrulestr = _rrulestr()`, then `rrulestr(s)` runs
  `_rrulestr.__call__`. The resolver takes `rrulestr` for the class, and the graph asks
  for references named like the class or the method, so `__call__` has no caller at all
  and a chain reaching it ended there (python-dateutil: 125 of the 262 tests failing for
  a change in the date parser were reached only through rrulestr). Each module-level line
  binding a name to an object of the class is a use of `__call__`: whoever calls the name
  runs it.
- A bound method bound to a module-level name: `isoparse = DEFAULT_ISOPARSER.isoparse`.
  The attribute read resolves to nothing, so the method's chain stopped at the callers
  that name it on an object; whoever calls `isoparse(...)` runs it. Each such line is a
  module-level use of the method.

Both give module-level entries continued as the trails continue a wrapper
(testtrails._BindingUsers: the uses of the names the line binds), each marked ambiguous
(an edge the graph did not resolve): when the walk's bound leaves one unfollowed, the
selection's lost-trail fallback answers for it (the tests importing its module run).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from maguyva_guard.records import (
    AMBIGUOUS,
    CALL,
    METHOD,
    MODULE_SYMBOL,
    USE,
    Affected,
    Link,
)

if TYPE_CHECKING:
    from maguyva_guard.guard.testview import TestView
    from maguyva_guard.index.store import Store
    from maguyva_guard.retrievers.graph import GraphRetriever

CALL_METHOD: Final = "__call__"
# `name = C(...)`, `name = mod.C(...)` at column 0: a module-level object of class C
_MAKES: Final = re.compile(r"[A-Za-z_]\w*\s*(?::[^=]*)?=\s*(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)\s*\(")
STUBS: Final = (".pyi", ".d.ts")


class Instances:
    """The extra entries a reached method leads to through module-level objects."""

    def __init__(self, graph: GraphRetriever, store: Store, view: TestView) -> None:
        self.graph, self.store, self.view = graph, store, view
        self._attribute_uses: dict[str, list[tuple[str, int]]] | None = None

    def seeds(self, a: Affected) -> list[Affected]:
        """For a method `a` of code under test (an affected caller, or a changed method
        as an entry of depth 0): its class, when `a` is `__call__`; each module-level
        line reading it as an attribute of an object (`name = obj.method`)."""
        if a.kind != METHOD or a.path in self.view.files or a.path.endswith(STUBS):
            return []
        name = a.symbol.rsplit(".", 1)[-1]
        via = (*a.via, a.symbol)
        places = self._objects(a) if name == CALL_METHOD else []
        places += self._uses().get(name, ())
        return [_entry(a, path, MODULE_SYMBOL, line, a.depth + 1, via)
                for path, line in places]

    def _objects(self, a: Affected) -> list[tuple[str, int]]:
        """(path, line) of each module-level `name = C(...)` making an object of the class
        of `a` (or `name = mod.C(...)`), in code under test."""
        cls = self.graph.resolver.scope(a.path).by_qualified.get(a.symbol.rsplit(".", 1)[0])
        if cls is None:
            return []
        out = []
        for ref in self.store.references(name=cls.name, kinds=(CALL,)):
            if ref.path in self.view.files or ref.path.endswith(STUBS):
                continue
            lines = self.graph.resolver.lines(ref.path)
            text = lines[ref.line - 1] if 0 < ref.line <= len(lines) else ""
            made = _MAKES.match(text)
            if made is None or made.group(1) != cls.name:
                continue
            if any(d.qualified_name == cls.qualified_name
                   for d in self.graph.resolver.resolve(ref).definitions):
                out.append((ref.path, ref.line))
        return out

    def _uses(self) -> dict[str, list[tuple[str, int]]]:
        """Attribute name -> (path, line) of each module-level read of it on an object
        (`x = obj.name`) in code under test; read once, as plain rows."""
        if self._attribute_uses is None:
            self._attribute_uses = {}
            rows = self.store.conn.execute(
                "SELECT f.path, r.name, r.line FROM refs r JOIN files f ON f.blob_id = r.blob"
                " WHERE r.kind = ? AND r.scope = '' AND r.receiver != ''", (USE,))
            for path, name, line in rows:
                if path not in self.view.files and not path.endswith(STUBS):
                    self._attribute_uses.setdefault(name, []).append((path, line))
        return self._attribute_uses


def _entry(a: Affected, path: str, symbol: str, line: int, depth: int,
           via: tuple[str, ...]) -> Affected:
    return replace(a, path=path, symbol=symbol, line=line, depth=depth, confidence=AMBIGUOUS,
                   via=via, contributions=(),
                   links=tuple(Link(c, depth, AMBIGUOUS, via) for c in a.because_of))
