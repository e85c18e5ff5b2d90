"""Which tests can hold the receiver of a dynamically dispatched call.

A chain that passes from a base class's method to an override of it (`self.convert(...)`
in ParamType runs Path.convert only when self is a Path) runs the override only in a test
where an object of the overriding class (or of a subclass) can exist. Without one, the
test reaches the base's method, never the change: click's tests all reach
`ParamType.convert` through `CliRunner.invoke`, and only those that make a `click.Path`
run `Path.convert`.

Where such an object can come from, and so what keeps a test selected:
- the test names the class or a subclass (a call, a decorator argument, a base class), or
  code of its file outside its tests does (module-level objects, helpers, fixtures, a test
  class's setup), or a conftest does, or a test module it imports does;
- code under test names it outside the class family's own bodies (a factory, a registry,
  a module-level instance) in a file the test's module imports, directly or through other
  modules (or a conftest does): whatever the test calls may hand it one.
Only a name that no code reaches (reflection: getattr on a module, unpickling) escapes
these, the same limit as every call edge of the graph.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from maguyva_guard.guard.testbases import dynamic_bases_of
from maguyva_guard.guard.testpicker import (
    SelectedTest,
    enclosing_test,
    importers_by_name,
    reaching,
)
from maguyva_guard.guard.testview import TestView
from maguyva_guard.index.store import Store
from maguyva_guard.records import IMPORT, INHERIT

MAX_FAMILY: Final = 64  # subclasses followed per class (a larger family keeps every test)


@dataclass(frozen=True)
class Receiver:
    """Where the code names an overriding class or a subclass of it."""

    cls: str  # the overriding class's qualified name
    test_scopes: Mapping[str, frozenset[str]]  # test file -> scopes naming the family
    library: frozenset[str]  # files of code under test naming it outside the family
    unbounded: bool = False  # too many subclasses to follow: every test keeps it


def receiver(store: Store, view: TestView, cls: str, cls_name: str,
             dynamic: list[tuple[str, str]]) -> Receiver:
    """Read the index for the names of `cls`'s family and where they are used; `dynamic`:
    the test classes deriving from a value (dynamic_bases), which may hold any class."""
    names, family = _family(store, cls, cls_name)
    if len(family) > MAX_FAMILY:
        return Receiver(cls, {}, frozenset(), unbounded=True)
    scopes: dict[str, set[str]] = {}
    library: set[str] = set()
    for name in names:
        for ref in store.references(name=name):
            if ref.kind == IMPORT:
                continue  # an import binds the name; a use of it is its own reference
            if ref.path in view.files:
                scopes.setdefault(ref.path, set()).add(ref.scope)
            elif not any(ref.scope == f or ref.scope.startswith(f + ".") for f in family):
                library.add(ref.path)
    for path, scope in dynamic:
        scopes.setdefault(path, set()).add(scope)
    return Receiver(cls, {p: frozenset(s) for p, s in scopes.items()}, frozenset(library))


def dynamic_bases(view: TestView) -> list[tuple[str, str]]:
    """Classes of test files whose base is a value, not a class name (`class
    BadUnsign(serializer.signer)`, `class Any(type(obj))`): they may subclass any class, so
    they hold every one."""
    if view.dynamic is not None:  # kept with the view (testviewstore.py)
        return list(view.dynamic)
    return [found for tf in view.files.values()
            for found in dynamic_bases_of(tf.path, tf.definitions)]


def _family(store: Store, cls: str, cls_name: str) -> tuple[set[str], set[str]]:
    """The names and qualified names of `cls` and its subclasses, found by base-class
    name (a homonym's subclasses are taken too: more tests kept, never fewer)."""
    names, family = {cls_name}, {cls}
    todo = [cls_name]
    while todo and len(family) <= MAX_FAMILY:
        for ref in store.references(name=todo.pop(), kinds=(INHERIT,)):
            if ref.scope and ref.scope not in family:
                family.add(ref.scope)
                sub = ref.scope.rsplit(".", 1)[-1]
                if sub not in names:
                    names.add(sub)
                    todo.append(sub)
    return names, family


@dataclass
class DispatchGate:
    """Decides, per selected test, whether every dispatch hop on its chain can run there.
    `hops`: (base method, override method) -> the override class's Receiver."""

    view: TestView
    hops: Mapping[tuple[str, str], Receiver]
    dropped: int = 0
    _by_name: Mapping[str, set[str]] | None = None
    _reaching: dict[str, set[str]] = field(default_factory=dict)
    _imports: dict[str, frozenset[str]] = field(default_factory=dict)

    def allows(self, test: SelectedTest) -> bool:
        chain = test.chain
        for hop in zip(chain, chain[1:], strict=False):
            r = self.hops.get(hop)
            if r is not None and not self._can_hold(test, r):
                self.dropped += 1
                return False
        return True

    def holds_class_of(self, path: str, method: str) -> bool:
        """Whether the test module at `path` can hold an object of the class of `method`,
        an override the chains reach through its base class's method (True when no chain
        went through it: nothing known of its receivers)."""
        r = next((r for (_, over), r in self.hops.items() if over == method), None)
        return r is None or self._can_hold(SelectedTest(path, path, "", ()), r)

    def narrowed(self, path: str, chain: tuple[str, ...]) -> list[str] | None:
        """The tests of the test module at `path` that alone can hold the overriding class
        of a dispatch hop on `chain` (the file's only uses of its family are inside them,
        and no other code can hand one over); None when any test of the file may hold
        it. A whole file reached through an ambiguous edge or the depth bound keeps only
        those: its other tests may make the same call, but on another class."""
        tf = self.view.files[path]
        best: set[str] | None = None
        for hop in zip(chain, chain[1:], strict=False):
            r = self.hops.get(hop)
            if r is None or r.unbounded or any(self._runs(path, lib) for lib in r.library):
                continue
            if any(other != path and (self._sees(path, other) or path in
                                      self._imported_by(other)) for other in r.test_scopes):
                continue  # a conftest, an imported module, a subclass elsewhere
            tests = {enclosing_test(tf, s) if s else None for s in r.test_scopes.get(path, ())}
            if None in tests:
                continue  # module level, a helper, a fixture: any test may hold one
            found = {t for t in tests if t is not None}
            if best is None or len(found) < len(best):
                best = found
        return None if best is None else sorted(best)

    def _can_hold(self, test: SelectedTest, r: Receiver) -> bool:
        if r.unbounded or any(self._runs(test.path, lib) for lib in r.library):
            return True
        for path, scopes in r.test_scopes.items():
            if path == test.path:
                if self._names_it(test, scopes):
                    return True
            elif self._sees(test.path, path) or (
                    self._in_class(test) and test.path in self._imported_by(path)):
                return True  # (a test module importing a test class runs its tests again,
                # in its subclasses: `serializer_class = URLSafeSerializer` there)
        return False

    def _in_class(self, test: SelectedTest) -> bool:
        return test.id.count("::") >= 2

    def _imported_by(self, path: str) -> frozenset[str]:
        """The test modules `path` imports (directly): the test classes it may subclass."""
        found = self._imports.get(path)
        if found is None:
            # A name imports `t` when it is `t` or a dotted prefix of it: one set of those
            # prefixes instead of every name against every import (470,000 comparisons
            # for 23 paths on Django's 5.2.7 -> 5.2.8 release diff).
            heads = {t[:i] for t in self.view.files[path].imports
                     for i in (len(t), *(j for j, c in enumerate(t) if c == "."))}
            found = self._imports[path] = frozenset(
                other for other in self.view.test_modules() if other != path
                and not heads.isdisjoint(self.view.import_names.get(other, ())))
        return found

    def _names_it(self, test: SelectedTest, scopes: frozenset[str]) -> bool:
        """Whether the test, or code of its file outside its tests, names the family."""
        tf = self.view.files[test.path]
        if not test.symbol:
            return bool(scopes)  # the whole file runs
        if any(not s or enclosing_test(tf, s) is None for s in scopes):
            return True  # module level, a helper, a fixture: any test of the file may use it
        own = {c for c in (test.symbol, *test.chain) if c.startswith(tf.prefix + ".")}
        return any(s == c or s.startswith(c + ".") for s in scopes for c in own)

    def _sees(self, test_path: str, other: str) -> bool:
        """Whether test code at `other` runs in the test module `test_path`'s tests: a
        conftest above it, or a module it imports (directly or through other modules)."""
        tf = self.view.files.get(other)
        if tf is not None and tf.is_conftest:
            folder = posixpath.dirname(other)
            return not folder or test_path.startswith(folder + "/")
        return self._runs(test_path, other)

    def _runs(self, test_path: str, path: str) -> bool:
        """Whether `path`'s module runs in `test_path`'s process: imported by it through
        any module, or by a conftest (which runs for every test under its folder)."""
        found = self._reaching.get(path)
        if found is None:
            if self._by_name is None:
                self._by_name = importers_by_name(self.view)
            found = self._reaching[path] = reaching(self.view, path, self._by_name)
        if test_path in found:
            return True
        return any(posixpath.basename(f) == "conftest.py" for f in found)
