"""Resolve a reference to the definitions it can mean, the way the language does.

The graph retriever asks one question: does this reference (a call, an import, a base
class, a decorator, an annotation...) refer to that definition? Answering it by name alone
is what `git grep` does, and gets about three callers in four right. Here a reference is
resolved through the file's own bindings: its definitions, its imports (with aliases,
relative imports and re-exports through `__init__`), `self`/`cls`/`super()` through the
class and its bases, module-qualified names, constructor calls, local variables whose
type shows in the function (`obj = ClassName(...)`, `obj: ClassName`), and what a function
returns (`obj = make()` with `def make() -> ClassName` or `return ClassName(...)`).

Each answer carries how sure it is:
- exact: every step followed a static binding;
- probable: a step leaned on a heuristic (a local variable's inferred type, or a method name
  that only one class hierarchy in the repository defines);
- ambiguous: the receiver's type is unknown and several definitions share the name. Such a
  reference is kept, marked, so that an impact answer can say it is a lower bound.

Resolution is lazy and per file: only files that mention the target's name are looked at,
which is what keeps a query fast on a large repository without a whole-program pass.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from maguyva_guard.extract.languages import language_for as language_of
from maguyva_guard.records import (
    AMBIGUOUS,
    CLASS,
    CONSTANT,
    EXACT,
    FUNCTION,
    IMPORT,
    INTERFACE,
    METHOD,
    PROBABLE,
    TYPE,
    USE,
    Definition,
    Reference,
)
from maguyva_guard.retrievers.importpaths import JS_LANGUAGES, PACKAGE_LANGUAGES, ImportPaths

CLASS_KINDS = frozenset({CLASS, INTERFACE, TYPE})
MAX_HOPS = 12  # re-export chains longer than this are cycles in practice
SELF_NAMES = frozenset({"self", "cls", "this"})
# An attribute read found in the text (`obj.name`, no call): weaker evidence than a call,
# so a receiver of unknown type never makes it more than ambiguous.
ATTRIBUTE = "attribute"
SUPER_NAMES = frozenset({"super()", "super"})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_GO_RECEIVER = re.compile(r"func\s*\(\s*(\w+)\s+\*?\s*[\w.]+")
IMPLICIT_THIS = frozenset({"java"})  # a bare call inside a class may be a method of it
SPREAD_METHODS = frozenset({"go", "rust"})  # methods may sit in another file than the type


class SymbolSource(Protocol):
    """What resolution needs from the index (maguyva_guard.index.store.Store provides it)."""

    def files(self) -> dict[str, object]: ...
    def definitions(self, name: str | None = None) -> list[Definition]: ...
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

    def __init__(self, path: str, definitions: list[Definition], references: list[Reference]):
        self.path = path
        self.definitions = definitions
        self.references = references
        self.imports = [r for r in references if r.kind == IMPORT]

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
        return {r.alias or r.name: r for r in self.imports if r.name != "*" or _binds(r)}

    @cached_property
    def star_imports(self) -> list[Reference]:
        return [r for r in self.imports if r.name == "*" and not _binds(r)]

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


class Resolver:
    """Resolves references in one view of the repository (one set of files)."""

    def __init__(self, source: SymbolSource,
                 data_attribute: Callable[[str], bool] | None = None):
        self.source = source
        # Whether some class assigns `self.<name> = ...` (the graph asks the text index).
        self.data_attribute = data_attribute or (lambda name: False)
        self._scopes: dict[str, FileScope] = {}
        self._texts: dict[str, list[str]] = {}
        self._globals: dict[tuple[str, str], Entity | None] = {}
        self._resolved: dict[Reference, Resolution] = {}
        # method name -> (its definitions in classes, how many class hierarchies hold them)
        self._members: dict[str, tuple[Definition, ...]] = {}
        self._one_hierarchy: dict[str, bool] = {}
        self._returns: dict[tuple[str, str], Entity | None] = {}

    # --- the view ------------------------------------------------------------------------

    @cached_property
    def paths(self) -> frozenset[str]:
        return frozenset(self.source.files())

    @cached_property
    def module_of_path(self) -> dict[str, str]:
        """Path -> the dotted name imports use for it, for every Python file in the view.

        Names are relative to the file's source root: the folder above the topmost package
        (a folder with `__init__.py`) on its path, so "src/pkg/sub/mod.py" is "pkg.sub.mod"
        even when `sub` is a namespace package without `__init__.py`. A file under no
        package keeps its path as its name ("scripts/tool.py" is "scripts.tool").
        """
        python = [p for p in self.paths if p.endswith((".py", ".pyi"))]
        packages = {p.rpartition("/")[0] for p in python if _is_init(p)}
        roots = {d.rpartition("/")[0] for d in packages if d.rpartition("/")[0] not in packages}
        out: dict[str, str] = {}
        root_of: dict[str, str | None] = {}  # folder -> the deepest source root above it
        for path in python:
            folder = path.rpartition("/")[0]
            if folder not in root_of:
                root_of[folder] = _root_above(folder, roots)
            root = root_of[folder]
            stem = path[: path.rfind(".")]
            if root:  # under no package (None) or at the top (""): the path is the name
                stem = stem[len(root) + 1 :]
            if stem.endswith("__init__"):
                stem = stem[: -len("__init__")].rstrip("/")
            if stem:
                out[path] = stem.replace("/", ".")
        return out

    @cached_property
    def modules(self) -> dict[str, str]:
        """Dotted module name -> path; a `.py` file wins over its `.pyi` stub. Every file is
        also reachable by its full path name ("src.pkg.mod")."""
        out: dict[str, str] = {}
        for path, name in sorted(self.module_of_path.items(), key=lambda i: i[0].endswith("i")):
            out.setdefault(name, path)
        for path in sorted(self.module_of_path, key=lambda p: p.endswith("i")):
            full = _without_suffix(path).replace("/", ".")
            out.setdefault(full.removesuffix(".__init__"), path)
        return out

    @cached_property
    def imports(self) -> ImportPaths:
        return ImportPaths(self.paths)

    def scope(self, path: str) -> FileScope:
        s = self._scopes.get(path)
        if s is None:
            s = FileScope(path, self.source.definitions_in(path), self.source.references_in(path))
            self._scopes[path] = s
        return s

    def lines(self, path: str) -> list[str]:
        if path not in self._texts:
            self._texts[path] = self.source.text(path).splitlines()
        return self._texts[path]

    # --- modules and names ---------------------------------------------------------------

    def absolute_import(self, path: str, target: str) -> str:
        """Turn a relative import target ("..x.y") into an absolute dotted name."""
        if not target.startswith("."):
            return target
        dots = len(target) - len(target.lstrip("."))
        module = self.module_of_path.get(path, "")
        package = module.split(".") if path.endswith("__init__.py") else module.split(".")[:-1]
        if dots > 1:
            package = package[: len(package) - (dots - 1)]
        rest = target[dots:]
        return ".".join([*package, rest] if rest else package)

    def resolve_dotted(self, dotted: str, hops: int = 0) -> Entity | None:
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

    def module_binding(self, path: str, name: str, hops: int = 0) -> Entity | None:
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
        if found is None and language_of(path) in PACKAGE_LANGUAGES:
            folder = posixpath.dirname(path) + "/"
            for file in self.imports.folders.get(folder, ()):
                if file != path and language_of(file) == language_of(path):
                    d = self.scope(file).children.get(("", name))
                    if d is not None:
                        return Entity("definition", path=file, definition=d)
        return found

    def typed_global(self, path: str, name: str, hops: int = 0) -> Entity | None:
        """A module-level variable whose type shows: `request: Request = LocalProxy(...)`
        or `app = Flask(__name__)`; importers of it get an instance of that class."""
        key = (path, name)
        if key not in self._globals:
            self._globals[key] = None  # guards against a cycle through the lookup below
            top = [line for line in self.lines(path) if line[:1].isalpha() or line[:1] == "_"]
            mentioned = [line for line in top if line.startswith(name)]
            typed = self._typed_by(path, "", name, mentioned, hops) if mentioned else None
            self._globals[key] = typed
        return self._globals[key]

    def _file_binding(self, path: str, name: str, hops: int) -> Entity | None:
        scope = self.scope(path)
        d = scope.children.get(("", name))
        if d is not None:
            return Entity("definition", path=path, definition=d)
        imp = scope.bound_imports.get(name)
        if imp is not None:
            return self.import_entity(path, imp, hops + 1)
        for star in scope.star_imports:
            m = self.import_entity(path, star, hops + 1)
            if m is not None and m.kind == "module":
                found = self.module_binding(m.path, name, hops + 1)
                if found is not None:
                    return found
        return None

    def import_entity(self, path: str, imp: Reference, hops: int = 0) -> Entity | None:
        """The entity an import binds. `import a.b` binds "a", the rest is a member chain."""
        language = language_of(path)
        if language != "python":
            return self._foreign_import(language or "", path, imp, hops)
        target = self.absolute_import(path, imp.target)
        if imp.name == "*":
            target = target[: -len(".*")] if target.endswith(".*") else target
        elif imp.alias and "." in target and imp.alias == target.split(".")[0]:
            target = imp.alias  # `import a.b` binds the package a
        return self.resolve_dotted(target, hops)

    def _foreign_import(self, language: str, path: str, imp: Reference, hops: int) -> Entity | None:
        found = self.imports.resolve(language, path, imp.target)
        if found is None:
            return None
        entity: Entity | None = Entity("module", path=found.location)
        members = found.members
        if language in JS_LANGUAGES and imp.name not in ("*", ""):
            if imp.name == "default":
                return self._default_export(found.location, imp.alias) or entity
            members = (imp.name,)
        if language == "java" and members:
            d = self.scope(found.location).children.get(("", members[0]))
            entity = Entity("definition", path=found.location, definition=d) if d else None
            members = members[1:]
        for seg in members:
            entity = self.member(entity, seg, hops + 1) if entity else None
        return entity

    def _default_export(self, path: str, alias: str) -> Entity | None:
        """`import X from "./m"`: the definition named X, else the file's only class or
        function (what `export default` usually marks)."""
        top = [d for d in self.scope(path).definitions if not d.parent]
        named = [d for d in top if d.name == alias]
        only = [d for d in top if d.kind in ("class", "function")]
        pick = named[0] if named else (only[0] if len(only) == 1 else None)
        return Entity("definition", path=path, definition=pick) if pick else None

    def member(self, entity: Entity, name: str, hops: int = 0) -> Entity | None:
        """`entity.name`: a module attribute, a submodule, or a class member."""
        if hops > MAX_HOPS:
            return None
        if entity.kind == "module":
            found = self.module_binding(entity.path, name, hops)
            if found is not None:
                return found
            module = self.module_of_path.get(entity.path)
            sub = self.modules.get(f"{module}.{name}") if module else None
            return Entity("module", path=sub) if sub else None
        d = entity.definition
        if d is not None and d.kind == CONSTANT:  # an object literal: `const o = { f() {} }`
            found = self.scope(d.path).children.get((d.qualified_name, name))
            return None if found is None else Entity("definition", path=found.path,
                                                     definition=found, sure=entity.sure)
        if d is None or d.kind not in CLASS_KINDS:
            return None
        method = self.class_member(d, name, hops)
        if method is None:
            return None
        return Entity("definition", path=method.path, definition=method, sure=entity.sure)

    def enclosing_class(self, path: str, scope: str) -> Definition | None:
        """The class around `scope`; for Go and Rust methods, whose type may be declared in
        another file of the package, the type named by the method's parent."""
        fs = self.scope(path)
        cls = fs.enclosing_class(scope)
        if cls is not None:
            return cls
        d = fs.by_qualified.get(scope)
        while d is not None and d.parent and d.parent not in fs.by_qualified:
            types = [c for c in self.source.definitions(qualified_name=d.parent)  # type: ignore[call-arg]
                     if c.kind in CLASS_KINDS]
            return types[0] if types else None
        return None

    def receiver_variable(self, path: str, scope: str) -> str:
        """Go: the receiver's name in `func (s *Server) Start()`, which plays `self`."""
        if language_of(path) != "go":
            return ""
        fn = self.scope(path).enclosing_function(scope)
        m = _GO_RECEIVER.match(fn.signature) if fn is not None else None
        return m.group(1) if m else ""

    def class_member(self, cls: Definition, name: str, hops: int = 0) -> Definition | None:
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
            if found is not None:
                return found
            stack.extend(self.bases(c, hops + 1))
        return None

    def bases(self, cls: Definition, hops: int = 0) -> list[Definition]:
        """The base classes of `cls` that are defined in the repository."""
        out = []
        for base in cls.bases:
            head, _, rest = base.partition("[")  # Generic[T] -> Generic
            e = self.resolve_expression(cls.path, cls.parent, head.strip(), hops)
            if e is not None and e.definition is not None and e.definition.kind in CLASS_KINDS:
                out.append(e.definition)
        return out

    def unresolved_bases(self, cls: Definition) -> bool:
        return len(self.bases(cls)) < len([b for b in cls.bases if b not in {"object"}])

    def lookup_name(self, path: str, scope: str, name: str, hops: int = 0) -> Entity | None:
        """A bare name at `scope`: enclosing functions, then the module (class bodies are
        not enclosing scopes for the methods inside them, as in Python; an object literal's
        members, children of a constant, bind no name at all, as in JavaScript)."""
        fs = self.scope(path)
        q = scope
        first = True
        while q:
            d = fs.by_qualified.get(q)
            if d is None:
                break
            if d.kind != CONSTANT and (first or d.kind not in CLASS_KINDS):
                found = fs.children.get((q, name))
                if found is not None:
                    return Entity("definition", path=path, definition=found)
            first = False
            q = d.parent
        if language_of(path) in IMPLICIT_THIS:
            cls = fs.enclosing_class(scope)
            member = self.class_member(cls, name, hops + 1) if cls is not None else None
            if member is not None:
                return Entity("definition", path=member.path, definition=member)
        return self.module_binding(path, name, hops)

    def resolve_expression(
        self, path: str, scope: str, expr: str, hops: int = 0
    ) -> Entity | None:
        """A receiver or qualifier as written ("self.client", "mod.Cls()", "obj") to an entity."""
        expr = expr.strip()
        if not expr or hops > MAX_HOPS:
            return None
        if expr.endswith(")"):
            callee = expr[: expr.find("(")].strip()
            return self._called(self.callee(path, scope, callee, hops + 1), hops)
        expr = expr.replace("::", ".")
        if not re.fullmatch(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*", expr):
            return None
        head, *rest = expr.split(".")
        entity: Entity | None
        if head in SELF_NAMES or head == self.receiver_variable(path, scope):
            cls = self.enclosing_class(path, scope)
            if cls is None:
                return None
            entity = Entity("instance", path=path, definition=cls)
            if rest:
                entity = self.attribute_type(cls, rest[0], hops + 1)
                rest = rest[1:]
        else:
            entity = self.lookup_name(path, scope, head, hops + 1)
            if entity is None:
                entity = self.local_type(path, scope, head, hops + 1)
        for seg in rest:
            if entity is None:
                return None
            entity = self.member(entity, seg, hops + 1)
        return entity

    # --- heuristics: types of local variables and attributes ------------------------------

    def local_type(self, path: str, scope: str, var: str, hops: int = 0) -> Entity | None:
        """`obj = ClassName(...)`, `obj: ClassName` or a parameter annotated with a class:
        obj is an instance of that class (probable). Looked for in the enclosing function,
        then the functions around it (closures see their variables), then at module level
        (`app = Flask(__name__)` used by `@app.route` below it)."""
        fs = self.scope(path)
        d = fs.by_qualified.get(scope)
        while d is not None:
            if d.kind not in CLASS_KINDS:
                body = self.lines(path)[d.line_start - 1 : d.line_end]
                found = self._typed_by(path, d.parent, var, [d.signature, *body], hops)
                if found is not None:
                    return found
            d = fs.by_qualified.get(d.parent) if d.parent else None
        return self.typed_global(path, var, hops)

    def attribute_type(self, cls: Definition, attr: str, hops: int = 0) -> Entity | None:
        """`self.attr = ClassName(...)` or `attr: ClassName` in the class: attr's type."""
        body = self.lines(cls.path)[cls.line_start - 1 : cls.line_end]
        return self._typed_by(cls.path, cls.parent, rf"(?:self\.)?{re.escape(attr)}", body,
                              hops, raw=True, needle=attr)

    def _typed_by(
        self, path: str, scope: str, var: str, lines: Iterable[str], hops: int, raw: bool = False,
        needle: str | None = None,
    ) -> Entity | None:
        """The class `var` is bound to in `lines`. Only lines that contain `needle` (the
        variable's own text) can bind it: the patterns run on those alone (a popular
        method's callers ask this of thousands of lines: 2.4M searches, 2.8 s on Django)."""
        needle = needle if needle is not None else var
        lines = [line for line in lines if needle in line]
        if not lines:
            return None
        name = var if raw else re.escape(var)
        assign = re.compile(
            rf"(?<![\w.]){name}\s*(?::[^=]+)?=\s*(?:await\s+)?([A-Za-z_][\w.]*)\s*\("
        )
        annotated = re.compile(rf"(?<![\w.]){name}\s*:\s*['\"]?([A-Za-z_][\w.]*)")
        context = re.compile(rf"\bwith\s+([A-Za-z_][\w.]*)\s*\(.*\bas\s+{name}\b")
        for line in lines:
            for pattern in (assign, annotated, context):
                m = pattern.search(line)
                if m is None:
                    continue
                if pattern is annotated:
                    e = self.resolve_expression(path, scope, m.group(1), hops + 1)
                else:  # `var = f(...)`, `with f(...) as var`
                    e = self._called(self.callee(path, scope, m.group(1), hops + 1), hops)
                if e is not None and e.definition is not None and e.definition.kind in CLASS_KINDS:
                    return Entity("instance", path=e.path, definition=e.definition, sure=False)
        return None

    def callee(self, path: str, scope: str, expr: str, hops: int = 0) -> Entity | None:
        """What `expr(...)` calls: as resolve_expression, and `self.m` / `cls.m` as the
        method `m` of the enclosing class (a receiver `self.m` is an attribute instead)."""
        if not expr or hops > MAX_HOPS:
            return None
        e = self.resolve_expression(path, scope, expr, hops)
        head, _, name = expr.partition(".")
        if e is None and head in SELF_NAMES and name and "." not in name:
            cls = self.enclosing_class(path, scope)
            method = self.class_member(cls, name, hops + 1) if cls is not None else None
            if method is not None:
                e = Entity("definition", path=method.path, definition=method)
        return e

    def _called(self, e: Entity | None, hops: int) -> Entity | None:
        """What calling `e` gives: an instance of a class, or of the class a function
        returns (see return_type)."""
        if e is None or e.definition is None:
            return None
        if e.definition.kind in CLASS_KINDS:
            return Entity("instance", path=e.path, definition=e.definition, sure=e.sure)
        if e.definition.kind in (FUNCTION, METHOD):
            return self.return_type(e.definition, hops + 1)
        return None

    def return_type(self, fn: Definition, hops: int = 0) -> Entity | None:
        """An instance of the class a Python function returns (probable): the one its
        return annotation names (`-> Session`), else the one every `return` with a value
        agrees on: `return Session()`, `return cls(...)`, `return self`, `return other()`
        (that function's type), `return resp` (the local's type). `s = requests.session();
        s.get()` then reaches Session.get. Memoised; a cycle returns None."""
        key = (fn.path, fn.qualified_name)
        if key in self._returns:
            return self._returns[key]
        self._returns[key] = None  # while it is worked out: recursion ends here
        found = None
        if language_of(fn.path) == "python" and hops <= MAX_HOPS:
            m = _RETURN_ANNOTATION.search(fn.signature)
            if m is not None:
                found = _instance(self.resolve_expression(fn.path, fn.qualified_name,
                                                          m.group(1), hops + 1))
            else:
                found = self._returned(fn, hops)
        self._returns[key] = found
        return found

    def _returned(self, fn: Definition, hops: int) -> Entity | None:
        body = self.lines(fn.path)[fn.line_start : fn.line_end]  # after the def line
        classes: dict[tuple[str, str], Definition] = {}
        for line in body:
            m = _RETURN_VALUE.match(line)
            if m is None:
                continue
            value = m.group(1).strip()
            if value in ("", "None"):  # a bare `return` or `return None` says nothing
                continue
            callee = _whole_call(value)
            if callee is not None:
                e = self._called(self.callee(fn.path, fn.qualified_name, callee, hops + 1),
                                 hops + 1)
            elif value in SELF_NAMES:
                cls = self.enclosing_class(fn.path, fn.qualified_name)
                e = Entity("instance", path=cls.path, definition=cls) if cls else None
            elif _IDENT.fullmatch(value):
                e = self.local_type(fn.path, fn.qualified_name, value, hops + 1)
            else:
                return None
            if e is None or e.definition is None:
                return None  # one value of unknown type: the function's type is unknown
            classes[(e.definition.path, e.definition.qualified_name)] = e.definition
            if len(classes) > 1:
                return None
        if len(classes) != 1:
            return None
        (cls,) = classes.values()
        return Entity("instance", path=cls.path, definition=cls, sure=False)

    # --- references -------------------------------------------------------------------------

    def resolve(self, ref: Reference) -> Resolution:
        """What a reference refers to in the repository, and how sure that is (memoised:
        transitive impact asks about the same references again and again)."""
        found = self._resolved.get(ref)
        if found is None:
            found = self._resolved[ref] = self._resolve(ref)
        return found

    def _resolve(self, ref: Reference) -> Resolution:
        if ref.kind == IMPORT:
            if ref.name == "*":
                return UNRESOLVED
            if language_of(ref.path) != "python":
                return _resolution(self.import_entity(ref.path, ref))
            e = self.resolve_dotted(self.absolute_import(ref.path, ref.target))
            return _resolution(e)
        if ref.kind == "string":
            return _resolution(self.resolve_dotted(ref.target))
        if not ref.receiver:
            e = self.lookup_name(ref.path, ref.scope, ref.name)
            if e is None and language_of(ref.path) in JS_LANGUAGES:
                # Bound some way the index does not record (`const { f } = obj`, a
                # parameter, a global): maybe an object's method of that name, never sure.
                members = self.by_name(ref).definitions
                return Resolution(members, AMBIGUOUS) if members else UNRESOLVED
            return _resolution(e)
        receiver = ref.receiver
        if receiver and receiver == self.receiver_variable(ref.path, ref.scope):
            receiver = "self"
        if receiver in SELF_NAMES or receiver in SUPER_NAMES:
            cls = self.enclosing_class(ref.path, ref.scope)
            if cls is None:
                return self.by_name(ref)
            start = self.bases(cls) if receiver in SUPER_NAMES else [cls]
            for c in start:
                found = self.class_member(c, ref.name)
                if found is not None:
                    return Resolution((found,), EXACT)
            # Not in the known hierarchy: a mixin calling what the concrete class provides,
            # or a method inherited from a class outside the repository.
            return self.by_name(ref)
        owner = self.resolve_expression(ref.path, ref.scope, receiver)
        if owner is None:
            if self.is_external(ref.path, ref.scope, receiver):
                return UNRESOLVED  # `os.environ.get(...)`: a module outside the repository
            return self.by_name(ref)
        e = self.member(owner, ref.name)
        if e is None and owner.kind != "module" and owner.definition is not None:
            if self.unresolved_bases(owner.definition):
                return self.by_name(ref)  # may come from a base outside the repository
        return _resolution(e)

    def is_external(self, path: str, scope: str, receiver: str) -> bool:
        """True when the receiver starts with a name imported from outside the repository."""
        head = receiver.replace("::", ".").split(".")[0].split("(")[0]
        if not head or head in SELF_NAMES:
            return False
        if self.lookup_name(path, scope, head) is not None:
            return False
        imp = self.scope(path).bound_imports.get(head)
        return imp is not None and self.import_entity(path, imp) is None

    def by_name(self, ref: Reference) -> Resolution:
        """An attribute on a receiver of unknown type: every method of that name."""
        candidates = self._members.get(ref.name)
        if candidates is None:
            candidates = self._members[ref.name] = tuple(
                d for d in self.source.definitions(name=ref.name) if d.parent and _is_member(d)
            )
        if not candidates:
            return UNRESOLVED
        sure = ref.name not in COMMON_METHOD_NAMES and ref.kind != ATTRIBUTE
        # Cheapest first: the hierarchy walk stops at a second root; the data-attribute
        # test is a text search.
        sure = sure and self.one_hierarchy(ref.name, candidates)
        # A read (`f(obj.name)`), not a call, of a name some class also stores as data
        # (`self.name = ...`, no definition): "one class defines `name`" says little.
        sure = sure and not (ref.kind == USE and self.data_attribute(ref.name))
        return Resolution(candidates, PROBABLE if sure else AMBIGUOUS)

    def one_hierarchy(self, name: str, members: tuple[Definition, ...]) -> bool:
        """Whether every member named `name` sits in one class hierarchy (memoised; stops
        at the second root found, so a name defined in 80 classes reads two or three)."""
        found = self._one_hierarchy.get(name)
        if found is None:
            roots: set[tuple[str, str]] = set()
            for d in members:
                roots.add(self.hierarchy_root(d))
                if len(roots) > 1:
                    break
            found = self._one_hierarchy[name] = len(roots) == 1
        return found

    def hierarchy_root(self, method: Definition) -> tuple[str, str]:
        """The top of the class hierarchy that defines `method` (for uniqueness checks)."""
        cls = self.scope(method.path).by_qualified.get(method.parent)
        seen = set()
        while cls is not None and (cls.path, cls.qualified_name) not in seen:
            seen.add((cls.path, cls.qualified_name))
            bases = self.bases(cls)
            if not bases:
                break
            cls = bases[0]
        return (cls.path, cls.qualified_name) if cls else (method.path, method.parent)


_RETURN_ANNOTATION = re.compile(r"->\s*['\"]?([A-Za-z_][\w.]*)['\"]?\s*:?\s*$")
_RETURN_VALUE = re.compile(r"\s*return\b(.*?)(?:#.*)?$")
_RETURNED_CALL = re.compile(r"(?:await\s+)?([A-Za-z_][\w.]*)\s*\(")


def _whole_call(value: str) -> str | None:
    """The callee when `value` is one call and nothing after it (`Name(...)`, `mod.f(a,`
    with its arguments running on): not `Name().attr`, `f(x) or y`, `f(x)[0]`."""
    m = _RETURNED_CALL.match(value)
    if m is None:
        return None
    depth = 0
    for i in range(m.end() - 1, len(value)):
        c = value[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return m.group(1) if not value[i + 1:].strip() else None
    return m.group(1)  # the arguments run on to the next lines


def _instance(e: Entity | None) -> Entity | None:
    if e is None or e.definition is None or e.definition.kind not in CLASS_KINDS:
        return None
    return Entity("instance", path=e.path, definition=e.definition, sure=False)


def _root_above(folder: str, roots: set[str]) -> str | None:
    """The deepest source root at or above `folder` ("" is the repository's top), or None."""
    while True:
        if folder in roots:
            return folder
        if not folder:
            return None
        folder = folder.rpartition("/")[0]


def _is_init(path: str) -> bool:
    return posixpath.basename(path) in ("__init__.py", "__init__.pyi")


def _binds(imp: Reference) -> bool:
    """`import * as ns` binds a namespace; Python's `from m import *` binds every name."""
    return imp.alias not in ("", "*")


def _is_member(d: Definition) -> bool:
    return d.kind in {"method", "function"} and "." in d.qualified_name


def _resolution(e: Entity | None) -> Resolution:
    if e is None or e.definition is None:
        return UNRESOLVED
    return Resolution((e.definition,), EXACT if e.sure else PROBABLE)


# Method names that builtin and library types share with countless classes: a call of one
# on a receiver of unknown type says nothing about which class is meant.
COMMON_METHOD_NAMES = frozenset(
    """get set items keys values update append extend pop add remove clear copy insert index
    count sort join split strip format read write close open send run start stop put post
    delete patch head load loads dump dumps save encode decode render process handle call
    apply filter map reduce next iter exists parse match search replace lower upper
    """.split()
)


def _without_suffix(path: str) -> str:
    """`path` without its file name's last suffix, as PurePosixPath.with_suffix("") would
    give it for a git path (string work: pathlib costs ~30 ms over Django's 2.8k modules)."""
    slash, dot = path.rfind("/"), path.rfind(".")
    if dot <= slash + 1 or dot == len(path) - 1:  # no suffix, a dot file, or "name."
        return path
    return path[:dot]
