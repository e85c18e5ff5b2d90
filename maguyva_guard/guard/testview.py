"""What the test selection needs to know of the index: the test files, their tests and
fixtures, and which modules each test file imports.

Read once per `tests` run from the store (the current view); `tests_to_run.select` is a
pure function over this and the impact report.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

from maguyva_guard.extract import classify
from maguyva_guard.extract.languages import module_name
from maguyva_guard.guard import testviewstore
from maguyva_guard.guard.testbases import dynamic_bases_of
from maguyva_guard.guard.testviewstore import DYNAMIC, LINES, NAMES, STRINGS, TARGETS, TEST
from maguyva_guard.index.schema import FileInfo
from maguyva_guard.index.store import Store
from maguyva_guard.records import IMPORT, METHOD, STRING, ChangedSymbol, Definition
from maguyva_guard.retrievers.resolve import Resolver

CONFTEST: Final = "conftest.py"
NONE, SOME, ALL = "none", "some", "all"  # what current_parts read from the records
_PATHS_PER_QUERY: Final = 500  # SQLite allows 32766 parameters a statement
_TEST_MODULE = re.compile(
    r"^(test_.*\.py|.*_test\.(py|go|rb)|.*\.(test|spec)\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)"
    r"|.*Tests?\.(java|kt|cs|swift|scala))$")


@dataclass(frozen=True)
class TestFile:
    """A test module or a conftest.py."""

    path: str
    language: str
    prefix: str  # the module prefix of its qualified names (the store's, "tests.test_a")
    definitions: Sequence[Definition]  # a tuple, or testviewstore.Definitions
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
    # testdispatch.dynamic_bases, when read with the view (None: worked out when asked)
    dynamic: tuple[tuple[str, str], ...] | None = None
    # importers_by_name, when read with the view (None: worked out when asked)
    kept_importers: Mapping[str, set[str]] | None = field(default=None, compare=False,
                                                           repr=False)

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
    def importers_by_name(self) -> Mapping[str, set[str]]:
        """Dotted name -> the files importing it or anything under it (importing
        `pkg.mod.f` runs `pkg/__init__` and `pkg/mod` first). Built once: the picker, the
        trails and the dispatch gate each built it (three times on a 50-symbol Django
        check, 0.1 s each). Callers must not modify it."""
        if self.kept_importers is not None:
            return self.kept_importers
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


def load(store: Store, keep: bool = True) -> TestView:
    """The test files of the current view, the imports of every Python file, and the
    method names several definitions carry. Read as plain rows (path, line, target; the
    names a test file uses), not as Reference records: a JSON check reads every import of
    the repository here, and building and qualifying a record per row cost most of it.
    Per file, and kept in the index (testviewstore.py): only the files whose entry changed
    since are read again; `keep`: store the parts when every file had to be read."""
    kept, read = current_parts(store)
    if keep and read == ALL:
        testviewstore.save(store, kept)
    return assemble(kept)


def refresh(store: Store) -> None:
    """Keep the parts of the current view in the index (`index`), unless kept already."""
    kept, read = current_parts(store)
    if read != NONE:
        testviewstore.save(store, kept)


def current_parts(store: Store) -> tuple[testviewstore.Kept, str]:
    """The parts of every file of the view, and what was read from the records for them:
    NONE (all stored), SOME (the changed files) or ALL."""
    # The check's own resolver when the view is its (batch.CheckStore): the module names
    # of every path are then worked out once per check, not twice.
    resolver = getattr(getattr(store, "graph", None), "resolver", None)
    if not isinstance(resolver, Resolver):
        resolver = Resolver(store)
    files = store.files()
    # The plain map: no answer of the edge cache is being recorded now, and through its
    # recording view every look-up is a call (80,000 on a 100,000-file repository).
    tracker = getattr(resolver, "tracker", None)
    modules = dict(resolver.all_module_of_path if tracker is None or not tracker.frames
                   else resolver.module_of_path.items())
    kept = testviewstore.stored(store)
    todo = None if kept is None else testviewstore.changed(kept.parts, files, modules)
    if kept is None or todo is None:
        return testviewstore.counted(read_parts(store, resolver, files, modules)), ALL
    if not todo and len(kept.parts) == len(files):
        return kept, NONE
    fresh = read_parts(store, resolver, files, modules, todo) if todo else {}
    return testviewstore.merged(kept, fresh, files), SOME


def assemble(kept: testviewstore.Kept) -> TestView:
    """The view of the parts (in path order) of every file of the view."""
    names: dict[str, frozenset[str]] = {}
    files: dict[str, TestFile] = {}
    targets: dict[str, frozenset[str]] = {}
    lines: dict[str, frozenset[int]] = {}
    strings: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    dynamic: list[tuple[str, str]] = []
    for p, part in kept.parts.items():  # one pass (100,000 parts on a large repository)
        if part[NAMES] is not None:
            names[p] = part[NAMES]
            if part[TARGETS] is not None:
                targets[p] = part[TARGETS]
        if part[LINES] is not None:
            lines[p] = part[LINES]
        if part[TEST] is not None:
            files[p] = part[TEST]
        if part[STRINGS]:
            strings.append((p, part[STRINGS]))
        dynamic.extend(part[DYNAMIC])
    known = {n for ns in names.values() for n in ns}
    by_string = tuple((p, scope, target) for p, found in strings
                      for scope, target in found if target in known)
    shared = frozenset(n for n, count in kept.counts.items() if count > 1)
    return TestView(files, names, targets, lines, shared, by_string, tuple(dynamic),
                    kept.by_name)


def read_parts(store: Store, resolver: Resolver, files: dict[str, FileInfo],
               modules: dict[str, str], only: set[str] | None = None
               ) -> testviewstore.Parts:
    """The parts of the view's files (of `only`, when given) read from the index."""
    chosen = files if only is None else {p: i for p, i in files.items() if p in only}
    lines, raw, aliased = _import_rows(store, only)
    methods = _grouped(store, "SELECT f.path, d.name FROM defs d JOIN files f"
                       " ON f.blob_id = d.blob WHERE d.kind = ?", (METHOD,), only)
    out: testviewstore.Parts = {}
    for path, info in chosen.items():
        found = raw.get(path, ())
        targets = frozenset(resolver.absolute_import(path, t) for t in found)
        test = None
        strings: tuple[tuple[str, str], ...] = ()
        if info.category == classify.TEST and info.language and (
                is_test_module(path) or posixpath.basename(path) == CONFTEST):
            used = store.conn.execute(
                "SELECT DISTINCT r.name FROM refs r JOIN files f ON f.blob_id = r.blob"
                " WHERE f.path = ? AND r.kind != ?", (path, IMPORT))
            test = TestFile(path, info.language, module_name(path, info.language),
                            testviewstore.Definitions(store.definitions(path=path)),
                            targets,
                            frozenset(lines.get(path, ())),
                            frozenset(name for (name,) in used),
                            frozenset((resolver.absolute_import(path, t), a)
                                      for t, a in aliased.get(path, ())))
            strings = tuple((r.scope, r.target)
                            for r in store.references(path=path, kinds=(STRING,)))
        module = modules.get(path)
        out[path] = testviewstore.Part(
            info, module, testviewstore.python_names(path, module),
            frozenset(lines[path]) if path in lines else None,
            targets if found else None, test, strings, tuple(methods.get(path, ())),
            tuple(dynamic_bases_of(path, test.definitions)) if test is not None else ())
    return out


