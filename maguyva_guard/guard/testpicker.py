"""The state of one test selection: what is picked so far, and the import graph walks
(who imports a module, directly or through other modules) the fallbacks rely on."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from maguyva_guard.guard.importreach import ImportReach
from maguyva_guard.guard.testview import TestFile, TestView
from maguyva_guard.records import CLASS, Definition

CHAIN_SEP: Final = " -> "
_CLASS_BASES: Final = re.compile(r"class\s+\w+\s*\((.*)\)", re.DOTALL)


@dataclass(frozen=True)
class SelectedTest:
    id: str  # pytest node id ("tests/test_a.py::TestX::test_y") or a file path
    path: str
    symbol: str  # the test's qualified name; "" for a whole file
    chain: tuple[str, ...]  # from the test to the changed symbol
    reason: str = ""  # why a whole file (or why the chain stops)


@dataclass(frozen=True)
class TestSelection:
    tests: tuple[SelectedTest, ...]
    run_all: bool
    reasons: tuple[str, ...]


@dataclass
class Picker:
    view: TestView
    picked: dict[str, SelectedTest] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    run_all: bool = False
    _by_name: Mapping[str, set[str]] | None = None
    handled: set[str] = field(default_factory=set)  # paths a broad rule answered for
    # (path, symbol) of lost trails whose callers the graph was asked for (testtrails)
    continued: frozenset[tuple[str, str]] = frozenset()
    # Answers per path: the selection asks them again for every caller in the same file.
    _reached: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _importers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _test_names: dict[str, set[str]] | None = None
    _walker: ImportReach | None = None
    _within: dict[str, set[str]] | None = None  # importers_by_name of the upstream files
    # whether a test can run every hop of its chain (testdispatch.DispatchGate.allows)
    gate: Callable[[SelectedTest], bool] | None = None
    # the tests of a file that alone can run a chain's hops (DispatchGate.narrowed)
    narrow: Callable[[str, tuple[str, ...]], list[str] | None] | None = None
    # a name -> test module -> the scopes naming it (testscopes.Naming), when known
    naming: Callable[[str], Mapping[str, frozenset[str]]] | None = None

    def add(self, test: SelectedTest) -> bool:
        """Whether `test` may run the change (False: the gate turned it away)."""
        if self.gate is not None and not self.gate(test):
            return False  # its chain runs an override on a receiver it cannot hold
        prev = self.picked.get(test.id)
        if prev is None or len(test.chain) < len(prev.chain):
            self.picked[test.id] = test
        return True

    def file(self, path: str, chain: tuple[str, ...], reason: str) -> bool:
        prev = self.picked.get(path)
        if prev is not None and len(chain) >= len(prev.chain):
            return True  # what `add` would keep, without building the record (a lost trail
            # selects its hundreds of importers again for each caller in the same file)
        return self.add(SelectedTest(path, path, "", chain, reason))

    def files(self, paths: Iterable[str], tail: tuple[str, ...], reason: str) -> bool:
        """`file(path, (path, *tail), reason)` for every one of `paths`; whether any of them
        was taken. The chain is built only for a file not yet picked with one as short: a
        lost trail meets each of its hundreds of importers again for every caller in the
        same file (417,000 calls on Django's 5.2.7 -> 5.2.8 release diff)."""
        picked, length, taken = self.picked, len(tail) + 1, False
        for path in paths:
            prev = picked.get(path)
            if (prev is not None and length >= len(prev.chain)) or \
                    self.add(SelectedTest(path, path, "", (path, *tail), reason)):
                taken = True
        return taken

    def everything(self, reason: str) -> None:
        self.run_all = True
        self.say(reason)

    def say(self, reason: str) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)

    def importers(self, path: str) -> list[str]:
        """Test modules that import the module at `path` (or a name inside it)."""
        found = self._importers.get(path)
        if found is None:
            names = self.view.import_names.get(path, frozenset())
            index = self._tests_by_name()
            found = self._importers[path] = tuple(sorted(
                {p for n in names for p in index.get(n, ())}))
        return list(found)

    def _tests_by_name(self) -> dict[str, set[str]]:
        """Dotted name -> the test modules importing it or anything under it: what
        `imports(tf.imports, name)` says of each, without asking every test module again
        for each path (a second on a 50-symbol Django check)."""
        if self._test_names is None:
            self._test_names = {}
            for path in self.view.test_modules():
                for target in self.view.files[path].imports:
                    parts = target.split(".")
                    for i in range(1, len(parts) + 1):
                        self._test_names.setdefault(".".join(parts[:i]), set()).add(path)
        return self._test_names

    def reach(self, path: str) -> list[str]:
        """Test modules that import the module at `path` directly or through other modules
        (a package's `__init__` re-exporting it counts): every test that can run its code
        once the call graph has lost the trail."""
        found = self._reached.get(path)
        if found is None:
            found = self._reached[path] = tuple(self._reach(path))
        return list(found)

    def _reach(self, path: str) -> list[str]:
        if self._walker is None:
            self._walker = ImportReach(self._importers_of, self.view.test_module_set,
                                       self._upstream)
        return sorted(self._walker.reached(path))

    def _importers_of(self, path: str) -> set[str]:
        """The upstream files (see _upstream) importing the module at `path`: the walk's
        edges, all it needs of importers_by_name (which indexes every import of the
        repository)."""
        by_name = self._within if self._within is not None else importers_by_name(self.view)
        return {importer for name in self.view.import_names.get(path, frozenset())
                for importer in by_name.get(name, ())}

    def _upstream(self) -> set[str]:
        """The test modules and every file they import, directly or through other modules:
        the only files from which an "is imported by" walk can reach a test module. Read
        forward from the tests' own imports, so its cost is that of what the tests import,
        not of the repository's whole import graph."""
        modules = self.view.import_names
        paths_named: dict[str, list[str]] = {}
        for path, names in modules.items():
            for name in names:
                paths_named.setdefault(name, []).append(path)
        seen = set(self.view.test_module_set)
        todo = list(seen)
        while todo:
            for target in self.view.imports.get(todo.pop(), ()):
                for name in _prefixes(target):
                    for imported in paths_named.get(name, ()):
                        if imported not in seen:
                            seen.add(imported)
                            todo.append(imported)
        within: dict[str, set[str]] = {}
        for importer in seen:
            for target in self.view.imports.get(importer, ()):
                for name in _prefixes(target):
                    within.setdefault(name, set()).add(importer)
        self._within = within
        return seen


