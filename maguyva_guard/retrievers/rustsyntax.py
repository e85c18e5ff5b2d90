"""Rust's implicit calls: operators, `for` loops and formatting macros call trait methods
without naming them.

`p + q` calls `Add::add` of p's type, `p += q` `AddAssign::add_assign`, `v[i]`
`Index::index`, `a == b` `PartialEq::eq`, `for x in it` `Iterator::next` (or
`IntoIterator::into_iter`), `format!("{}", p)` and the other formatting macros `fmt` of
`Display` or `Debug`. A change to such a method breaks those sites, and no reference names
it. As for Python's special methods (protocols.py), the lines of the files that name the
type are scanned for that syntax, and a site counts where the operand's type shows (a
typed parameter or local, a field, a constructor or a function's declared return type).
Where it does not show, the site is missed, and the answer says it is a lower bound.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from maguyva_guard.extract.languages import language_for
from maguyva_guard.records import CALL, METHOD, Definition, Reference
from maguyva_guard.retrievers import rusttypes
from maguyva_guard.retrievers.protocols import enclosing_name
from maguyva_guard.retrievers.resolve import CLASS_KINDS, Resolver
from maguyva_guard.retrievers.syntaxcalls import Located

_OPERAND: Final = r"(?<![\w.:&])([A-Za-z_][\w.]*)"
_SYNTAX: Final[dict[str, tuple[str, ...]]] = {
    "add": (rf"{_OPERAND}\s*\+(?![=+])",),
    "sub": (rf"{_OPERAND}\s*-(?![=>])",),
    "mul": (rf"{_OPERAND}\s*\*(?![=/])",),
    "div": (rf"{_OPERAND}\s*/(?![/=*])",),
    "rem": (rf"{_OPERAND}\s*%(?!=)",),
    "add_assign": (rf"{_OPERAND}\s*\+=",),
    "sub_assign": (rf"{_OPERAND}\s*-=",),
    "mul_assign": (rf"{_OPERAND}\s*\*=",),
    "div_assign": (rf"{_OPERAND}\s*/=",),
    "eq": (rf"{_OPERAND}\s*[=!]=",),
    "ne": (rf"{_OPERAND}\s*!=",),
    "index": (rf"{_OPERAND}\[",),
    "next": (rf"\bfor\s+[\w,() &]+?\s+in\s+&?(?:mut\s+)?{_OPERAND}\s*\{{",),
    "into_iter": (rf"\bfor\s+[\w,() &]+?\s+in\s+&?(?:mut\s+)?{_OPERAND}\s*\{{",),
}
RUST_SYNTAX_METHODS: Final = frozenset({*_SYNTAX, "fmt"})
_PATTERNS: Final = {name: tuple(re.compile(p) for p in pats) for name, pats in _SYNTAX.items()}
_FORMAT_MACRO: Final = re.compile(
    r"\b(?:format|print|println|eprint|eprintln|write|writeln|panic|format_args|assert|"
    r"assert_eq|assert_ne|debug_assert|unreachable|todo|log|info|warn|error|debug|trace)!\s*"
    r"[(\[{]")
_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"')
_INLINE: Final = re.compile(r"(?<!\{)\{([A-Za-z_]\w*)(?::[^}]*)?\}")
_PLAIN: Final = re.compile(r"\s*&?\s*([A-Za-z_][\w.]*)\s*$")


def is_rust_syntax_method(target: Located) -> bool:
    """A Rust method that operator, loop or formatting syntax calls, searched here."""
    return target.kind == METHOD and target.name in RUST_SYNTAX_METHODS and \
        language_for(target.path) == "rust"


def rust_implicit_calls(resolver: Resolver, target: Definition,
                        paths: set[str]) -> Iterator[Reference]:
    """The sites in `paths` whose syntax calls `target` on an operand of its type."""
    owner = resolver.enclosing_class(target.path, target.qualified_name)
    if owner is None or owner.kind not in CLASS_KINDS:
        return
    known: dict[tuple[str, str, str], bool] = {}
    for path in sorted(p for p in paths if p.endswith(".rs")):
        definitions = resolver.scope(path).definitions
        for number, line in enumerate(resolver.lines(path), start=1):
            code = line.split("//", 1)[0]
            if not code.strip() or code.lstrip().startswith(("#", "*")):
                continue
            for operand in _operands(target.name, code):
                where = enclosing_name(definitions, number)
                if (path, where) == (target.path, target.qualified_name):
                    continue
                key = (path, where, operand)
                rusttypes.resolving(resolver, path, number)
                if key not in known:
                    known[key] = _of_type(resolver, path, where, operand, owner, target)
                if known[key]:
                    yield Reference(path, target.name, CALL, number, where)
                    break


def _operands(name: str, code: str) -> Iterator[str]:
    if name == "fmt":
        m = _FORMAT_MACRO.search(code)
        if m is None:
            return
        rest = code[m.end():]
        literal = _STRING.search(rest)
        if literal is None:
            return
        yield from _INLINE.findall(literal.group(0))
        for arg in rest[literal.end():].split(","):
            plain = _PLAIN.match(arg.rstrip(");]} "))
            if plain is not None:
                yield plain.group(1)
        return
    for pattern in _PATTERNS[name]:
        for m in pattern.finditer(code):
            yield m.group(1)




def _of_type(resolver: Resolver, path: str, scope: str, operand: str, owner: Definition,
             target: Definition) -> bool:
    """Whether `operand` is an instance of `owner` whose `target.name` is `target`
    (`fmt`: of `owner` itself, Display's and Debug's being two methods of one name)."""
    e = resolver.resolve_expression(path, scope, operand)
    if e is None or e.kind != "instance" or e.definition is None:
        return False
    cls = e.definition
    if target.name == "fmt":
        return (cls.path, cls.qualified_name) == (owner.path, owner.qualified_name)
    found = resolver.class_member(cls, target.name)
    return found is not None and (found.path, found.qualified_name) == (
        target.path, target.qualified_name)
