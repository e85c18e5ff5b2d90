"""Python local bindings: which names a function binds itself (parameters, assignments,
loop, `with` and `except` targets), and where on a line code stops and a comment or a
string starts. A bare name bound locally is not the module-level definition of that name.
"""

from __future__ import annotations

from functools import cached_property

from maguyva_guard.records import Definition
from maguyva_guard.retrievers import shadowing
from maguyva_guard.retrievers.resolve import CLASS_KINDS, Resolver


class LocalBindings:
    """Answers "is `name` bound locally around this scope?" for one resolver's view."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver

    def bound_locally(self, path: str, scope: str, name: str) -> bool:
        """Whether `name` is a parameter or local of the function around `scope` (or of a
        function enclosing that one): then a bare `name` there is not the module's."""
        key = (path, scope, name)
        found = self._locals.get(key)
        if found is None:
            found = self._locals[key] = self._bound_locally(path, scope, name)
        return found
    def _bound_locally(self, path: str, scope: str, name: str) -> bool:
        fs = self.resolver.scope(path)
        d = fs.by_qualified.get(scope)
        while d is not None:
            if d.kind not in CLASS_KINDS and shadowing.binds(self.resolver, path, d, name):
                return True
            d = fs.by_qualified.get(d.parent) if d.parent else None
        return False
    def function_locals(self, path: str, d: Definition) -> frozenset[str]:
        """The names a Python function binds itself: parameters, assignment, loop, `with`
        and `except` targets (not those it declares global or nonlocal; a local import
        binds the imported definition, which the resolver follows).
        From `ast` on the function's own lines; empty when they do not parse alone."""
        return shadowing.function_locals(self.resolver, path, d)
    @cached_property
    def _locals(self) -> dict[tuple[str, str, str], bool]:
        return {}


def in_comment_or_string(line: str, at: int) -> bool:
    """Whether position `at` of one line is after a `#` or inside a quoted string, the
    `{...}` fields of an f-string excepted (code). A per-line approximation: a string that
    spans lines is the docstring check's business."""
    quote = ""
    fstring = False
    depth = 0  # inside an f-string's replacement field
    i = 0
    while i < at:
        c = line[i]
        if quote and depth:
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
        elif quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
            elif fstring and c == "{":
                if line.startswith("{{", i):
                    i += 1
                else:
                    depth = 1
        elif c in "\"'":
            quote = c
            j = i
            while j > 0 and line[j - 1].isalpha():
                j -= 1
            fstring = "f" in line[j:i].lower()
        elif c == "#":
            return True
        i += 1
    return bool(quote) and not depth
