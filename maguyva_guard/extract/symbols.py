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
from bisect import bisect_right
from typing import Final, NamedTuple

from tree_sitter import Node, QueryCursor

from maguyva_guard.extract import query as q
from maguyva_guard.extract.chunks import build_chunks
from maguyva_guard.extract.languages import LANGUAGES, LanguageSpec
from maguyva_guard.extract.namespaced import read_imports
from maguyva_guard.extract.scopes import Item, ScopeMap, resolve_items, widen
from maguyva_guard.extract.source_text import (
    docstring,
    identifiers_in,
    leading_comment,
    normalize,
    prefix_receiver,
    signature,
    text,
)
from maguyva_guard.records import (
    ANNOTATION,
    IMPORT,
    INHERIT,
    STRING,
    USE,
    Chunk,
    Definition,
    FileSymbols,
    Reference,
)

_PLAIN_NAME: Final = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
# A reference as its fields after `path` (name, kind, line, scope, receiver, target, alias):
# the index stores these (index/writer.py), and a frozen Reference per reference cost the
# indexer more than its rows (0.4 s of CPU for Django's 275,000 references).
RefFields = tuple[str, str, int, str, str, str, str]


class Extracted(NamedTuple):
    """FileSymbols with each reference as its RefFields (what the index writes)."""

    language: str
    definitions: tuple[Definition, ...] = ()
    references: tuple[RefFields, ...] = ()
    chunks: tuple[Chunk, ...] = ()
    parse_errors: int = 0


def extract(source: bytes, language: str) -> FileSymbols:
    """Everything extracted from one file; never raises on any input bytes.

    An unknown language gives an empty FileSymbols.
    """
    found = extract_fields(source, language)
    return FileSymbols(found.language, found.definitions,
                       tuple(Reference("", *fields) for fields in found.references),
                       found.chunks, found.parse_errors)


def extract_fields(source: bytes, language: str) -> Extracted:
    """`extract`, with each reference as its fields: the records of one file for the index."""
    if language not in LANGUAGES:
        return Extracted(language)
    compiled = q.compiled(language)
    try:
        decoded = source.decode("utf-8")
    except UnicodeDecodeError:
        # The query's text predicates decode strictly and would raise, so parse a repaired
        # copy: U+FFFD for each bad byte; newlines are untouched, so lines stay the same.
        decoded = source.decode("utf-8", "replace")
        source = decoded.encode("utf-8")
    tree = q.parser(compiled).parse(source)
    collected = _Collected(source, compiled.spec)
    collected.collect(compiled, tree.root_node)
    return collected.build(language, decoded)


