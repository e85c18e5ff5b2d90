"""References the index does not keep, recovered from the text: `obj.name` reads without
a call, and top-level Python names read as values (`return a, b`, `x = f if c else g`).

Lines the text index finds are turned into references that the graph resolves like any
other; comments, docstrings, strings and names bound locally are passed over.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cached_property
from typing import TYPE_CHECKING

from maguyva_guard import spec
from maguyva_guard.extract.languages import language_for
from maguyva_guard.index import fulltext
from maguyva_guard.records import IMPORT, MODULE_SYMBOL, USE, Definition, Hit, Reference
from maguyva_guard.retrievers.base import Retriever, SearchRequest
from maguyva_guard.retrievers.comments import CommentMap, style_for
from maguyva_guard.retrievers.pylocals import LocalBindings, in_comment_or_string
from maguyva_guard.retrievers.resolve import ATTRIBUTE, Resolver

if TYPE_CHECKING:
    from maguyva_guard.index.store import Store

ATTRIBUTE_SCAN_LIMIT = 2000  # text lines examined for `obj.name` reads of one member
COMPILED = frozenset({"go"})  # methods are not assignable: `x.name = ..` writes a field
FIELD_LANGUAGES = frozenset({"go"})
# A method is taken as a value with `Type::method` (Rust) or `obj::method` (Java), never as
# `obj.method`: there a read `obj.name` is a field.
NO_METHOD_VALUES = frozenset({"rust", "java"})  # a struct field of a method's name hides its reads
_ASSIGNED = re.compile(r"\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)")  # `x.name = ...`, `x.name += ...`


class TextReferences:
    """Recovers references from the text index for one view (store, resolver)."""

    def __init__(self, store: Store, resolver: Resolver, local: LocalBindings) -> None:
        self.store = store
        self.resolver = resolver
        self.local = local

    @cached_property
    def text(self) -> Retriever:
        from maguyva_guard.retrievers.text import TextRetriever

        return TextRetriever(self.store)

    def lines_referring(self, path: str, name: str) -> set[int]:
        """The lines of `path` where the index already has a reference to `name`: from the
        name's references, read once for all paths (the graph reads them anyway), not one
        query per hit file (a 50-symbol Django check asked 981)."""
        by_path = self._referring.get(name)
        if by_path is None:
            by_path = self._referring[name] = {}
            for r in self.store.references(name=name):
                by_path.setdefault(r.path, set()).add(r.line)
        return set(by_path.get(path, ()))

    @cached_property
    def _referring(self) -> dict[str, dict[str, set[int]]]:
        return {}

    def attribute_uses(self, target: Definition) -> Iterator[Reference]:
        """`obj.name` without a call, which the index does not keep everywhere (a property
        read, a bound method passed on): lines the text index finds, turned into references
        to resolve like any other. Lines the index already has a reference for are skipped."""
        name = target.name
        if language_for(target.path) in NO_METHOD_VALUES:
            return  # `obj.name` without a call can only be a field there
        hits = self.text.search(
            SearchRequest(query=name, intent=spec.EXACT_MATCH, terms=(name,),
                          limit=ATTRIBUTE_SCAN_LIMIT))
        pattern = re.compile(rf"([A-Za-z_][\w.]*(?:\(\))?)\.{re.escape(name)}\b(?!\s*\()")
        known: dict[str, set[int]] = {}
        language = language_for(target.path)
        field = language in FIELD_LANGUAGES and self._go_field(name, hits)
        for hit in hits:
            if language_for(hit.path) != language:
                continue  # prose and other languages: a `x.name` there is no reference
            if hit.path not in known:
                known[hit.path] = self.lines_referring(hit.path, name)
            if hit.line_start in known[hit.path]:
                continue
            lines = self.resolver.lines(hit.path)
            text = lines[hit.line_start - 1] if hit.line_start <= len(lines) else ""
            python = language == "python"
            for m in pattern.finditer(text):
                if (python and in_comment_or_string(text, m.start())) \
                        or self._in_docstring(hit, m.start()):
                    # `Use attrs.evolve instead` in a docstring, `[Store.close]` in a KDoc,
                    # `{@link Store#close}` in a Javadoc: a comment is never a caller.
                    continue
                if language in COMPILED and (field or _ASSIGNED.match(text, m.end())):
                    # Go, Java, Rust: a method cannot be assigned to (`flag.Changed = true`
                    # writes a field), and a Go struct field of that name makes a plain
                    # read of it the field (pflag: `!flag.Changed` is Flag.Changed).
                    continue
                scope = hit.symbol if hit.symbol != MODULE_SYMBOL else ""
                yield Reference(hit.path, name, ATTRIBUTE, hit.line_start, scope, m.group(1))
    def _go_field(self, name: str, hits: list[Hit]) -> bool:
        """Whether a Go struct declares a field `name` (a line `Name Type` or
        `A, Name Type` among the text hits of `name`)."""
        decl = re.compile(rf"^\s*(?:\w+\s*,\s*)*{re.escape(name)}(?:\s*,\s*\w+)*\s+[\w*\[\]]")
        return any(language_for(h.path) == "go" and decl.match(self._line(h.path, h.line_start))
                   for h in hits)

    def data_attribute(self, name: str) -> bool:
        """Whether some Python class stores `name` as data (`self.name = ...`): then a read
        `obj.name` on a receiver of unknown type may be that attribute, not a method."""
        found = self._data_attributes.get(name)
        if found is None and not self._stored_anywhere(name):
            found = self._data_attributes[name] = False
        if found is None:
            hits = self.text.search(
                SearchRequest(query=name, intent=spec.EXACT_MATCH, terms=(name,),
                              limit=ATTRIBUTE_SCAN_LIMIT))
            stores = _stores(name)
            found = any(
                language_for(h.path) == "python"
                and stores.search(self._line(h.path, h.line_start)) is not None
                for h in hits)
            self._data_attributes[name] = found
        return found
    @cached_property
    def _data_attributes(self) -> dict[str, bool]:
        return {}

    def _stored_anywhere(self, name: str) -> bool:
        """Whether a Python text of the view may hold `self.name = ...` at all: the text
        index's candidates for `self.name`, each searched whole. When none matches, no line
        of the ranked search in data_attribute can (it reads the same texts): for most
        names one small query instead of a search that reads and ranks every text naming
        them (3.5% of a 50-symbol Django check, validating cached edges)."""
        candidates = fulltext.candidate_blobs(self.store.conn, f"self.{name}")
        if candidates is None:
            return True
        python = self._python_blobs()
        # data_attribute's line pattern with `\n` kept out of its classes: on a whole text
        # it still matches wherever that pattern matches within a line (no line holds `\n`).
        stores = re.compile(rf"\bself\.{re.escape(name)}[^\S\n]*(?::[^=\n]+)?=(?!=)")
        texts = fulltext.read_texts(self.store.conn, candidates & python)
        return any(stores.search(text) for text in texts.values())

    def _python_blobs(self) -> set[str]:
        files = self.store.files()
        if self._python is None or self._python[0] is not files:
            self._python = (files, {info.blob for path, info in files.items()
                                    if language_for(path) == "python"})
        return self._python[1]

    _python: tuple[object, set[str]] | None = None
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
        for ref in self.store.references(name=name):
            if ref.kind == IMPORT and ref.alias and ref.alias != name and ref.name == name:
                known = terms.get(ref.alias) or frozenset()
                terms[ref.alias] = known | {ref.path}
        for term, paths in terms.items():
            yield from self._term_uses(term, paths)
    def evaluated_uses(self, target: Definition) -> Iterator[Reference]:
        """Python code in a string literal run by `eval`/`exec` that names `target`
        (`eval("func()")`): no parser reads it, so such a line is only a possible caller
        (ambiguous, listed apart), and the answer is a lower bound, not "no impact"."""
        name = target.name
        hits = self._word_hits(name)
        run = re.compile(rf"\b(?:eval|exec)\s*\(\s*[rbuf]*(['\"])[^'\"]*\b{re.escape(name)}\b")
        for hit in hits:
            if language_for(hit.path) != "python":
                continue
            text = self._line(hit.path, hit.line_start)
            if "eval" in text or "exec" in text:
                m = run.search(text)
                if m is not None and not in_comment_or_string(text, m.start()):
                    scope = hit.symbol if hit.symbol != MODULE_SYMBOL else ""
                    yield Reference(hit.path, name, USE, hit.line_start, scope)

    def _word_hits(self, term: str) -> list[Hit]:
        """The text index's lines holding `term`, asked once per term (name_uses and
        evaluated_uses read the same lines)."""
        found = self._hits.get(term)
        if found is None:
            found = self._hits[term] = self.text.search(
                SearchRequest(query=term, intent=spec.EXACT_MATCH, terms=(term,),
                              limit=ATTRIBUTE_SCAN_LIMIT))
        return found

    @cached_property
    def _hits(self) -> dict[str, list[Hit]]:
        return {}

    def _term_uses(self, term: str, paths: frozenset[str] | None) -> Iterator[Reference]:
        hits = self._word_hits(term)
        word = re.escape(term)
        pattern = re.compile(rf"(?<![\w.])(?:([A-Za-z_][\w.]*)\.)?{word}\b")
        rebind = re.compile(r"\s*=[^=]")
        definition = re.compile(rf"\s*(?:async\s+)?(?:def|class)\s+{word}\b")
        known: dict[str, set[int]] = {}
        for hit in hits:
            if language_for(hit.path) != "python" or (paths is not None and hit.path not in paths):
                continue
            if hit.path not in known:
                known[hit.path] = self.lines_referring(hit.path, term)
            if hit.line_start in known[hit.path]:
                continue
            lines = self.resolver.lines(hit.path)
            text = lines[hit.line_start - 1] if hit.line_start <= len(lines) else ""
            if definition.match(text):
                continue  # its own definition (or a same-named one: not a use)
            scope = hit.symbol if hit.symbol != MODULE_SYMBOL else ""
            for m in pattern.finditer(text):
                receiver = m.group(1) or ""
                if in_comment_or_string(text, m.start()) or self._in_docstring(hit, m.start()):
                    continue
                if not receiver and (rebind.match(text, m.end())
                                     or self.local.bound_locally(hit.path, scope, term)):
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
            style = style_for(hit.path, language_for(hit.path))
            comments = (CommentMap("\n".join(lines), style), offsets)
            self._comment_maps[hit.path] = comments
        cmap, offsets = comments
        at = offsets[hit.line_start - 1] if hit.line_start - 1 < len(offsets) else 0
        return cmap.is_comment(at + column, at)
    @cached_property
    def _comment_maps(self) -> dict[str, tuple[CommentMap, list[int]]]:
        return {}


def _stores(name: str) -> re.Pattern[str]:
    """`self.name = ...` (annotated or not), the store that makes `name` a data attribute."""
    return re.compile(rf"\bself\.{re.escape(name)}\s*(?::[^=]+)?=(?!=)")
