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
from maguyva_guard.retrievers.ecmacontext import Callback, call_around, parameter_type
from maguyva_guard.retrievers.protocols import enclosing_name, known_instance
from maguyva_guard.retrievers.resolution_base import CLASS_KINDS, ResolverAPI

CONFORMS: Final = "conforms"  # the reference kind (and JSON `links[].reason`) of such sites
_IDENT: Final = r"[A-Za-z_$][\w$]*"
_VALUE: Final = (rf"(?:new\s+{_IDENT}(?:\.{_IDENT})*\s*(?:<[^()]*>)?\([^()]*\)"
                 rf"|(?:this\.)?{_IDENT}(?:\.{_IDENT})*)")
_ARGUMENT: Final = re.compile(rf"(?<=[(,])\s*(?P<value>{_VALUE})\s*(?=[,)])")
_TYPED_LOCAL: Final = re.compile(
    rf"\b(?:const|let|var)\s+{_IDENT}\s*:\s*(?P<type>[^=]+?)\s*=\s*(?P<value>{_VALUE})"
    r"\s*;?\s*$")
_RETURN: Final = re.compile(rf"^\s*return\s+(?P<value>{_VALUE})\s*;?\s*$")
_NEW: Final = re.compile(rf"^new\s+(?P<cls>{_IDENT}(?:\.{_IDENT})*)")
# Arms no class instance fits.
_NO_INSTANCE: Final = frozenset({"null", "undefined", "void", "never", "string", "number",
                                 "boolean", "bigint", "symbol"})
# Mapped types that keep every member's name (`Partial<Observer<T>>` has `next`, optional).
_KEEPS_NAMES: Final = frozenset({"Partial", "Readonly", "Required"})
_TYPE_NAME: Final = re.compile(rf"^(?P<name>{_IDENT}(?:\.{_IDENT})*)\s*(?:<(?P<args>.*)>)?$")
MAX_DEPTH: Final = 4  # type aliases followed
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
        for number, line in enumerate(r.lines(path), start=1):
            if line.lstrip().startswith(("//", "*", "/*")) or target.name == "":
                continue
            where = ""
            for value, expected in _sites(r, path, number, line, target, references):
                where = where or enclosing_name(scope.definitions, number)
                if _instance(r, known, path, where, value, target) and expected(where):
                    yield Reference(path, target.name, CONFORMS, number, where)
                    break


def _sites(r: ResolverAPI, path: str, number: int, line: str, target: Definition,
           references: References) -> Iterator[tuple[str, Check]]:
    """(value, does-the-expected-type-reject-it) for each place on `line` that hands a
    value to a declared type."""
    if "(" in line:
        for m in _ARGUMENT.finditer(line):
            found = call_around(line.replace("?.", "."), m.start("value"), 0)
            if found is not None:
                yield m.group("value"), _argument_check(r, path, number, found, target,
                                                        references)
    local = _TYPED_LOCAL.search(line)
    if local is not None:
        written = local.group("type")
        yield local.group("value"), lambda where: rejects(r, path, where, written, target)
    returned = _RETURN.match(line)
    if returned is not None:
        yield returned.group("value"), lambda where: _return_rejects(r, path, where, target)


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
        name = found.callee.rsplit(".", 1)[-1]
        refs = [ref for ref in references(name=name, path=path)
                if ref.line == number and ref.kind == CALL]
        callees: list[Definition] = []
        for ref in refs[:1]:
            res = r.resolve(ref)
            if res.confidence in ("", AMBIGUOUS):
                return False
            callees = list(res.definitions)
        if not callees:
            return False
        for d in callees:
            if d.kind in CLASS_KINDS and found.new:
                d = r.class_member(d, "constructor") or d
            if d.kind not in (FUNCTION, METHOD):
                return False
            overloads = [o for o in r.scope(d.path).definitions
                         if o.qualified_name == d.qualified_name and o.kind == d.kind] or [d]
            verdicts = [_parameter_rejects(r, o, found.argument, target) for o in overloads]
            if None in verdicts or not any(verdicts):
                return False
        return True
    return check


def _parameter_rejects(r: ResolverAPI, fn: Definition, index: int,
                       target: Definition) -> bool | None:
    """True: the parameter's type has the member; False: no instance fits it at all;
    None: it may take the instance as it is (or the text does not say)."""
    written = parameter_type(fn.signature, index)
    if written is None:
        return None
    return _verdict(r, fn.path, fn.parent or fn.qualified_name, written, target, 0)


