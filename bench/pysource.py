"""Python source facts for the benchmark, from the stdlib `ast` only.

The rig judges our tree-sitter code, so it must not reuse it: scopes, enclosing symbols and
candidate definitions come from `ast`, which is simple and independent.
"""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass

MODULE = "<module>"


@dataclass(frozen=True)
class Scope:
    """A function, method or class. Lines are 1-based inclusive; `start` includes decorators,
    because a decorator line such as `@f` is a use of `f` by the decorated definition."""

    qualname: str
    kind: str  # "function" | "method" | "class"
    start: int
    end: int
    name_line: int
    name_col: int  # 0-based column of the name after `def`/`class`, as jedi wants it
    depth: int  # nesting depth: 0 for a top-level definition


def _name_position(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
                   lines: list[str]) -> tuple[int, int]:
    """Where the defined name sits: ast only gives the `def` keyword's column."""
    keyword = "class" if isinstance(node, ast.ClassDef) else "def"
    line = node.lineno
    text = lines[line - 1] if line - 1 < len(lines) else ""
    at = text.find(keyword + " ", node.col_offset)
    if at < 0:  # a definition whose name sits on a later line is too odd to matter here
        return line, node.col_offset
    col = at + len(keyword)
    while col < len(text) and text[col] in " \t":
        col += 1
    return line, col


def scopes(source: str) -> list[Scope]:
    """Every def/class in the file, outer before inner, with local qualified names."""
    tree = ast.parse(source)
    lines = source.splitlines()
    found: list[Scope] = []

    def visit(node: ast.AST, prefix: str, in_class: bool, depth: int) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                qual = f"{prefix}{child.name}"
                is_class = isinstance(child, ast.ClassDef)
                kind = "class" if is_class else ("method" if in_class else "function")
                start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                line, col = _name_position(child, lines)
                end = child.end_lineno or child.lineno
                found.append(Scope(qual, kind, start, end, line, col, depth))
                visit(child, qual + ".", is_class, depth + 1)
            else:
                visit(child, prefix, in_class, depth)

    visit(tree, "", False, 0)
    return found


class Enclosing:
    """Maps a line to the innermost enclosing scope's qualified name, or `<module>`."""

    def __init__(self, file_scopes: list[Scope]) -> None:
        self._scopes = sorted(file_scopes, key=lambda s: (s.start, -s.end))
        self._starts = [s.start for s in self._scopes]
        self.qualnames = {s.qualname for s in file_scopes}

    def at(self, line: int) -> str:
        best = MODULE
        # Scopes starting at or before the line; the innermost one that still covers it wins.
        for scope in self._scopes[: bisect.bisect_right(self._starts, line)]:
            if scope.start <= line <= scope.end:
                best = scope.qualname
        return best

    def resolve(self, symbol: str, line: int | None = None) -> str:
        """A tool's symbol name as one of ours: tools prefix module paths ("pkg.mod.f") or
        file paths ("/x/pkg/mod.py::f"); the longest local name that is a dotted suffix
        wins, else the tool's line decides, else the raw name stays (and counts as wrong)."""
        if symbol == MODULE:
            return MODULE
        local = symbol.rsplit("::", 1)[-1]
        if local in self.qualnames:
            return local
        suffixes = [q for q in self.qualnames if local and local.endswith("." + q)]
        if suffixes:
            return max(suffixes, key=len)
        if line is not None:
            return self.at(line)
        return local or MODULE


def parse_or_none(source: str) -> list[Scope] | None:
    """Scopes, or None for a file that does not parse as Python 3 (a py2 fixture, say)."""
    try:
        return scopes(source)
    except (SyntaxError, ValueError):
        return None
