"""Python tuple assignments: `a, b = C(), D()` binds `a` to `C()` and `b` to `D()` (PyCG's
classes/tuple_assignment: `a.func1` read below it is C's method). A receiver's type is
then the type of the value paired with it; sides that do not pair off (`a, b = pair()`,
a starred target) say nothing.
"""

from __future__ import annotations

import ast
import functools
import re
from typing import Final

_TARGETS: Final = re.compile(r"[\w\s,()\[\]]+")


def unpacked_value(line: str, var: str) -> str | None:
    """The text of the value a tuple assignment on `line` gives `var` (nested targets pair
    with nested values), or None when `line` is no such assignment or its sides do not
    pair off. The cheap tests first: the lines a receiver's type is looked for in are many."""
    lhs, sep, rhs = line.partition("=")
    if not sep or rhs.startswith("=") or "," not in lhs or var not in lhs or \
            _TARGETS.fullmatch(lhs) is None:
        return None
    return _unpacked(line.strip(), var)


@functools.lru_cache(maxsize=4096)
def _unpacked(statement: str, var: str) -> str | None:
    try:
        tree = ast.parse(statement)
    except (SyntaxError, ValueError):
        return None
    node = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return None
    todo: list[tuple[ast.expr, ast.expr]] = [(node.targets[0], node.value)]
    while todo:
        target, value = todo.pop()
        if isinstance(target, ast.Name) and target.id == var:
            return ast.get_source_segment(statement, value)
        if isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List) \
                and len(target.elts) == len(value.elts):
            todo.extend(zip(target.elts, value.elts, strict=True))
    return None
