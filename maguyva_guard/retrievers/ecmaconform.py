"""TypeScript's structural typing: a value of a class conforms to a declared type where it
is passed, assigned or returned, and a member's signature change can break that without any
reference naming the member.

rxjs's `Subscriber` implements `Observer`; when `Subscriber.next` gains a parameter, tsc
flags `source.subscribe(subscriber)` (`subscribe(observer: Partial<Observer<T>>)`), `const
o: Observer<T> = subscriber` and `return subscriber` from a function declared to return an
`Observer<T>`: the instance no longer fits the expected type. No line names `next` there.

Precision first: a site counts only where the value is an instance of the member's class
(as the resolver types it: `new C()`, an annotated parameter, variable or field, a value
returned), and the type expected there is known and has a member of the same name. A
union must reject the instance in each of its arms: an arm with the member (not the changed
one itself: the class itself, or a base class it inherits the member from, changes with
it), or an arm no class instance fits (a function type, `null`, `undefined`, a primitive).
An arm the text does not show (a type parameter, `any`, an interface without the member)
may take the instance as it is: nothing is reported. Overloads must all reject it.

Where: only for the changed method itself, and only the types its class (or a base class)
declares it extends or implements, with the type aliases that name them (`type
PartialObserver<T> = NextObserver<T> | ...`), are expected types looked for; arguments
only at indexed calls of functions whose signatures name one. A class that implements
nothing by name is passed where an interface is due without being found: the answer is a
lower bound there, as for every heuristic of the resolver.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Final, NamedTuple

from maguyva_guard.extract.languages import language_for
from maguyva_guard.records import (
    AMBIGUOUS,
    ANNOTATION,
    CALL,
    FUNCTION,
    INTERFACE,
    METHOD,
    TYPE,
    Definition,
    Reference,
)
from maguyva_guard.retrievers.ecmaargs import call_arguments
from maguyva_guard.retrievers.ecmacontext import parameter_type
from maguyva_guard.retrievers.ecmashapes import declared_return, rejects, verdict
from maguyva_guard.retrievers.protocols import enclosing_name, known_instance
from maguyva_guard.retrievers.resolution_base import CLASS_KINDS, ResolverAPI

CONFORMS: Final = "conforms"  # the reference kind (and JSON `links[].reason`) of such sites
_IDENT: Final = r"[A-Za-z_$][\w$]*"
_VALUE: Final = (rf"(?:new\s+{_IDENT}(?:\.{_IDENT})*\s*(?:<[^()]*>)?\([^()]*\)"
                 rf"|(?:this\.)?{_IDENT}(?:\.{_IDENT})*)")
_TYPED_LOCAL: Final = re.compile(
    rf"\b(?:const|let|var)\s+{_IDENT}\s*:\s*(?P<type>[^=]+?)\s*=\s*(?P<value>{_VALUE})"
    r"\s*;?\s*$")
_RETURN: Final = re.compile(rf"^\s*return\s+(?P<value>{_VALUE})\s*;?\s*$")
_NEW: Final = re.compile(rf"^new\s+(?P<cls>{_IDENT}(?:\.{_IDENT})*)")
_TYPE_NAME: Final = re.compile(rf"^(?P<name>{_IDENT}(?:\.{_IDENT})*)\s*(?:<(?P<args>.*)>)?$")
# The store's reference query (`references(name=..., path=...)`).
References = Callable[..., Iterable[Reference]]
Check = Callable[[str], bool]  # the enclosing symbol's name -> whether the site conforms
# (path, qualified name, line, argument) of a callee -> its parameter's verdict (ecmashapes)
Verdicts = dict[tuple[str, str, int, int], "bool | None"]
TYPED_LANGUAGES: Final = frozenset({"typescript", "tsx"})  # JavaScript declares no types
MAX_ANCESTORS: Final = 20  # classes read up a hierarchy for the types it implements
MAX_SHAPES: Final = 50  # types followed: those implemented, and aliases naming them


def is_conformance_target(target: Definition) -> bool:
    """A TypeScript method: its class's instances may be typed by what they conform to."""
    return target.kind == METHOD and bool(target.parent) and \
        language_for(target.path) in TYPED_LANGUAGES


