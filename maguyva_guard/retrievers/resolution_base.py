"""What resolution works with: the index as a source of symbols, entities, resolutions,
one file's bindings, and the resolver's whole surface as its parts see it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from maguyva_guard.records import (
    CLASS,
    IMPORT,
    INTERFACE,
    TYPE,
    Definition,
    Reference,
)
from maguyva_guard.retrievers.importpaths import ImportPaths

if TYPE_CHECKING:
    from maguyva_guard.retrievers.edgecache import EdgeCache, Tracker

CLASS_KINDS = frozenset({CLASS, INTERFACE, TYPE})


MAX_HOPS = 12  # re-export chains longer than this are cycles in practice


SELF_NAMES = frozenset({"self", "cls", "this"})
# Languages where only one of those names is the receiver and the others are ordinary
# variables (regex-syntax's `let mut cls = ClassBytes::new(..)` is no `self`).
# (Go's receiver, whatever its name, is read as `self`: Inference.receiver_variable.)
OWN_SELF = {"rust": "self", "go": "self"}


def is_self(name: str, language: str | None) -> bool:
    """Whether `name` is the language's own receiver word (`self`, `cls`, `this`)."""
    own = OWN_SELF.get(language or "")
    return name == own if own is not None else name in SELF_NAMES


# An attribute read found in the text (`obj.name`, no call): weaker evidence than a call,
# so a receiver of unknown type never makes it more than ambiguous.
ATTRIBUTE = "attribute"


SUPER_NAMES = frozenset({"super()", "super"})


IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


GO_RECEIVER = re.compile(r"func\s*\(\s*(\w+)\s+\*?\s*[\w.]+")


# C#, Kotlin, Scala, Swift: names found through namespaces and packages (namespaces.py).
NAMESPACE_LANGUAGES = frozenset({"csharp", "kotlin", "scala", "swift"})


NAMESPACE = "namespace"  # the Entity kind of an opened package ("language:a.b")


# A bare call inside a class may be a method of it.
IMPLICIT_THIS = frozenset({"java", "ruby"}) | NAMESPACE_LANGUAGES


# Methods may sit in another file than the type (a reopened Ruby class).
SPREAD_METHODS = frozenset({"go", "rust", "ruby"})


class SymbolSource(Protocol):
    """What resolution needs from the index (maguyva_guard.index.store.Store provides it)."""

    def files(self) -> Mapping[str, object]: ...
    def definitions(self, name: str | None = None,
                    qualified_name: str | None = None) -> list[Definition]: ...
    def definitions_in(self, path: str) -> list[Definition]: ...
    def references_in(self, path: str) -> list[Reference]: ...
    def text(self, path: str) -> str: ...


@dataclass(frozen=True)
class Entity:
    """What an expression stands for, as far as static syntax tells."""

    kind: str  # "module", "definition", "instance" (of a class definition)
    path: str = ""  # for modules: the file
    definition: Definition | None = None
    sure: bool = True  # False once a heuristic was used


@dataclass(frozen=True)
class Resolution:
    definitions: tuple[Definition, ...]
    confidence: str  # exact, probable, ambiguous; "" when it refers to nothing in the repo


UNRESOLVED = Resolution((), "")


