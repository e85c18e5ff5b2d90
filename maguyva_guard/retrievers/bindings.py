"""Bindings: what a name means in a file, a module, a class and its bases."""

from __future__ import annotations

import posixpath

from maguyva_guard.extract.languages import language_for as language_of
from maguyva_guard.records import (
    CONSTANT,
    Definition,
    Reference,
)
from maguyva_guard.retrievers import luamods, rusttypes, scripting
from maguyva_guard.retrievers.edgecache import FILE
from maguyva_guard.retrievers.importpaths import JS_LANGUAGES, PACKAGE_LANGUAGES
from maguyva_guard.retrievers.resolution_base import (
    CLASS_KINDS,
    IMPLICIT_THIS,
    MAX_HOPS,
    NAMESPACE,
    NAMESPACE_LANGUAGES,
    SPREAD_METHODS,
    Entity,
    FileScope,
    ResolverAPI,
)


class Bindings:
    """Bindings: what a name means in a file, a module, a class and its bases."""

    def scope(self: ResolverAPI, path: str) -> FileScope:
        if self.tracker is not None:
            self.tracker.ask((FILE, path))
        s = self._scopes.get(path)
        if s is None:
            imports_in = getattr(self.source, "imports_in", None)
            defs = self.source.definitions_in(path)
            if imports_in is None:
                s = FileScope(path, defs, self.source.references_in(path))
            else:
                s = FileScope(path, defs, imports=imports_in(path),
                              load=lambda: self.source.references_in(path))
            self._scopes[path] = s
        return s

    def lines(self: ResolverAPI, path: str) -> list[str]:
        if self.tracker is not None:
            self.tracker.ask((FILE, path))
        if path not in self._texts:
            self._texts[path] = self.source.text(path).splitlines()
        return self._texts[path]

    def top_lines(self: ResolverAPI, path: str) -> list[str]:
        """The lines of a file that start at column 0 with a name (module-level statements)."""
        if self.tracker is not None:
            self.tracker.ask((FILE, path))
        found = self._top.get(path)
        if found is None:
            found = self._top[path] = [line for line in self.lines(path)
                                       if line[:1].isalpha() or line[:1] == "_"]
        return found

    def resolve_dotted(self: ResolverAPI, dotted: str, hops: int = 0) -> Entity | None:
        """A dotted name ("pkg.mod.Class.method") to the entity it names in the repo."""
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            path = self.modules.get(".".join(parts[:cut]))
            if path is not None:
                entity: Entity | None = Entity("module", path=path)
                for seg in parts[cut:]:
                    entity = self.member(entity, seg, hops + 1) if entity else None
                return entity
        return None

    def module_binding(self: ResolverAPI, path: str, name: str, hops: int = 0) -> Entity | None:
        """What `name` means at the top level of module `path` (a def, an import, a star).

        A folder ("pkg/", a Go or Java package) binds the top-level names of all its files.
        """
        if hops > MAX_HOPS:
            return None
        if path.endswith("/"):
            for file in self.imports.folders.get(path, ()):
                found = self._file_binding(file, name, hops)
                if found is not None:
                    return found
            return None
        found = self._file_binding(path, name, hops)
        if found is None and language_of(path) == "python":
            found = self.typed_global(path, name, hops)
        if found is None and language_of(path) in NAMESPACE_LANGUAGES:
            found = self.implicit_binding(path, name)
        if found is None and language_of(path) in PACKAGE_LANGUAGES:
            folder = posixpath.dirname(path) + "/"
            for file in self.imports.folders.get(folder, ()):
                if file != path and language_of(file) == language_of(path):
                    d = self.scope(file).children.get(("", name))
                    if d is not None:
                        return Entity("definition", path=file, definition=d)
        return found

    def _file_binding(self: ResolverAPI, path: str, name: str, hops: int) -> Entity | None:
        scope = self.scope(path)
        d = scope.children.get(("", name))
        if d is not None:
            return Entity("definition", path=path, definition=d)
        imp = scope.bound_imports.get(name)
        if imp is not None:
            return self.import_entity(path, imp, hops + 1)
        for star in scope.star_imports:
            m = self.import_entity(path, star, hops + 1)
            if m is not None and (m.kind == NAMESPACE or (
                    m.kind == "definition" and language_of(path) in NAMESPACE_LANGUAGES)):
                found = self.member(m, name, hops + 1)  # `import a.b.*`, `using static a.C`
                if found is not None:
                    return found
            elif m is not None and m.kind == "module":
                found = self.module_binding(m.path, name, hops + 1)
                if found is not None:
                    return found
        return None

    def import_entity(self: ResolverAPI, path: str, imp: Reference, hops: int = 0) -> Entity | None:
        """The entity an import binds. `import a.b` binds "a", the rest is a member chain."""
        language = language_of(path)
        if language in NAMESPACE_LANGUAGES:
            return self.namespace_import(language or "", path, imp, hops)
        if language != "python":
            return self._foreign_import(language or "", path, imp, hops)
        target = self.absolute_import(path, imp.target)
        if imp.name == "*":
            target = target[: -len(".*")] if target.endswith(".*") else target
        elif imp.alias and "." in target and imp.alias == target.split(".")[0]:
            target = imp.alias  # `import a.b` binds the package a
        return self.resolve_dotted(target, hops)

    def _foreign_import(self: ResolverAPI, language: str, path: str, imp: Reference,
                        hops: int) -> Entity | None:
        found = self.imports.resolve(language, path, imp.target)
        if found is None:
            return None
        entity: Entity | None = Entity("module", path=found.location)
        if language == "lua":  # `local x = require "m"`: the table m returns, if named
            return luamods.exported(self, found.location) or entity
        members = found.members
        if language in JS_LANGUAGES and imp.name not in ("*", ""):
            if imp.name == "default":
                return self._default_export(found.location, imp.alias) or entity
            members = (imp.name,)
        if language in ("java", "php") and members:
            d = self.scope(found.location).children.get(("", members[0]))
            entity = Entity("definition", path=found.location, definition=d) if d else None
            members = members[1:]
        for seg in members:
            entity = self.member(entity, seg, hops + 1) if entity else None
        return entity

    def _default_export(self: ResolverAPI, path: str, alias: str) -> Entity | None:
        """`import X from "./m"`: the definition named X, else the file's only class or
        function (what `export default` usually marks)."""
        top = [d for d in self.scope(path).definitions if not d.parent]
        named = [d for d in top if d.name == alias]
        only = [d for d in top if d.kind in ("class", "function")]
        pick = named[0] if named else (only[0] if len(only) == 1 else None)
        return Entity("definition", path=path, definition=pick) if pick else None

    def member(self: ResolverAPI, entity: Entity, name: str, hops: int = 0) -> Entity | None:
        """`entity.name`: a module attribute, a submodule, or a class member."""
        if hops > MAX_HOPS:
            return None
        if entity.kind == NAMESPACE:
            return self.namespace_member(entity, name)
        if entity.kind == "module":
            found = self.module_binding(entity.path, name, hops)
            if found is not None:
                return found
            if language_of(entity.path) == "rust":  # `ast::parse`: a `mod parse;` of it
                return self.rust_module(entity.path, name)
            module = self.module_of_path.get(entity.path)
            sub = self.modules.get(f"{module}.{name}") if module else None
            return Entity("module", path=sub) if sub else None
        d = entity.definition
        if d is not None and d.kind == CONSTANT:  # an object literal: `const o = { f() {} }`
            member = self.scope(d.path).children.get((d.qualified_name, name))
            return None if member is None else Entity("definition", path=member.path,
                                                      definition=member, sure=entity.sure)
        if d is None or d.kind not in CLASS_KINDS:
            return None
        method = self.class_member(d, name, hops)
        if method is None:
            return None
        return Entity("definition", path=method.path, definition=method, sure=entity.sure)

    def enclosing_class(self: ResolverAPI, path: str, scope: str) -> Definition | None:
        """The class around `scope`; for Go and Rust methods, whose type may be declared in
        another file of the package, the type named by the method's parent."""
        fs = self.scope(path)
        cls = fs.enclosing_class(scope)
        if cls is not None:
            return cls
        d = fs.by_qualified.get(scope)
        while d is not None and d.parent and d.parent not in fs.by_qualified:
            if language_of(path) in NAMESPACE_LANGUAGES:  # an extension, a Swift extension
                return self.receiver_class(path, d.parent.rsplit(".", 1)[-1])
            types = [c for c in self.source.definitions(qualified_name=d.parent)
                     if c.kind in CLASS_KINDS]
            if not types and language_of(path) == "rust":  # `impl Shape` of another file
                return rusttypes.impl_type(self, d)
            return types[0] if types else None
        return None

    def class_member(self: ResolverAPI, cls: Definition, name: str,
                     hops: int = 0) -> Definition | None:
        """Look `name` up in a class and then its bases, depth first (Python's MRO, roughly)."""
        seen: set[tuple[str, str]] = set()
        stack = [cls]
        while stack and hops <= MAX_HOPS:
            c = stack.pop(0)
            key = (c.path, c.qualified_name)
            if key in seen:
                continue
            seen.add(key)
            found = self.scope(c.path).children.get((c.qualified_name, name))
            if found is None and language_of(c.path) in SPREAD_METHODS:
                found = next((d for d in self.source.definitions(name=name)
                              if d.parent == c.qualified_name), None)
            if found is None and language_of(c.path) == "rust":
                found = rusttypes.impl_member(self, c, name, hops)
            if found is None and language_of(c.path) in NAMESPACE_LANGUAGES:
                found = self.spread_member(c, name, hops)
            if found is not None:
                return found
            stack.extend(self.bases(c, hops + 1))
        return None

    def bases(self: ResolverAPI, cls: Definition, hops: int = 0) -> list[Definition]:
        """The base classes of `cls` that are defined in the repository."""
        out = []
        written = list(cls.bases)
        if language_of(cls.path) == "ruby":  # a reopened class: every block's superclass/mixins
            for block in self.source.definitions(qualified_name=cls.qualified_name):
                if block != cls and block.kind == cls.kind:
                    written.extend(b for b in block.bases if b not in written)
        if language_of(cls.path) == "rust":  # `impl Tr for S {}`: S gets Tr's default methods
            written.extend(t for t in rusttypes.implemented(self, cls) if t not in written)
        for base in written:
            head, _, rest = base.partition("[")  # Generic[T] -> Generic
            e = self.resolve_expression(cls.path, cls.parent, head.strip(), hops)
            if e is not None and e.definition is not None and e.definition.kind in CLASS_KINDS:
                out.append(e.definition)
        return out

    def unresolved_bases(self: ResolverAPI, cls: Definition) -> bool:
        return len(self.bases(cls)) < len([b for b in cls.bases if b not in {"object"}])

    def module_alternatives(self: ResolverAPI, path: str, name: str) -> list[Definition]:
        """Every definition a module-level name of `path` may be bound to when the module
        binds it more than once: a definition in each branch of an `if`/`try`, and an
        import of it (`try: from fast import parse` / `except ImportError: def parse`).
        Empty when the name is bound once (the common case: one dict look-up). Go: the
        package's files that define it (`//go:build linux` and `!linux` twins)."""
        if language_of(path) == "go":
            folder = posixpath.dirname(path) + "/"
            twins = [d for file in self.imports.folders.get(folder, ())
                     if language_of(file) == "go"
                     and (d := self.scope(file).children.get(("", name))) is not None]
            return twins if len(twins) > 1 else []
        fs = self.scope(path)
        tops = fs.top_level.get(name, [])
        imp = fs.bound_imports.get(name)
        if len(tops) + (imp is not None) < 2:
            return []
        found = list(tops)
        if imp is not None:
            e = self.import_entity(path, imp, 1)
            if e is not None and e.definition is not None:
                found.append(e.definition)
        return found

    def lookup_name(self: ResolverAPI, path: str, scope: str, name: str,
                    hops: int = 0) -> Entity | None:
        """A bare name at `scope`: enclosing functions, then the module (class bodies are
        not enclosing scopes for the methods inside them, as in Python; an object literal's
        members, children of a constant, bind no name at all, as in JavaScript)."""
        fs = self.scope(path)
        q = scope
        first = True
        while q:
            d = fs.by_qualified.get(q)
            if d is None:
                # A scope that is no definition, such as Rust's inline `mod tests { .. }`:
                # its items are visible by bare name inside it.
                found = fs.children.get((q, name))
                if found is not None:
                    return Entity("definition", path=path, definition=found)
                q, first = q.rpartition(".")[0], False
                continue
            if d.kind != CONSTANT and (first or d.kind not in CLASS_KINDS):
                found = fs.children.get((q, name))
                if found is not None:
                    return Entity("definition", path=path, definition=found)
            first = False
            q = d.parent
        if language_of(path) in IMPLICIT_THIS:
            cls = self.enclosing_class(path, scope)
            while cls is not None:
                member = self.class_member(cls, name, hops + 1)
                if member is not None and not _constructor(member):  # `A` in B: a class
                    return Entity("definition", path=member.path, definition=member)
                # A nested class sees its outer classes' members by bare name (Java, C#,
                # Kotlin, Scala, Swift); Ruby's nesting shares constants, not methods.
                outer = cls.parent if language_of(path) != "ruby" else ""
                nxt = self.enclosing_class(path, outer) if outer else None
                cls = nxt if nxt is not None and nxt.qualified_name != cls.qualified_name \
                    else None
        bound = self.module_binding(path, name, hops)
        if bound is None and language_of(path) == "ruby" and name[:1].isupper():
            const = scripting.ruby_constant(self.source, scope, name)
            if const is not None:  # a constant of another file (autoloaded or required)
                return Entity("definition", path=const.path, definition=const)
        if bound is None and language_of(path) == "lua":  # `local f = utils.f` at the top
            return luamods.aliased(self, path, name, hops)
        return bound


def _constructor(d: Definition) -> bool:
    """A Java or C# constructor (named after its class): never what a bare name means."""
    return bool(d.parent) and d.name == d.parent.rsplit(".", 1)[-1] and \
        language_of(d.path) in ("java", "csharp")
