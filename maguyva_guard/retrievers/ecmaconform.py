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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Final

from maguyva_guard.extract.languages import language_for
from maguyva_guard.records import (
    AMBIGUOUS,
    ANNOTATION,
    CALL,
    FUNCTION,
    METHOD,
    Definition,
    Reference,
)
from maguyva_guard.retrievers.ecmacontext import Callback, call_above, parameter_type
from maguyva_guard.retrievers.ecmashapes import declared_return, rejects, verdict
from maguyva_guard.retrievers.protocols import enclosing_name, known_instance
from maguyva_guard.retrievers.resolution_base import CLASS_KINDS, ResolverAPI

CONFORMS: Final = "conforms"  # the reference kind (and JSON `links[].reason`) of such sites
_IDENT: Final = r"[A-Za-z_$][\w$]*"
_VALUE: Final = (rf"(?:new\s+{_IDENT}(?:\.{_IDENT})*\s*(?:<[^()]*>)?\([^()]*\)"
                 rf"|(?:this\.)?{_IDENT}(?:\.{_IDENT})*)")
# An argument's start: at the start of a line (a call written over several lines) or after
# `(` or `,`: a name or chain, `new C`, or a call's callee (its parenthesis after it).
_ARGUMENT: Final = re.compile(
    rf"(?:^|(?<=[(,]))\s*(?P<value>(?:new\s+)?(?:this\.)?{_IDENT}(?:\.{_IDENT})*)\s*"
    r"(?:<[^()]*>\s*)?(?P<after>[(,)]|$)")
_KEYWORDS: Final = frozenset({"if", "for", "while", "switch", "catch", "function", "return",
                              "typeof", "await", "new", "yield", "throw", "case", "else"})
MAX_LINES_ON: Final = 40  # how far below an argument's call is looked for its `)`
_TYPED_LOCAL: Final = re.compile(
    rf"\b(?:const|let|var)\s+{_IDENT}\s*:\s*(?P<type>[^=]+?)\s*=\s*(?P<value>{_VALUE})"
    r"\s*;?\s*$")
_RETURN: Final = re.compile(rf"^\s*return\s+(?P<value>{_VALUE})\s*;?\s*$")
_NEW: Final = re.compile(rf"^new\s+(?P<cls>{_IDENT}(?:\.{_IDENT})*)")
_TYPE_NAME: Final = re.compile(rf"^(?P<name>{_IDENT}(?:\.{_IDENT})*)\s*(?:<(?P<args>.*)>)?$")
# The store's reference query (`references(name=..., path=...)`).
References = Callable[..., Iterable[Reference]]
Check = Callable[[str], bool]  # the enclosing symbol's name -> whether the site conforms
TYPED_LANGUAGES: Final = frozenset({"typescript", "tsx"})  # JavaScript declares no types


def is_conformance_target(target: Definition) -> bool:
    """A TypeScript method: its class's instances may be typed by what they conform to."""
    return target.kind == METHOD and bool(target.parent) and \
        language_for(target.path) in TYPED_LANGUAGES


def conforming_uses(r: ResolverAPI, target: Definition, paths: set[str],
                    references: References) -> Iterator[Reference]:
    """The sites in `paths` where an instance of `target`'s class is passed, assigned or
    returned where a declared type with a member named as `target` is expected."""
    known: dict[tuple[str, str, str], bool] = {}
    for path in sorted(paths):
        scope = r.scope(path)
        lines = r.lines(path)
        for row, line in enumerate(lines):
            if line.lstrip().startswith(("//", "*", "/*")):
                continue
            number, where = row + 1, ""
            for value, expected in _sites(r, path, lines, row, target, references):
                where = where or enclosing_name(scope.definitions, number)
                if _instance(r, known, path, where, value, target) and expected(where):
                    yield Reference(path, target.name, CONFORMS, number, where)
                    break


def _sites(r: ResolverAPI, path: str, lines: list[str], row: int, target: Definition,
           references: References) -> Iterator[tuple[str, Check]]:
    """(value, does-the-expected-type-reject-it) for each place on `lines[row]` that hands
    a value to a declared type."""
    line = lines[row]
    for value, column in _arguments(lines, row):
        above = call_above(lines, row, column)
        if above is not None:
            found, rows_up = above
            yield value, _argument_check(r, path, row + 1 - rows_up, found, target,
                                         references)
    local = _TYPED_LOCAL.search(line)
    if local is not None:
        written = local.group("type")
        yield local.group("value"), lambda where: rejects(r, path, where, written, target)
    returned = _RETURN.match(line)
    if returned is not None:
        yield returned.group("value"), lambda where: _return_rejects(r, path, where, target)


