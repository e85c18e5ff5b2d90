"""Trails the impact report stops at, continued for the tests' sake.

The report's graph walk does not fan out past a name-only edge: `param.get_help_record()`
on a receiver of unknown type matches every class's get_help_record, and following each
candidate's callers would drown the report in guesses. A test selection has the opposite
need: a caller in the code under test reached through such an edge still runs the change
for whoever calls *it*, and without its callers the only honest answer left is "every test
that imports its module through any module", which, through a package's `__init__`
re-exports, is every test.

So each such caller (in the code under test, not a test file) is asked for its own callers,
through the same graph, to the depth left of the bound; a caller found that way through a
name-only edge again is continued in turn, up to MAX_WALKS trails per selection: a count,
never time, so that the same change selects the same tests on an idle machine and on a busy
one. The trails the bound leaves are handed back (Trails.unfollowed), and the tests
importing each run. A trail whose caller has no caller at all stays lost: the selection
keeps its import-level fallback for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Final

from maguyva_guard.extract.languages import module_name
from maguyva_guard.guard.batch import use_edge_cache
from maguyva_guard.guard.testdispatch import Receiver, dynamic_bases, receiver
from maguyva_guard.guard.testinstances import Instances
from maguyva_guard.guard.testmakers import makers
from maguyva_guard.guard.testpicker import enclosing_test, importers_by_name, reaching
from maguyva_guard.guard.testview import is_polymorphic
from maguyva_guard.guard.trailwalk import SharedWalk
from maguyva_guard.index.store import Store
from maguyva_guard.records import (
    AMBIGUOUS,
    EXACT,
    IMPORT,
    INHERIT,
    METHOD,
    MODULE_SYMBOL,
    PROBABLE,
    Affected,
    ChangedSymbol,
    Link,
    Reference,
)
from maguyva_guard.retrievers.graph import CONSTRUCTORS, GraphRetriever

if TYPE_CHECKING:
    from maguyva_guard.guard.model import ImpactReport
    from maguyva_guard.guard.testview import TestView

# How many lost callers one selection continues: each is one graph walk (tens of ms;
# seconds for a constructor called everywhere). Past the bound the trails left select the
# tests importing their modules (Trails.unfollowed).
MAX_WALKS: Final = 48
# How far past the report's depth bound a trail goes on: the chain from a parser's helper
# to python-dateutil's tzical tests is ten calls long, and a caller at the bound would
# otherwise run every test importing its module. Past it, that fallback applies.
EXTRA_DEPTH: Final = 4
MAX_ANCESTORS: Final = 32  # classes walked up from a changed method's class
MAX_IMPORT_LINES: Final = 60  # how far up a parenthesized import's first line is looked for
STUBS: Final = (".pyi", ".d.ts")  # declarations for type checkers: nothing runs them
# `name = ...`, `a, b = ...`, `name: T = ...` on a module-level line (maybe in an `if`).
_BINDING: Final = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::[^=]*)?=(?!=)")


@dataclass(frozen=True)
class Trails:
    """Callers found past the report's name-only edges, and the (path, symbol) of each
    caller whose trail they continue (its import-level fallback is then not needed)."""

    affected: tuple[Affected, ...] = ()
    continued: frozenset[tuple[str, str]] = frozenset()
    # changed methods sharing their name whose overridden methods' callers were asked for
    settled: frozenset[str] = frozenset()
    # (base method, override) links the chains go through, by where the override's class
    # can come from (testdispatch): a test holding none of it never runs the override
    hops: Mapping[tuple[str, str], Receiver] = field(default_factory=dict)
    # the trails the count bound left: the tests importing each run
    unfollowed: tuple[Affected, ...] = ()
    bound: int = MAX_WALKS  # the count bound the walk had (0: check's section walks none)


def _needs_callers(a: Affected, view: TestView, depth: int) -> bool:
    """Whether `a`, a caller in the code under test, is one the graph did not follow
    further: reached through a name-only edge, module-level code outside an import
    line, or any caller at the report's depth bound (up to EXTRA_DEPTH levels past it)."""
    if a.path in view.files or a.path.endswith(STUBS) or a.depth >= depth + EXTRA_DEPTH:
        return False
    if a.symbol == MODULE_SYMBOL:
        return a.line not in view.import_lines.get(a.path, frozenset())
    return a.confidence == AMBIGUOUS or a.depth >= depth


