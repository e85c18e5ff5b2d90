"""Which tests a change can break: a pure function of the impact report, the test view and
the trails followed past the report's name-only edges (testtrails.py).

A test is selected, with the chain that selects it, when
1. the call graph reaches it: an affected caller (any depth up to the bound, or found past
   a name-only edge, a module-level wrapper, an overridden method) is a test function, a
   method of a test class (or of a subclass of it), or code inside one;
2. it takes a fixture that reaches the change (a fixture is injected by parameter name, so
   no call edge leads from the test to it), transitively through fixtures;
3. its module imports a changed module and no chain reached the changed symbol, or it
   names the symbol where no call resolves (file level: dynamic dispatch).

And, honestly, at file level or all tests, with the reason, when the graph cannot follow:
an ambiguous edge (a name-only match), a caller at the depth bound, a module-level change,
a file without symbol support, a conftest, test configuration, a lock file, test data.
A change to code that tests run never yields an empty selection: when nothing above
reaches a changed symbol, its module's importers are taken, or else every test.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from maguyva_guard.extract.languages import LANGUAGES, language_for
from maguyva_guard.guard import testfallbacks, testscopes, testtrails
from maguyva_guard.guard.testdispatch import DispatchGate
from maguyva_guard.guard.testnames import Uses
from maguyva_guard.guard.testpicker import (
    Picker,
    SelectedTest,
    TestSelection,
    chain_text,
    definition,
    enclosing_test,
    heirs_elsewhere,
    importers_by_name,
    inherited,
    node,
    reaching,
)
from maguyva_guard.guard.testscopes import DYNAMIC_ACCESS, Naming
from maguyva_guard.guard.testtrails import STUBS, Trails
from maguyva_guard.guard.testview import TestFile, TestView, is_polymorphic
from maguyva_guard.records import (
    AMBIGUOUS,
    CONSTANT,
    MODULE_SYMBOL,
    Affected,
    ChangedSymbol,
    Definition,
    Fallback,
)
from maguyva_guard.retrievers.fixtures import is_fixture, parameters

__all__ = ["SelectedTest", "TestSelection", "chain_text", "select"]

if TYPE_CHECKING:
    from maguyva_guard.guard.model import ImpactReport

MODULE: Final = MODULE_SYMBOL
FALLBACK_CAUSE: Final = ":<module>"  # impact's `because_of` of a fallback search hit
NO_SYMBOLS: Final = "no symbol support"
OWN_AMBIGUOUS: Final = "its own call is an ambiguous edge (a name match): the test runs"
NAMED: Final = "names the changed symbol, and no call to it resolves: the test runs"
# unittest's load_tests protocol (`tests.addTests(DocTestSuite("pkg.mod"))`): pytest does
# not call it, so the module it names by a string is not run by the file's pytest tests
UNITTEST_LOADER: Final = "load_tests"


def select(report: ImpactReport, changed_paths: Sequence[str], view: TestView, *,
           depth: int, trails: Trails | None = None,
           named: Mapping[str, Uses] | None = None,
           naming: Naming | None = None) -> TestSelection:
    """`trails`: callers past the report's name-only edges (testtrails.continue_trails);
    `named`: where the tests name a changed symbol no call reaches (testnames.named_uses);
    `naming`: a name -> the scopes of each test module that name it (testscopes)."""
    trails = trails or Trails()
    gate = DispatchGate(view, trails.hops)
    p = Picker(view, continued=trails.continued, gate=gate.allows if trails.hops else None,
               narrow=gate.narrowed if trails.hops else None, naming=naming)
    _changed_files(p, changed_paths, report.changed_symbols)
    _fallbacks(p, report.fallbacks)
    reached: set[str] = set()
    called: set[str] = set()  # changed symbols the graph found any caller of
    used: set[str] = set()  # the same, import lines left out
    found = set(trails.affected)
    for a in (*report.affected, *report.possible, *trails.affected):
        if any(b.endswith(FALLBACK_CAUSE) for b in a.because_of):
            continue  # a fallback search's text hit: the fallback above speaks for it
        if a.path.endswith(STUBS):
            continue  # a type stub's declaration: no test runs it
        called.update(a.because_of)
        if a.symbol != MODULE or a.line not in p.view.import_lines.get(a.path, frozenset()):
            used.update(a.because_of)  # (an import line re-exporting it calls nothing)
        # the trails walk on past the report's bound: theirs is further
        if _caller(p, a, depth + testtrails.EXTRA_DEPTH if a in found else depth):
            reached.update(a.because_of)
    for c in report.changed_symbols:
        uses = (named or {}).get(c.qualified_name)
        if uses and c.qualified_name not in used and not p.run_all:
            _named_uses(p, c, uses)  # no call reaches it: only a test naming it can run it
            continue
        _by_import(p, c, reached, called, gate, c.qualified_name in trails.settled)
    _unanalysed(p, changed_paths, report)
    _by_string(p, report.changed_symbols, view.by_string)
    _unfollowed(p, trails.unfollowed, trails.bound)
    inherited(p)
    return TestSelection(() if p.run_all else _collapsed(p.picked), p.run_all, tuple(p.reasons))


def _collapsed(picked: dict[str, SelectedTest]) -> tuple[SelectedTest, ...]:
    """A whole file selected makes its single tests redundant (pytest would run them twice)."""
    whole = {t.path for t in picked.values() if t.id == t.path}
    kept = [t for t in picked.values() if t.id == t.path or t.path not in whole]
    return tuple(sorted(kept, key=lambda t: t.id))


def _changed_files(p: Picker, paths: Sequence[str],
                   changed: Sequence[ChangedSymbol]) -> None:
    for path in paths:
        tf = p.view.files.get(path)
        broad = testfallbacks.classify_change(
            path, is_test_module=tf is not None and not tf.is_conftest,
            is_conftest=posixpath.basename(path) == "conftest.py")
        if broad is not None:
            p.handled.add(path)
            _broad(p, broad)
    for c in changed:
        language = language_for(c.path)
        if language is not None and LANGUAGES[language].generic:
            p.everything(f"{c.path}: {language} is in the generic tier (callers by name "
                         "only): no call graph to follow")
        tf = p.view.files.get(c.path)
        if tf is not None and not tf.is_conftest and c.change != "removed":
            test = enclosing_test(tf, c.qualified_name)
            if test is not None:
                p.add(node(tf, test, (c.qualified_name,)))


def _broad(p: Picker, broad: testfallbacks.Broad) -> None:
    if broad.under is None:
        p.everything(broad.reason)
        return
    p.say(broad.reason)
    prefix = broad.under + "/" if broad.under else ""
    for path in p.view.test_modules():
        if path.startswith(prefix):
            p.file(path, (broad.path,), broad.reason)


def _fallbacks(p: Picker, fallbacks: Iterable[Fallback]) -> None:
    for fb in fallbacks:
        if testfallbacks.is_prose(fb.path) or fb.path in p.handled:
            continue
        tf = p.view.files.get(fb.path)
        if tf is not None and not tf.is_conftest:
            p.file(fb.path, (fb.path,), f"{fb.path}: {fb.reason}")
        elif NO_SYMBOLS in fb.reason:
            p.everything(f"{fb.path}: {fb.reason} (generic tier): no call graph to follow")
        elif tf is None:
            importers = p.reach(fb.path)
            reason = f"{fb.path}: {fb.reason}: it runs when the module is imported"
            if not importers:
                p.everything(reason + ", and no test module imports it directly")
            p.say(reason)
            for path in importers:
                p.file(path, (path, fb.path), reason)


def _caller(p: Picker, a: Affected, depth: int) -> bool:
    """Select what one affected caller leads to; whether it reached a test."""
    chain = (a.symbol, *reversed(a.via))
    tf = p.view.files.get(a.path)
    ambiguous = a.confidence == AMBIGUOUS
    if a.symbol == MODULE and a.line in p.view.import_lines.get(a.path, frozenset()):
        return False  # an import line: the import rule (_by_import) speaks for the module
    if tf is None:
        why = _lost_trail(a, depth)
        if why and (a.path, a.symbol) not in p.continued:
            who = f"module-level code of {a.path}" if a.symbol == MODULE else a.symbol
            reason = f"{who} is reached through {why}: the tests importing it run"
            # Module level calls it on import or wraps it (a table, an alias, a decorator
            # made on import): whatever imports that module, through any module, runs it.
            # (said only where a test module took it: none may hold the chain's receivers)
            if p.files(p.reach(a.path), chain, reason):
                p.say(reason)
        return False
    if a.symbol == MODULE and tf.is_conftest:
        _broad(p, testfallbacks.Broad(a.path, f"{a.path} uses it at module level: the tests "
                                      "under its folder run", posixpath.dirname(a.path)))
        return True
    test = enclosing_test(tf, a.symbol)
    if test is not None and not ambiguous:
        p.add(node(tf, test, chain))
        return True
    # A test whose own call is the name-only edge: that test makes the call, and any other
    # test of the file making a call of that name on a receiver of unknown type is matched
    # by the same name (its own ambiguous edge), so the test alone runs for it.
    if test is not None and not tf.names & DYNAMIC_ACCESS \
            and p.add(replace(node(tf, test, chain), reason=OWN_AMBIGUOUS)):
        return True
    # a constant (`VALUE = f()`, module or class level) is module-level code: it runs on
    # import, and a failure there fails every test of the file
    d = definition(tf, a.symbol)
    on_import = a.symbol == MODULE or (d is not None and d.kind == CONSTANT)
    if test is None and not ambiguous:
        if d is not None and is_fixture(d):
            return _fixture_users(p, tf, d, chain)
        if a.depth < depth and not on_import:
            return False  # a helper: its own callers are in the report, one level further
    why = "an ambiguous edge" if ambiguous else (
        "module-level code" if on_import else "the depth bound")
    tests = None if on_import or p.narrow is None else p.narrow(a.path, chain)
    if tests is None:
        p.file(a.path, chain, f"reached through {why}: the whole file runs")
        if on_import:  # it runs wherever the test module is imported too
            p.files(p.reach(a.path), chain, f"imports {a.path}, whose module-level code "
                    "runs the change on import: the whole file runs")
        return True
    for local in tests:  # (module-level code fails every test of the file: never narrowed)
        t = node(tf, local, (f"{tf.prefix}.{local}" if tf.prefix else local, *chain))
        p.add(replace(t, reason=f"reached through {why}, of its file only the tests that "
                                "name the class of an override on the chain"))
    return True


def _lost_trail(a: Affected, depth: int) -> str:
    """Why the call graph stops at a caller in the code under test ("" when it does not)."""
    if a.confidence == AMBIGUOUS:
        return "an ambiguous edge (name match only)"
    if a.depth >= depth:
        return "the depth bound"
    if a.symbol == MODULE:
        return "a module-level use (a call on import, an alias, a wrapper)"
    return ""


def _fixture_users(p: Picker, home: TestFile, fixture: Definition,
                   chain: tuple[str, ...]) -> bool:
    """Tests that take the fixture (or a fixture that takes it), where pytest can see it:
    its own file, or under a conftest's folder."""
    scope = posixpath.dirname(home.path) if home.is_conftest else None
    todo = [(fixture, chain)]
    seen: set[str] = set()
    found = False
    # a test class's fixture is its subclasses' too, in the test modules importing it
    heirs = _fixture_heirs(p, home, fixture)
    while todo:
        fx, via = todo.pop()
        name = fx.name
        if name in seen:
            continue
        seen.add(name)
        for tf in p.view.files.values():
            inside = heirs.get(tf.path)
            visible = tf.path == home.path or inside is not None or (
                scope is not None and (not scope or tf.path.startswith(scope + "/")))
            if not visible:
                continue
            for d in tf.definitions:
                if name not in parameters(d) or (inside is not None and tf.path != home.path
                                                 and not d.qualified_name.startswith(inside)):
                    continue
                if is_fixture(d):
                    todo.append((d, (d.qualified_name, *via)))
                elif (test := enclosing_test(tf, d.qualified_name)) is not None:
                    p.add(node(tf, test, (d.qualified_name, *via)))
                    found = True
    return found


