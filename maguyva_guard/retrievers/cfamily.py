"""C and C++ resolution: includes, one global namespace, C++ namespaces, classes and bases.

C has no modules: every non-`static` function is one symbol for the whole program, however
many files declare it. A call resolves to the definitions of its name that the file can
see (its own, those of the headers it includes, transitively), else to the definitions
elsewhere in the repository (linked at build time, `probable`); a `static` function of
another file is never a candidate. Whatever a reference resolves to, it resolves to every
declaration and definition of that qualified name at once (the prototype in `x.h` and the
body in `x.c`), so a signature change in either finds the callers of both.

C++ adds qualified names: namespaces and classes qualify what they hold ("geo.Shape.area"),
`ns::f()` and `Foo::bar()` are looked up from the caller's namespace outwards and through
its `using namespace` lines, a bare call inside a method may be a member of its class or
of a base, and `obj.m()` / `p->m()` go through the type `obj` or `p` is declared with in
the function (`Foo f;`, `Foo *p = new Foo;`, a parameter `Foo &f`, `auto p = new Foo`)
or in the class's fields. A receiver whose type does not show leaves the call `ambiguous`
when several classes define the method.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from typing import Final

from maguyva_guard.extract.languages import GLOBAL_NAMESPACE, language_for
from maguyva_guard.records import (
    AMBIGUOUS,
    ANNOTATION,
    CALL,
    EXACT,
    IMPORT,
    PROBABLE,
    STRING,
    Definition,
    Reference,
)
from maguyva_guard.retrievers.resolution_base import (
    CLASS_KINDS,
    UNRESOLVED,
    Resolution,
    ResolverAPI,
)

INCLUDE_ROOTS: Final = ("include/", "src/", "")  # tried after the including file's folder
MAX_VISIBLE: Final = 2000  # headers followed per file (a cycle or a huge tree ends here)
SOURCE_SUFFIXES: Final = (".c", ".cc", ".cpp", ".cxx", ".c++")
_SMART: Final = frozenset({"unique_ptr", "shared_ptr", "weak_ptr", "optional", "ref_ptr"})
_NOT_TYPES: Final = frozenset({"return", "delete", "new", "else", "case", "goto", "sizeof",
                               "throw", "typedef", "using", "co_return", "operator"})
_SPECIFIERS = r"(?:(?:const|volatile|static|struct|class|union|enum|typename|mutable)\s+)*"


def resolve_c(resolver: ResolverAPI, ref: Reference) -> Resolution:
    """The C/C++ answer for `ref` (policy.py sends every C and C++ reference here)."""
    return cfamily(resolver).resolve(ref)


def cfamily(resolver: ResolverAPI) -> CFamily:
    """The resolver's C/C++ state (one per resolver, made lazily)."""
    state = getattr(resolver, "_cfamily", None)
    if state is None:
        state = CFamily(resolver)
        setattr(resolver, "_cfamily", state)  # noqa: B010 - one per resolver, made lazily
    return state