def _prefixes(target: str) -> list[str]:
    """"a.b.c" -> "a", "a.b", "a.b.c": importing a name runs every package above it."""
    parts = target.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def importers_by_name(view: TestView) -> Mapping[str, set[str]]:
    """Dotted name -> the files importing it or anything under it (importing `pkg.mod.f`
    runs `pkg/__init__` and `pkg/mod` first). Read-only: built once per view
    (TestView.importers_by_name) for the picker, the trails and the dispatch gate."""
    return view.importers_by_name


def reaching(view: TestView, path: str, by_name: Mapping[str, set[str]]) -> set[str]:
    """The files that import the module at `path`, directly or through other modules,
    and `path` itself."""
    seen = {path}
    todo = [path]
    while todo:
        for name in view.import_names.get(todo.pop(), frozenset()):
            for importer in by_name.get(name, ()):
                if importer not in seen:
                    seen.add(importer)
                    todo.append(importer)
    return seen


def enclosing_test(tf: TestFile, qualified_name: str) -> str | None:
    """The test function or test class method that holds `qualified_name`, if any."""
    local = tf.local(qualified_name)
    parts = local.split(".")
    for i in range(1, len(parts) + 1):
        name = parts[i - 1]
        if is_test_name(name, tf.language) and (i == 1 or is_test_class(parts[: i - 1])):
            return ".".join(parts[:i])
    if len(parts) >= 1 and is_test_class(parts[:1]) and tf.language != "python":
        return parts[0]
    return None


def is_test_name(name: str, language: str) -> bool:
    return name.startswith("test") if language == "python" else name.startswith("Test")


def is_test_class(parts: list[str]) -> bool:
    return all(part.startswith("Test") or part.endswith("Test") or part.endswith("Tests")
               for part in parts)


def definition(tf: TestFile, qualified_name: str) -> Definition | None:
    return next((d for d in tf.definitions if d.qualified_name == qualified_name), None)


def node(tf: TestFile, local: str, chain: tuple[str, ...]) -> SelectedTest:
    if tf.language != "python":
        return SelectedTest(tf.path, tf.path, "", chain, "")
    return SelectedTest(f"{tf.path}::{local.replace('.', '::')}", tf.path,
                        f"{tf.prefix}.{local}" if tf.prefix else local, chain)


def imports(targets: frozenset[str], module: str) -> bool:
    """`from pkg.mod import f` (target pkg.mod.f), `import pkg.mod`, `from pkg import mod`."""
    return any(t == module or t.startswith(module + ".") for t in targets)


def chain_text(test: SelectedTest) -> str:
    return CHAIN_SEP.join(test.chain)