def _fixture_heirs(p: Picker, home: TestFile,
                   fixture: Definition) -> dict[str, tuple[str, ...]]:
    """Test module -> the qualified-name prefixes of its classes deriving from the test
    class defining `fixture` (pytest finds a class's fixtures in its subclasses)."""
    parts = home.local(fixture.qualified_name).split(".")
    if home.is_conftest or len(parts) != 2:
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for tf, cls in heirs_elsewhere(p, home, parts[0]):
        prefix = f"{tf.prefix}.{cls}." if tf.prefix else f"{cls}."
        out[tf.path] = (*out.get(tf.path, ()), prefix)
    return out


def _by_import(p: Picker, c: ChangedSymbol, reached: set[str], called: set[str],
               gate: DispatchGate, settled: bool = False) -> None:
    """Test modules importing the changed symbol's module, when the call graph did not
    lead to tests (they were then selected one by one, with their chains). A symbol the
    graph found no caller of is called in a way it cannot see (an override reached
    through its base class, a dunder method, a callback, pickle): every test importing its
    module, through any module, runs; and without such tests, every test. `settled`: a
    method sharing its name whose overridden methods' callers were followed (testtrails)."""
    if c.path in p.view.files or testfallbacks.is_prose(c.path):
        return
    name = c.qualified_name
    polymorphic = is_polymorphic(p.view, c) and not settled
    importers = p.importers(c.path)
    chain_end = c.qualified_name
    for path in importers:
        if name not in reached or polymorphic:
            p.file(path, (path, chain_end), f"imports the module of {name}")
        elif c.name in p.view.files[path].names and not _chained(p, path, name):
            why = f"imports the module of {name} and names {c.name} where no call to it " \
                "resolves"
            if not testscopes.naming_tests(p, path, c, why):
                p.file(path, (path, chain_end), why)
    if p.run_all or c.change == "added":
        return
    if settled:
        _named(p, c, gate)
    if polymorphic:
        reason = f"{name} is a method that calls reach without naming its class (a dunder," \
            " or an override called through a base class): the tests importing its module" \
            " (through any module) run"
    elif name in reached or (name in called and importers):
        return
    else:
        reason = f"no resolved call reaches {name}: the tests importing its module (through" \
            " any module) run"
    found = p.reach(c.path)
    for path in found:
        p.file(path, (path, chain_end), reason)
    if found:
        p.say(reason)
    elif name not in reached:
        p.everything(f"no test reaches {name} through the call graph or imports")


