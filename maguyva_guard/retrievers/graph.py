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

import ast
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import chain

from maguyva_guard import spec
from maguyva_guard.extract.languages import language_for
from maguyva_guard.records import (
    AMBIGUOUS,
    CLASS,
    EXACT,
    IMPORT,
    PROBABLE,
    STRING,
    USE,
    Definition,
    Hit,
    Reference,
)
from maguyva_guard.retrievers.base import Retriever, SearchRequest
from maguyva_guard.retrievers.comments import PYTHON as PYTHON_COMMENTS
from maguyva_guard.retrievers.comments import CommentMap
from maguyva_guard.retrievers.resolve import ATTRIBUTE, CLASS_KINDS, Resolver

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
        self.resolver = resolver or Resolver(store, self.data_attribute)  # type: ignore[arg-type]

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
        accessor = _accessor(target)
        candidates = self.candidates(names)
        from_text: set[Reference] = set()
        if attributes and target.parent and target.kind in MEMBER_KINDS:
            candidates = chain(candidates, self.attribute_uses(target))
        elif attributes and not target.parent and language_for(target.path) == "python":
            from_text = set(self.name_uses(target))
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
        return self.bound_locally(ref.path, ref.scope, ref.name)

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
            python = language == "python"
            for m in pattern.finditer(text):
                if python and (_in_comment_or_string(text, m.start())
                               or self._in_docstring(hit, m.start())):
                    continue  # `Use attrs.evolve instead` in a docstring is no read
                scope = hit.symbol if hit.symbol != MODULE_SYMBOL else ""
                yield Reference(hit.path, name, ATTRIBUTE, hit.line_start, scope, m.group(1))

    def data_attribute(self, name: str) -> bool:
        """Whether some Python class stores `name` as data (`self.name = ...`): then a read
        `obj.name` on a receiver of unknown type may be that attribute, not a method."""
        found = self._data_attributes.get(name)
        if found is None:
            hits = self.text.search(
                SearchRequest(query=name, intent=spec.EXACT_MATCH, terms=(name,),
                              limit=ATTRIBUTE_SCAN_LIMIT))
            stores = re.compile(rf"\bself\.{re.escape(name)}\s*(?::[^=]+)?=(?!=)")
            found = any(
                language_for(h.path) == "python"
                and stores.search(self._line(h.path, h.line_start)) is not None
                for h in hits)
            self._data_attributes[name] = found
        return found

    @cached_property
    def _data_attributes(self) -> dict[str, bool]:
        return {}

    def _line(self, path: str, line: int) -> str:
        lines = self.resolver.lines(path)
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def name_uses(self, target: Definition) -> Iterator[Reference]:
        """A top-level Python name read as a value where the index keeps no reference:
        `return a, b`, `NOTHING = _Nothing.NOTHING`, `x = f if c else mod.g`, and the same
        for an alias an import binds to it. Without these, a function only ever passed
        around has "no callers" and the check says "no impact". Lines the text index
        finds, in code (not comments, docstrings or string literals), a bare name not bound
        locally where it is read (a parameter, an assignment, a loop variable); each
        becomes a `use` resolved like any other."""
        name = target.name
        terms: dict[str, frozenset[str] | None] = {name: None}  # term -> paths (None: all)
        for ref in self.store.references(name=name):  # type: ignore[attr-defined]
            if ref.kind == IMPORT and ref.alias and ref.alias != name and ref.name == name:
                paths = terms.get(ref.alias) or frozenset()
                terms[ref.alias] = paths | {ref.path}
        for term, paths in terms.items():
            yield from self._term_uses(term, paths)

    def _term_uses(self, term: str, paths: frozenset[str] | None) -> Iterator[Reference]:
        hits = self.text.search(
            SearchRequest(query=term, intent=spec.EXACT_MATCH, terms=(term,),
                          limit=ATTRIBUTE_SCAN_LIMIT))
        word = re.escape(term)
        pattern = re.compile(rf"(?<![\w.])(?:([A-Za-z_][\w.]*)\.)?{word}\b")
        rebind = re.compile(r"\s*=[^=]")
        definition = re.compile(rf"\s*(?:async\s+)?(?:def|class)\s+{word}\b")
        known: dict[str, set[int]] = {}
        for hit in hits:
            if language_for(hit.path) != "python" or (paths is not None and hit.path not in paths):
                continue
            if hit.path not in known:
                known[hit.path] = {r.line for r in self.resolver.scope(hit.path).references
                                   if r.name == term}
            if hit.line_start in known[hit.path]:
                continue
            lines = self.resolver.lines(hit.path)
            text = lines[hit.line_start - 1] if hit.line_start <= len(lines) else ""
            if definition.match(text):
                continue  # its own definition (or a same-named one: not a use)
            scope = hit.symbol if hit.symbol != MODULE_SYMBOL else ""
            for m in pattern.finditer(text):
                receiver = m.group(1) or ""
                if _in_comment_or_string(text, m.start()) or self._in_docstring(hit, m.start()):
                    continue
                if not receiver and (rebind.match(text, m.end())
                                     or self.bound_locally(hit.path, scope, term)):
                    continue
                yield Reference(hit.path, term, USE, hit.line_start, scope, receiver)
                break

    def _in_docstring(self, hit: Hit, column: int) -> bool:
        comments = self._comment_maps.get(hit.path)
        if comments is None:
            lines = self.resolver.lines(hit.path)
            offsets = [0]
            for line in lines:
                offsets.append(offsets[-1] + len(line) + 1)
            comments = (CommentMap("\n".join(lines), PYTHON_COMMENTS), offsets)
            self._comment_maps[hit.path] = comments
        cmap, offsets = comments
        at = offsets[hit.line_start - 1] if hit.line_start - 1 < len(offsets) else 0
        return cmap.is_comment(at + column, at)

    @cached_property
    def _comment_maps(self) -> dict[str, tuple[CommentMap, list[int]]]:
        return {}

    def bound_locally(self, path: str, scope: str, name: str) -> bool:
        """Whether `name` is a parameter or local of the function around `scope` (or of a
        function enclosing that one): then a bare `name` there is not the module's."""
        key = (path, scope, name)
        found = self._locals.get(key)
        if found is None:
            found = self._locals[key] = self._bound_locally(path, scope, name)
        return found

    def _bound_locally(self, path: str, scope: str, name: str) -> bool:
        fs = self.resolver.scope(path)
        d = fs.by_qualified.get(scope)
        while d is not None:
            if d.kind not in CLASS_KINDS and name in self.function_locals(path, d):
                return True
            d = fs.by_qualified.get(d.parent) if d.parent else None
        return False

    def function_locals(self, path: str, d: Definition) -> frozenset[str]:
        """The names a Python function binds itself: parameters, assignment, loop, `with`
        and `except` targets (not those it declares global or nonlocal; a local import
        binds the imported definition, which the resolver follows).
        From `ast` on the function's own lines; empty when they do not parse alone."""
        key = (path, d.qualified_name, d.line_start)
        found = self._function_locals.get(key)
        if found is None:
            source = "\n".join(self.resolver.lines(path)[d.line_start - 1 : d.line_end])
            found = self._function_locals[key] = _locals_of(source)
        return found

    @cached_property
    def _function_locals(self) -> dict[tuple[str, str, int], frozenset[str]]:
        return {}

    @cached_property
    def _locals(self) -> dict[tuple[str, str, str], bool]:
        return {}

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