class CFamily:
    def __init__(self, resolver: ResolverAPI) -> None:
        self.r = resolver
        self._named: dict[str, list[Definition]] = {}
        self._visible: dict[str, frozenset[str]] = {}
        self._usings: dict[str, tuple[str, ...]] = {}
        self._by_basename: dict[str, list[str]] | None = None

    # --- what a file sees ------------------------------------------------------------------

    def named(self, name: str) -> list[Definition]:
        found = self._named.get(name)
        if found is None:
            found = self._named[name] = [d for d in self.r.source.definitions(name=name)
                                         if language_for(d.path) in GLOBAL_NAMESPACE]
        return found

    def include_target(self, importer: str, written: str) -> str | None:
        """The repository file an `#include` names: beside the includer (quoted form only),
        then under include/, src/ or the top, then any file whose path ends with it
        (a `-I` folder). `<stdio.h>`, a bare name in brackets, is a system header."""
        paths = self.r.paths
        angle = written.startswith("<")
        name = written.strip("<>")
        if not name or (angle and "/" not in name):
            return None
        here = posixpath.dirname(importer)
        tried = [] if angle else [posixpath.normpath(posixpath.join(here, name))]
        tried += [root + name for root in INCLUDE_ROOTS]
        for candidate in tried:
            if candidate in paths:
                return candidate
        if self._by_basename is None:
            self._by_basename = defaultdict(list)
            for p in paths:
                self._by_basename[posixpath.basename(p)].append(p)
        ends = [p for p in self._by_basename.get(posixpath.basename(name), ())
                if p == name or p.endswith("/" + name.lstrip("./"))]
        return min(ends, key=len) if ends else None

    def visible(self, path: str) -> frozenset[str]:
        """`path` and every header it includes, transitively."""
        found = self._visible.get(path)
        if found is not None:
            return found
        seen, todo = {path}, [path]
        while todo and len(seen) < MAX_VISIBLE:
            current = todo.pop()
            for imp in self.r.scope(current).imports:
                if imp.name != "*" or imp.target.endswith("::*"):
                    continue
                target = self.include_target(current, imp.target)
                if target is not None and target not in seen:
                    seen.add(target)
                    todo.append(target)
        found = self._visible[path] = frozenset(seen)
        return found

    def usings(self, path: str) -> tuple[str, ...]:
        """The namespaces `using namespace` opens in `path` ("geo.inner")."""
        found = self._usings.get(path)
        if found is None:
            found = self._usings[path] = tuple(
                imp.target[: -len("::*")].replace("::", ".")
                for imp in self.r.scope(path).imports if imp.target.endswith("::*"))
        return found

    def qualified_names(self, path: str, scope: str, name: str) -> list[str]:
        """Where `name` written at `scope` may live: the enclosing namespaces and classes,
        innermost first, the top, then the namespaces the file opens with `using`."""
        out = []
        parts = scope.split(".") if scope else []
        for cut in range(len(parts), -1, -1):
            prefix = ".".join(parts[:cut])
            out.append(f"{prefix}.{name}" if prefix else name)
        out.extend(f"{u}.{name}" for u in self.usings(path))
        for imp in self.r.scope(path).imports:  # `using geo::Shape;`
            if imp.alias == name.split(".")[0] and imp.name != "*":
                out.append(imp.target.replace("::", ".") + name[len(imp.alias):])
        return out

    # --- resolution ----------------------------------------------------------------------

    def resolve(self, ref: Reference) -> Resolution:
        if ref.kind == STRING or (ref.kind == IMPORT and ref.name == "*"):
            return UNRESOLVED
        if ref.kind == IMPORT:  # `using geo::Shape;`
            return self.linked(ref.path, self._exact(ref.target.replace("::", ".")), EXACT)
        if ref.kind == ANNOTATION:  # a type's name: never a function's (`FN(Name)(...)`)
            found = self.bare(ref) if not ref.receiver else self.qualified(
                ref, ref.receiver.replace("::", "."))
            kept = tuple(d for d in found.definitions if d.kind in CLASS_KINDS)
            return Resolution(kept, found.confidence) if kept else UNRESOLVED
        receiver = ref.receiver
        if not receiver:
            return self.bare(ref)
        if receiver == "this" or receiver == "(*this)":
            cls = self.enclosing_class(ref.path, ref.scope)
            member = self.member(cls, ref.name) if cls is not None else None
            return self.linked(ref.path, [member] if member else [], EXACT) if member \
                else self.by_name(ref)
        if "::" in receiver:
            return self.qualified(ref, receiver.replace("::", "."))
        head, _, rest = re.sub(r"\s*->\s*", ".", receiver).partition(".")
        cls = self.variable_type(ref.path, ref.scope, head, ref.line)
        for field in rest.split(".") if rest and cls is not None else ():
            cls = self.field_type(cls, field) if cls is not None else None
        if cls is None and not rest and not self.is_variable(ref.path, ref.scope, head, ref.line):
            return self.qualified(ref, head)  # `Foo.bar` is not C++, but `ns` may be a class
        if cls is None:
            return self.by_name(ref)
        member = self.member(cls, ref.name)
        if member is None:
            return self.by_name(ref) if self.foreign_bases(cls) else UNRESOLVED
        return self.linked(ref.path, [member], PROBABLE)

    def bare(self, ref: Reference) -> Resolution:
        if not self.named(ref.name):
            return UNRESOLVED
        cls = self.enclosing_class(ref.path, ref.scope)
        if cls is not None:
            member = self.member(cls, ref.name)
            if member is not None and member.kind in CLASS_KINDS:
                return self.pick(ref, [member])  # a nested class built: its constructors
            if member is not None:
                return self.linked(ref.path, [member], EXACT)
        for q in self.qualified_names(ref.path, ref.scope, ref.name):
            found = self._exact(q)
            if found:
                return self.pick(ref, found)
        return UNRESOLVED

    def qualified(self, ref: Reference, owner: str) -> Resolution:
        """`owner::name`: a namespace's or a class's member, a class's through its bases."""
        for q in self.qualified_names(ref.path, ref.scope, owner):
            found = self._exact(f"{q}.{ref.name}")
            if found:
                return self.pick(ref, found)
            classes = [d for d in self._exact(q) if d.kind in CLASS_KINDS]
            member = self.member(classes[0], ref.name) if classes else None
            if member is not None and member.kind in CLASS_KINDS:
                return self.pick(ref, [member])
            if member is not None:
                return self.linked(ref.path, [member], EXACT)
        return UNRESOLVED

    def pick(self, ref: Reference, found: list[Definition]) -> Resolution:
        """Definitions of one qualified name: a class called is its constructors too."""
        classes = [d for d in found if d.kind in CLASS_KINDS]
        if classes and ref.kind == CALL:
            found = found + self._exact(f"{classes[0].qualified_name}.{classes[0].name}")
        seen = self.visible(ref.path)
        mine = [d for d in found if d.path in seen]
        if any(_static(d) for d in mine):
            return Resolution(tuple(mine), EXACT)  # the file's own `static` function
        kept = mine + [d for d in found if d.path not in seen and not self.private(d, ref.path)]
        if not kept:
            return UNRESOLVED
        if mine:
            return Resolution(tuple(kept), EXACT)
        bodies = {d.path for d in kept if d.path.endswith(SOURCE_SUFFIXES)}
        return Resolution(tuple(kept), PROBABLE if len(bodies) <= 1 else AMBIGUOUS)

    def linked(self, path: str, found: list[Definition], confidence: str) -> Resolution:
        """Every declaration and definition of the qualified names found (a prototype and
        its body are one symbol); a `static` one only where `path` sees it."""
        if not found:
            return UNRESOLVED
        seen = self.visible(path)
        out: dict[tuple[str, str, int], Definition] = {}
        for d in found:
            for same in self._exact(d.qualified_name) or [d]:
                if same.path in seen or same is d or not self.private(same, path):
                    out.setdefault((same.path, same.qualified_name, same.line_start), same)
        return Resolution(tuple(out.values()), confidence)

    def private(self, d: Definition, path: str) -> bool:
        """Whether `static` hides `d` from `path`: it is a source file's own, and `path` is
        neither that file nor a fragment it includes (`#include "x_inc.h"` in a function).
        A `static` function of a header is every includer's: such headers are included by
        files that `path`'s own includes may not show (a fragment relies on its includer)."""
        if not _static(d) or not d.path.endswith(SOURCE_SUFFIXES):
            return False
        return d.path != path and path not in self.visible(d.path)

    def by_name(self, ref: Reference) -> Resolution:
        """A member call on a receiver of unknown type: every method of that name."""
        methods = [d for d in self.named(ref.name) if d.parent and self._is_class(d.parent)]
        if not methods:
            return UNRESOLVED
        one = len({d.qualified_name for d in methods}) == 1
        return Resolution(tuple(methods), PROBABLE if one else AMBIGUOUS)

    # --- classes -------------------------------------------------------------------------

    def _exact(self, qualified: str) -> list[Definition]:
        return [d for d in self.named(qualified.rsplit(".", 1)[-1])
                if d.qualified_name == qualified]

    def _is_class(self, qualified: str) -> bool:
        return any(d.kind in CLASS_KINDS for d in self._exact(qualified))

    def enclosing_class(self, path: str, scope: str) -> Definition | None:
        """The class around `scope`: in the file, or the `Foo` of an out-of-line
        `Foo::bar` (declared in a header)."""
        parts = scope.split(".") if scope else []
        for cut in range(len(parts), 0, -1):
            classes = [d for d in self._exact(".".join(parts[:cut])) if d.kind in CLASS_KINDS]
            if classes:
                return next((d for d in classes if d.path == path), classes[0])
        return None

    def find_class(self, path: str, scope: str, type_name: str) -> Definition | None:
        for q in self.qualified_names(path, scope, type_name.replace("::", ".")):
            classes = [d for d in self._exact(q) if d.kind in CLASS_KINDS]
            if classes:
                return classes[0]
        return None

    def member(self, cls: Definition, name: str, depth: int = 0) -> Definition | None:
        """`name` in `cls` or, depth first, in its bases."""
        own = self._exact(f"{cls.qualified_name}.{name}")
        if own:
            return own[0]
        if depth > 8:
            return None
        for base in self.bases(cls):
            found = self.member(base, name, depth + 1)
            if found is not None:
                return found
        return None

    def bases(self, cls: Definition) -> list[Definition]:
        out = []
        for written in cls.bases:
            head = written.split("<")[0].strip()
            base = self.find_class(cls.path, cls.parent, head)
            if base is not None and base.qualified_name != cls.qualified_name:
                out.append(base)
        return out

    def foreign_bases(self, cls: Definition) -> bool:
        return len(self.bases(cls)) < len(cls.bases)

    # --- declared types ------------------------------------------------------------------

    def is_variable(self, path: str, scope: str, var: str, line: int) -> bool:
        return self._declared(path, scope, var, line) is not None

    def variable_type(self, path: str, scope: str, var: str, line: int) -> Definition | None:
        """The class `var` is declared with in the enclosing functions, else in the fields
        of the enclosing class."""
        written = self._declared(path, scope, var, line)
        if written is None:
            cls = self.enclosing_class(path, scope)
            return self.field_type(cls, var) if cls is not None else None
        return self.find_class(path, scope, written) if written else None

    def field_type(self, cls: Definition, field: str) -> Definition | None:
        lines = self.r.lines(cls.path)[cls.line_start - 1 : cls.line_end]
        written = _declared_in(lines, field)
        return self.find_class(cls.path, cls.qualified_name, written) if written else None

    def _declared(self, path: str, scope: str, var: str, line: int) -> str | None:
        """The type `var` is declared with in the functions around `scope` ("" when it is
        declared with a type that does not show, None when not declared there). The
        function is the one around `line`: test macros (`TEST(Db, Get) {...}`) give many
        functions one qualified name."""
        fs = self.r.scope(path)
        d = next((f for f in fs.definitions if f.qualified_name == scope
                  and f.line_start <= line <= f.line_end), fs.by_qualified.get(scope))
        while d is not None and d.kind not in CLASS_KINDS:
            lines = [d.signature, *self.r.lines(path)[d.line_start - 1 : d.line_end]]
            written = _declared_in(lines, var)
            if written is not None:
                return written
            d = fs.by_qualified.get(d.parent) if d.parent else None
        return None