def _arguments(lines: list[str], row: int) -> Iterator[tuple[str, int]]:
    """(value, column) of each argument starting on `lines[row]` that is a name or chain
    closed by `,` or `)`, or a call `f(...)` / `new C(...)` whose `)` is followed by them
    (on a later line too): a call as `f()`, what is_instance_of asks of a call."""
    line = lines[row]
    for m in _ARGUMENT.finditer(line):
        value, after = m.group("value"), m.group("after")
        if value.split(".")[0] in _KEYWORDS:
            continue
        if after == "(":
            if _after_call(lines, row, m.start("after")) not in (",", ")"):
                continue
            value += "()"
        elif value.startswith("new ") or after not in (",", ")"):
            continue
        yield value, m.start("value")


def _after_call(lines: list[str], row: int, column: int) -> str:
    """The first character after the parentheses opened at `column` of `lines[row]`
    (MAX_LINES_ON lines at most; "" past them)."""
    text = "\n".join(lines[row : row + MAX_LINES_ON])
    depth = 0
    for i in range(column, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            rest = text[i + 1 :].lstrip()
            return rest[:1]
    return ""


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


def _argument_check(r: ResolverAPI, path: str, number: int, found: Callback,
                    target: Definition, references: References) -> Check:
    """Whether every overload of the function called at `found` rejects the argument."""
    def check(where: str) -> bool:
        ref = _call_reference(path, number, found.callee, references)
        res = r.resolve(ref) if ref is not None else None
        if res is None or res.confidence in ("", AMBIGUOUS) or not res.definitions:
            return False
        return all(_callee_rejects(r, d, found, target) for d in res.definitions)
    return check


def _call_reference(path: str, number: int, callee: str,
                    references: References) -> Reference | None:
    """The indexed call of `callee` (as written, `?.` read as `.`) at line `number`: the
    one whose receiver is written the same, else the only call of that name there."""
    name = callee.rsplit(".", 1)[-1]
    refs = [ref for ref in references(name=name, path=path)
            if ref.line == number and ref.kind == CALL]
    same = [ref for ref in refs if ".".join(filter(None, (ref.receiver.replace("?.", "."),
                                                          name))) == callee]
    return same[0] if same else refs[0] if len(refs) == 1 else None


def _callee_rejects(r: ResolverAPI, d: Definition, found: Callback,
                    target: Definition) -> bool:
    if d.kind in CLASS_KINDS and found.new:
        d = r.class_member(d, "constructor") or d
    if d.kind not in (FUNCTION, METHOD):
        return False
    overloads = [o for o in r.scope(d.path).definitions
                 if o.qualified_name == d.qualified_name and o.kind == d.kind] or [d]
    verdicts = [_parameter_rejects(r, o, found.argument, target) for o in overloads]
    return None not in verdicts and any(verdicts)


def _parameter_rejects(r: ResolverAPI, fn: Definition, index: int,
                       target: Definition) -> bool | None:
    """True: the parameter's type has the member; False: no instance fits it at all;
    None: it may take the instance as it is (or the text does not say)."""
    written = parameter_type(fn.signature, index)
    if written is None:
        return None
    return verdict(r, fn.path, fn.parent or fn.qualified_name, written, target, 0)


def _return_rejects(r: ResolverAPI, path: str, where: str, target: Definition) -> bool:
    fn = r.scope(path).by_qualified.get(where)
    written = declared_return(fn.signature) if fn is not None else None
    return written is not None and rejects(r, path, where, written, target)


def candidate_paths(r: ResolverAPI, target: Definition, references: References) -> set[str]:
    """The files where an instance of `target`'s class may meet a type with the member:
    those naming the class, or a type it extends or implements (`Observer`), or calling a
    function whose signature names such a type (`subscribe(observer: Partial<Observer<T>>)`
    is called in files that never name `Observer`)."""
    cls = r.scope(target.path).by_qualified.get(target.parent)
    if cls is None or cls.kind not in CLASS_KINDS:
        return set()
    shapes = {cls.name} | {_TYPE_NAME.sub(r"\g<name>", b.strip()).rsplit(".", 1)[-1]
                           for b in cls.bases if b.strip()}
    paths = {target.path}
    callables: set[str] = set()
    for shape in sorted(shapes):
        for ref in references(name=shape):
            paths.add(ref.path)
            if ref.kind == ANNOTATION and ref.scope:
                callables.add(ref.scope.rsplit(".", 1)[-1])
    for name in sorted(callables):
        paths.update(ref.path for ref in references(name=name) if ref.kind == CALL)
    return {p for p in paths if language_for(p) in TYPED_LANGUAGES}