def _import_rows(store: Store, only: set[str] | None
                 ) -> tuple[dict[str, set[int]], dict[str, list[str]],
                            dict[str, list[tuple[str, str]]]]:
    """Path -> its import lines; the targets of its import lines, as written; its
    (target as written, alias) pairs."""
    lines: dict[str, set[int]] = {}
    raw: dict[str, list[str]] = {}
    aliased: dict[str, list[tuple[str, str]]] = {}
    for path, line, target, alias in _rows(
            store, "SELECT f.path, r.line, r.target, r.alias FROM refs r JOIN files f"
            " ON f.blob_id = r.blob WHERE r.kind = ?", (IMPORT,), only):
        lines.setdefault(path, set()).add(line)
        if target:
            raw.setdefault(path, []).append(target)
            if alias:
                aliased.setdefault(path, []).append((target, alias))
    return lines, raw, aliased


def _grouped(store: Store, sql: str, args: tuple[str, ...], only: set[str] | None
             ) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for path, value in _rows(store, sql, args, only):
        out.setdefault(path, []).append(value)
    return out


def _rows(store: Store, sql: str, args: tuple[str, ...], only: set[str] | None
          ) -> Iterator[tuple[Any, ...]]:
    """The rows of `sql` (whose first column is f.path), for the paths of `only` if given."""
    if only is None:
        yield from store.conn.execute(sql, args)
        return
    paths = sorted(only)
    for i in range(0, len(paths), _PATHS_PER_QUERY):
        chunk = paths[i:i + _PATHS_PER_QUERY]
        marks = ",".join("?" * len(chunk))
        yield from store.conn.execute(f"{sql} AND f.path IN ({marks})", (*args, *chunk))
