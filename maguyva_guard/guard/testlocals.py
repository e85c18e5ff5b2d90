"""Name-only entries of the impact report that no edge can lead to, dropped for the tests.

The report lists, besides its resolved callers, code that calls a reached function's name
on a receiver of unknown type (an ambiguous entry), and the test selection takes each as a
lost trail: the tests importing its module, through any module, run (for click, every
test). Two kinds of such edges cannot run, and an entry that only they lead to is dropped
from the report the tests are chosen from:

- out of a test's own local code: a function or class defined inside a test function
  (`def test_x(runner): @click.command() def cli(): ...; runner.invoke(cli)`) exists only
  while that test runs, so whatever calls it runs inside that test, which is selected for
  holding it already (`self.cli` in click's ShellComplete.get_completions names every
  function called `cli`, those inside tests too);
- `super().name(...)` in a method of class A runs `name` of a class that follows A in the
  method resolution order of an object's class, which derives from A: only an ancestor of
  A or of a subclass of A (`super().__init__(message)` in ClickException never runs
  ProgressBar.__init__).

Which edges can lead to an entry: the graph follows non-ambiguous callers only (a
name-only guess does not fan out), so they start at the changed symbols or at the report's
non-ambiguous entries (the report keeps each entry's shallowest chain, so an entry of
depth 2 or more has none from a changed symbol). So the entry's own references are read: it
stays when any of them can name one of those sources (its name, its class's name, a
subclass's name for a constructor) other than a test's local code, through `super()` only
where the source's class can follow the entry's class. Classes are matched by name
(homonyms merged: more kept, never fewer), and a class with several bases one of which is
no class of the repository (a value: `class X(obj.cls, Base)`) may put any of its
ancestors after any class. The limit is that of every call edge: a test-local function
stored into module-level state and called by later tests is not followed.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from maguyva_guard.guard.testpicker import enclosing_test
from maguyva_guard.records import (
    AMBIGUOUS,
    CLASS,
    INHERIT,
    METHOD,
    MODULE_SYMBOL,
    Affected,
    Reference,
)

if TYPE_CHECKING:
    from maguyva_guard.guard.model import ImpactReport
    from maguyva_guard.guard.testview import TestView
    from maguyva_guard.index.store import Store

SUPER: Final = "super()"
CONSTRUCTORS: Final = frozenset({"__init__", "__new__"})


def without_impossible_edges(report: ImpactReport, view: TestView,
                             store: Store) -> ImpactReport:
    """`report` without the ambiguous entries no possible edge leads to."""
    entries = (*report.affected, *report.possible)
    candidates = [a for a in entries if a.confidence == AMBIGUOUS and a.depth >= 1
                  and a.path not in view.files and a.symbol != MODULE_SYMBOL]
    if not candidates:
        return report
    sources = [c.qualified_name for c in report.changed_symbols]
    sources += [a.symbol for a in entries if a.confidence != AMBIGUOUS
                and not _test_local(a.path, a.symbol, view)]
    h = _Hierarchy(store)
    callees = _Callees(h, sources)
    refs: dict[str, list[Reference]] = {}
    texts: dict[str, str] = {}
    uses: dict[tuple[str, str], tuple[bool, bool]] = {}
    dropped = set()
    for a in candidates:
        if a.depth <= 1 and a.path not in texts:
            texts[a.path] = store.text(a.path)
        if _changed_reach(h, a, report, texts, uses):
            continue
        if a.path not in refs:  # read only for what the text did not settle
            refs[a.path] = store.references(path=a.path)
        if not _can_call(h, a, callees, refs[a.path]):
            dropped.add((a.path, a.symbol))
    if not dropped:
        return report
    return replace(
        report,
        affected=tuple(a for a in report.affected if (a.path, a.symbol) not in dropped),
        possible=tuple(a for a in report.possible if (a.path, a.symbol) not in dropped))


def _test_local(path: str, symbol: str, view: TestView) -> bool:
    """Whether `symbol` is defined inside a test function (not the test itself)."""
    tf = view.files.get(path)
    if tf is None or tf.is_conftest or symbol == MODULE_SYMBOL:
        return False
    test = enclosing_test(tf, symbol)
    return test is not None and tf.local(symbol) != test


def _changed_reach(h: _Hierarchy, a: Affected, report: ImpactReport,
                   texts: dict[str, str], uses: dict[tuple[str, str], tuple[bool, bool]]
                   ) -> bool:
    """For an entry of depth 1: whether a changed symbol can be its callee. The graph also
    finds `obj.name` reads of a changed method in the text, beside the parsed references:
    only a file whose every `.name` is `super().name` is read further (the order of the
    classes then decides), a changed function that is no method keeps the entry. `uses`
    keeps each (file, name)'s answer: a 50-symbol Django check asked 489 entries about 50
    names each, and reading the file again each time took 2.8 s."""
    if a.depth > 1:
        return False
    cls = a.symbol.split(".")[-2] if "." in a.symbol else ""
    for c in report.changed_symbols:
        parts = c.qualified_name.split(".")
        if c.kind != METHOD or len(parts) < 2:
            return True
        key = (a.path, parts[-1])
        found = uses.get(key)
        if found is None:
            found = uses[key] = _attribute_uses(texts[a.path], parts[-1])
        plain, through_super = found
        if plain or (through_super and parts[-2] in h.following(cls)):
            return True
    return False


def _attribute_uses(text: str, name: str) -> tuple[bool, bool]:
    """(whether `text` reads `.name` after anything but `super()`, whether after it)."""
    through_super = False
    for m in re.finditer(rf"\.{re.escape(name)}\b", text):
        if not text.endswith(SUPER, 0, m.start()):
            return True, through_super
        through_super = True
    return False, through_super


class _Callees:
    """The names a call of one of `sources` can bear: its own, its class's (a constructor
    is called by its class's name, or a subclass's: `class B(A): pass`; B() runs A's)."""

    def __init__(self, h: _Hierarchy, sources: list[str]) -> None:
        self.names: set[str] = set()
        self.classes: dict[str, set[str]] = {}  # method name -> the class names defining it
        for q in set(sources):
            parts = q.split(".")
            self.names.add(parts[-1])
            if len(parts) > 1:
                self.names.add(parts[-2])
                self.classes.setdefault(parts[-1], set()).add(parts[-2])
                if parts[-1] in CONSTRUCTORS:
                    self.names |= h.descendants(parts[-2])