def _return_rejects(r: ResolverAPI, path: str, where: str, target: Definition) -> bool:
    fn = r.scope(path).by_qualified.get(where)
    written = declared_return(fn.signature) if fn is not None else None
    return written is not None and rejects(r, path, where, written, target)


def rejects(r: ResolverAPI, path: str, scope: str, written: str, target: Definition) -> bool:
    """Whether the type `written` in `path` expects a member named as `target` (not
    `target` itself) in every arm that a class instance could fit."""
    return _verdict(r, path, scope, written, target, 0) is True


def _verdict(r: ResolverAPI, path: str, scope: str, written: str, target: Definition,
             depth: int) -> bool | None:
    arms = _arms(written)
    if not arms or depth > MAX_DEPTH:
        return None
    verdicts = [_arm(r, path, scope, arm, target, depth) for arm in arms]
    if None in verdicts:
        return None
    return any(verdicts)


def _arm(r: ResolverAPI, path: str, scope: str, arm: str, target: Definition,
         depth: int) -> bool | None:
    if arm in _NO_INSTANCE or arm[:1] in "'\"`0123456789" or (
            arm.startswith("(") and "=>" in arm):
        return False
    if arm.startswith("{"):
        return True if _has_member(arm, target.name) else None
    m = _TYPE_NAME.match(arm)
    if m is None:
        return None
    if m.group("name") in _KEEPS_NAMES and m.group("args"):
        return _verdict(r, path, scope, m.group("args"), target, depth + 1)
    e = r.resolve_expression(path, scope, m.group("name"))
    d = e.definition if e is not None else None
    if d is None or d.kind not in CLASS_KINDS:
        return None
    own = r.class_member(d, target.name)
    if own is not None:
        return None if own == target else True
    body = "\n".join(r.lines(d.path)[d.line_start - 1 : d.line_end])
    alias = re.search(rf"\btype\s+{re.escape(d.name)}\b[^=]*=(?P<rhs>[\s\S]*?);?\s*$", body)
    if alias is not None:
        return _verdict(r, d.path, d.parent, alias.group("rhs"), target, depth + 1)
    return True if _has_member(_braces(body), target.name) else None


def _arms(written: str) -> list[str]:
    """The arms of a union type (`A | (() => void) | null`), parentheses around one arm
    removed."""
    out, depth, start = [], 0, 0
    text = written.strip().lstrip("|").strip()
    for i, c in enumerate(text):
        if c in "([{<":
            depth += 1
        elif c in ")]}>" and not (c == ">" and text[i - 1 : i] == "="):
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    arms = []
    for arm in (a.strip() for a in out):
        while arm.startswith("(") and arm.endswith(")") and "=>" not in _outside(arm[1:-1]):
            arm = arm[1:-1].strip()
        arms.append(arm)
    return [a for a in arms if a]


def _outside(text: str) -> str:
    """`text` without what its brackets hold (to tell `(A)` from `(a: A) => B`)."""
    depth, out = 0, []
    for c in text:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0:
            out.append(c)
    return "".join(out)


def _braces(body: str) -> str:
    at = body.find("{")
    return body[at:] if at >= 0 else ""


def _has_member(block: str, name: str) -> bool:
    """Whether the object type `block` (`{ ... }`) declares `name` at its own level."""
    depth, level = 0, []
    for i, c in enumerate(block):
        if c in "})]" or (c == ">" and block[i - 1 : i] != "="):
            depth -= 1
        if depth == 1:
            level.append(c)
        if c in "{([<":
            depth += 1
    return re.search(rf"(?:^|[;,{{\n])\s*(?:readonly\s+)?{re.escape(name)}\s*\??\s*[:(<]",
                     "".join(level)) is not None


def declared_return(signature: str) -> str | None:
    """The return type written after a signature's parameter list (`): Observer<T>`)."""
    at = signature.find("(")
    if at < 0:
        return None
    depth = 0
    for i in range(at, len(signature)):
        depth += {"(": 1, ")": -1}.get(signature[i], 0)
        if depth == 0:
            rest = signature[i + 1 :].strip()
            if not rest.startswith(":"):
                return None
            rest = rest[1:].strip().rstrip("{").strip()
            return rest or None
    return None




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
