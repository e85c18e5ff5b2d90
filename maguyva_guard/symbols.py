"""Definitions, references and chunks of one file, from one tree-sitter query pass.

`extract(source, language)` is path-independent: records carry path="" and names local to
the file ("Class.method"); the store adds the path and the module prefix. The per-language
knowledge lives in queries/<language>.scm (capture vocabulary at the top of python.scm) and
in the registry row of languages.py; this module is the one code path that reads them.

Speed: one QueryCursor pass collects everything; scopes come from the sorted definition
spans (a bisect per reference), not from walking each node's parents.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from dataclasses import dataclass
from typing import Final

from tree_sitter import Language, Node, Parser, Query, QueryCursor

from .languages import LANGUAGES, LanguageSpec, query_source
from .records import (
    ANNOTATION,
    CALL,
    DECORATOR,
    IMPORT,
    INHERIT,
    STRING,
    USE,
    Definition,
    FileSymbols,
    Reference,
)
from .symbol_chunks import build_chunks
from .symbol_imports import read_imports
from .symbol_scopes import Item, ScopeMap, resolve_items
from .symbol_text import (
    docstring,
    identifiers_in,
    leading_comment,
    normalize,
    prefix_receiver,
    signature,
    text,
)

_ROLE: Final = re.compile(rb"@(definition|scope|reference)\.(\w+)|@(local|skip|error)\b")
# When two patterns claim one identifier the lower rank wins: `@f(x)` is a decorator, not a
# call; `new Foo()` is a call, not a type annotation; a base class is not a mere use.
_REF_RANK: Final = {IMPORT: 0, INHERIT: 1, DECORATOR: 2, CALL: 3, ANNOTATION: 4, STRING: 5, USE: 6}
_PLAIN_NAME: Final = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


# Codes of what a pattern captures, dispatched on in the hot loop.
_REF, _IMPORT, _DEF, _SCOPE, _LOCAL, _SKIP, _ERROR = range(7)
_GROUP_CODES: Final = {"definition": _DEF, "scope": _SCOPE, "local": _LOCAL, "skip": _SKIP,
                       "error": _ERROR}


@dataclass(frozen=True)
class _Role:
    code: int  # one of the codes above
    kind: str  # the definition/reference/scope kind; "" for the others
    capture: str  # the capture name that holds the role's node
    rank: int  # references: _REF_RANK of the kind


@dataclass(frozen=True)
class _Compiled:
    spec: LanguageSpec
    language: Language
    query: Query  # immutable once built: shared by every thread
    roles: tuple[_Role, ...]


_COMPILED: dict[str, _Compiled] = {}
# A Parser holds parse state, so each thread gets its own (the engine runs in threads).
_PARSERS = threading.local()


def extract(source: bytes, language: str) -> FileSymbols:
    """Everything extracted from one file; never raises on any input bytes.

    An unknown language gives an empty FileSymbols.
    """
    if language not in LANGUAGES:
        return FileSymbols(language=language)
    compiled = _COMPILED.get(language) or _compile(language)
    try:
        decoded = source.decode("utf-8")
    except UnicodeDecodeError:
        # The query's text predicates decode strictly and would raise, so parse a repaired
        # copy: U+FFFD for each bad byte; newlines are untouched, so lines stay the same.
        decoded = source.decode("utf-8", "replace")
        source = decoded.encode("utf-8")
    tree = _parser(compiled).parse(source)
    collected = _Collected(source, compiled.spec)
    collected.collect(compiled, tree.root_node)
    return collected.build(language, decoded)


def compile_language(language: str) -> None:
    """Load the grammar and compile the query now (raises on a broken query file)."""
    _compile(language)


def _compile(language: str) -> _Compiled:
    # Imported here: the language pack is large and only needed once something is parsed.
    from tree_sitter_language_pack import get_language

    spec = LANGUAGES[language]
    source = query_source(language) + "\n(ERROR) @error\n"
    grammar = get_language(spec.grammar)
    query = Query(grammar, source)
    raw = source.encode("utf-8")
    roles = []
    for index in range(query.pattern_count):
        pattern = raw[query.start_byte_for_pattern(index) : query.end_byte_for_pattern(index)]
        roles.append(_role_of(pattern, language))
    compiled = _Compiled(spec, grammar, query, tuple(roles))
    _COMPILED[language] = compiled
    return compiled


def _parser(compiled: _Compiled) -> Parser:
    parsers: dict[str, Parser] | None = getattr(_PARSERS, "by_language", None)
    if parsers is None:
        parsers = _PARSERS.by_language = {}
    parser = parsers.get(compiled.spec.name)
    if parser is None:
        parser = parsers[compiled.spec.name] = Parser(compiled.language)
    return parser


def _role_of(pattern: bytes, language: str) -> _Role:
    match = _ROLE.search(pattern)
    if match is None:
        raise ValueError(f"queries for {language}: a pattern without a role capture: {pattern!r}")
    if match.group(3):
        group = match.group(3).decode()
        return _Role(_GROUP_CODES[group], "", group, 0)
    group, kind = match.group(1).decode(), match.group(2).decode()
    capture = f"{group}.{kind}"
    if group != "reference":
        return _Role(_GROUP_CODES[group], kind, capture, 0)
    if kind == IMPORT:
        return _Role(_IMPORT, kind, capture, 0)
    # The records' own string objects, so the hot loop can compare kinds with `is`.
    known = next((k for k in _REF_RANK if k == kind), None)
    if known is None:
        raise ValueError(f"queries for {language}: unknown reference kind {kind!r}")
    return _Role(_REF, known, capture, _REF_RANK[known])


class _Collected:
    """The captures of one pass, then the records built from them."""

    def __init__(self, source: bytes, spec: LanguageSpec) -> None:
        self.source = source
        self.spec = spec
        # name start byte -> (pattern index, kind, node, name, body, qualifier)
        self.defs: dict[int, tuple[int, str, Node, Node, Node | None, Node | None]] = {}
        self.scopes: list[tuple[str, Node, Node]] = []
        # name start byte -> (rank, kind, name node, receiver node, reference node)
        self.refs: dict[int, tuple[int, str, Node, Node | None, Node]] = {}
        self.imports: list[Node] = []
        self.locals: dict[bytes, list[int]] = {}
        self.skips: set[int] = set()
        self.errors = 0

    def collect(self, compiled: _Compiled, root: Node) -> None:
        source, refs, roles = self.source, self.refs, compiled.roles
        for index, captures in QueryCursor(compiled.query).matches(root):
            role = roles[index]
            code = role.code
            if code == _REF:
                names = captures.get("name")
                if not names:
                    continue
                name = names[0]
                key = name.start_byte
                rank = role.rank
                receiver = captures.get("receiver")
                old = refs.get(key)
                if old is None or rank < old[0] or (
                    rank == old[0] and receiver is not None and old[3] is None
                ):
                    node = captures[role.capture][0]
                    refs[key] = (rank, role.kind, name, receiver[0] if receiver else None, node)
            elif code == _DEF:
                self._definition(index, role, captures)
            elif code == _IMPORT:
                self.imports.append(captures[role.capture][0])
            elif code == _LOCAL:
                node = captures["local"][0]
                name_bytes = source[node.start_byte : node.end_byte]
                self.locals.setdefault(name_bytes, []).append(node.start_byte)
            elif code == _SCOPE:
                names = captures.get("name")
                if names:
                    self.scopes.append((role.kind, captures[role.capture][0], names[0]))
            elif code == _SKIP:
                self.skips.add(captures["skip"][0].start_byte)
            elif code == _ERROR:
                self.errors += 1

    def _definition(self, index: int, role: _Role, captures: dict[str, list[Node]]) -> None:
        names = captures.get("name")
        if not names:
            return
        key = names[0].start_byte
        if key in self.defs and self.defs[key][0] <= index:
            return  # the earlier pattern in the query file wins
        body = captures.get("body")
        qualifier = captures.get("qualifier")
        self.defs[key] = (
            index,
            role.kind,
            captures[role.capture][0],
            names[0],
            body[0] if body else None,
            qualifier[0] if qualifier else None,
        )

    def build(self, language: str, decoded: str) -> FileSymbols:
        items = self._items()
        scopes = resolve_items(items)
        imports = self._imports(items, scopes)
        bound = {item.name.encode("utf-8") for item in items}
        bound.update(ref.alias.encode("utf-8") for _, ref in imports)
        references = self._references(items, scopes, bound)
        references.extend(imports)
        references.sort(key=_position)
        definitions = self._definitions(items)  # after the references: they collect the bases
        lines = decoded.split("\n")
        return FileSymbols(
            language=language,
            definitions=definitions,
            references=tuple(reference for _, reference in references),
            chunks=build_chunks(lines, definitions),
            parse_errors=self.errors,
        )

    def _items(self) -> list[Item]:
        source, spec = self.source, self.spec
        items = []
        for _, kind, node, name, body, qualifier in self.defs.values():
            outer = _unwrap(node, spec.wrappers)
            head = _leading(outer, spec.leading)
            qualifier_text = text(source, qualifier) if qualifier is not None else ""
            items.append(Item(head, outer, text(source, name), kind, True, body, qualifier_text))
        for kind, node, name in self.scopes:
            items.append(Item(node, node, text(source, name), kind, False, None, ""))
        return items

    def _definitions(self, items: list[Item]) -> tuple[Definition, ...]:
        source, spec = self.source, self.spec
        found = []
        for item in items:
            if not item.is_definition:
                continue
            doc = docstring(source, item.body) if spec.docstrings else ""
            doc = doc or leading_comment(source, item.head, spec.comment_types)
            found.append(
                Definition(
                    path="",
                    name=item.name,
                    qualified_name=item.qualified,
                    kind=item.kind,
                    line_start=item.line_start,
                    line_end=item.line_end,
                    signature=signature(
                        source, item.start, item.outer, item.body, spec.comment_types
                    ),
                    doc=doc,
                    parent=item.parent,
                    bases=tuple(item.bases),
                )
            )
        return tuple(found)

    def _imports(self, items: list[Item], scopes: ScopeMap) -> list[tuple[int, Reference]]:
        found = []
        for statement in self.imports:
            for imported in read_imports(self.spec.import_style, self.source, statement):
                position = imported.node.start_byte
                owner = scopes.owner(position)
                scope = items[owner].qualified if owner >= 0 else ""
                line = imported.node.start_point[0] + 1
                reference = Reference(
                    "", imported.name, IMPORT, line, scope,
                    target=imported.target, alias=imported.alias,
                )
                found.append((position, reference))
        return found

    def _references(
        self, items: list[Item], scopes: ScopeMap, bound: set[bytes]
    ) -> list[tuple[int, Reference]]:
        # The hot loop of extraction (tens of thousands of references in a large project):
        # locals are bound to names and text is sliced inline on purpose.
        source, local_names = self.source, self.locals
        package_scope = self.spec.package_scope
        skips = self.skips | self.defs.keys()
        bounds, owners = scopes.bounds, scopes.owners
        qualified = [item.qualified for item in items]
        qualified.append("")  # owner -1: module level
        local_owners: dict[bytes, set[int]] = {}
        found: list[tuple[int, Reference]] = []
        append = found.append
        for key, (_, kind, name_node, receiver_node, node) in self.refs.items():
            if key in skips:
                continue
            owner = owners[bisect_right(bounds, key) - 1]
            name_bytes = source[key : name_node.end_byte]
            if receiver_node is not None:
                receiver = normalize(
                    source[receiver_node.start_byte : receiver_node.end_byte].decode(
                        "utf-8", "replace"
                    )
                )
            elif node.start_byte < key:
                receiver = prefix_receiver(source, node, name_node)
            elif kind is USE:
                # A plain identifier: keep it only if it can name something outside the scope.
                if not package_scope:
                    # Capitalised names are classes and constants, rarely locals; they may
                    # come from a star import, so they are kept even when not bound here.
                    if name_bytes not in bound and not name_bytes[:1].isupper():
                        continue
                elif name_bytes in local_names:
                    seen = local_owners.get(name_bytes)
                    if seen is None:
                        seen = {scopes.owner(p) for p in local_names[name_bytes]}
                        local_owners[name_bytes] = seen
                    if owner in seen:
                        continue
                receiver = ""
            else:
                receiver = ""
            name = name_bytes.decode("utf-8", "replace")
            line = name_node.start_point[0] + 1
            scope = qualified[owner]
            if kind is STRING:
                head, _, last = name.rpartition(".")
                append((key, Reference("", last, STRING, line, scope, head, name, "")))
            elif kind is ANNOTATION and not _PLAIN_NAME.match(name):
                for part, part_receiver in identifiers_in(name):
                    append((key, Reference("", part, kind, line, scope, part_receiver, "", "")))
            else:
                append((key, Reference("", name, kind, line, scope, receiver, "", "")))
                if kind is INHERIT and owner >= 0:
                    items[owner].add_base(normalize(text(source, node)))
        return found


def _position(pair: tuple[int, Reference]) -> int:
    return pair[0]


def _unwrap(node: Node, wrappers: tuple[str, ...]) -> Node:
    """Widen a definition to the wrappers that hold only it (decorators, `export`, `type`)."""
    outer = node
    parent = outer.parent
    while parent is not None and parent.type in wrappers:
        if sum(1 for child in parent.named_children if child.type == outer.type) != 1:
            break
        outer = parent
        parent = outer.parent
    return outer


def _leading(node: Node, leading: tuple[str, ...]) -> Node:
    """The first of the decorator/attribute siblings right before a definition, or itself."""
    if not leading:
        return node
    head = node
    sibling = head.prev_sibling
    while sibling is not None and sibling.type in leading:
        head = sibling
        sibling = sibling.prev_sibling
    return head