def inherited(p: Picker) -> None:
    """A test class or function is collected again wherever a test module imports it by
    name, and a class's tests run again in its subclasses (in its own module or one
    importing it): a selected test of a class selects the same test there (`test_timed.py`
    imports TestSerializer and derives TestTimedSerializer from it: both run
    test_serializer's selected tests), a test module selected whole selects each of its
    top-level classes and test functions there, and those in turn wherever they are
    imported. A module that imports the test module itself (a module object: `mod.TestX`
    may be used any way) and neither binds the name nor derives from it runs whole; one
    importing other names of that module does not run it."""
    todo = list(p.picked.values())
    done: set[str] = set()
    while todo:
        t = todo.pop()
        parts = t.id.split("::")
        tf = p.view.files.get(t.path)
        if tf is None or tf.language != "python" or len(parts) > 3 or t.id in done:
            continue
        done.add(t.id)
        method = parts[2] if len(parts) == 3 else None
        if len(parts) == 1:  # the whole module: its subclasses there run already
            names = [d.name for d in tf.definitions if not d.parent and (
                d.kind == CLASS or is_test_name(d.name, tf.language))]
        else:
            names = [parts[1]]
            for sub in subclasses(tf, parts[1]) if method else ():
                todo += _again(p, tf, sub, method, t.chain, "")
        for importer in p.importers(t.path):
            if importer != t.path:
                todo += _elsewhere(p, t, p.view.files[importer], names, method)


def _elsewhere(p: Picker, t: SelectedTest, itf: TestFile, names: list[str],
               method: str | None) -> list[SelectedTest]:
    """`t`'s tests (`names` of its module, `method` of them) where `itf` imports them."""
    reason = f"imports a test class of {t.path}: its tests run there too"
    again: list[SelectedTest] = []
    for name in names:
        found = []
        for bound in _bound_names(p.view, itf, t.path, name):
            # pytest collects the class under the name the module binds: `TestX` itself, or
            # an alias that is a test name itself (a unittest class is collected by its
            # base, whatever it is called); subclasses derive from the bound name.
            if bound == name or is_test_class([bound]) or not is_test_class([name]):
                found.append(bound)
            found += [c for c in subclasses(itf, bound) if c not in found]
        for cls in found:
            again += _again(p, itf, cls, method, t.chain, reason)
    if not again and _imports_module(p.view, itf, t.path):
        p.file(itf.path, (itf.path, t.path), reason)
    return again


def heirs_elsewhere(p: Picker, tf: TestFile, cls: str) -> list[tuple[TestFile, str]]:
    """The classes of other test modules deriving from test class `cls` of `tf` (bound by
    its name or an alias where they import it, at any depth): what it defines, fixtures
    included, is theirs too."""
    found: list[tuple[TestFile, str]] = []
    for importer in p.importers(tf.path):
        itf = p.view.files[importer]
        if importer == tf.path:
            continue
        for bound in _bound_names(p.view, itf, tf.path, cls):
            found += [(itf, sub) for sub in (bound, *subclasses(itf, bound))]
    return found


def _again(p: Picker, tf: TestFile, name: str, method: str | None, chain: tuple[str, ...],
           reason: str) -> list[SelectedTest]:
    """`name` (`.method`) of `tf` selected: a test inherited or imported from elsewhere."""
    local = f"{name}.{method}" if method else name
    qualified = f"{tf.prefix}.{local}" if tf.prefix else local
    test = SelectedTest(f"{tf.path}::{local.replace('.', '::')}", tf.path, qualified,
                        (qualified, *chain), reason)
    return [test] if p.add(test) else []


def _imports_module(view: TestView, importer: TestFile, path: str) -> bool:
    """Whether `importer` binds the module at `path` itself (`import m`, `from p import m`)."""
    modules = view.import_names.get(path, frozenset())
    return any(t in modules for t in importer.imports)


def _bound_names(view: TestView, importer: TestFile, path: str, name: str) -> list[str]:
    """The names under which `importer` binds `name` of the module at `path`: `name` (`from
    m import TestX`, or `from m import *`), or its alias (`from m import TestX as Base`)."""
    modules = view.import_names.get(path, frozenset())
    aliases = {a for target, a in importer.aliases
               if target.rsplit(".", 1)[0] in modules and target.rsplit(".", 1)[-1] == name}
    renamed = {target for target, _a in importer.aliases}
    plain = any(t.rsplit(".", 1)[0] in modules and t.rsplit(".", 1)[-1] in (name, "*")
                and t not in renamed for t in importer.imports)
    return ([name] if plain else []) + sorted(aliases)


def subclasses(tf: TestFile, name: str) -> list[str]:
    """The top-level classes of a test module that derive from class `name` there, at any
    depth (`class TestCustom(TestDict)` runs TestDict's tests again)."""
    bases = {}
    for d in tf.definitions:
        m = _CLASS_BASES.match(d.signature)
        if d.kind == CLASS and not d.parent and m is not None:
            bases[d.name] = {b.strip().rsplit(".", 1)[-1] for b in m.group(1).split(",")}
    found: list[str] = []
    todo = [name]
    while todo:
        parent = todo.pop()
        for cls, of in bases.items():
            if parent in of and cls not in found and cls != name:
                found.append(cls)
                todo.append(cls)
    return found
