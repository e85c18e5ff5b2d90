"""Namespaces of C#, Kotlin, Scala and Swift: names found by package, not by path.

In these languages a file's names belong to the namespace or package it declares (C#
`namespace`, Kotlin/Scala `package`), which need not match its folder, and a Swift file sees
every file of its module. extract/namespaced.py records each file's own package as a star
import with the empty alias; here an import target "a.b.C" is looked up as the top-level
definition C of a file declaring package "a.b" (then members: `import a.b.Obj.f`), and an
opened package ("a.b.*") is an entity of kind NAMESPACE whose members are those definitions.

Members may be spread over files: a C# `partial class`, a Swift `extension Foo { }`, a
Kotlin or Scala extension function `fun Foo.bar()`: a member of Foo is also any definition
whose parent is named Foo in a file of the same language (and, but in Swift, package).
"""

from __future__ import annotations

import re

from maguyva_guard.extract.languages import language_for as language_of
from maguyva_guard.records import Definition, Reference
from maguyva_guard.retrievers.resolution_base import (
    CLASS_KINDS,
    MAX_HOPS,
    NAMESPACE,
    Entity,
    ResolverAPI,
    reused,
    tracked,
)

_MODULE_WIDE = frozenset({"swift"})  # every file of the module sees every other
_SWIFT_ROOTS = frozenset({"Sources", "Tests"})  # SwiftPM: Sources/<Module>/...
# The declared return type at the end of a signature: Kotlin/Scala `): T`, Swift `-> T`.
_RETURNS = re.compile(r"(?:\)\s*:|->)\s*([A-Za-z_][\w.]*)\??\s*(?:=|where\b.*)?$")


# Scala: `type T = Foldable[F]`, `type T <: Foldable[F]`; a value's type from its right side.
_SCALA_TYPE_MEMBER = re.compile(
    r"(?:.*\s)?type\s+\w+(?:\[[^\]]*\])?\s*(?:=|<:)\s*([A-Za-z_][\w.]*)")
_SCALA_VALUE = re.compile(r"=\s*(?:new\s+([A-Z][\w.]*)|.*\.asInstanceOf\[\s*([A-Z][\w.]*))")


def _scala_value_type(lines: list[str], d: Definition) -> re.Match[str] | None:
    """`val ti = x.asInstanceOf[Traverse[F]]`, `val s = new Store(...)`: the type the
    value's first line shows (group 1), as a match."""
    line = lines[d.line_start - 1] if 0 < d.line_start <= len(lines) else ""
    m = _SCALA_VALUE.search(line)
    if m is None:
        return None
    return re.match(r".*?([A-Z][\w.]*)", m.group(1) or m.group(2))