def continue_trails(repo: str, report: ImpactReport, view: TestView, depth: int,
                    session: Store | None = None, max_walks: int | None = None) -> Trails:
    """`session`: the check's view, still open; its graph (batch.CheckStore.graph) goes on
    with what the check resolved, read and parsed (else a new one over a new opening).
    `max_walks`: the count bound (MAX_WALKS when None; check's section walks none, as each
    walk is a graph query: a second of a one-symbol Django check went to them)."""
    bound = MAX_WALKS if max_walks is None else max_walks
    todo = [a for a in (*report.affected, *report.possible) if _needs_callers(a, view, depth)]
    methods = [m for m in report.changed_symbols if is_polymorphic(view, m)
               and not (m.name.startswith("__") and m.name not in CONSTRUCTORS)]
    # callers on the way that override a method: reached through the base's method too
    overriders = [a for a in (*report.affected, *report.possible)
                  if a.kind == METHOD and a.path not in view.files and a.depth < depth
                  and a.symbol.rsplit(".", 1)[-1] in view.shared_methods]
    dispatch = any(a.via and a.via[-1].rsplit(".", 1)[-1] in view.shared_methods
                   for a in (*report.affected, *report.possible))
    reached_methods = [a for a in (*report.affected, *report.possible) if a.kind == METHOD] \
        + [_as_entry(c) for c in report.changed_symbols if c.kind == METHOD]
    if not todo and not methods and not overriders and not dispatch and not reached_methods:
        return Trails()
    found: dict[tuple[str, str], Affected] = {}
    continued: set[tuple[str, str]] = set()
    seen = {(a.path, a.symbol) for a in todo}
    with ExitStack() as own:
        store = session if session is not None else own.enter_context(Store.open(repo))
        graph = getattr(store, "graph", None)
        if not isinstance(graph, GraphRetriever):
            graph = GraphRetriever(store)
            # The check's own answers, kept in the index: most references walked here
            # (the callers' calls of a shared method name above all) were resolved by it.
            use_edge_cache(graph.resolver, store.conn)
        settled: set[str] = set()
        seeds: list[Affected] = []
        hops: dict[tuple[str, str], tuple[str, str]] = {}
        for sym in methods:
            overridden = _overridden(graph, store, sym.path, sym.qualified_name,
                                     (sym.qualified_name,), (sym.qualified_name,), 1, hops)
            if overridden is not None:
                settled.add(sym.qualified_name)
                seeds += overridden
        for a in overriders:
            seeds += _overridden(graph, store, a.path, a.symbol, (*a.via, a.symbol),
                                 a.because_of, a.depth + 1, hops) or []
        for sym in report.changed_symbols:  # a changed method no call reaches
            if sym.kind == METHOD and sym.qualified_name not in settled and not any(
                    sym.qualified_name in a.because_of for a in (
                        *report.affected, *report.possible)):
                seeds += makers(graph, store, view, _as_entry(sym)) or []
        instances = Instances(graph, store, view)
        for a in reached_methods:
            if a.depth < depth + EXTRA_DEPTH:
                seeds += instances.seeds(a)
        for seed in seeds:
            if (seed.path, seed.symbol) not in seen:
                found[(seed.path, seed.symbol)] = seed
                seen.add((seed.path, seed.symbol))
                todo.append(seed)
        users = _BindingUsers(graph, store, view)
        walk = SharedWalk(graph)
        walks = 0
        while todo and walks < bound:
            a = todo.pop(0)
            walks += 1
            from_binding = a.symbol == MODULE_SYMBOL
            # A name bound and never used is a trail followed to its end: no test uses it.
            callers = users.of(a) if from_binding else \
                _callers(walk, a, depth + EXTRA_DEPTH) or None
            if callers is None and not from_binding:  # no caller: where its objects are made
                callers = makers(graph, store, view, a)
            if callers is None:
                continue
            continued.add((a.path, a.symbol))
            for c in callers:
                key = (c.path, c.symbol)
                prev = found.get(key)
                if prev is None or c.depth < prev.depth:
                    found[key] = c
                more = from_binding or c.confidence == AMBIGUOUS or c.symbol == MODULE_SYMBOL
                if more and key not in seen and (_needs_callers(
                        replace(c, confidence=AMBIGUOUS), view, depth)
                        or (from_binding and _test_helper(view, c))):
                    seen.add(key)
                    todo.append(c)
                for seed in instances.seeds(c) if c.depth < depth + EXTRA_DEPTH else ():
                    if (seed.path, seed.symbol) not in seen:
                        seen.add((seed.path, seed.symbol))
                        found[(seed.path, seed.symbol)] = seed
                        todo.append(seed)
        _dispatched(graph, store, view, (*report.affected, *report.possible, *found.values()),
                    hops)
        dynamic = dynamic_bases(view) if hops else []
        classes = {cls: receiver(store, view, *cls, dynamic) for cls in set(hops.values())}
        if graph.resolver.edges is not None:
            graph.resolver.edges.save()  # best effort: the next check reuses these too
    return Trails(tuple(found.values()), frozenset(continued), frozenset(settled),
                  {hop: classes[cls] for hop, cls in hops.items()}, tuple(todo), bound)