class Plan(NamedTuple):
    """Where to look for one changed method: the names of the types its class declares it
    extends or implements (and their own), the functions whose signatures name one of them,
    and the files that name either."""

    shapes: frozenset[str]
    callables: frozenset[str]
    paths: frozenset[str]


def conforming_uses(r: ResolverAPI, target: Definition, plan: Plan,
                    references: References) -> Iterator[Reference]:
    """The sites in `plan.paths` where an instance of `target`'s class is passed, assigned
    or returned where a declared type with a member named as `target` is expected. The
    cheap tests come first: an indexed call of one of `plan.callables`, a type naming one
    of `plan.shapes`; then the expected type, then the value's class."""
    known: dict[tuple[str, str, str], bool] = {}
    memo: Verdicts = {}
    words = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(plan.shapes))) + r")\b")
    calls: dict[str, list[Reference]] = {}
    for name in sorted(plan.callables):
        for ref in references(name=name):
            if ref.kind == CALL and ref.path in plan.paths:
                calls.setdefault(ref.path, []).append(ref)
    for path in sorted(plan.paths):
        scope, lines, done = r.scope(path), r.lines(path), set()
        for number, value, expected in _sites(r, path, lines, target, calls.get(path, []),
                                              words, memo):
            if number in done:
                continue
            where = enclosing_name(scope.definitions, number)
            if expected(where) and _instance(r, known, path, where, value, target):
                done.add(number)
                yield Reference(path, target.name, CONFORMS, number, where)


def _sites(r: ResolverAPI, path: str, lines: list[str], target: Definition,
           calls: list[Reference], words: re.Pattern[str],
           memo: Verdicts) -> Iterator[tuple[int, str, Check]]:
    """(line, value, does-the-expected-type-reject-it) for each place of `path` that hands
    a value to a declared type: an argument of one of `calls`, a typed local's value, a
    returned value."""
    for ref in sorted(calls, key=lambda c: c.line):
        for row, value, index, new in call_arguments(lines, ref):
            yield row + 1, value, _argument_check(r, ref, index, new, target, memo)
    for row, line in enumerate(lines):
        local = _TYPED_LOCAL.search(line) if ":" in line and "=" in line else None
        if local is not None and words.search(local.group("type")):
            yield row + 1, local.group("value"), \
                _local_check(r, path, local.group("type"), target)
        returned = _RETURN.match(line) if "return" in line else None
        if returned is not None:
            yield row + 1, returned.group("value"), \
                lambda where: _return_rejects(r, path, where, target, words)


def _local_check(r: ResolverAPI, path: str, written: str, target: Definition) -> Check:
    return lambda where: rejects(r, path, where, written, target)


def _instance(r: ResolverAPI, known: dict[tuple[str, str, str], bool], path: str,
              where: str, value: str, target: Definition) -> bool:
    """Whether `value` is an instance of a class whose member `target.name` is `target`."""
    m = _NEW.match(value)
    if m is None:
        return known_instance(known, r, path, where, value, target, classes_only=True)
    e = r.resolve_expression(path, where, m.group("cls"))
    d = e.definition if e is not None and e.kind == "definition" else None
    if d is None or d.kind not in CLASS_KINDS:
        return False
    found = r.class_member(d, target.name)
    return found is not None and (found.path, found.qualified_name) == (
        target.path, target.qualified_name)