def _named_uses(p: Picker, c: ChangedSymbol, uses: Uses) -> None:
    """A changed symbol no call reaches, that only test code naming it can run
    (testnames): the tests naming it, the tests taking a fixture naming it, the whole file
    where a module-level line, a helper or an import names it."""
    p.say(f"no resolved call reaches {c.qualified_name}: the tests naming {c.name} run")
    whole = f"names {c.name} outside a test, and no call to it resolves: the whole file runs"
    for path, scope in uses:
        tf = p.view.files[path or scope]
        chain = (scope or tf.path, c.qualified_name)
        if tf.is_conftest:
            d = definition(tf, scope) if path else None
            if d is None or not is_fixture(d) or not _fixture_users(p, tf, d, chain):
                _broad(p, testfallbacks.Broad(tf.path, f"{tf.path} {whole}",
                                              posixpath.dirname(tf.path)))
            continue
        test = enclosing_test(tf, scope) if path and not tf.names & DYNAMIC_ACCESS else None
        if test is not None and p.add(replace(node(tf, test, chain), reason=NAMED)):
            continue
        d = definition(tf, scope) if path and test is None else None
        if d is not None and is_fixture(d) and _fixture_users(p, tf, d, chain):
            continue
        for found in (tf.path, *p.reach(tf.path)):  # (a helper another test module imports)
            p.file(found, (found, *chain), whole)