class Namespaces:
    """Namespaces of C#, Kotlin, Scala and Swift: names found by package, not by path."""

    def packages_of(self: ResolverAPI, path: str) -> frozenset[str]:
        """The packages/namespaces `path` declares ("" when none: the default package);
        a Swift file's is its module: the folder under `Sources/` or `Tests/`."""
        if language_of(path) in _MODULE_WIDE:
            parts = path.split("/")
            at = next((i for i, p in enumerate(parts[:-2]) if p in _SWIFT_ROOTS), None)
            return frozenset({parts[at + 1] if at is not None else ""})
        own = frozenset(r.target[: -len(".*")] for r in self.scope(path).imports
                        if r.name == "*" and r.alias == "" and r.target.endswith(".*"))
        return own or frozenset({""})

    def namespace_binding(self: ResolverAPI, language: str, package: str | None,
                          name: str) -> Entity | None:
        """The top-level definition `name` of a file of `language` declaring `package`
        (None: any package, and never sure). Several (a C# partial class in two files)
        give the first; same-named definitions of different kinds make it unsure."""
        key = (language, "*" if package is None else package, name)
        if key in self._namespaced:
            reused(self, ("namespaced", *key))
            return self._namespaced[key]
        with tracked(self, ("namespaced", *key)):
            found = [d for d in self.source.definitions(name=name)
                     if not d.parent and language_of(d.path) == language
                     and (package is None or package in self.packages_of(d.path))]
        entity = None
        if found:
            found.sort(key=lambda d: (d.kind not in CLASS_KINDS, d.path, d.line_start))
            sure = package is not None and len({(d.kind, d.name) for d in found}) == 1
            entity = Entity("definition", path=found[0].path, definition=found[0], sure=sure)
        self._namespaced[key] = entity
        return entity

    def namespace_import(self: ResolverAPI, language: str, path: str, imp: Reference,
                         hops: int) -> Entity | None:
        """The entity an import of these languages binds: a definition (with members), a
        class whose members a star opens (`using static`, `import a.Obj.*`), or a package."""
        target = imp.target
        star = imp.name == "*"
        if star:
            target = target[: -len(".*")]
        parts = [p for p in target.split(".") if p]
        for cut in range(len(parts) - 1, -1, -1):
            head = self.namespace_binding(language, ".".join(parts[:cut]), parts[cut])
            if head is None:
                continue
            entity: Entity | None = head
            for seg in parts[cut + 1:]:
                entity = self.member(entity, seg, hops + 1) if entity else None
            if entity is not None:
                return entity
        # An opened package: its names are looked up when asked for (none, when it is
        # foreign: `using System;`).
        return Entity(NAMESPACE, path=f"{language}:{target}") if star else None

    def namespace_member(self: ResolverAPI, entity: Entity, name: str) -> Entity | None:
        """`name` in an opened package (an entity of kind NAMESPACE)."""
        language, _, package = entity.path.partition(":")
        return self.namespace_binding(language, package, name)

    def implicit_binding(self: ResolverAPI, path: str, name: str) -> Entity | None:
        """A name no import binds: the default package's (a file without `package`), or,
        in Swift, its module's, else (an Xcode project's folders are no modules) any
        Swift file's, unsure."""
        language = language_of(path) or ""
        packages = self.packages_of(path)
        if language in _MODULE_WIDE:
            (module,) = packages
            return self.namespace_binding(language, module, name) or \
                self.namespace_binding(language, None, name)
        if packages != frozenset({""}):
            return None  # its own package is a star import already looked at
        return self.namespace_binding(language, "", name)

    def spread_member(self: ResolverAPI, cls: Definition, name: str,
                      hops: int = 0) -> Definition | None:
        """A member of `cls` written elsewhere: another part of a partial class, an
        extension, an extension function (see the module doc)."""
        if hops > MAX_HOPS:
            return None
        language = language_of(cls.path)
        packages = self.packages_of(cls.path)
        for d in self.source.definitions(name=name):
            if not d.parent or d.parent.rsplit(".", 1)[-1] != cls.name:
                continue
            if d.path == cls.path or language_of(d.path) != language:
                continue
            if language in _MODULE_WIDE or packages & self.packages_of(d.path):
                return d
        return None

    def receiver_class(self: ResolverAPI, path: str, name: str) -> Definition | None:
        """The class an extension (`extension Foo`, `fun Foo.bar()`) extends, by name."""
        e = self.module_binding(path, name)
        d = e.definition if e is not None else None
        return d if d is not None and d.kind in CLASS_KINDS else None

    def declared_return(self: ResolverAPI, fn: Definition, hops: int) -> Entity | None:
        """An instance of the class a C#, Kotlin, Scala or Swift method declares it returns
        (`fun open(): Store`, `-> Store`, `public static Store Open(`), probable."""
        if language_of(fn.path) in ("csharp", "java"):
            m = re.search(rf"([A-Za-z_][\w.]*)(?:<[^()]*>)?\??\s+{re.escape(fn.name)}\s*[(<]",
                          fn.signature)
        else:
            m = _RETURNS.search(fn.signature)
        if m is None:
            return None
        e = self.resolve_expression(fn.path, fn.qualified_name, m.group(1), hops + 1)
        if e is None or e.definition is None or e.definition.kind not in CLASS_KINDS:
            return None
        return Entity("instance", path=e.path, definition=e.definition, sure=False)

    def declared_type(self: ResolverAPI, e: Entity, hops: int) -> Entity | None:
        """An instance of the class a property declares (`val dispatcher: Dispatcher`,
        `var store: Store`, C# `public Store Store { get; }`), probable."""
        d = e.definition
        if d is None:
            return None
        if language_of(d.path) == "csharp":
            m = re.search(rf"([A-Za-z_][\w.]*)(?:<[^()]*>)?\??\s+{re.escape(d.name)}\s*$",
                          d.signature)
        else:
            m = re.search(rf"\b{re.escape(d.name)}\s*:\s*([A-Za-z_][\w.]*)", d.signature)
        if m is None and language_of(d.path) == "scala":
            m = _scala_value_type(self.lines(d.path), d)
        if m is None:
            return None
        found = self.resolve_expression(d.path, d.parent, m.group(1), hops + 1)
        if found is None or found.definition is None or found.definition.kind not in CLASS_KINDS:
            return None
        cls = found.definition
        alias = _SCALA_TYPE_MEMBER.match(cls.signature) if language_of(cls.path) == "scala" \
            else None
        if alias is not None:  # `type TypeClassType <: Foldable[F]`: a Foldable
            bound = self.resolve_expression(cls.path, cls.parent, alias.group(1), hops + 1)
            if bound is None or bound.definition is None or \
                    bound.definition.kind not in CLASS_KINDS:
                return None
            cls = bound.definition
        return Entity("instance", path=cls.path, definition=cls, sure=False)

    def library_typed(self: ResolverAPI, path: str, scope: str, var: str) -> str | None:
        """The type a local, parameter or field `var` is declared with, when that is a
        library's (`fa: PartialOrdering[A]`, `String s`): a capitalised name of two letters
        or more that the repository does not define and no enclosing signature declares as
        a type parameter. None when the declaration does not show or names a type here."""
        fs = self.scope(path)
        if language_of(path) == "csharp":
            pattern = re.compile(rf"([A-Z]\w+)(?:<[^<>;=]*>)?\??\s+{re.escape(var)}\s*[;=,)]")
        else:
            pattern = re.compile(rf"(?<![\w.]){re.escape(var)}\s*:\s*([A-Z]\w+)")
        d = fs.by_qualified.get(scope)
        signatures = []
        while d is not None:
            signatures.append(d.signature)
            for line in [d.signature, *self.lines(path)[d.line_start - 1 : d.line_end]]:
                m = pattern.search(line) if var in line else None
                if m is not None:
                    name = m.group(1)
                    if any(re.search(rf"[\[<,]\s*(?:[+-]\s*)?{name}\b", s) for s in signatures):
                        return None  # a type parameter
                    return None if self.lookup_name(path, scope, name) else name
            d = fs.by_qualified.get(d.parent) if d.parent else None
        return None

    def extensions_of(self: ResolverAPI, type_name: str, name: str,
                      language: str) -> tuple[Definition, ...]:
        """Extension members `name` of a library type (Kotlin `fun String.name()`, a Scala
        `extension (s: String)`, a Swift `extension String`)."""
        return tuple(d for d in self.source.definitions(name=name)
                     if d.parent and d.parent.rsplit(".", 1)[-1] == type_name
                     and language_of(d.path) == language
                     and d.parent not in self.scope(d.path).by_qualified)

    def csharp_loop_item(self: ResolverAPI, path: str, scope: str, var: str,
                         lines: list[str], hops: int) -> Entity | None:
        """C#: `foreach (var a in items)` binds a to an item of items, an instance of the
        class items is declared to hold (`List<A> items`, `A[] items`, a parameter, local
        or field), or of the type written (`foreach (A a in items)`); probable."""
        loop = re.compile(rf"\bforeach\s*\(\s*([\w.<>?\[\]]+)\s+{re.escape(var)}\s+in\s+"
                          r"([A-Za-z_]\w*)\s*\)")
        m = next((found for line in lines if "foreach" in line and var in line
                  for found in [loop.search(line)] if found is not None), None)
        if m is None:
            return None
        written = m.group(1) if m.group(1) != "var" else self.csharp_item_type(
            path, scope, m.group(2))
        if not written:
            return None
        e = self.resolve_expression(path, scope, written, hops + 1)
        if e is None or e.definition is None or e.definition.kind not in CLASS_KINDS:
            return None
        return Entity("instance", path=e.path, definition=e.definition, sure=False)

    def csharp_item_type(self: ResolverAPI, path: str, scope: str, items: str) -> str | None:
        """The item type a C# collection is declared with, in the methods around `scope`
        and then the class's fields: `List<A> items`, `IEnumerable<A> items`, `A[] items`
        (a dictionary's items are pairs: None)."""
        declared = re.compile(rf"([A-Za-z_]\w*)(?:<\s*([A-Za-z_][\w.]*)\s*>|\[\])\??\s+"
                              rf"{re.escape(items)}\s*[;=,)]")
        fs = self.scope(path)
        d = fs.by_qualified.get(scope)
        while d is not None:
            for text in [d.signature, *self.lines(path)[d.line_start - 1 : d.line_end]]:
                m = declared.search(text) if items in text else None
                if m is not None:
                    return m.group(2) or (m.group(1) if "[]" in m.group(0) else None)
            d = fs.by_qualified.get(d.parent) if d.parent else None
        return None