def _argument_check(r: ResolverAPI, ref: Reference, index: int, new: bool,
                    target: Definition, memo: Verdicts) -> Check:
    """Whether every overload of the function `ref` calls rejects its `index`th argument.
    A method called on a receiver the text does not type (`concatAll()(src).subscribe(
    subscriber)`, `groupSubject.subscribe(groupSubscriber)`) stands for every method of
    its name in the project: each of them must reject it. (An `any` receiver, which tsc
    lets through, is listed too: there the foreign object calls the changed method.)"""
    def check(where: str) -> bool:
        res = r.resolve(ref)
        if not res.confidence or not res.definitions:
            return False
        if res.confidence == AMBIGUOUS and not all(d.kind == METHOD for d in res.definitions):
            return False
        return all(_callee_rejects(r, d, index, new, target, memo) for d in res.definitions)
    return check


def _callee_rejects(r: ResolverAPI, d: Definition, index: int, new: bool,
                    target: Definition, memo: Verdicts) -> bool:
    if d.kind in CLASS_KINDS and new:
        d = r.class_member(d, "constructor") or d
    if d.kind not in (FUNCTION, METHOD):
        return False
    overloads = [o for o in r.scope(d.path).definitions
                 if o.qualified_name == d.qualified_name and o.kind == d.kind] or [d]
    verdicts = []
    for o in overloads:
        key = (o.path, o.qualified_name, o.line_start, index)
        if key not in memo:
            memo[key] = _parameter_rejects(r, o, index, target)
        verdicts.append(memo[key])
    return None not in verdicts and any(verdicts)


def _parameter_rejects(r: ResolverAPI, fn: Definition, index: int,
                       target: Definition) -> bool | None:
    """True: the parameter's type has the member; False: no instance fits it at all;
    None: it may take the instance as it is (or the text does not say)."""
    written = parameter_type(fn.signature, index)
    if written is None:
        return None
    return verdict(r, fn.path, fn.parent or fn.qualified_name, written, target, 0)


def _return_rejects(r: ResolverAPI, path: str, where: str, target: Definition,
                    words: re.Pattern[str]) -> bool:
    fn = max((d for d in r.scope(path).definitions if d.qualified_name == where),
             key=lambda d: d.line_end - d.line_start, default=None)
    written = declared_return(fn.signature) if fn is not None else None
    return written is not None and words.search(written) is not None and \
        rejects(r, path, where, written, target)


def plan_for(r: ResolverAPI, target: Definition, references: References) -> Plan | None:
    """What conforming_uses reads for `target`: None where its class declares no base (a
    class that implements nothing by name is looked for nowhere: a lower bound)."""
    cls = r.scope(target.path).by_qualified.get(target.parent)
    if cls is None or cls.kind not in CLASS_KINDS:
        return None
    shapes: set[str] = set()
    todo, seen = [cls], set[tuple[str, str]]()
    while todo and len(seen) < MAX_ANCESTORS:
        c = todo.pop()
        if (c.path, c.qualified_name) in seen:
            continue
        seen.add((c.path, c.qualified_name))
        shapes.update(_TYPE_NAME.sub(r"\g<name>", b.strip()).rsplit(".", 1)[-1]
                      for b in c.bases if b.strip())
        todo.extend(r.bases(c))
    shapes.discard(cls.name)
    paths, callables = {target.path}, set()
    todo_shapes, done = sorted(shapes), set[str]()
    while todo_shapes and len(done) < MAX_SHAPES:
        shape = todo_shapes.pop()
        done.add(shape)
        for ref in references(name=shape):
            paths.add(ref.path)
            if ref.kind != ANNOTATION or not ref.scope:
                continue
            owner = r.scope(ref.path).by_qualified.get(ref.scope)
            name = ref.scope.rsplit(".", 1)[-1]
            if owner is not None and owner.kind in (TYPE, INTERFACE):
                if name not in done and name != cls.name:  # `type P = Observer | ...`
                    todo_shapes.append(name)
            else:
                callables.add(name)
    shapes = done
    if not shapes:
        return None
    for name in sorted(callables):
        paths.update(ref.path for ref in references(name=name) if ref.kind == CALL)
    return Plan(frozenset(shapes), frozenset(callables),
                frozenset(p for p in paths if language_for(p) in TYPED_LANGUAGES))