def _can_call(h: _Hierarchy, a: Affected, callees: _Callees, refs: list[Reference]) -> bool:
    """Whether a reference of entry `a` (nested code included) can call a source."""
    for ref in refs:
        if ref.scope != a.symbol and not ref.scope.startswith(a.symbol + "."):
            continue
        if ref.receiver != SUPER or ref.scope != a.symbol:
            if ref.name in callees.names:
                return True
        elif callees.classes.get(ref.name, set()) & h.following(a.symbol.split(".")[-2]):
            return True
    return False


class _Hierarchy:
    """Class names and their bases' names, from the repository's base-class references."""

    def __init__(self, store: Store) -> None:
        self.bases: dict[str, set[str]] = {}
        self._children: dict[str, set[str]] | None = None
        self._following: dict[str, set[str]] = {}
        for ref in store.references(kinds=(INHERIT,)):
            if ref.scope:
                self.bases.setdefault(ref.scope.rsplit(".", 1)[-1], set()).add(ref.name)
        # classes with several bases, one of them no class of the repository: that one may
        # be a value holding any class, which their other bases' ancestors then follow
        known = {name for (name,) in store.conn.execute(
            "SELECT DISTINCT name FROM defs WHERE kind = ?", (CLASS,))}
        self.open: set[str] = set()
        for cls, bases in self.bases.items():
            if len(bases) > 1 and any(b not in known for b in bases):
                self.open |= self.ancestors(cls)

    def ancestors(self, cls: str) -> set[str]:
        return _closure(cls, self.bases)

    def descendants(self, cls: str) -> set[str]:
        if self._children is None:
            self._children = {}
            for sub, bases in self.bases.items():
                for b in bases:
                    self._children.setdefault(b, set()).add(sub)
        return _closure(cls, self._children)

    def following(self, cls: str) -> set[str]:
        """The class names `super()` in class `cls` can reach."""
        found = self._following.get(cls)
        if found is None:
            found = self._following[cls] = set(self.open)
            for sub in self.descendants(cls):
                found |= self.ancestors(sub)
        return found


def _closure(start: str, edges: dict[str, set[str]]) -> set[str]:
    """`start` and every name reached from it along `edges`."""
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen
