"""The graph modality (SPEC 1): callers, users and the blast radius of a change.

Edges are resolved on demand: to find who refers to a definition, only the references that
carry its name (or an alias bound to it) are looked at, each resolved through its file's
bindings by maguyva_guard.retrievers.resolve. A whole-program pass would cost seconds on every
commit; this costs what the target's name costs.

Centrality (SPEC 5) is precomputed on the name-level graph of the whole view: every
reference votes for the definitions that carry its name, splitting its vote among them, and
PageRank runs over those edges. It is scaled by the number of nodes, so that the average
definition has centrality 1 and the boost of SPEC 5 reads naturally.
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
    CLASS,
    CONFIDENCE_RANK,
    EXACT,
    IMPORT,
    MODULE_SYMBOL,
    PROBABLE,
    STRING,
    Definition,
    Hit,
    Reference,
)
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.retrievers.pylocals import LocalBindings
from maguyva_guard.retrievers.resolve import Resolver
from maguyva_guard.retrievers.textrefs import TextReferences

if TYPE_CHECKING:
    from maguyva_guard.index.store import Store

MEMBER_KINDS = frozenset({"method", "constant", "function"})  # what `obj.name` can read
CONSTRUCTORS = frozenset({"__init__", "__new__"})

# How much a graph hit's raw score keeps at each level of certainty (our numbers, not SPEC's:
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
                for ref, confidence in self.direct(t, attributes=level == 1):
                    conf = max(confidence, weakest, key=CONFIDENCE_RANK.__getitem__)
                    edge = Edge(ref, t, conf, level, via)
                    edges.append(edge)
                    caller = self.definition_of(ref)
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
        callers found on the way out: that scan costs a text search each)."""
        names = {target.name}
        constructor_of = None
        if target.name in CONSTRUCTORS and target.parent:
            cls = self.resolver.scope(target.path).by_qualified.get(target.parent)
            if cls is not None and cls.kind == CLASS:
                constructor_of = cls  # changing __init__ changes every ClassName(...) call
                names.add(cls.name)
        wanted = {(target.path, target.qualified_name)}
        if constructor_of is not None:
            wanted.add((constructor_of.path, constructor_of.qualified_name))
        yield from self.stub_declarations(target)
        accessor = _accessor(target)
        candidates = self.candidates(names)
        from_text: set[Reference] = set()
        if attributes and target.parent and target.kind in MEMBER_KINDS:
            candidates = chain(candidates, self.recovered.attribute_uses(target))
        elif attributes and not target.parent and language_for(target.path) == "python":
            from_text = set(self.recovered.name_uses(target))
            candidates = chain(candidates, sorted(from_text, key=_ref_order))
        for ref in candidates:
            res = self.resolver.resolve(ref)
            if any((d.path, d.qualified_name) in wanted for d in res.definitions):
                if (ref.path, ref.scope) == (target.path, target.qualified_name):
                    continue  # recursion is not a caller of interest
                if self.shadowed(ref):
                    continue  # a parameter or local of that name, not the definition
                if accessor and not self.accesses(ref, accessor):
                    continue  # a property's setter is used by writes only, its deleter by del
                confidence = res.confidence
                if ref in from_text and confidence == EXACT:
                    confidence = PROBABLE  # found in the text, not by the parser
                yield ref, confidence

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
        if language_for(ref.path) != "python":
            return False
        return self.local.bound_locally(ref.path, ref.scope, ref.name)

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
        )


def _accessor(target: Definition) -> str:
    """"setter" or "deleter" for a Python property's `@name.setter` / `@name.deleter`."""
    if not target.parent or language_for(target.path) != "python":
        return ""
    m = re.search(rf"@\s*{re.escape(target.name)}\.(setter|deleter)\b", target.signature)
    return m.group(1) if m else ""


def _ref_order(ref: Reference) -> tuple[str, int]:
    return (ref.path, ref.line)