class FileScope:
    """The bindings of one file: its definitions and its imports."""

    def __init__(self, path: str, definitions: list[Definition],
                 references: list[Reference] | None = None, *,
                 imports: list[Reference] | None = None,
                 load: Callable[[], list[Reference]] | None = None):
        """Either all `references` (the imports are picked out of them), or the `imports`
        alone and a `load` for the rest when asked: resolution reads only a file's imports,
        a thirteenth of its references (a 50-symbol check on Django loads 1,700 files)."""
        self.path = path
        self.definitions = definitions
        self._references = references
        self._load = load
        if imports is None:
            imports = [r for r in references or () if r.kind == IMPORT]
        self.imports = imports

    @property
    def references(self) -> list[Reference]:
        if self._references is None:
            self._references = self._load() if self._load is not None else []
        return self._references

    @cached_property
    def by_qualified(self) -> dict[str, Definition]:
        return {d.qualified_name: d for d in self.definitions}

    @cached_property
    def children(self) -> dict[tuple[str, str], Definition]:
        """(parent qualified name, name) -> definition; "" parent = module level."""
        out: dict[tuple[str, str], Definition] = {}
        for d in self.definitions:
            out.setdefault((d.parent, d.name), d)
        return out

    @cached_property
    def bound_imports(self) -> dict[str, Reference]:
        """Local name -> the import that binds it (the last one wins, as at run time)."""
        return {r.alias or r.name: r for r in self.imports if r.name != "*" or binds(r)}

    @cached_property
    def top_level(self) -> dict[str, list[Definition]]:
        """Name -> every module-level definition of it, in file order (a name defined in
        both branches of an `if` or a `try` has two)."""
        out: dict[str, list[Definition]] = {}
        for d in self.definitions:
            if not d.parent:
                out.setdefault(d.name, []).append(d)
        return out

    @cached_property
    def star_imports(self) -> list[Reference]:
        return [r for r in self.imports if r.name == "*" and not binds(r)]

    def enclosing_class(self, scope: str) -> Definition | None:
        """The innermost class around `scope` (a qualified name), if any."""
        while scope:
            d = self.by_qualified.get(scope)
            if d is not None and d.kind in CLASS_KINDS:
                return d
            scope = d.parent if d is not None else ""
        return None

    def enclosing_function(self, scope: str) -> Definition | None:
        d = self.by_qualified.get(scope)
        return d if d is not None and d.kind not in CLASS_KINDS else None



def binds(imp: Reference) -> bool:
    """`import * as ns` binds a namespace; Python's `from m import *` binds every name."""
    return imp.alias not in ("", "*")



def tracked(r: ResolverAPI, key: tuple[Any, ...]) -> AbstractContextManager[object]:
    """Around the work that fills a memo entry: with the edge cache on, the entry keeps
    the questions that work asked of the view (retrievers/edgecache.py)."""
    return r.tracker.computing(key) if r.tracker is not None else nullcontext()


def reused(r: ResolverAPI, key: tuple[Any, ...]) -> None:
    """A memo entry read again: its questions count for the answer being worked out."""
    if r.tracker is not None:
        r.tracker.reused(key)