def _static(d: Definition) -> bool:
    return d.signature.startswith("static ")


def _declared_in(lines: list[str], var: str) -> str | None:
    """The type written before `var` in a declaration among `lines` (`Foo f;`, `Foo *p =`,
    `const Foo &f,`, `auto p = new Foo`, `std::unique_ptr<Foo> p`): "" when the declaration
    does not show a class, None when there is none."""
    name = re.escape(var)
    declared = re.compile(
        rf"(?:^|[;{{(,])\s*({_SPECIFIERS}[A-Za-z_][\w:]*)\s*(<[^;()]*>)?"
        rf"(?:\s*[*&]+\s*(?:const\b)?)*\s*(?<![\w]){name}\s*(?=[;=),\[{{(:]|$)")
    built = re.compile(rf"\b{name}\s*=\s*(?:new\s+([A-Za-z_][\w:]*)|"
                       rf"(?:std::)?make_(?:unique|shared)\s*<\s*([A-Za-z_][\w:]*))")
    for line in lines:
        if var not in line:
            continue
        for m in declared.finditer(line):
            written = re.sub(_SPECIFIERS, "", m.group(1)).strip()
            if written in _NOT_TYPES:
                continue
            if written in ("auto", "auto*", "decltype"):
                loop = re.search(rf"\bfor\s*\([^;:]*\b{name}\s*:\s*([A-Za-z_]\w*)\s*\)", line)
                if loop is not None:  # `for (auto& a : v)`: the element type of v
                    return _element_in(lines, loop.group(1))
                b = built.search(line)
                return (b.group(1) or b.group(2)) if b else ""
            if written.rsplit("::", 1)[-1] in _SMART and m.group(2):
                return m.group(2).strip("<> ").split(",")[0].strip()
            return written
    return None


def _element_in(lines: list[str], container: str) -> str:
    """The element type of a container declared among `lines` (`std::vector<A> v`,
    `const std::list<A*>& v`): "" when it does not show (a map's items are pairs)."""
    declared = re.compile(rf"([A-Za-z_][\w:]*)\s*<\s*(?:const\s+)?([A-Za-z_][\w:]*)[^;(){{}}]*>"
                          rf"\s*[*&]*\s*{re.escape(container)}\b")
    for line in lines:
        m = declared.search(line) if container in line else None
        if m is not None:
            return "" if m.group(1).lower().endswith("map") else m.group(2)
    return ""
