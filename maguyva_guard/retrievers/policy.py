"""The resolution policy: how each kind of reference is resolved, and how sure the answer is."""

from __future__ import annotations

from typing import Final

from maguyva_guard.extract.languages import GLOBAL_NAMESPACE, LANGUAGES
from maguyva_guard.extract.languages import language_for as language_of
from maguyva_guard.records import (
    AMBIGUOUS,
    EXACT,
    FUNCTION,
    IMPORT,
    METHOD,
    PROBABLE,
    USE,
    Definition,
    Reference,
)
from maguyva_guard.retrievers import (
    fixturevalues,
    luamods,
    rustchains,
    rusttypes,
    scripting,
    unions,
)
from maguyva_guard.retrievers.cfamily import resolve_c
from maguyva_guard.retrievers.edgecache import DEFS
from maguyva_guard.retrievers.importpaths import JS_LANGUAGES
from maguyva_guard.retrievers.resolution_base import (
    ATTRIBUTE,
    IDENT,
    NAMESPACE_LANGUAGES,
    SELF_NAMES,
    SUPER_NAMES,
    UNRESOLVED,
    Entity,
    Resolution,
    ResolverAPI,
    is_self,
    reused,
    tracked,
)


class Policy:
    """The resolution policy: how each kind of reference is resolved, and how sure the answer is."""

    def resolve(self: ResolverAPI, ref: Reference) -> Resolution:
        """What a reference refers to in the repository, and how sure that is (memoised:
        transitive impact asks about the same references again and again)."""
        found = self._resolved.get(ref)
        if found is None:
            edges = self.edges
            found = self._resolved[ref] = self._resolve(ref) if edges is None else \
                edges.resolve(ref, self._resolve)
        return found

    def _resolve(self: ResolverAPI, ref: Reference) -> Resolution:
        language = language_of(ref.path)
        if language in GLOBAL_NAMESPACE:
            return resolve_c(self, ref)
        if language is not None and LANGUAGES[language].generic:
            # The generic tier: names only, never more than ambiguous (a lower bound).
            named = scripting.generic_candidates(self.source, ref.path, ref.name, language_of)
            return Resolution(named, AMBIGUOUS) if named else UNRESOLVED
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
            if e is None and (language in JS_LANGUAGES or language in scripting.SCRIPT_LANGUAGES):
                # Bound some way the index does not record (`const { f } = obj`, a
                # parameter, a global): maybe an object's method of that name, never sure.
                members = self.by_name(ref).definitions
                if language == "lua":  # a global function of a file no `require` loads
                    members += luamods.globals_named(self.source, ref.name)
                return Resolution(members, AMBIGUOUS) if members else UNRESOLVED
            bound = _resolution(e)
            if bound.definitions and not bound.definitions[0].parent:
                # A name the module binds conditionally: the call may reach each binding.
                others = self.module_alternatives(ref.path, ref.name)
                if others:
                    both = tuple(dict.fromkeys((*bound.definitions, *others)))
                    return Resolution(both, bound.confidence)
            return bound
        receiver = scripting.receiver(language_of(ref.path), ref.receiver)
        if language in ("rust", "python"):  # the nearest binding counts (local_type)
            rusttypes.resolving(self, ref.path, ref.line)
        if language == "rust":
            receiver = rustchains.receiver_tail(receiver)
        if receiver and receiver == self.receiver_variable(ref.path, ref.scope):
            receiver = "self"
        elif receiver == "base" and language_of(ref.path) == "csharp":
            receiver = "super"  # C#'s `base.M()`
        if is_self(receiver, language) or receiver in SUPER_NAMES:
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
            if language_of(ref.path) in NAMESPACE_LANGUAGES:
                return self.library_receiver(ref, receiver)
            if self.foreign_receiver(ref.path, ref.scope, receiver):
                return UNRESOLVED  # `environ: WSGIEnvironment`, `d = {}`: see foreign.py
            if language == "python":  # `obj: A | B`: each member's method (unions.py);
                # a pytest fixture's parameter: what the fixture gives (fixturevalues.py)
                held = unions.union_receiver(self, ref.path, ref.scope, receiver) or \
                    fixturevalues.values(self, ref.path, ref.scope, receiver)
                either = [m.definition for e in held
                          if (m := self.member(e, ref.name)) is not None
                          and m.definition is not None]
                if either:
                    return Resolution(tuple(dict.fromkeys(either)), PROBABLE)
            return self.by_name(ref)
        e = self.member(owner, ref.name)
        if e is None and _decorated_function(owner) and language == "python":
            # `@click.command() def cli(): ...` then `cli.main()`: the name is bound to
            # whatever the decorator returned (a Command), not to the function
            return self.by_name(ref)
        if language == "php" and owner.kind == "instance" and owner.definition is not None:
            return self.php_dispatch(ref, owner.definition, e)
        if e is None and owner.kind != "module" and owner.definition is not None:
            if self.unresolved_bases(owner.definition):
                return self.by_name(ref)  # may come from a base outside the repository
        return _resolution(e)

    def php_dispatch(self: ResolverAPI, ref: Reference, declared: Definition,
                     found: Entity | None) -> Resolution:
        """PHP: a call on a receiver declared with class or interface T runs T's method or
        an override in a class below T (`OutputInterface $output` is an Output at run time):
        those are the candidates, probable; a same-named method of an unrelated class is
        not one."""
        own = found.definition if found is not None else None
        below = [d for d in self.by_name(ref).definitions if d is not own
                 and self._descends(d.parent, d.path, declared)]
        if own is None and not below:
            return self.by_name(ref) if self.unresolved_bases(declared) else UNRESOLVED
        # One hierarchy, the declared one: probable, as by_name's one-hierarchy answer is.
        defs = tuple(dict.fromkeys([*([own] if own is not None else []), *below]))
        return Resolution(defs, PROBABLE)

    def _descends(self: ResolverAPI, cls_name: str, path: str, top: Definition) -> bool:
        """Whether the class `cls_name` of `path` is `top` or below it."""
        cls = self.scope(path).by_qualified.get(cls_name)
        seen: set[tuple[str, str]] = set()
        todo = [cls] if cls is not None else []
        while todo and len(seen) < 64:
            c = todo.pop()
            if (c.path, c.qualified_name) == (top.path, top.qualified_name):
                return True
            if (c.path, c.qualified_name) not in seen:
                seen.add((c.path, c.qualified_name))
                todo.extend(self.bases(c))
        return False

    def library_receiver(self: ResolverAPI, ref: Reference, receiver: str) -> Resolution:
        """C#, Kotlin, Scala, Swift: a receiver of unknown type. A type the repository does
        not define (`System.nanoTime()`), or a variable declared with one (`fa:
        PartialOrdering[A]`), reaches only extension members of that type; else by name."""
        if _type_name(receiver):
            return UNRESOLVED
        library = self.library_typed(ref.path, ref.scope, receiver) if IDENT.fullmatch(
            receiver) else None
        if library is None:
            return self.by_name(ref)
        found = self.extensions_of(library, ref.name, language_of(ref.path) or "")
        return Resolution(found, PROBABLE) if found else UNRESOLVED

    def is_external(self: ResolverAPI, path: str, scope: str, receiver: str) -> bool:
        """True when the receiver starts with a name imported from outside the repository."""
        head = receiver.replace("::", ".").split(".")[0].split("(")[0]
        if not head or head in SELF_NAMES:
            return False
        if self.lookup_name(path, scope, head) is not None:
            return False
        imp = self.scope(path).bound_imports.get(head)
        return imp is not None and self.import_entity(path, imp) is None

    def by_name(self: ResolverAPI, ref: Reference) -> Resolution:
        """An attribute on a receiver of unknown type: every method of that name."""
        if self.tracker is not None:
            self.tracker.ask((DEFS, ref.name))  # also when answered from the memo below
        family = _family(language_of(ref.path))
        candidates = self._members.get((ref.name, family))
        if candidates is None:
            candidates = self._members[(ref.name, family)] = tuple(
                d for d in self.source.definitions(name=ref.name) if d.parent and _is_member(d)
                and _family(language_of(d.path)) == family and not _nested(self, d)
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

    def one_hierarchy(self: ResolverAPI, name: str, members: tuple[Definition, ...]) -> bool:
        """Whether every member named `name` sits in one class hierarchy (memoised; stops
        at the second root found, so a name defined in 80 classes reads two or three)."""
        found = self._one_hierarchy.get(name)
        if found is None:
            roots: set[tuple[str, str]] = set()
            with tracked(self, ("one_hierarchy", name)):
                for d in members:
                    roots.add(self.hierarchy_root(d))
                    if len(roots) > 1:
                        break
            found = self._one_hierarchy[name] = len(roots) == 1
        else:
            reused(self, ("one_hierarchy", name))
        return found

    def hierarchy_root(self: ResolverAPI, method: Definition) -> tuple[str, str]:
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


def _type_name(receiver: str) -> bool:
    """A capitalised plain name (`System`, `Math`): in C#, Kotlin, Scala and Swift a type or
    an object; one the repository does not define comes from a library."""
    return IDENT.fullmatch(receiver) is not None and receiver[:1].isupper()


# Languages whose code calls each other's methods directly (one runtime): a receiver of
# unknown type in one may be an object of the other. Any other pair never is (a Python or
# JavaScript `obj.reject()` is no call of a Swift method named reject).
_FAMILIES: Final = {"typescript": "javascript", "tsx": "javascript", "kotlin": "java",
                    "scala": "java"}


def _family(language: str | None) -> str:
    return _FAMILIES.get(language or "", language or "")


def _is_member(d: Definition) -> bool:
    return d.kind in {"method", "function"} and "." in d.qualified_name



def _nested(r: ResolverAPI, d: Definition) -> bool:
    """A Rust or Go function defined inside a function (an inner `fn`, a closure bound to a
    local): no receiver's method, so no `obj.name()` reaches it. Elsewhere one may be: a
    JavaScript factory returns `{ cancel }` (rxjs's createAnimator), Python stores
    `self.f = f`."""
    if language_of(d.path) not in ("rust", "go"):
        return False
    parent = r.scope(d.path).by_qualified.get(d.parent)
    return parent is not None and parent.kind in (FUNCTION, METHOD)


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


def _decorated_function(owner: Entity) -> bool:
    d = owner.definition
    return owner.kind == "definition" and d is not None and d.kind in (FUNCTION, METHOD) \
        and d.signature.lstrip().startswith("@")
