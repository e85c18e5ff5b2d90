"""Where the tests name a changed function that no call resolves to.

When the graph finds no caller of a changed symbol at all, the selection used to run every
test importing its module, through any module: through a package `__init__` that is every
test (markupsafe: `_native.escape_silent`, which the tests reach only through a conftest
fixture returning `_mod.escape_silent`). Yet a plain function or method that nothing in the
code under test names can be run by a test only where the test code names it: a test calling
`escape_silent(...)` on what a fixture returned, a fixture returning `_mod.escape_silent`.

So, for such a symbol, the references of its name in the test files and conftests are read
(file, scope): the tests holding one run, the tests taking a fixture holding one run, and a
whole file runs where the name is used outside any test or fixture (module level, a helper).
No answer (the import-level fallback stays) where the name may be reached without being
named: a decorator on it (a registry, a property), a dunder, a name several classes define,
a class with a base outside the repository or the builtins (the base's code may call it by
name: `string.Formatter.format` calls `format_field`), any use of the name in the code under
test other than an import, an entry point in the packaging files, or no test naming it.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Final

from maguyva_guard.guard.testview import TestView
from maguyva_guard.index.store import Store
from maguyva_guard.records import (
    CLASS,
    FUNCTION,
    IMPORT,
    INHERIT,
    METHOD,
    ChangedSymbol,
    Definition,
)
from maguyva_guard.retrievers.resolve import Resolver

# Builtin classes: their C code calls no method of a subclass by its name (dunders aside)
_BUILTIN_CLASSES: Final = frozenset(
    n for n in dir(builtins) if isinstance(getattr(builtins, n), type))
MAX_ANCESTORS: Final = 32  # classes walked up from a changed method's class
# Where a function may be named as an entry point (console scripts, plugins): run by name
PACKAGING: Final = ("pyproject.toml", "setup.cfg", "setup.py")
# (test file, scope) of each reference to the name, or a file path alone ("", path) where
# the file binds the name by an import (every use of it there may be one we do not see)
Uses = tuple[tuple[str, str], ...]


def named_uses(repo: str, changed: list[ChangedSymbol], view: TestView,
               session: Store | None = None) -> Mapping[str, Uses]:
    """Changed symbol (qualified name) -> the references to its name in the tests, for the
    symbols that only a test naming them can run (see the module docstring); others absent."""
    todo = [c for c in changed if _candidate(c, view)]
    if not todo:
        return {}
    out: dict[str, Uses] = {}
    with ExitStack() as own:
        store = session if session is not None else own.enter_context(Store.open(repo))
        resolver = getattr(getattr(store, "graph", None), "resolver", None)
        if not isinstance(resolver, Resolver):
            resolver = Resolver(store)
        for c in todo:
            if _entry_point(repo, c.name):
                continue
            uses = _uses(store, resolver, view, c)
            if uses:
                out[c.qualified_name] = uses
    return out


def _candidate(c: ChangedSymbol, view: TestView) -> bool:
    return c.kind in (FUNCTION, METHOD) and c.change not in ("added", "removed") \
        and c.path.endswith(".py") and c.path not in view.files \
        and not c.name.startswith("__") and c.name not in view.shared_methods


def _uses(store: Store, resolver: Resolver, view: TestView, c: ChangedSymbol) -> Uses | None:
    d = next((d for d in store.definitions(qualified_name=c.qualified_name)
              if d.path == c.path), None)
    if d is None or d.signature.lstrip().startswith("@"):
        return None  # a decorator may register it, wrap it, make it a property
    if d.parent:
        parent = resolver.scope(d.path).by_qualified.get(d.parent)
        if parent is None or parent.kind != CLASS or not _plain_ancestry(store, resolver, parent):
            return None  # a closure (passed around), or a base that may call it by name
    found: list[tuple[str, str]] = []
    for ref in store.references(name=c.name):
        if ref.path not in view.files:
            own = ref.path == c.path and (ref.scope == c.qualified_name
                                          or ref.scope.startswith(c.qualified_name + "."))
            if ref.kind != IMPORT and not own:  # (its own body: `super().m()`, recursion)
                return None  # used by the code under test in a way no call resolved
            continue  # a re-export binds the name: its users name it again
        found.append(("", ref.path) if ref.kind == IMPORT else (ref.path, ref.scope))
    return tuple(dict.fromkeys(found))


def _plain_ancestry(store: Store, resolver: Resolver, cls: Definition) -> bool:
    """Whether every ancestor of the class is in the repository or a builtin class, with
    no metaclass: no code outside the repository can call its methods by name."""
    todo, seen = [cls], 0
    while todo:
        c = todo.pop()
        seen += 1
        if seen > MAX_ANCESTORS:
            return False
        written = list(c.bases)
        if any("=" in b for b in written):
            return False  # a metaclass (or a keyword of __init_subclass__)
        refs = [r for r in store.references(path=c.path, kinds=(INHERIT,))
                if r.scope == c.qualified_name]
        for ref in refs:
            defs = resolver.resolve(ref).definitions
            if defs:
                todo += [b for b in defs if b.kind == CLASS]
            elif ref.receiver or ref.name not in _BUILTIN_CLASSES:
                return False  # a base from outside the repository
        if len(refs) < len(written):
            return False  # a base the index did not record as one
    return True


def _entry_point(repo: str, name: str) -> bool:
    word = re.compile(rf"\b{re.escape(name)}\b")
    for rel in PACKAGING:
        path = Path(repo) / rel
        try:
            if path.is_file() and word.search(path.read_text(encoding="utf-8",
                                                             errors="replace")):
                return True
        except OSError:
            return True  # unreadable: assume the worst
    return False
