"""Names a Python module stops importing: its importers may have taken them from it.

A module's imports are names other modules can import from it: `from httpx import Client`
works because httpx/__init__.py imports Client, and a package's public API is mostly made
of such re-exports. An import line belongs to no definition and, edited alone, changes no
behaviour of the module itself (guard.changes treats it as noise), so a release that drops
a name from `__init__.py` was reported as "No callers affected" (complete). A name the new
side neither imports nor defines any more is searched for instead, as a fallback: what
names it is listed as mentions and the answer is a lower bound. Added imports break nobody.
"""

from __future__ import annotations

import ast
from typing import Final

from maguyva_guard.records import Fallback, FileSymbols

IMPORTS_REMOVED: Final = "imported names removed (importers of the module may use them)"
PYTHON_SUFFIXES: Final = (".py", ".pyi")


def dropped(path: str, old_lines: list[str], old_changed: set[int], new_lines: list[str],
            new_symbols: FileSymbols | None) -> Fallback | None:
    """The fallback for the names a modified Python file stops importing, if any."""
    if not path.endswith(PYTHON_SUFFIXES) or not old_changed or not new_lines:
        return None
    touched = [i for i in sorted(old_changed) if 0 < i <= len(old_lines)
               and _may_import(old_lines[i - 1])]
    if not touched:
        return None
    before, after = _imported(old_lines), _imported(new_lines)
    defined = {d.name for d in new_symbols.definitions} if new_symbols else set()
    gone = [name for name in before if name not in after and name not in defined]
    if not gone:
        return None
    span = f"{touched[0]}-{touched[-1]}" if len(touched) > 1 else str(touched[0])
    return Fallback(path, f"{IMPORTS_REMOVED} (lines {span})", tuple(gone))


def _may_import(line: str) -> bool:
    """An import line, or a line inside a parenthesised one (`    Client,`)."""
    text = line.strip()
    if text.startswith(("import ", "from ")):
        return True
    names = text.rstrip(",)").replace(" as ", " ").split()
    return text.endswith((",", ")")) and bool(names) and all(n.isidentifier() for n in names)


def _imported(lines: list[str]) -> dict[str, None]:
    """The names a module's top-level import statements bind, in order (none when the
    text does not parse)."""
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return {}
    out: dict[str, None] = {}
    statements = list(tree.body)
    while statements:  # module level, and inside its `if` and `try` blocks (optional imports)
        node = statements.pop(0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    out.setdefault(alias.asname or alias.name.split(".")[0], None)
        elif isinstance(node, ast.If | ast.Try):
            statements[:0] = [*node.body, *node.orelse, *getattr(node, "finalbody", []),
                              *(s for h in getattr(node, "handlers", []) for s in h.body)]
    return out