def compile_language(language: str) -> None:
    """Load the grammar and compile the query now (raises on a broken query file)."""
    q.compiled(language)


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
        self._local_owners: dict[bytes, set[int]] = {}  # local name -> scopes binding it

    def collect(self, compiled: q.Compiled, root: Node) -> None:
        source, refs, roles = self.source, self.refs, compiled.roles
        for index, captures in QueryCursor(compiled.query).matches(root):
            role = roles[index]
            code = role.code
            if code == q.REF:
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
            elif code == q.DEFINITION:
                self._definition(index, role, captures)
            elif code == q.IMPORT_STATEMENT:
                self.imports.append(captures[role.capture][0])
            elif code == q.LOCAL:
                node = captures["local"][0]
                name_bytes = source[node.start_byte : node.end_byte]
                self.locals.setdefault(name_bytes, []).append(node.start_byte)
            elif code == q.SCOPE:
                names = captures.get("name")
                if names:
                    self.scopes.append((role.kind, captures[role.capture][0], names[0]))
            elif code == q.SKIP:
                self.skips.add(captures["skip"][0].start_byte)
            elif code == q.ERROR:
                self.errors += 1

    def _definition(self, index: int, role: q.Role, captures: dict[str, list[Node]]) -> None:
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

    def build(self, language: str, decoded: str) -> Extracted:
        items = self._items()
        scopes = resolve_items(items)
        imports = self._imports(items, scopes)
        bound = {item.name.encode("utf-8") for item in items}
        bound.update(ref[6].encode("utf-8") for _, ref in imports)  # the aliases
        references = self._references(items, scopes, bound)
        references.extend(imports)
        references.sort(key=_position)
        definitions = self._definitions(items)  # after the references: they collect the bases
        lines = decoded.split("\n")
        return Extracted(
            language,
            definitions,
            tuple(reference for _, reference in references),
            build_chunks(lines, definitions),
            self.errors,
        )

    def _items(self) -> list[Item]:
        source, spec = self.source, self.spec
        items = []
        for _, kind, node, name, body, qualifier in self.defs.values():
            head, outer = widen(node, spec.wrappers, spec.leading)
            outer = _content_end(outer, source)
            qualifier_text = text(source, qualifier) if qualifier is not None else ""
            items.append(Item(head, outer, _name(source, name), kind, True, body,
                              qualifier_text))
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

    def _imports(self, items: list[Item], scopes: ScopeMap) -> list[tuple[int, RefFields]]:
        found = []
        for statement in self.imports:
            for imported in read_imports(self.spec.import_style, self.source, statement):
                position = imported.node.start_byte
                owner = scopes.owner(position)
                scope = items[owner].qualified if owner >= 0 else ""
                line = imported.node.start_point[0] + 1
                reference = (imported.name, IMPORT, line, scope, "", imported.target,
                             imported.alias)
                found.append((position, reference))
        return found

    def _references(
        self, items: list[Item], scopes: ScopeMap, bound: set[bytes]
    ) -> list[tuple[int, RefFields]]:
        # The hot loop of extraction (tens of thousands of references in a large project):
        # locals are bound to names and text is sliced inline on purpose.
        source = self.source
        skips = self.skips | self.defs.keys()
        bounds, owners = scopes.bounds, scopes.owners
        qualified = [item.qualified for item in items]
        qualified.append("")  # owner -1: module level
        found: list[tuple[int, RefFields]] = []
        append = found.append
        type_params = self._type_parameters(items, scopes) if self.spec.local_types else {}
        for key, (_, kind, name_node, receiver_node, node) in self.refs.items():
            if key in skips:
                continue
            if type_params and kind is ANNOTATION:
                spans = type_params.get(source[key : name_node.end_byte])
                if spans is not None:
                    at = bisect_right(spans[0], key) - 1
                    if at >= 0 and key < spans[1][at]:
                        continue  # a type parameter of an enclosing definition
            owner = owners[bisect_right(bounds, key) - 1]
            name_bytes = source[key : name_node.end_byte]
            if name_bytes[:1] == b":":  # a Ruby symbol naming a method (ruby.scm): `:name`
                name_bytes = name_bytes[1:]
            if receiver_node is not None:
                receiver = normalize(
                    source[receiver_node.start_byte : receiver_node.end_byte].decode(
                        "utf-8", "replace"
                    )
                )
            elif node.start_byte < key:
                receiver = prefix_receiver(source, node, name_node)
            elif kind is USE and not self._plain_use_kept(name_bytes, owner, bound, scopes):
                continue
            else:
                receiver = ""
            name = name_bytes.decode("utf-8", "replace")
            line = name_node.start_point[0] + 1
            scope = qualified[owner]
            if kind is STRING:
                head, _, last = name.rpartition(".")
                append((key, (last, STRING, line, scope, head, name, "")))
            elif kind is ANNOTATION and not _PLAIN_NAME.match(name):
                for part, part_receiver in identifiers_in(name):
                    append((key, (part, kind, line, scope, part_receiver, "", "")))
            else:
                append((key, (name, kind, line, scope, receiver, "", "")))
                if kind is INHERIT and owner >= 0:
                    items[owner].add_base(normalize(text(source, node)))
        return found


    def _type_parameters(
        self, items: list[Item], scopes: ScopeMap
    ) -> dict[bytes, tuple[list[int], list[int]]]:
        """Each @local name (a type parameter: LanguageSpec.local_types) -> the byte spans
        of the definitions that bind it, merged and sorted (starts, ends) so that a use is
        looked up by bisection: Scala's `A` is bound by hundreds of definitions in a file
        of cats, and a scan of every span for every use was a tenth of its extraction."""
        found: dict[bytes, tuple[list[int], list[int]]] = {}
        for name, positions in self.locals.items():
            spans = sorted({(items[o].start, items[o].end)
                            for o in map(scopes.owner, positions) if o >= 0})
            starts: list[int] = []
            ends: list[int] = []
            for start, end in spans:
                if ends and start <= ends[-1]:  # nested in (or touching) the previous one
                    ends[-1] = max(ends[-1], end)
                else:
                    starts.append(start)
                    ends.append(end)
            if starts:
                found[name] = (starts, ends)
        return found

    def _plain_use_kept(
        self, name: bytes, owner: int, bound: set[bytes], scopes: ScopeMap
    ) -> bool:
        """Whether a bare identifier used as a value may name something outside its scope."""
        if not self.spec.package_scope:
            # Capitalised names are classes and constants, rarely locals; they may come from
            # a star import, so they are kept even when this file does not bind them.
            return name in bound or name[:1].isupper()
        positions = self.locals.get(name)
        if positions is None:
            return True
        owners = self._local_owners.get(name)
        if owners is None:
            owners = self._local_owners[name] = {scopes.owner(p) for p in positions}
        return owner not in owners


def _position(pair: tuple[int, RefFields]) -> int:
    return pair[0]


def _content_end(node: Node, source: bytes) -> Node:
    """`node`, or the last descendant that ends its text when `node` runs on over trailing
    whitespace: Scala's `indented_block` reaches the next definition's indentation."""
    current = node
    while count := current.child_count:
        last = current.child(count - 1)  # not .children: that builds every child's node
        if last is None:
            break
        if last.end_byte < current.end_byte and source[last.end_byte : current.end_byte].strip():
            break
        current = last
    return current if current.end_byte < node.end_byte else node


# C# operators and finalizers are named by a token of their declaration: the rest of the
# name ("operator+", "~Store") is the syntax around it, as C++ spells them.
_NAME_PREFIX: Final = {"operator_declaration": "operator", "destructor_declaration": "~"}


def _name(source: bytes, node: Node) -> str:
    if node.type == "computed_property_name":  # `[Symbol.iterator]` -> `@@iterator`
        return "@@" + text(source, node).strip("[] \t").rpartition(".")[2]
    parent = node.parent
    prefix = _NAME_PREFIX.get(parent.type, "") if parent is not None else ""
    return prefix + text(source, node)
