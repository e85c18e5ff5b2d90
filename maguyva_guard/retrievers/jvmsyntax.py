"""Implicit calls in Java, Kotlin and Scala: syntax that calls a method without naming it.

Java's for-each calls `iterator()` of the `Iterable` it walks, try-with-resources calls
`close()`; Kotlin's `a + b` calls `operator fun plus`, `for (x in bag)` `iterator`, `a[i]`
`get`, `a[i] = v` `set`, `a()` `invoke`; Scala's `a + b` calls `def +` and `a(x)` `apply`.
As protocols.py does for Python's special methods, the lines of the files that name the
class are scanned for that syntax, and a site counts where the operand's type shows (a
declared or inferred variable, a field, a parameter, a constructor call) and its class
(or a base) holds the changed method. Where the type does not show, the site is missed:
the guard keeps saying the answer is a lower bound (syntaxcalls.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from maguyva_guard.extract.languages import language_for
from maguyva_guard.records import CALL, METHOD, Definition, Reference
from maguyva_guard.retrievers.protocols import enclosing_name, known_instance
from maguyva_guard.retrievers.resolution_base import ResolverAPI

_OPERAND: Final = r"([A-Za-z_][\w.]*(?:\(\))?)"
_INFIX: Final = {"+": r"\+(?![+=])", "-": r"-(?![-=>])", "*": r"\*(?![=/])", "/": r"/(?![/*=])",
                 "%": r"%(?!=)"}
_KOTLIN_OPERATORS: Final = {"plus": "+", "minus": "-", "times": "*", "div": "/", "rem": "%"}
_SYNTAX: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "java": {
        "iterator": (rf"\bfor\s*\([^:;()]+:\s*{_OPERAND}\s*\)",),
        "close": (r"\btry\s*\(\s*(?:final\s+)?[\w.<>\[\]]+\s+([A-Za-z_]\w*)\s*=",
                  rf"\btry\s*\(\s*{_OPERAND}\s*\)"),
    },
    "kotlin": {
        **{name: (rf"{_OPERAND}\s*{_INFIX[op]}",) for name, op in _KOTLIN_OPERATORS.items()},
        "iterator": (rf"\bfor\s*\([^()]*?\s+in\s+{_OPERAND}\s*\)",),
        "get": (rf"{_OPERAND}\[[^\]]*\](?!\s*=[^=])",),
        "set": (rf"{_OPERAND}\[[^\]]*\]\s*=[^=]",),
        "invoke": (rf"(?<![\w.]){_OPERAND}\(",),
    },
    "scala": {
        **{op: (rf"{_OPERAND}\s*{pattern}",) for op, pattern in _INFIX.items()},
        "apply": (rf"(?<![\w.]){_OPERAND}\(",),
    },
}
_PATTERNS: Final = {lang: {name: tuple(re.compile(p) for p in pats)
                           for name, pats in table.items()}
                    for lang, table in _SYNTAX.items()}
_COMMENT: Final = ("//", "/*", "*")
_OPERATOR_CHARS: Final = r"!#%&*+\-/:<=>?@\\^|~"
_SYMBOLIC: Final = re.compile(rf"[{_OPERATOR_CHARS}]+")


def is_syntax_method(target: Definition) -> bool:
    """A Java, Kotlin or Scala method that syntax of its language calls (see above)."""
    if target.kind != METHOD or not target.parent:
        return False
    language = language_for(target.path) or ""
    if language == "kotlin" and "operator" not in target.signature:
        return False  # Kotlin's syntax calls only `operator fun`s
    return target.name in _PATTERNS.get(language, {}) or (
        language == "scala" and _SYMBOLIC.fullmatch(target.name) is not None)


def _patterns(language: str, name: str) -> tuple[re.Pattern[str], ...]:
    """The syntax that calls method `name`: the table's, else a Scala symbolic operator
    used infix (`a |+| b`)."""
    found = _PATTERNS.get(language, {}).get(name)
    if found is not None:
        return found
    return (re.compile(rf"{_OPERAND}\s*(?<![{_OPERATOR_CHARS}]){re.escape(name)}"
                       rf"(?![{_OPERATOR_CHARS}])"),)


def implicit_calls(resolver: ResolverAPI, target: Definition,
                   paths: set[str]) -> Iterator[Reference]:
    """The sites in `paths` whose syntax calls `target` on an operand whose type shows."""
    language = language_for(target.path) or ""
    patterns = _patterns(language, target.name)
    known: dict[tuple[str, str, str], bool] = {}
    for path in sorted(paths):
        if language_for(path) != language:
            continue
        definitions = resolver.scope(path).definitions
        for number, line in enumerate(resolver.lines(path), start=1):
            if line.lstrip().startswith(_COMMENT):
                continue
            if _site(resolver, target, path, number, line, patterns, definitions, known):
                yield Reference(path, target.name, CALL, number,
                                enclosing_name(definitions, number))


def _site(resolver: ResolverAPI, target: Definition, path: str, number: int, line: str,
          patterns: tuple[re.Pattern[str], ...], definitions: list[Definition],
          known: dict[tuple[str, str, str], bool]) -> bool:
    """Whether `line` holds the syntax of `patterns` on an operand of `target`'s class."""
    for pattern in patterns:
        for m in pattern.finditer(line):
            if "//" in line[: m.start(1)]:
                break
            where = enclosing_name(definitions, number)
            if known_instance(known, resolver, path, where, m.group(1), target,
                              classes_only=True):
                return True
    return False