def _test_helper(view: TestView, c: Affected) -> bool:
    """A function of a test file that is no test (`self._rrulestr_reverse_test(rule)`):
    found as a user of a bound name, its own callers are still to be found."""
    tf = view.files.get(c.path)
    return tf is not None and c.symbol != MODULE_SYMBOL and \
        enclosing_test(tf, c.symbol) is None


def _as_entry(c: ChangedSymbol) -> Affected:
    """A changed symbol as an entry of depth 0, for the rules that start from callers."""
    return Affected(c.path, c.qualified_name, c.line_start, c.kind, 0.0, 0.0, 0,
                    (c.qualified_name,), (), "direct", EXACT)


def _overridden(graph: GraphRetriever, store: Store, path: str, qualified_name: str,
                via: tuple[str, ...], because_of: tuple[str, ...], depth: int,
                hops: dict[tuple[str, str], tuple[str, str]]) -> list[Affected] | None:
    """The methods a method overrides in its class's ancestors (their callers may run it:
    `self.m()` inside the base class resolves to the base's m), as entries whose callers
    are still to be found; None when its class is not found. Each (base method, method)
    link is noted in `hops` with the method's class (qualified name, name)."""
    method = graph.resolver.scope(path).by_qualified.get(qualified_name)
    scope = graph.resolver.scope(path)
    cls = scope.by_qualified.get(method.parent) if method and method.parent else None
    if method is None or cls is None:
        return None
    out = []
    todo, seen = [cls], {(cls.path, cls.qualified_name)}
    while todo and len(seen) <= MAX_ANCESTORS:
        sub = todo.pop()
        for ref in store.references(path=sub.path, kinds=(INHERIT,)):
            if ref.scope != sub.qualified_name:
                continue
            for base in graph.resolver.resolve(ref).definitions:
                if (base.path, base.qualified_name) in seen:
                    continue
                seen.add((base.path, base.qualified_name))
                todo.append(base)
                own = graph.resolver.scope(base.path).children.get(
                    (base.qualified_name, method.name))
                if own is not None:
                    hops[(own.qualified_name, via[-1])] = (cls.qualified_name, cls.name)
                    out.append(Affected(
                        own.path, own.qualified_name, own.line_start, own.kind, 0.0, 0.0,
                        depth, because_of, (), "direct", AMBIGUOUS, via,
                        links=tuple(Link(c, depth, AMBIGUOUS, via) for c in because_of)))
    return out


def _dispatched(graph: GraphRetriever, store: Store, view: TestView,
                entries: tuple[Affected, ...],
                hops: dict[tuple[str, str], tuple[str, str]]) -> None:
    """Note in `hops` each call the graph resolved to several classes' methods of one name
    (`shapes[0].area()`: Base.area, Square.area, Circle.area): the caller runs the one it
    lists only on a receiver of that method's class."""
    asked: set[tuple[str, str]] = set()
    # (name, path) -> that file's references of the name by scope: read once, not once per
    # caller in the file (300,000 records built on Django's 5.2.7 -> 5.2.8 release diff)
    scopes: dict[tuple[str, str], dict[str, list[Reference]]] = {}
    for a in entries:
        if not a.via or a.symbol == MODULE_SYMBOL:
            continue
        callee = a.via[-1]
        name = callee.rsplit(".", 1)[-1]
        if name not in view.shared_methods or (a.symbol, callee) in asked:
            continue
        asked.add((a.symbol, callee))
        by_scope = scopes.get((name, a.path))
        if by_scope is None:
            by_scope = scopes[(name, a.path)] = {}
            for ref in store.references(name=name, path=a.path):
                if ref.kind != IMPORT:
                    by_scope.setdefault(ref.scope, []).append(ref)
        for ref in by_scope.get(a.symbol, ()):
            defs = graph.resolver.resolve(ref).definitions
            hit = next((d for d in defs if d.qualified_name == callee), None)
            if hit is not None and hit.parent and len({d.parent for d in defs}) > 1:
                hops[(a.symbol, callee)] = (hit.parent, hit.parent.rsplit(".", 1)[-1])
                break