def _named(p: Picker, c: ChangedSymbol, gate: DispatchGate) -> None:
    """A method other classes define too, called on a receiver the graph cannot type
    (`@cli.group()` on a group a decorator made): the test modules that can run its module,
    name it where no chain reached it, and can hold an object of its class run whole."""
    reason = f"names {c.name} on a receiver the graph cannot type, and can run " \
        f"{c.qualified_name}: the whole file runs"
    for path in p.reach(c.path):
        if c.name in p.view.files[path].names and not _chained(p, path, c.qualified_name) \
                and gate.holds_class_of(path, c.qualified_name) \
                and not testscopes.naming_tests(p, path, c, reason):
            p.file(path, (path, c.qualified_name), reason)


def _chained(p: Picker, path: str, name: str) -> bool:
    """Whether a test of `path` was selected through a chain that ends at `name`."""
    return any(t.path == path and t.chain and t.chain[-1] == name for t in p.picked.values())


def _by_string(p: Picker, changed: Sequence[ChangedSymbol],
               by_string: Sequence[tuple[str, str, str]]) -> None:
    """A test that gets a module by a string (`importlib.import_module("pkg.mod")`) calls
    it through a module object no call resolves on: it runs when that module can run a
    changed symbol's (imports it, through any module); the whole file when the string is
    outside a test (module level, a helper, a fixture)."""
    if not by_string:
        return
    if p._by_name is None:
        p._by_name = importers_by_name(p.view)
    for c in changed:
        if c.path in p.view.files or testfallbacks.is_prose(c.path):
            continue
        running = reaching(p.view, c.path, p._by_name)
        names = {n for path in running for n in p.view.import_names.get(path, ())}
        for path, scope, module in by_string:
            if module not in names or scope.rsplit(".", 1)[-1] == UNITTEST_LOADER:
                continue  # (pytest never calls unittest's load_tests: what it adds never runs)
            tf = p.view.files[path]
            test = enclosing_test(tf, scope) if scope and not tf.is_conftest else None
            reason = f"gets {module} by name (a string): calls on it do not resolve"
            if test is not None:
                p.add(node(tf, test, (scope, module, c.qualified_name)))
            elif not tf.is_conftest:
                p.file(path, (path, module, c.qualified_name), reason)
            else:
                _broad(p, testfallbacks.Broad(path, f"{path} {reason}",
                                              posixpath.dirname(path)))


