"""The graph modality (SPEC 1): callers, users and the blast radius of a change.

Edges are resolved on demand: to find who refers to a definition, only the references that
carry its name (or an alias bound to it) are looked at, each resolved through its file's
bindings by maguyva_guard.resolve. A whole-program pass would cost seconds on every commit;
this costs what the target's name costs.

Centrality (SPEC 5) is precomputed on the name-level graph of the whole view: every
reference votes for the definitions that carry its name, splitting its vote among them, and
PageRank runs over those edges. It is scaled by the number of nodes, so that the average
definition has centrality 1 and the boost of SPEC 5 reads naturally.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import chain

from maguyva_guard import spec
from maguyva_guard.languages import language_for
from maguyva_guard.records import (
    AMBIGUOUS,
    CLASS,
    EXACT,
    IMPORT,
    PROBABLE,
    Definition,
    Hit,
    Reference,
)
from maguyva_guard.resolve import ATTRIBUTE, CLASS_KINDS, Resolver
from maguyva_guard.retrievers.base import Retriever, SearchRequest

MODULE_SYMBOL = "<module>"
MEMBER_KINDS = frozenset({"method", "constant", "function"})  # what `obj.name` can read
ATTRIBUTE_SCAN_LIMIT = 2000  # text lines examined for `obj.name` reads of one member
CONSTRUCTORS = frozenset({"__init__", "__new__"})

# How much a graph hit's raw score keeps at each level of certainty (our numbers, not SPEC's:
# they only order the graph's own list, before fusion turns ranks into scores).
CONFIDENCE_SCORE = {EXACT: 1.0, PROBABLE: 0.7, AMBIGUOUS: 0.3}
# A call breaks first when a signature changes; an import line only names the symbol.
KIND_SCORE = {"call": 1.0, "inherit": 0.95, "decorator": 0.95, "use": 0.8, "annotation": 0.7,
              "string": 0.6, "import": 0.5}
WEAKEST = {EXACT: 0, PROBABLE: 1, AMBIGUOUS: 2}


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

    def __init__(self, store: object, resolver: Resolver | None = None):
        self.store = store
        self.resolver = resolver or Resolver(store)  # type: ignore[arg-type]

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
            defs = self.store.definitions(name=name)  # type: ignore[attr-defined]
            if "." in term:
                defs = [d for d in defs if d.qualified_name.endswith(term)] or defs
            out.extend(defs)
        return out

    # --- callers -----------------------------------------------------------------------------

    def callers(self, target: Definition, depth: int = 1) -> list[Edge]:
        """Who refers to `target`, transitively to `depth`, each edge with its chain."""
        edges: list[Edge] = []
        seen = {(target.path, target.qualified_name)}
        frontier = [(target, (target.qualified_name,), EXACT)]
        for level in range(1, depth + 1):
            nxt = []
            for t, via, weakest in frontier:
                for ref, confidence in self.direct(t, attributes=level == 1):
                    conf = max(confidence, weakest, key=WEAKEST.__getitem__)
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
        candidates = self.candidates(names)
        if attributes and target.parent and target.kind in MEMBER_KINDS:
            candidates = chain(candidates, self.attribute_uses(target))
        for ref in candidates:
            res = self.resolver.resolve(ref)
            if any((d.path, d.qualified_name) in wanted for d in res.definitions):
                if (ref.path, ref.scope) == (target.path, target.qualified_name):
                    continue  # recursion is not a caller of interest
                yield ref, res.confidence

    def candidates(self, names: set[str]) -> Iterator[Reference]:
        """References carrying one of `names`, and the later uses of aliases they bind."""
        refs = self.store.references  # type: ignore[attr-defined]
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

    def attribute_uses(self, target: Definition) -> Iterator[Reference]:
        """`obj.name` without a call, which the index does not keep everywhere (a property
        read, a bound method passed on): lines the text index finds, turned into references
        to resolve like any other. Lines the index already has a reference for are skipped."""
        name = target.name
        hits = self.text.search(
            SearchRequest(query=name, intent=spec.EXACT_MATCH, terms=(name,),
                          limit=ATTRIBUTE_SCAN_LIMIT))
        pattern = re.compile(rf"([A-Za-z_][\w.]*(?:\(\))?)\.{re.escape(name)}\b(?!\s*\()")
        known: dict[str, set[int]] = {}
        language = language_for(target.path)
        for hit in hits:
            if language_for(hit.path) != language:
                continue  # prose and other languages: a `x.name` there is no reference
            if hit.path not in known:
                known[hit.path] = {r.line for r in self.resolver.scope(hit.path).references
                                   if r.name == name}
            if hit.line_start in known[hit.path]:
                continue
            lines = self.resolver.lines(hit.path)
            text = lines[hit.line_start - 1] if hit.line_start <= len(lines) else ""
            for m in pattern.finditer(text):
                scope = hit.symbol if hit.symbol != MODULE_SYMBOL else ""
                yield Reference(hit.path, name, ATTRIBUTE, hit.line_start, scope, m.group(1))

    @cached_property
    def text(self) -> Retriever:
        from maguyva_guard.retrievers.text import TextRetriever

        return TextRetriever(self.store)  # type: ignore[arg-type]

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


def is_class(d: Definition) -> bool:
    return d.kind in CLASS_KINDS
