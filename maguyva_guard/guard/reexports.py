"""Names a Python module stops importing: its importers may have taken them from it.

A module's imports are names other modules can import from it: `from httpx import Client`
works because httpx/__init__.py imports Client, and a package's public API is mostly made
of such re-exports. An import line belongs to no definition and, edited alone, changes no
behaviour of the module itself (guard.changes treats it as noise), so a release that drops
a name from `__init__.py` was reported as "No callers affected" (complete). A name the new
side neither imports nor defines any more becomes a fallback: the places that take it
from this module (`from ._client import Timer`, `httpx.Timer`) are listed as mentions and
the answer is a lower bound. A plain word search for the name would list every use of it,
most of them importing it from where it is defined (httpx 0.27.2 -> 0.28.0: `_client.py`
stopped importing `Timer` from `_utils`). Added imports break nobody.
"""

from __future__ import annotations

import ast
import sqlite3
from pathlib import PurePosixPath
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


def import_lines(path: str, lines: list[str], changed: set[int]) -> set[int]:
    """The lines of a Python file's import statements (a parenthesised one spans several),
    when a changed line may be one of them: they are the dropped-import rule's, not
    module-level code to search word by word."""
    if not path.endswith(PYTHON_SUFFIXES) or not any(
            _may_import(lines[i - 1]) for i in changed if 0 < i <= len(lines)):
        return set()
    return {i for node in _imports(lines)
            for i in range(node.lineno, (node.end_lineno or node.lineno) + 1)}


def _may_import(line: str) -> bool:
    """An import line, or a line inside a parenthesised one (`    Client,`)."""
    text = line.strip()
    if text.startswith(("import ", "from ")):
        return True
    names = text.rstrip(",)").replace(" as ", " ").split()
    return text.endswith((",", ")")) and bool(names) and all(n.isidentifier() for n in names)


def _imported(lines: list[str]) -> dict[str, None]:
    """The names a module's top-level import statements bind, in order."""
    out: dict[str, None] = {}
    for node in _imports(lines):
        for alias in node.names:
            if alias.name != "*":
                out.setdefault(alias.asname or alias.name.split(".")[0], None)
    return out


def _imports(lines: list[str]) -> list[ast.Import | ast.ImportFrom]:
    """A module's import statements: at module level, and inside its `if` and `try` blocks
    (optional imports); none when the text does not parse."""
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return []
    out: list[ast.Import | ast.ImportFrom] = []
    statements = list(tree.body)
    while statements:
        node = statements.pop(0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            out.append(node)
        elif isinstance(node, ast.If | ast.Try):
            statements[:0] = [*node.body, *node.orelse, *getattr(node, "finalbody", []),
                              *(s for h in getattr(node, "handlers", []) for s in h.body)]
    return out


def takers(conn: sqlite3.Connection, path: str, name: str) -> list[tuple[str, int, str]]:
    """(path, line, enclosing symbol) of the references that take `name` from the module
    at `path`: imports whose module part ends with the module's name, and attribute uses
    on a receiver that does."""
    module = PurePosixPath(path)
    stem = module.parent.name if module.stem == "__init__" else module.stem
    rows = conn.execute(
        "SELECT f.path, r.line, r.scope, r.kind, r.target, r.receiver FROM refs r "
        "JOIN files f ON f.blob_id = r.blob WHERE r.name = ?", (name,))
    out = []
    for where, line, scope, kind, target, receiver in rows:
        source = target[: -len(name) - 1] if kind == "import" and target.endswith(
            "." + name) else receiver if kind != "import" else ""
        if where != path and source.rstrip(".").rsplit(".", 1)[-1] == stem:
            out.append((where, line, scope or "<module>"))
    return sorted(out)