def _accessor(target: Definition) -> str:
    """"setter" or "deleter" for a Python property's `@name.setter` / `@name.deleter`."""
    if not target.parent or language_for(target.path) != "python":
        return ""
    m = re.search(rf"@\s*{re.escape(target.name)}\.(setter|deleter)\b", target.signature)
    return m.group(1) if m else ""


def _ref_order(ref: Reference) -> tuple[str, int]:
    return (ref.path, ref.line)


def _in_comment_or_string(line: str, at: int) -> bool:
    """Whether position `at` of one line is after a `#` or inside a quoted string, the
    `{...}` fields of an f-string excepted (code). A per-line approximation: a string that
    spans lines is the docstring check's business."""
    quote = ""
    fstring = False
    depth = 0  # inside an f-string's replacement field
    i = 0
    while i < at:
        c = line[i]
        if quote and depth:
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
        elif quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
            elif fstring and c == "{":
                if line.startswith("{{", i):
                    i += 1
                else:
                    depth = 1
        elif c in "\"'":
            quote = c
            j = i
            while j > 0 and line[j - 1].isalpha():
                j -= 1
            fstring = "f" in line[j:i].lower()
        elif c == "#":
            return True
        i += 1
    return bool(quote) and not depth


def _locals_of(source: str) -> frozenset[str]:
    """Names bound in the first function of `source` (its nested functions and classes
    bind their own)."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError):
        return frozenset()
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)),
              None)
    if fn is None:
        return frozenset()
    args = fn.args
    bound = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    bound |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    declared: set[str] = set()
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)  # its body is its own scope; decorators are not walked
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared |= set(node.names)
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(bound - declared)


def is_class(d: Definition) -> bool:
    return d.kind in CLASS_KINDS
