"""Seeded behaviour mutations inside function bodies, generated with `ast`.

A mutant changes one expression on one line of a function body, the way a real edit
changes behaviour without touching any signature: a constant changed (a number + 1, a
string with a character added, True <-> False), a comparison or membership test inverted,
an `if`/`while`/`elif` test negated, a returned value replaced by None. The segment is
replaced in the source text (not the whole file unparsed), so the diff is one line and the
rest of the file keeps its bytes. Docstrings are never mutated.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass
from pathlib import Path

CONSTANT = "constant"
BRANCH = "branch"
COMPARE = "compare"
RETURN = "return"
KINDS = (CONSTANT, BRANCH, COMPARE, RETURN)
# One function gives at most this many mutants, so that a sample spreads over the code.
PER_FUNCTION = 2

_NEGATED_OPS: dict[type, ast.cmpop] = {
    ast.Eq: ast.NotEq(), ast.NotEq: ast.Eq(), ast.Lt: ast.GtE(), ast.GtE: ast.Lt(),
    ast.Gt: ast.LtE(), ast.LtE: ast.Gt(), ast.In: ast.NotIn(), ast.NotIn: ast.In(),
    ast.Is: ast.IsNot(), ast.IsNot: ast.Is(),
}


@dataclass(frozen=True)
class Mutant:
    path: str  # repository-relative
    function: str  # qualified name inside the module: "Class.method"
    kind: str  # one of KINDS
    line: int  # 1-based
    col: int  # 0-based start of the replaced segment
    end_col: int
    before: str  # the replaced segment
    after: str

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line}:{self.col}:{self.kind}"

    def apply(self, source: str) -> str:
        """`source` with this mutant's segment replaced (the line keeps everything else)."""
        lines = source.splitlines(keepends=True)
        text = lines[self.line - 1]
        raw = text.encode("utf-8")  # ast columns count UTF-8 bytes
        new = raw[: self.col] + self.after.encode("utf-8") + raw[self.end_col :]
        lines[self.line - 1] = new.decode("utf-8")
        return "".join(lines)


def _segment(lines: list[bytes], node: ast.AST) -> str | None:
    """A node's text when it sits on one line, else None."""
    start, end = getattr(node, "lineno", 0), getattr(node, "end_lineno", -1)
    if start != end or start == 0:
        return None
    raw = lines[start - 1][node.col_offset : node.end_col_offset]  # type: ignore[attr-defined]
    return raw.decode("utf-8")


def _docstrings(fn: ast.AST) -> set[int]:
    body = getattr(fn, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return {id(body[0].value)}
    return set()


def _replacement(node: ast.AST, text: str) -> tuple[str, str] | None:
    """(kind, new text) for a node that can be mutated, else None."""
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            return CONSTANT, repr(not v)
        if isinstance(v, int | float) and not isinstance(v, complex):
            return CONSTANT, repr(v + 1)
        if isinstance(v, str) and v and not text.startswith(("f", "F", "r", "R", "b", "B")):
            return CONSTANT, repr(v + "X")
        return None
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op = _NEGATED_OPS.get(type(node.ops[0]))
        if op is None:
            return None
        return COMPARE, ast.unparse(ast.Compare(node.left, [op], node.comparators))
    return None


def _candidates(path: str, source: str) -> list[Mutant]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines = source.encode("utf-8").splitlines(keepends=True)
    found: list[Mutant] = []

    def add(fn_name: str, node: ast.AST, kind: str, before: str, after: str) -> None:
        found.append(Mutant(path, fn_name, kind, node.lineno,  # type: ignore[attr-defined]
                            node.col_offset, node.end_col_offset,  # type: ignore[attr-defined]
                            before, after))

    def visit_function(fn: ast.FunctionDef | ast.AsyncFunctionDef, qual: str) -> None:
        skip = _docstrings(fn)
        for stmt in fn.body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                    continue  # nested bodies still count as this function's (walk enters them)
                if id(node) in skip:
                    continue
                if isinstance(node, ast.If | ast.While) and (text := _segment(lines, node.test)):
                    add(qual, node.test, BRANCH, text, f"not ({text})")
                elif isinstance(node, ast.Return) and node.value is not None:
                    text = _segment(lines, node.value)
                    if text and not (isinstance(node.value, ast.Constant)
                                     and node.value.value is None):
                        add(qual, node.value, RETURN, text, "None")
                elif (text := _segment(lines, node)) is not None:
                    change = _replacement(node, text)
                    if change is not None:
                        add(qual, node, change[0], text, change[1])

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                visit_function(node, prefix + node.name)
                walk(node.body, f"{prefix}{node.name}.")

    walk(tree.body, "")
    return found


def _still_parses(source: str, m: Mutant) -> bool:
    try:
        ast.parse(m.apply(source))
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return False
    return m.before != m.after


def sample(root: Path, paths: list[str], count: int, seed: int) -> list[Mutant]:
    """`count` mutants over `paths` (library files), seeded: at most PER_FUNCTION per
    function, kinds drawn in turn so that each kind is represented."""
    rng = random.Random(seed)
    by_kind: dict[str, list[Mutant]] = {k: [] for k in KINDS}
    sources = {}
    for path in sorted(paths):
        source = sources[path] = (root / path).read_text(encoding="utf-8")
        for m in _candidates(path, source):
            by_kind[m.kind].append(m)
    for pool in by_kind.values():
        rng.shuffle(pool)
    chosen: list[Mutant] = []
    per_function: dict[tuple[str, str], int] = {}
    while len(chosen) < count and any(by_kind.values()):
        for kind in KINDS:
            pool = by_kind[kind]
            while pool:
                m = pool.pop()
                used = per_function.get((m.path, m.function), 0)
                if used < PER_FUNCTION and _still_parses(sources[m.path], m):
                    per_function[(m.path, m.function)] = used + 1
                    chosen.append(m)
                    break
            if len(chosen) >= count:
                break
    return chosen