class _BindingUsers:
    """The uses of the names a module-level line binds, as callers of what it wraps."""

    def __init__(self, graph: GraphRetriever, store: Store, view: TestView) -> None:
        self.graph, self.store, self.view = graph, store, view
        self._by_name: Mapping[str, set[str]] | None = None

    def of(self, a: Affected) -> list[Affected] | None:
        """None when a module-level line using what `a` wraps binds no name. The report
        keeps one line per module: every module-level line naming the same callee is read
        (`_stdin = _cached(...)`, `_stdout = _cached(...)`)."""
        names = self._bound(a)
        if names is None:
            return None
        if self._by_name is None:
            self._by_name = importers_by_name(self.view)
        files = reaching(self.view, a.path, self._by_name)
        module = module_name(a.path, "python")
        out = []
        for name in names:
            binding = f"{module}.{name}"
            for ref in self.store.references(name=name):
                if ref.kind == IMPORT or ref.path not in files or ref.path.endswith(STUBS) \
                        or (ref.path == a.path and not ref.scope):
                    continue
                via = (*a.via, binding)
                out.append(replace(
                    a, path=ref.path, symbol=ref.scope or MODULE_SYMBOL, line=ref.line,
                    depth=a.depth + 1, confidence=PROBABLE, via=via, contributions=(),
                    links=tuple(Link(c, a.depth + 1, PROBABLE, via) for c in a.because_of)))
        return out

    def _bound(self, a: Affected) -> list[str] | None:
        """The names the module-level lines using `a`'s callee bind."""
        lines = self.graph.resolver.lines(a.path)
        parts = a.via[-1].split(".") if a.via else [""]
        # what the line names: the function, or for a constructor its class
        callee = parts[-2] if parts[-1] in CONSTRUCTORS and len(parts) > 1 else parts[-1]
        wanted = {a.line}
        if callee:
            inside = [(d.line_start, d.line_end) for d in self.store.definitions(path=a.path)
                      if not d.parent]
            word = re.compile(rf"\b{re.escape(callee)}\b")
            wanted |= {i + 1 for i, text in enumerate(lines) if word.search(text)
                       and not any(lo <= i + 1 <= hi for lo, hi in inside)}
        names: list[str] = []
        for line in sorted(wanted):
            text = lines[line - 1] if 0 < line <= len(lines) else ""
            if _in_import(lines, line) or text.lstrip().startswith(("from ", "import ", "#")) \
                    or (callee and re.match(rf"\s*{re.escape(callee)}(?:\.\w+)+\s*=(?!=)",
                                            text)):
                continue  # an import, `f.__doc__ = ...`: nothing runs the change here
            if callee and re.search(rf"\b{re.escape(callee)}\s*\(", text):
                return None  # called on import: the change may run for every importer
            m = _BINDING.match(text)
            if m is None:
                if line == a.line:
                    return None  # a call on import, a decorator: no name to follow
                if text.strip() and text.lstrip()[:1] not in "\"')]}":
                    return None  # another use on import that binds nothing
                continue  # a line of a docstring or of a continued statement
            names += [n.strip() for n in m.group(1).split(",")]
        return names


def _callers(walk: SharedWalk, a: Affected, depth: int) -> list[Affected]:
    """`a`'s own callers, as affected entries of `a`'s changed symbols, their chains
    running on from `a`'s."""
    target = walk.graph.resolver.scope(a.path).by_qualified.get(a.symbol)
    if target is None:
        return []
    out = []
    for e in walk.callers(target, depth - a.depth, a.because_of):
        if e.ref.path.endswith(STUBS):
            continue
        conf = e.confidence
        via = (*a.via, *e.via)
        out.append(replace(
            a, path=e.ref.path, symbol=e.caller, line=e.ref.line, depth=a.depth + e.depth,
            confidence=conf, via=via, contributions=(),
            links=tuple(Link(c, a.depth + e.depth, conf, via) for c in a.because_of)))
    return out


def _in_import(lines: list[str], line: int) -> bool:
    """Whether `line` (1-based) continues a parenthesized `from m import (...)` (the index
    marks an import's first line only)."""
    opened = 0
    for i in range(line - 2, max(-1, line - 2 - MAX_IMPORT_LINES), -1):
        text = lines[i] if 0 <= i < len(lines) else ""
        opened += text.count("(") - text.count(")")
        stripped = text.lstrip()
        if stripped.startswith(("from ", "import ")):
            return opened > 0
        if text[:1].strip():
            return False  # another statement starts at column 0
    return False
