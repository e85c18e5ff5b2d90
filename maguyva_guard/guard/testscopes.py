"""The tests of a module that name a changed method where no call to it resolves.

A method (other classes define it too) called on a receiver the graph cannot type (`@cli.group()`
on a group a decorator made), runs in a test module that names it where no chain reached
it; so far the whole module ran. Only code naming the method can make that call: when every
place of the module naming it is inside a test (no module-level line, helper, fixture or
test class attribute names it) and the module reaches no attribute by a string (`getattr`,
`attrgetter`, `methodcaller`), those tests alone run. Code elsewhere making the call (a
helper of the code under test, a conftest) is a caller of its own, in the report or not,
and answered for by the rules that follow callers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from maguyva_guard.guard.testpicker import enclosing_test, node
from maguyva_guard.records import METHOD

if TYPE_CHECKING:
    from maguyva_guard.guard.testpicker import Picker
    from maguyva_guard.index.store import Store
    from maguyva_guard.records import ChangedSymbol

Naming = Callable[[str], Mapping[str, frozenset[str]]]
# Names a test file reaches attributes by a string through: its other tests may then run
# the method with no call of its name (no edge at all), so the whole file stays selected.
DYNAMIC_ACCESS: Final = frozenset({"getattr", "attrgetter", "methodcaller",
                                   "__getattribute__", "__getattr__"})


def naming(store: Store, test_paths: frozenset[str]) -> Naming:
    """name -> test module -> the scopes of its references bearing that name (read from the
    index on first use of each name)."""
    cache: dict[str, dict[str, frozenset[str]]] = {}

    def scopes(name: str) -> Mapping[str, frozenset[str]]:
        found = cache.get(name)
        if found is None:
            places: dict[str, set[str]] = {}
            for ref in store.references(name=name):
                if ref.path in test_paths:
                    places.setdefault(ref.path, set()).add(ref.scope)
            found = cache[name] = {p: frozenset(s) for p, s in places.items()}
        return found
    return scopes


def naming_tests(p: Picker, path: str, c: ChangedSymbol, reason: str) -> bool:
    """Select the tests of module `path` naming `c` in place of the whole module; whether
    that was possible (False: the whole module runs)."""
    tf = p.view.files[path]
    if p.naming is None or c.kind != METHOD or tf.is_conftest or tf.language != "python" \
            or tf.names & DYNAMIC_ACCESS:
        # (a function may be read off a module object any way: `vars(mod)["f"]`)
        return False
    scopes = p.naming(c.name).get(path)
    if not scopes:
        return False  # the view names it, the references do not: keep the whole module
    tests = {enclosing_test(tf, s) if s else None for s in scopes}
    if None in tests:
        return False  # module level, a helper, a fixture: any test of the module may call it
    for local in sorted(t for t in tests if t is not None):
        qualified = f"{tf.prefix}.{local}" if tf.prefix else local
        p.add(replace(node(tf, local, (qualified, c.qualified_name)), reason=reason))
    return True
