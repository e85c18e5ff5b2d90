"""Implicit calls in C++ and C#: the syntax that runs a method without naming it (issue 24).

`a + b` runs C++'s `operator+` and C#'s `operator +`; a range-for runs C++'s `begin()` and
`end()`, C#'s `foreach` `GetEnumerator()`; a C++ local going out of scope or `delete p` runs
the destructor; C#'s `using (var d = ...)` runs `Dispose()` and `a[i]` the indexer
`this[int]`; a C# constructor's `: base(...)` runs the base class's constructor. No
reference names the method at those sites. Here the lines of the files that name the class
are scanned for that syntax, and a site counts where the operand's declared type is the
class (or a subclass that does not override the method): `V a` as a parameter or local,
`var d = new V()`, a field. Where the type does not show the site is missed, and the guard
says the answer is a lower bound (syntaxcalls.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final

from maguyva_guard.extract.languages import language_for
from maguyva_guard.records import CALL, PROBABLE, Definition, Reference
from maguyva_guard.retrievers.cfamily import cfamily
from maguyva_guard.retrievers.resolution_base import CLASS_KINDS, ResolverAPI

_VAR: Final = r"([A-Za-z_]\w*)"
_OPERATORS: Final = ("==", "!=", "<=", ">=", "<<", ">>", "+", "-", "*", "/", "%", "<", ">",
                     "&", "|", "^")
_SYNTAX: Final[dict[str, tuple[str, ...]]] = {  # method name -> patterns, group 1 the operand
    "begin": (rf"\bfor\s*\([^;]*[^:]:\s*{_VAR}\s*\)",),
    "end": (rf"\bfor\s*\([^;]*[^:]:\s*{_VAR}\s*\)",),
    "GetEnumerator": (rf"\bforeach\s*\([^)]*?\bin\s+{_VAR}\s*\)",),
    "Dispose": (rf"\busing\s*\(?\s*(?:var\s+|[\w.<>]+\s+)?{_VAR}\s*[=)]",),
    "this": (rf"(?<![\w.\]])(?<!new\s){_VAR}\s*\[[^\]]",),
}
_DELETE: Final = re.compile(rf"\bdelete\s*(?:\[\s*\]\s*)?{_VAR}")
_FIRST_PARAMETER: Final = re.compile(r"\(\s*(?:const\s+)?([A-Za-z_][\w:]*)")


def is_syntax_target(target: Definition) -> bool:
    """A C++ or C# method that syntax calls and this module searches for."""
    if language_for(target.path) not in ("cpp", "csharp"):
        return False
    return target.name in _SYNTAX or target.name.startswith(("operator", "~"))


def base_constructor_calls(resolver: ResolverAPI, subclasses: Iterable[Definition],
                           target: Definition) -> Iterator[Reference]:
    """C#: the constructors of `subclasses` whose `: base(...)` runs `target`."""
    for sub in subclasses:
        fs = resolver.scope(sub.path)
        for d in fs.definitions:
            if d.parent == sub.qualified_name and d.name == sub.name and \
                    re.search(r"\)\s*:\s*base\s*\(", d.signature):
                yield Reference(d.path, target.name, CALL, d.line_start, d.qualified_name)


def syntax_sites(resolver: ResolverAPI, target: Definition,
                 paths: Iterable[str]) -> Iterator[tuple[Reference, str]]:
    """The sites in `paths` whose syntax calls `target` on an operand of its class."""
    cls = owner(resolver, target)
    if cls is None:
        return
    language = language_for(target.path)
    patterns = _patterns(target.name)
    for path in sorted(paths):
        if language_for(path) != language and not (language == "cpp" and language_for(path)
                                                   == "c"):
            continue
        fs = resolver.scope(path)
        known: dict[tuple[str, str], bool] = {}
        for number, line in enumerate(resolver.lines(path), start=1):
            if line.lstrip().startswith(("//", "*", "/*", "#")):
                continue
            where = _enclosing(fs.definitions, number)
            if where is None or where.kind in CLASS_KINDS or (path, where.qualified_name) \
                    == (target.path, target.qualified_name):
                continue  # the class body's declarations, or the method itself
            if _local_of(target, cls, line) or any(
                    _typed(resolver, known, path, where, m.group(1), number, target)
                    for p in patterns for m in p.finditer(line)):
                yield Reference(path, target.name, CALL, number, where.qualified_name), PROBABLE


def _patterns(name: str) -> tuple[re.Pattern[str], ...]:
    if name in _SYNTAX:
        return tuple(re.compile(p) for p in _SYNTAX[name])
    if name.startswith("~"):
        return (_DELETE,)
    op = name[len("operator"):].strip()
    if op not in _OPERATORS:
        return ()
    # Not the start of a longer operator (`++`, `+=`, `<<`, `->`).
    tail = "".join(sorted({c for o in _OPERATORS for c in o if o.startswith(op)} | {"="} |
                          ({">"} if op == "-" else set())))
    return (re.compile(rf"(?<![\w.]){_VAR}\s*{re.escape(op)}(?![{re.escape(tail)}])"),)


def _local_of(target: Definition, owner: Definition, line: str) -> bool:
    """C++: a local of the class by value (`File f;`, `File f(1);`): its destructor runs."""
    if not target.name.startswith("~") or language_for(target.path) != "cpp":
        return False
    return re.search(rf"(?:^|[;{{(]|\bconst)\s*{re.escape(owner.name)}\s+[A-Za-z_]\w*\s*"
                     r"(?:[;({=,)]|$)", line) is not None and "return" not in line


def owner(resolver: ResolverAPI, target: Definition) -> Definition | None:
    """The class whose instances' syntax calls `target`: its own, or for a free C++
    `operator+(const V& a, ...)` the class of its first operand."""
    if target.parent:
        cls = resolver.scope(target.path).by_qualified.get(target.parent)
        return cls if cls is not None and cls.kind in CLASS_KINDS else None
    m = _FIRST_PARAMETER.search(target.signature)
    if m is None or language_for(target.path) != "cpp":
        return None
    return cfamily(resolver).find_class(target.path, "", m.group(1))


def _typed(resolver: ResolverAPI, known: dict[tuple[str, str], bool], path: str,
           where: Definition, operand: str, line: int, target: Definition) -> bool:
    key = (where.qualified_name, operand)
    if key not in known:
        known[key] = _reaches(resolver, path, where, operand, line, target)
    return known[key]


def _reaches(resolver: ResolverAPI, path: str, where: Definition, operand: str, line: int,
             target: Definition) -> bool:
    """Whether `operand`'s declared type has `target` as its member `target.name`."""
    if language_for(path) == "csharp":
        e = resolver.resolve_expression(path, where.qualified_name, operand)
        cls = e.definition if e is not None and e.kind == "instance" else None
        found = resolver.class_member(cls, target.name) if cls is not None else None
    else:
        state = cfamily(resolver)
        cls = state.variable_type(path, where.qualified_name, operand, line)
        if cls is not None and not target.parent:  # a free operator: its operand's class
            return (cls.path, cls.qualified_name) == _key(owner(resolver, target))
        found = state.member(cls, target.name) if cls is not None else None
    return found is not None and (found.path, found.qualified_name) == (
        target.path, target.qualified_name)


def _key(d: Definition | None) -> tuple[str, str] | None:
    return (d.path, d.qualified_name) if d is not None else None


def _enclosing(definitions: list[Definition], line: int) -> Definition | None:
    inside = [d for d in definitions if d.line_start <= line <= d.line_end]
    return max(inside, key=lambda d: d.line_start) if inside else None