class ResolverAPI(Protocol):
    """The whole resolver, as each of its parts (mixins) sees the others."""

    source: SymbolSource
    # The view as given (`source` may be it behind the edge cache's recorder).
    view: SymbolSource
    tracker: Tracker | None
    edges: EdgeCache | None
    data_attribute: Callable[[str], bool]
    _scopes: dict[str, FileScope]
    _texts: dict[str, list[str]]
    _globals: dict[tuple[str, str], Entity | None]
    _resolved: dict[Reference, Resolution]
    _members: dict[tuple[str, str], tuple[Definition, ...]]
    _one_hierarchy: dict[str, bool]
    _returns: dict[tuple[str, str], Entity | None]
    _top: dict[str, list[str]]
    _namespaced: dict[tuple[str, str, str], Entity | None]

    @property
    def paths(self) -> frozenset[str]: ...
    @property
    def module_of_path(self) -> Mapping[str, str]: ...
    @property
    def modules(self) -> Mapping[str, str]: ...
    @property
    def all_module_of_path(self) -> dict[str, str]: ...
    @property
    def all_modules(self) -> dict[str, str]: ...
    @property
    def all_paths(self) -> frozenset[str]: ...
    @property
    def all_imports(self) -> ImportPaths: ...
    @property
    def imports(self) -> ImportPaths: ...
    def scope(self, path: str) -> FileScope: ...
    def lines(self, path: str) -> list[str]: ...
    def top_lines(self, path: str) -> list[str]: ...
    def absolute_import(self, path: str, target: str) -> str: ...
    def resolve_dotted(self, dotted: str, hops: int=0) -> Entity | None: ...
    def module_binding(self, path: str, name: str, hops: int=0) -> Entity | None: ...
    def typed_global(self, path: str, name: str, hops: int=0) -> Entity | None: ...
    def _file_binding(self, path: str, name: str, hops: int) -> Entity | None: ...
    def import_entity(self, path: str, imp: Reference, hops: int=0) -> Entity | None: ...
    def _foreign_import(
        self, language: str, path: str, imp: Reference, hops: int,
    ) -> Entity | None: ...
    def _default_export(self, path: str, alias: str) -> Entity | None: ...
    def member(self, entity: Entity, name: str, hops: int=0) -> Entity | None: ...
    def enclosing_class(self, path: str, scope: str) -> Definition | None: ...
    def receiver_variable(self, path: str, scope: str) -> str: ...
    def cls_is_receiver(self, path: str, scope: str) -> bool: ...
    def attribute_chain(self, entity: Entity, rest: list[str], hops: int) -> Entity | None: ...
    def class_member(self, cls: Definition, name: str, hops: int=0) -> Definition | None: ...
    def bases(self, cls: Definition, hops: int=0) -> list[Definition]: ...
    def unresolved_bases(self, cls: Definition) -> bool: ...
    def php_dispatch(self, ref: Reference, declared: Definition,
                     found: Entity | None) -> Resolution: ...
    def _descends(self, cls_name: str, path: str, top: Definition) -> bool: ...
    def module_alternatives(self, path: str, name: str) -> list[Definition]: ...
    def lookup_name(self, path: str, scope: str, name: str, hops: int=0) -> Entity | None: ...
    def resolve_expression(
        self, path: str, scope: str, expr: str, hops: int=0,
    ) -> Entity | None: ...
    def rust_module(self, path: str, expr: str) -> Entity | None: ...
    def rust_child_modules(self, path: str) -> frozenset[str]: ...
    def local_type(self, path: str, scope: str, var: str, hops: int=0) -> Entity | None: ...
    def attribute_type(self, cls: Definition, attr: str, hops: int=0) -> Entity | None: ...
    def own_attribute_type(self, cls: Definition, attr: str, hops: int=0) -> Entity | None: ...
    def _typed_by(
        self, path: str, scope: str, var: str, lines: Iterable[str], hops: int, raw: bool=False,
        needle: str | None=None, items_in: str | None=None,
    ) -> Entity | None: ...
    def _value_type(self, path: str, scope: str, name: str, line: str,
                    hops: int) -> Entity | None: ...
    def callee(self, path: str, scope: str, expr: str, hops: int=0) -> Entity | None: ...
    def element_type(self, path: str, scope: str, expr: str, called: bool,
                     hops: int = 0) -> Entity | None: ...
    def _destructured(self, path: str, scope: str, var: str) -> str | None: ...
    def _item_type(self, path: str, scope: str, expr: str, lines: list[str],
                   patterns: tuple[re.Pattern[str], ...], hops: int) -> Entity | None: ...
    def called(self, e: Entity | None, hops: int) -> Entity | None: ...
    def return_type(self, fn: Definition, hops: int=0) -> Entity | None: ...
    def _return_type(self, fn: Definition, hops: int) -> Entity | None: ...
    def _returned(self, fn: Definition, hops: int) -> Entity | None: ...
    def resolve(self, ref: Reference) -> Resolution: ...
    def _resolve(self, ref: Reference) -> Resolution: ...
    def is_external(self, path: str, scope: str, receiver: str) -> bool: ...
    def foreign_receiver(self, path: str, scope: str, receiver: str) -> bool: ...
    def library_receiver(self, ref: Reference, receiver: str) -> Resolution: ...
    def by_name(self, ref: Reference) -> Resolution: ...
    def one_hierarchy(self, name: str, members: tuple[Definition, ...]) -> bool: ...
    def hierarchy_root(self, method: Definition) -> tuple[str, str]: ...
    def packages_of(self, path: str) -> frozenset[str]: ...
    def namespace_binding(self, language: str, package: str | None,
                          name: str) -> Entity | None: ...
    def namespace_import(self, language: str, path: str, imp: Reference,
                         hops: int) -> Entity | None: ...
    def namespace_member(self, entity: Entity, name: str) -> Entity | None: ...
    def implicit_binding(self, path: str, name: str) -> Entity | None: ...
    def spread_member(self, cls: Definition, name: str, hops: int = 0) -> Definition | None: ...
    def receiver_class(self, path: str, name: str) -> Definition | None: ...
    def declared_return(self, fn: Definition, hops: int) -> Entity | None: ...
    def declared_type(self, e: Entity, hops: int) -> Entity | None: ...
    def library_typed(self, path: str, scope: str, var: str) -> str | None: ...
    def csharp_loop_item(self, path: str, scope: str, var: str, lines: list[str],
                         hops: int) -> Entity | None: ...
    def csharp_item_type(self, path: str, scope: str, items: str) -> str | None: ...
    def extensions_of(self, type_name: str, name: str,
                      language: str) -> tuple[Definition, ...]: ...


def closing_bracket(text: str, start: int) -> int:
    """The index of the bracket closing the one at `start` (any of `([{`, nested ones
    counted); -1 when it does not close on this text."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return -1
