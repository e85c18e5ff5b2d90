"""The state of one test selection: what is picked so far, and the import graph walks
(who imports a module, directly or through other modules) the fallbacks rely on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from maguyva_guard.guard.importreach import ImportReach
from maguyva_guard.guard.testview import TestFile, TestView
from maguyva_guard.records import Definition

CHAIN_SEP: Final = " -> "


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
    _by_name: dict[str, set[str]] | None = None
    handled: set[str] = field(default_factory=set)  # paths a broad rule answered for
    # Answers per path: the selection asks them again for every caller in the same file.
    _reached: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _importers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _test_names: dict[str, set[str]] | None = None
    _walker: ImportReach | None = None

    def add(self, test: SelectedTest) -> None:
        prev = self.picked.get(test.id)
        if prev is None or len(test.chain) < len(prev.chain):
            self.picked[test.id] = test

    def file(self, path: str, chain: tuple[str, ...], reason: str) -> None:
        self.add(SelectedTest(path, path, "", chain, reason))

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
            self._walker = ImportReach(self._importers_of, self.view.test_module_set)
        return sorted(self._walker.reached(path))

    def _importers_of(self, path: str) -> set[str]:
        by_name = self._importers_by_name()
        return {importer for name in self.view.import_names.get(path, frozenset())
                for importer in by_name.get(name, ())}

    def _importers_by_name(self) -> dict[str, set[str]]:
        """Dotted name -> the files importing it or anything under it (importing
        `pkg.mod.f` runs `pkg/__init__` and `pkg/mod` first)."""
        if self._by_name is None:
            self._by_name = {}
            for importer, targets in self.view.imports.items():
                for target in targets:
                    parts = target.split(".")
                    for i in range(1, len(parts) + 1):
                        self._by_name.setdefault(".".join(parts[:i]), set()).add(importer)
        return self._by_name


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
