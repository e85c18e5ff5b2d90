"""The graph modality (design §1): callers, users and the blast radius of a change.

Edges are resolved on demand: to find who refers to a definition, only the references that
carry its name (or an alias bound to it) are looked at, each resolved through its file's
bindings by maguyva_guard.retrievers.resolve. A whole-program pass would cost seconds on every
commit; this costs what the target's name costs.

Centrality (design §5) is precomputed on the name-level graph of the whole view: every
reference votes for the definitions that carry its name, splitting its vote among them, and
PageRank runs over those edges. It is scaled by the number of nodes, so that the average
definition has centrality 1 and the boost of design §5 reads naturally.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

from maguyva_guard import spec
from maguyva_guard.extract.languages import language_for
from maguyva_guard.records import (
    AMBIGUOUS,
    ANNOTATION,
    CALL,
    CLASS,
    CONFIDENCE_RANK,
    EXACT,
    FUNCTION,
    IMPORT,
    INHERIT,
    METHOD,
    MODULE_SYMBOL,
    PROBABLE,
    STRING,
    TYPE,
    USE,
    Definition,
    Hit,
    Reference,
)
from maguyva_guard.retrievers import (
    cfamsyntax,
    ecmaconform,
    ecmatypes,
    fixtures,
    jvm,
    jvmoverloads,
    jvmsyntax,
    overloads,
    paramflow,
    shadowing,
)
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.retrievers.ecmaconform import CONFORMS, is_conformance_target
from maguyva_guard.retrievers.ecmasyntax import ecma_implicit_calls, is_ecma_syntax_method
from maguyva_guard.retrievers.importpaths import JS_LANGUAGES
from maguyva_guard.retrievers.passing import assigned_calls, invoked_parameters
from maguyva_guard.retrievers.protocols import implicit_calls, is_protocol_method
from maguyva_guard.retrievers.pylocals import LocalBindings
from maguyva_guard.retrievers.resolution_base import Resolution
from maguyva_guard.retrievers.resolve import CLASS_KINDS, Resolver
from maguyva_guard.retrievers.rustsyntax import is_rust_syntax_method, rust_implicit_calls
from maguyva_guard.retrievers.textrefs import TextReferences

if TYPE_CHECKING:
    from maguyva_guard.index.store import Store

MEMBER_KINDS = frozenset({"method", "constant", "function"})  # what `obj.name` can read
# Ruby's `initialize` runs on `Foo.new`, PHP's `__construct` on `new Foo`.
CONSTRUCTORS = frozenset({"__init__", "__new__", "initialize", "__construct"})
# C# names a constructor after its class; Kotlin, Scala and Swift have these (a class's
# constructors are not inherited there, so no subclass's calls run one).
MANAGED_CONSTRUCTORS = {"kotlin": "constructor", "scala": "this", "swift": "init"}
# Where a function passed as an argument is followed to the calls of its parameter.
INVOKED_LANGUAGES = frozenset({"python", "javascript", "typescript", "tsx", "go", "rust"})
# Where `f = target` then `f(...)` in the same function is followed (Python: pylocals.py).
ASSIGNED_LANGUAGES = INVOKED_LANGUAGES - {"python"}
MAX_HEIRS = 200  # subclasses followed for a constructor change (a framework's base class)

# How much a graph hit's raw score keeps at each level of certainty (not fusion numbers:
# they only order the graph's own list, before fusion turns ranks into scores).
CONFIDENCE_SCORE: dict[str, float] = {EXACT: 1.0, PROBABLE: 0.7, AMBIGUOUS: 0.3}
# A call breaks first when a signature changes; an import line only names the symbol.
KIND_SCORE = {"call": 1.0, "inherit": 0.95, "decorator": 0.95, "use": 0.8, "annotation": 0.7,
              "string": 0.6, "import": 0.5}


@dataclass(frozen=True)
class Edge:
    """A reference that refers to a target: one caller at one line."""

    ref: Reference
    target: Definition
    confidence: str
    depth: int
    via: tuple[str, ...]  # qualified names from the changed symbol to this caller

    @property
    def caller(self) -> str:
        return self.ref.scope or MODULE_SYMBOL


class GraphRetriever:
    modality = spec.GRAPH

    def __init__(self, store: Store, resolver: Resolver | None = None):
        self.store = store
        self.resolver = resolver or Resolver(store, self._data_attribute)
        self.local = LocalBindings(self.resolver)
        self.recovered = TextReferences(store, self.resolver, self.local)
        self._direct: dict[tuple[Definition, bool], tuple[tuple[Reference, str], ...]] = {}
        self._resolution_keys: dict[int, tuple[Resolution, frozenset[tuple[str, str]]]] = {}
        # (the store's references read when asked: a retriever is built before it is used)
        self.passed = paramflow.PassedTypes(self.resolver,
                                            lambda **kw: self.store.references(**kw))

    def _data_attribute(self, name: str) -> bool:
        return self.recovered.data_attribute(name)

    def search(self, request: SearchRequest) -> list[Hit]:
        targets = [request.target] if request.target else self.targets_for(request.terms)
        hits: list[Hit] = []
        for target in targets:
            hits.extend(self.hit(e) for e in self.callers(target, max(request.depth, 1)))
        hits.sort(key=lambda h: (h.depth, -h.score, h.path, h.line_start))
        if request.target is not None or not request.limit:
            return hits  # every caller of a resolved target: the guard's lists must be whole
        return hits[: request.limit]

    def targets_for(self, terms: tuple[str, ...]) -> list[Definition]:
        out: list[Definition] = []
        for term in terms:
            name = term.rsplit(".", 1)[-1]
            defs = self.store.definitions(name=name)
            if "." in term:
                # A whole-segment suffix: "Field.deconstruct" is not CharField's.
                defs = [d for d in defs if d.qualified_name == term
                        or d.qualified_name.endswith("." + term)] or defs
            out.extend(defs)
        return out

    # --- callers -----------------------------------------------------------------------------

    def callers(self, target: Definition, depth: int = 1) -> list[Edge]:
        """Who refers to `target`, transitively to `depth`, each edge with its chain."""
        edges: list[Edge] = []
        seen = {(target.path, target.qualified_name)}
        frontier: list[tuple[Definition, tuple[str, ...], str]] = [
            (target, (target.qualified_name,), EXACT)]
        for level in range(1, depth + 1):
            nxt: list[tuple[Definition, tuple[str, ...], str]] = []
            for t, via, weakest in frontier:
                # A receiver typed by what a caller passes in (paramflow.py), the
                # changed method itself: probable, with the caller that passes it.
                passed = dict(self.passed_receivers(t)) if level == 1 else {}
                for ref, link in passed.items():
                    edges.append(Edge(ref, t, PROBABLE, level, (*via, link)))
                    caller = self.definition_of(ref)
                    if caller is not None and (ref.path, ref.scope) not in seen:
                        seen.add((ref.path, ref.scope))
                        nxt.append((caller, (*via, link, caller.qualified_name), PROBABLE))
                # TypeScript: an instance handed on where `Observer` is due (the changed
                # method itself: its callers' signatures did not change).
                conforming = ((ref, PROBABLE) for ref in self.conforming(t)) \
                    if level == 1 and is_conformance_target(t) else ()
                for ref, confidence in chain(self.direct(t, attributes=level == 1),
                                             conforming):
                    if ref in passed:
                        continue  # a name-only match the callers' arguments typed
                    conf = max(confidence, weakest, key=CONFIDENCE_RANK.__getitem__)
                    edge = Edge(ref, t, conf, level, via)
                    edges.append(edge)
                    caller = self.definition_of(ref)
                    if ref.kind == USE and conf != AMBIGUOUS:
                        # Passed or assigned as a value: the call through it breaks too.
                        link = caller.qualified_name if caller is not None else MODULE_SYMBOL
                        edges.extend(Edge(hop, t, PROBABLE, level, (*via, link))
                                     for hop in self.invoked(ref, caller is not None))
                    key = (ref.path, ref.scope)
                    # Follow resolved edges only: a name-only guess does not fan out further.
                    if caller is not None and key not in seen and ref.kind != IMPORT \
                            and conf != AMBIGUOUS:
                        seen.add(key)
                        nxt.append((caller, (*via, caller.qualified_name), conf))
            frontier = nxt
        return edges

    def direct(
        self, target: Definition, attributes: bool = True
    ) -> Iterator[tuple[Reference, str]]:
        """References that resolve to `target`, with the confidence of each. `attributes`
        also scans the text for `obj.name` reads (the changed symbol itself, not the
        callers found on the way out: that scan costs a text search each). Answered once
        per target for the retriever's view: the changed symbols of one check share
        callers, and a caller named like a popular method (`set`) costs half a second."""
        key = (target, attributes)
        found = self._direct.get(key)
        if found is None:
            found = self._direct[key] = tuple(self._direct_uncached(target, attributes))
        return iter(found)

    def _direct_uncached(
        self, target: Definition, attributes: bool
    ) -> Iterator[tuple[Reference, str]]:
        names = {target.name}
        constructor_of = None
        if target.parent and (_constructor(target) or _managed_constructor(target)):
            cls = self.resolver.scope(target.path).by_qualified.get(target.parent)
            if cls is not None and (cls.kind == CLASS or (
                    cls.kind == TYPE and not _constructor(target))):
                constructor_of = cls  # changing __init__ changes every ClassName(...) call
                names.add(cls.name)
        wanted = {(target.path, target.qualified_name)}
        heirs: set[tuple[str, str]] = set()  # subclasses whose calls run the constructor
        type_calls: tuple[str, str] | None = None  # the type whose calls alone count
        if constructor_of is not None:
            wanted.add((constructor_of.path, constructor_of.qualified_name))
            if not _constructor(target):  # a type name written elsewhere runs nothing
                type_calls = (constructor_of.path, constructor_of.qualified_name)
        java_new = constructor_of is not None and language_for(target.path) == "java"
        if java_new and constructor_of is not None:
            # `class B extends A {}`: B's default constructor calls `super()`.
            for heir in self.heirs(constructor_of, target.name):
                names.add(heir.name)
                heirs.add((heir.path, heir.qualified_name))
        if constructor_of is not None and _constructor(target):
            for heir in self.heirs(constructor_of, target.name):
                names.add(heir.name)  # `class B(A): pass`: B() runs A.__init__
                heirs.add((heir.path, heir.qualified_name))
        yield from self.stub_declarations(target)
        accessor = _accessor(target)
        candidates = self.candidates(names)
        from_text: set[Reference] = set()
        if attributes and target.parent and target.kind in MEMBER_KINDS:
            candidates = chain(candidates, self.recovered.attribute_uses(target))
        elif attributes and not target.parent and language_for(target.path) == "python":
            from_text = set(self.recovered.name_uses(target))
            candidates = chain(candidates, sorted(from_text, key=_ref_order))
            yield from ((ref, AMBIGUOUS) for ref in self.recovered.evaluated_uses(target))
        if is_protocol_method(target) or is_rust_syntax_method(target) or \
                is_ecma_syntax_method(target):
            yield from ((ref, PROBABLE) for ref in self.implicit(target))
        elif jvmsyntax.is_syntax_method(target):  # Java, Kotlin, Scala: `for`, `a + b`...
            yield from ((ref, PROBABLE) for ref in self.implicit(target, jvm_syntax=True))
        if cfamsyntax.is_syntax_target(target):
            yield from self.syntax_sites(target)
        if language_for(target.path) == "python" and fixtures.is_fixture(target):
            yield from ((ref, EXACT) for ref in fixtures.users(self.store, target))
        if target.parent and language_for(target.path) in JS_LANGUAGES:
            yield from self.object_handed_on(target)
        if java_new and constructor_of is not None and target.kind != CLASS:
            # `super(1)` in a subclass's constructor, `this(1)` in a sibling one
            yield from ((ref, EXACT) for ref in jvm.explicit_constructor_calls(
                self.resolver, target, constructor_of, list(self.subclasses(constructor_of))))
        if constructor_of is not None and language_for(target.path) == "csharp":
            subs = self.subclasses(constructor_of)
            yield from ((ref, EXACT) for ref in cfamsyntax.base_constructor_calls(
                self.resolver, subs, target))
        for ref in candidates:
            res = self.resolver.resolve(ref)
            if not res.definitions:
                continue  # refers to nothing in the repository: no key below can match
            keys = self._keys(res)
            if type_calls is not None and keys & wanted == {type_calls} and \
                    ref.kind not in (CALL, INHERIT):
                continue
            if constructor_of is not None and keys & wanted == {
                    (constructor_of.path, constructor_of.qualified_name)} and (
                    ref.kind == ANNOTATION or (ref.kind == USE and self.type_test(ref))):
                continue  # `h: Headers`, `isinstance(h, Headers)`: no constructor runs
            if keys & wanted or (ref.kind == CALL and keys & heirs):
                if java_new and not self.java_runs(ref, target, heirs):
                    continue  # another overload, or a subclass whose constructors choose
                if (ref.path, ref.scope) == (target.path, target.qualified_name) and \
                        target.line_start <= ref.line <= target.line_end:
                    continue  # recursion is not a caller of interest (an overload's call is)
                if ref.kind == CALL and self.other_overload(ref, target):
                    continue  # its argument count fits a same-named sibling, not the target
                if self.shadowed(ref) and not self.nested_binding(ref, res.definitions):
                    continue  # a parameter or local of that name, not the definition
                if accessor and not self.accesses(ref, accessor):
                    continue  # a property's setter is used by writes only, its deleter by del
                confidence = res.confidence
                if ref in from_text and confidence == EXACT:
                    confidence = PROBABLE  # found in the text, not by the parser
                yield ref, confidence

    def _keys(self, res: Resolution) -> frozenset[tuple[str, str]]:
        """(path, qualified name) of what `res` refers to, once per resolution object (a
        check's references share the resolutions the edge cache decodes)."""
        found = self._resolution_keys.get(id(res))
        if found is None or found[0] is not res:
            found = self._resolution_keys[id(res)] = (
                res, frozenset((d.path, d.qualified_name) for d in res.definitions))
        return found[1]

    def object_handed_on(self, target: Definition) -> Iterator[tuple[Reference, str]]:
        """JS/TS: a method of an object literal its function returns (rxjs's createAnimator:
        `const delegate = { cancelAnimationFrame(h) {..} }; return { animate, delegate }`).
        Where a caller of that function reads the object (`provider.delegate =
        animator.delegate`), it hands on a value of the method's shape, as a function
        passed as an argument: probable. Calls through it elsewhere stay name matches."""
        fn = self.resolver.scope(target.path).by_qualified.get(target.parent)
        if fn is None or fn.kind not in (FUNCTION, METHOD):
            return
        body = self.resolver.lines(target.path)[fn.line_start - 1 : fn.line_end]
        local = ecmatypes.holding_local(body, fn.line_start, target.line_start)
        prop = ecmatypes.returned_as(body, local) if local else None
        if prop is None:
            return
        for ref, confidence in self.direct(fn, attributes=False):
            caller = self.definition_of(ref)
            if ref.kind != CALL or confidence == AMBIGUOUS or caller is None:
                continue
            text = self.resolver.lines(ref.path)[caller.line_start - 1 : caller.line_end]
            for at in ecmatypes.result_reads(text, fn.name, prop):
                yield Reference(ref.path, target.name, USE, caller.line_start + at,
                                caller.qualified_name), PROBABLE

    def conforming(self, target: Definition) -> Iterator[Reference]:
        """TypeScript: where an instance of the class of method `target` is passed,
        assigned or returned as a declared type with a member of its name
        (ecmaconform.py)."""
        refs = self.store.references
        plan = ecmaconform.plan_for(self.resolver, target, refs)
        if plan is not None:
            yield from ecmaconform.conforming_uses(self.resolver, target, plan, refs)

    def java_runs(self, ref: Reference, target: Definition,
                  heirs: set[tuple[str, str]]) -> bool:
        """Whether a Java reference to the class of constructor `target` may run it (see
        jvm.py): `extends A` when the subclass has no constructor of its own, `new A(...)`
        and `new B()` of such a subclass, unless the arguments fit another constructor of
        A and not `target` (the target is the changed one: its old parameters are gone)."""
        if ref.kind == INHERIT and (ref.path, ref.scope) not in heirs:
            return False  # its own constructors call `super(...)` as they choose
        if ref.kind not in (CALL, INHERIT):
            return True
        others = [d for d in self.resolver.scope(target.path).definitions
                  if d.parent == target.parent and d.name == target.name and d != target]
        if not others:
            return True
        arguments: int | None = 0  # a subclass's default constructor calls `super()`
        if ref.kind == CALL and ref.name == target.name:
            lines = self.resolver.lines(ref.path)
            line = lines[ref.line - 1] if 0 < ref.line <= len(lines) else ""
            arguments = jvm.argument_count(line, ref.name)
        return jvm.fits(target, arguments) or not any(jvm.fits(d, arguments) for d in others)

    def accesses(self, ref: Reference, accessor: str) -> bool:
        """Whether the reference's line writes (`setter`) or deletes (`deleter`) `.name`:
        the getter, a separate definition of the same qualified name, serves the reads."""
        lines = self.resolver.lines(ref.path)
        text = lines[ref.line - 1] if 0 < ref.line <= len(lines) else ""
        name = re.escape(ref.name)
        if accessor == "setter":
            return re.search(rf"\.{name}\s*(?:[-+*/%&|^@]|//|<<|>>|\*\*)?=(?!=)", text) is not None
        return re.search(rf"\bdel\b[^#]*\.{name}\b", text) is not None

    def shadowed(self, ref: Reference) -> bool:
        """A bare Python name that the function reading it binds itself (`def f(command):
        command()`): the resolver looks at definitions and imports only."""
        if ref.receiver or ref.kind in (IMPORT, STRING) or not ref.scope:
            return False
        if language_for(ref.path) in JS_LANGUAGES:  # `let reaction` read in a closure
            return shadowing.bound_around(self.resolver, ref.path, ref.scope, ref.name)
        if language_for(ref.path) != "python":
            return False
        return self.local.bound_locally(ref.path, ref.scope, ref.name)

    def nested_binding(self, ref: Reference, found: tuple[Definition, ...]) -> bool:
        """Whether the local binding of a bare name is one of `found` itself: a function
        defined inside the function that calls it (`def outer(): def helper(): ...;
        helper()`), which binds the name locally and is the definition meant."""
        fs = self.resolver.scope(ref.path)
        for d in found:
            parent = fs.by_qualified.get(d.parent) if d.parent else None
            if parent is not None and parent.kind not in CLASS_KINDS and d.path == ref.path \
                    and (ref.scope == d.parent or ref.scope.startswith(d.parent + ".")):
                return True
        return False

    def type_test(self, ref: Reference) -> bool:
        """Whether the class `ref` names is, on its line, only the class argument of an
        `isinstance`/`issubclass` test (Python): that runs no constructor."""
        lines = self.resolver.lines(ref.path)
        line = lines[ref.line - 1] if 0 < ref.line <= len(lines) else ""
        if "isinstance(" not in line and "issubclass(" not in line:
            return False
        return re.search(rf"\b{re.escape(ref.name)}\b", _TYPE_TEST.sub("", line)) is None

    def heirs(self, cls: Definition, constructor: str) -> list[Definition]:
        """Subclasses of `cls` (transitively) that do not define `constructor` themselves:
        calling them runs `cls`'s. Found through the base-class references to each."""
        out: list[Definition] = []
        todo, seen = [cls], {(cls.path, cls.qualified_name)}
        while todo and len(out) < MAX_HEIRS:
            parent = todo.pop()
            for ref in self.store.references(name=parent.name):
                if ref.kind != INHERIT:
                    continue
                sub = self.definition_of(ref)
                if sub is None or sub.kind != CLASS or (sub.path, sub.qualified_name) in seen:
                    continue
                if not any((d.path, d.qualified_name) == (parent.path, parent.qualified_name)
                           for d in self.resolver.resolve(ref).definitions):
                    continue
                seen.add((sub.path, sub.qualified_name))
                # Java: a constructor is named after its class, the subclass's after it.
                own_name = sub.name if constructor == cls.name else constructor
                own = self.resolver.scope(sub.path).children.get((sub.qualified_name,
                                                                   own_name))
                if own is None:
                    out.append(sub)
                    todo.append(sub)
        return out

    def passed_receivers(self, target: Definition) -> Iterator[tuple[Reference, str]]:
        """Python, JavaScript/TypeScript: calls of method `target` on a parameter that a
        caller passes an instance of its class (paramflow.py), each with that caller."""
        if language_for(target.path) not in paramflow.LANGUAGES or target.kind != METHOD:
            return
        cls = self.resolver.scope(target.path).by_qualified.get(target.parent)
        paths = {target.path} | ({r.path for r in self.store.references(name=cls.name)}
                                 if cls is not None and is_protocol_method(target) else set())
        yield from self.passed.receivers(target, paths)

    def implicit(self, target: Definition, jvm_syntax: bool = False) -> Iterator[Reference]:
        """Sites whose syntax calls `target` (`for x in Thing()` for `__iter__`), in the
        files that name its class."""
        cls = self.resolver.scope(target.path).by_qualified.get(target.parent)
        if is_rust_syntax_method(target):  # an `impl` block's method: the type is elsewhere
            cls = self.resolver.enclosing_class(target.path, target.qualified_name)
        if cls is None:
            return
        paths = {target.path} | {r.path for r in self.store.references(name=cls.name)}
        if jvm_syntax:
            yield from jvmsyntax.implicit_calls(self.resolver, target, paths)
        elif is_rust_syntax_method(target):
            yield from rust_implicit_calls(self.resolver, target, paths)
        elif is_ecma_syntax_method(target):
            yield from ecma_implicit_calls(self.resolver, target, paths)
        else:
            yield from implicit_calls(self.resolver, target, paths)

    def other_overload(self, ref: Reference, target: Definition) -> bool:
        """Whether `ref` calls an overload of `target` rather than it (overloads.py)."""
        if language_for(target.path) not in overloads.OVERLOAD_LANGUAGES:
            return False
        siblings = [d for d in self.resolver.scope(target.path).definitions
                    if d.qualified_name == target.qualified_name
                    and d.line_start != target.line_start]
        if not siblings:
            return False
        lines = self.resolver.lines(ref.path)
        line = lines[ref.line - 1] if 0 < ref.line <= len(lines) else ""
        # The overload that holds the call (overloads share their qualified name).
        caller = max((d for d in self.resolver.scope(ref.path).definitions
                      if d.qualified_name == ref.scope and d.line_start <= ref.line),
                     key=lambda d: d.line_start, default=None)
        before = lines[caller.line_start - 1 : ref.line] if caller is not None else []
        if overloads.other_overload(target, siblings, line, before):
            return True
        return language_for(target.path) == "java" and jvmoverloads.other_overload(
            self.resolver, ref, target, siblings, line, before)

    def subclasses(self, cls: Definition) -> Iterator[Definition]:
        """The classes whose base list names `cls`."""
        for ref in self.store.references(name=cls.name):
            # A C# base list's name resolves to the class or its same-named constructor.
            if ref.kind != INHERIT or not any(
                    d.path == cls.path and cls.qualified_name in (d.qualified_name, d.parent)
                    for d in self.resolver.resolve(ref).definitions):
                continue
            sub = self.definition_of(ref)
            if sub is not None and sub.kind in CLASS_KINDS:
                yield sub

    def syntax_sites(self, target: Definition) -> Iterator[tuple[Reference, str]]:
        """C++/C# sites whose syntax calls `target` (`a + b`, `foreach`, `using`, `delete`),
        in the files that name its class (cfamsyntax.py)."""
        cls = cfamsyntax.owner(self.resolver, target)
        if cls is None:
            return
        paths = {target.path} | {r.path for r in self.store.references(name=cls.name)}
        yield from cfamsyntax.syntax_sites(self.resolver, target, paths)

    def invoked(self, use: Reference, in_function: bool = True) -> Iterator[Reference]:
        """For a name passed as an argument, the calls of the parameter it binds; for a
        name assigned to a variable, the calls of that variable."""
        if language_for(use.path) in INVOKED_LANGUAGES and (
                in_function or language_for(use.path) == "python"):
            # (Python at module level too: `apply(target)` as a script's statement.)
            yield from invoked_parameters(self.resolver, use)
        elif language_for(use.path) in jvm.PASSING_LANGUAGES:
            yield from jvm.invoked_parameters(self.resolver, use)
        if language_for(use.path) in ASSIGNED_LANGUAGES:
            yield from assigned_calls(self.resolver, use)

    def candidates(self, names: set[str]) -> Iterator[Reference]:
        """References carrying one of `names`, and the later uses of aliases they bind."""
        refs = self.store.references
        for name in sorted(names):
            for ref in refs(name=name):
                yield ref
                if ref.kind == IMPORT and ref.alias and ref.alias != name and ref.name == name:
                    for use in refs(name=ref.alias, path=ref.path):
                        if use.kind != IMPORT:
                            yield use

    def stub_declarations(self, target: Definition) -> Iterator[tuple[Reference, str]]:
        """A Python definition's declaration in the `.pyi` stub beside it: a signature
        change must be made there too, so the stub is affected like a caller."""
        stub = target.path + "i"
        if not target.path.endswith(".py") or stub not in self.resolver.paths:
            return
        declared = self.resolver.scope(stub).by_qualified.get(target.qualified_name)
        if declared is not None:
            yield Reference(stub, target.name, "use", declared.line_start, declared.parent), EXACT

    def definition_of(self, ref: Reference) -> Definition | None:
        if not ref.scope:
            return None
        return self.resolver.scope(ref.path).by_qualified.get(ref.scope)

    # --- hits -------------------------------------------------------------------------------

    def hit(self, edge: Edge) -> Hit:
        caller = self.definition_of(edge.ref)
        kind = caller.kind if caller is not None else "module"
        score = CONFIDENCE_SCORE.get(edge.confidence, 0.3) * KIND_SCORE.get(edge.ref.kind, 0.8)
        score /= edge.depth
        return Hit(
            path=edge.ref.path,
            line_start=edge.ref.line,
            line_end=edge.ref.line,
            symbol=edge.caller,
            score=score,
            modality=self.modality,
            kind=kind,
            depth=edge.depth,
            confidence=edge.confidence,
            via=edge.via,
            reason=CONFORMS if edge.ref.kind == CONFORMS else "",
        )


def _accessor(target: Definition) -> str:
    """"setter" or "deleter" for a Python property's `@name.setter` / `@name.deleter`."""
    if not target.parent or language_for(target.path) != "python" or \
            ".setter" not in target.signature and ".deleter" not in target.signature:
        return ""  # (the plain test first: a pattern per name thrashed re's cache)
    m = re.search(rf"@\s*{re.escape(target.name)}\.(setter|deleter)\b", target.signature)
    return m.group(1) if m else ""


def _ref_order(ref: Reference) -> tuple[str, int]:
    return (ref.path, ref.line)


# `isinstance(x, C)`, `issubclass(k, (A, C))`: the class argument, removed to see whether
# the name is also used otherwise on that line.
_TYPE_TEST = re.compile(r"\b(?:isinstance|issubclass)\(\s*[^,()]+,\s*(?:\([^()]*\)|[^()]*)\)")


def _constructor(target: Definition) -> bool:
    """A constructor that a subclass without its own inherits: Python's `__init__`, Ruby's
    `initialize`, PHP's `__construct`, JavaScript's `constructor` (`new B()` runs A's)."""
    return target.name in CONSTRUCTORS or (
        target.name == "constructor" and language_for(target.path) in JS_LANGUAGES)


def _managed_constructor(target: Definition) -> bool:
    """Whether `target` is a C#, Kotlin, Scala or Swift constructor of its parent class."""
    language = language_for(target.path) or ""
    if language in ("csharp", "java"):
        return jvm.is_constructor(target)
    return MANAGED_CONSTRUCTORS.get(language) == target.name
