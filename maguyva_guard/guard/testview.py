"""What the test selection needs to know of the index: the test files, their tests and
fixtures, and which modules each test file imports.

Read once per `tests` run from the store (the current view); `tests_to_run.select` is a
pure function over this and the impact report.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Final

from maguyva_guard.extract import classify
from maguyva_guard.extract.languages import module_name
from maguyva_guard.index.store import Store
from maguyva_guard.records import IMPORT, METHOD, STRING, ChangedSymbol, Definition
from maguyva_guard.retrievers.resolve import Resolver

CONFTEST: Final = "conftest.py"
_TEST_MODULE = re.compile(
    r"^(test_.*\.py|.*_test\.(py|go|rb)|.*\.(test|spec)\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)"
    r"|.*Tests?\.(java|kt|cs|swift|scala))$")


@dataclass(frozen=True)
class TestFile:
    """A test module or a conftest.py."""

    path: str
    language: str
    prefix: str  # the module prefix of its qualified names (the store's, "tests.test_a")
    definitions: tuple[Definition, ...]
    imports: frozenset[str]  # absolute dotted targets of its import lines
    import_lines: frozenset[int] = frozenset()
    names: frozenset[str] = frozenset()  # the names its references use (calls, attributes)
    # (absolute target, name bound) of its aliased imports: `from m import TestX as Base`
    aliases: frozenset[tuple[str, str]] = frozenset()

    @property
    def is_conftest(self) -> bool:
        return posixpath.basename(self.path) == CONFTEST

    def local(self, qualified_name: str) -> str:
        """"tests.test_a.TestX.test_y" -> "TestX.test_y"."""
        if self.prefix and qualified_name.startswith(self.prefix + "."):
            return qualified_name[len(self.prefix) + 1:]
        return qualified_name


@dataclass(frozen=True)
class TestView:
    files: dict[str, TestFile]  # test modules and conftests, by path
    import_names: dict[str, frozenset[str]]  # Python path -> the dotted names imports use
    imports: dict[str, frozenset[str]]  # Python path -> absolute targets of its imports
    import_lines: dict[str, frozenset[int]]  # Python path -> the lines of its import statements
    shared_methods: frozenset[str] = frozenset()  # method names several definitions carry
    # (test file, scope, module) of each module a test gets by a string
    # (`importlib.import_module("pkg.mod")`): calls on that module object do not resolve
    by_string: tuple[tuple[str, str, str], ...] = ()

    def test_modules(self) -> list[str]:
        return list(self._test_modules)

    @cached_property
    def _test_modules(self) -> tuple[str, ...]:
        """Computed once: the selection asks for it per affected caller (1,600 times on a
        50-symbol Django check, 1.4 s of basename calls)."""
        return tuple(sorted(p for p, f in self.files.items() if not f.is_conftest))

    @cached_property
    def test_module_set(self) -> frozenset[str]:
        return frozenset(self._test_modules)

    @cached_property
    def importers_by_name(self) -> dict[str, set[str]]:
        """Dotted name -> the files importing it or anything under it (importing
        `pkg.mod.f` runs `pkg/__init__` and `pkg/mod` first). Built once: the picker, the
        trails and the dispatch gate each built it (three times on a 50-symbol Django
        check, 0.1 s each). Callers must not modify it."""
        by_name: dict[str, set[str]] = {}
        for importer, targets in self.imports.items():
            for target in targets:
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    by_name.setdefault(".".join(parts[:i]), set()).add(importer)
        return by_name


def is_test_module(path: str) -> bool:
    return _TEST_MODULE.match(posixpath.basename(path)) is not None


def is_test_path(path: str) -> bool:
    """A test module, a conftest, or anything under a test folder (test data)."""
    return classify.path_category(path) == classify.TEST


def shared_method_names(store: Store) -> frozenset[str]:
    """Method names that more than one definition carries (overrides, duck typing)."""
    rows = store.conn.execute(
        "SELECT d.name FROM defs d JOIN files f ON f.blob_id = d.blob WHERE d.kind = ?"
        " GROUP BY d.name HAVING COUNT(*) > 1", (METHOD,))
    return frozenset(name for (name,) in rows)


def is_polymorphic(view: TestView, c: ChangedSymbol) -> bool:
    """A changed method that calls may reach without naming its class: a dunder, or a name
    another class defines too (an override called through its base class)."""
    if c.kind != METHOD:
        return False
    dunder = c.name.startswith("__") and c.name.endswith("__")
    return dunder or c.name in view.shared_methods


def load(store: Store) -> TestView:
    """The test files of the current view, the imports of every Python file, and the
    method names several definitions carry. Read as plain rows (path, line, target; the
    names a test file uses), not as Reference records: a JSON check reads every import of
    the repository here, and building and qualifying a record per row cost most of it."""
    # The check's own resolver when the view is its (batch.CheckStore): the module names
    # of every path are then worked out once per check, not twice.
    resolver = getattr(getattr(store, "graph", None), "resolver", None)
    if not isinstance(resolver, Resolver):
        resolver = Resolver(store)
    lines: dict[str, set[int]] = {}
    raw: dict[str, list[str]] = {}  # path -> the targets of its import lines, as written
    aliased: dict[str, list[tuple[str, str]]] = {}  # path -> (target as written, alias)
    for path, line, target, alias in store.conn.execute(
            "SELECT f.path, r.line, r.target, r.alias FROM refs r JOIN files f"
            " ON f.blob_id = r.blob WHERE r.kind = ?", (IMPORT,)):
        lines.setdefault(path, set()).add(line)
        if target:
            raw.setdefault(path, []).append(target)
            if alias:
                aliased.setdefault(path, []).append((target, alias))
    files: dict[str, TestFile] = {}
    for path, info in store.files().items():
        if info.category != classify.TEST or not info.language:
            continue
        if not (is_test_module(path) or posixpath.basename(path) == CONFTEST):
            continue
        used = store.conn.execute(
            "SELECT DISTINCT r.name FROM refs r JOIN files f ON f.blob_id = r.blob"
            " WHERE f.path = ? AND r.kind != ?", (path, IMPORT))
        files[path] = TestFile(path, info.language, module_name(path, info.language),
                               tuple(store.definitions(path=path)),
                               frozenset(resolver.absolute_import(path, t)
                                         for t in raw.get(path, ())),
                               frozenset(lines.get(path, ())),
                               frozenset(name for (name,) in used),
                               frozenset((resolver.absolute_import(path, t), a)
                                         for t, a in aliased.get(path, ())))
    names = {path: frozenset({dotted, module_name(path, "python")})
             for path, dotted in resolver.module_of_path.items()}
    targets = {path: frozenset(resolver.absolute_import(path, t) for t in found)
               for path, found in raw.items() if path in names}
    modules = {n for ns in names.values() for n in ns}
    by_string = tuple((r.path, r.scope, r.target) for r in store.references(kinds=(STRING,))
                      if r.path in files and r.target in modules)
    return TestView(files, names, targets, {p: frozenset(n) for p, n in lines.items()},
                    shared_method_names(store), by_string)
