"""JavaScript/TypeScript's implicit calls of `[Symbol.iterator]()` (extracted as the method
`@@iterator`) and `[Symbol.asyncIterator]()` (`@@asyncIterator`).

`for (const x of bag)`, `[...bag]`, `Array.from(bag)`, `new Set(bag)`, `yield* bag` and a
destructuring `const [a, b] = bag` call `bag[Symbol.iterator]()`; `for await (const x of
bag)` calls `[Symbol.asyncIterator]()`. No reference names the method at those sites. As
for Python's special methods (protocols.py), the lines of the files that name the class
are scanned for that syntax, and a site counts where the operand's type shows (a typed
parameter or field, `new Bag()`, a function's return type). Where it does not show the
site is missed, and the answer says it is a lower bound.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from maguyva_guard.extract.languages import language_for
from maguyva_guard.records import CALL, METHOD, Definition, Reference
from maguyva_guard.retrievers.importpaths import JS_LANGUAGES
from maguyva_guard.retrievers.protocols import enclosing_name, known_instance
from maguyva_guard.retrievers.resolve import Resolver
from maguyva_guard.retrievers.syntaxcalls import Located

_OPERAND: Final = r"((?:this\.)?[A-Za-z_$][\w$.]*(?:\(\))?)"
_ITERATES: Final = (
    rf"\bfor\s*\(\s*(?:const|let|var)\s+[^;]+?\s+of\s+{_OPERAND}\s*\)",
    rf"\.\.\.{_OPERAND}\s*[\]),]",
    rf"\bArray\.from\(\s*{_OPERAND}\s*[,)]",
    rf"\bnew\s+(?:Set|Map|WeakSet|WeakMap)\(\s*{_OPERAND}\s*\)",
    rf"\byield\s*\*\s*{_OPERAND}",
    rf"\b(?:const|let|var)\s*\[[^\]]*\]\s*=\s*{_OPERAND}\s*;?\s*$",
)
_SYNTAX: Final[dict[str, tuple[str, ...]]] = {
    "@@iterator": _ITERATES,
    "@@asyncIterator": (
        rf"\bfor\s+await\s*\(\s*(?:const|let|var)\s+[^;]+?\s+of\s+{_OPERAND}\s*\)",),
}
_PATTERNS: Final = {name: tuple(re.compile(p) for p in pats) for name, pats in _SYNTAX.items()}
ECMA_SYNTAX_METHODS: Final = frozenset(_SYNTAX)


def is_ecma_syntax_method(target: Located) -> bool:
    """A JavaScript/TypeScript method that iteration syntax calls, searched here."""
    return target.kind == METHOD and target.name in ECMA_SYNTAX_METHODS and \
        language_for(target.path) in JS_LANGUAGES


def ecma_implicit_calls(resolver: Resolver, target: Definition,
                        paths: set[str]) -> Iterator[Reference]:
    """The sites in `paths` whose syntax calls `target` on an operand of its class."""
    patterns = _PATTERNS[target.name]
    known: dict[tuple[str, str, str], bool] = {}
    for path in sorted(paths):
        if language_for(path) not in JS_LANGUAGES:
            continue
        scope = resolver.scope(path)
        for number, line in enumerate(resolver.lines(path), start=1):
            if line.lstrip().startswith(("//", "*", "/*")):
                continue
            for pattern in patterns:
                m = pattern.search(line)
                if m is None:
                    continue
                if target.name == "@@iterator" and "for await" in line[: m.start(1)]:
                    continue  # `for await` asks for the async iterator first
                where = enclosing_name(scope.definitions, number)
                if known_instance(known, resolver, path, where, m.group(1), target):
                    yield Reference(path, target.name, CALL, number, where)
                    break