def _unfollowed(p: Picker, left: Sequence[Affected], bound: int) -> None:
    """The trails the walk's count bound left (testtrails.MAX_WALKS; none are walked in
    check's section): whatever imports their modules, through any module, may run them."""
    if not left:
        return
    p.say(f"the walk past unresolved edges stopped at its bound of {bound} trails: "
          f"{len(left)} left unfollowed, the tests importing each run")
    for a in left:
        who = f"module-level code of {a.path}" if a.symbol == MODULE else a.symbol
        reason = f"{who} was left unfollowed at the walk's bound: the tests importing it run"
        p.files((a.path,) if a.path in p.view.files else p.reach(a.path),
                (a.symbol, *reversed(a.via)), reason)


def _unanalysed(p: Picker, changed_paths: Sequence[str], report: ImpactReport) -> None:
    """A changed code file that yielded no changed symbol and no fallback: whatever the
    diff did there was not analysed, so the tests importing it run (never "no tests")."""
    seen = {c.path for c in report.changed_symbols} | {c.old_path for c in report.changed_symbols}
    seen |= {f.path for f in report.fallbacks}
    for path in changed_paths:
        if path in seen or path in p.view.files or path not in p.view.import_names:
            continue
        found = p.reach(path)
        reason = f"{path} changed but no symbol or statement of it was analysed"
        for test in found:
            p.file(test, (test, path), reason)
        if found:
            p.say(reason)
