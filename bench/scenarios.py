"""Scenarios: one change to one definition, as a developer would stage it.

A scenario is (project, file, qualified name, kind of change, patch). The change touches
the definition only, so every use elsewhere is now broken (signature) or dangling (rename):
exactly the callers an impact analyzer must report. Kinds:
- `signature`: add a required keyword-only parameter `extra` (valid in any parameter list);
- `default`: change the last default value of a parameter;
- `rename`: rename the definition to `<name>_renamed`.
"""

from __future__ import annotations

import ast
import difflib
import io
import random
import re
import subprocess
import tokenize
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from bench.pysource import Scope, parse_or_none

KINDS = ("signature", "default", "rename")
EXTRA_PARAM = "extra"
RENAME_SUFFIX = "_renamed"
# jedi does not search other files for names of two characters or fewer.
MIN_NAME_LENGTH = 3
_WORD = re.compile(r"[A-Za-z_]\w*")
_TEST_PARTS = {"tests", "test", "testing", "docs", "doc", "examples", "scripts"}


@dataclass(frozen=True)
class Scenario:
    project: str
    path: str
    qualname: str
    name: str
    symbol_kind: str  # function | method | class
    kind: str  # one of KINDS
    line: int  # the definition's name, 1-based line ...
    col: int  # ... and 0-based column (where jedi is asked)
    patch: str = ""

    @property
    def key(self) -> str:
        return f"{self.path}::{self.qualname}"

    @property
    def new_name(self) -> str:
        return self.name + RENAME_SUFFIX if self.kind == "rename" else self.name


def is_library_path(path: str) -> bool:
    """Where changes are drawn from: library code, not tests, docs or examples."""
    parts = path.split("/")
    name = parts[-1]
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return False
    return not any(part in _TEST_PARTS for part in parts[:-1])


def word_counts(texts: dict[str, str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for text in texts.values():
        counts.update(_WORD.findall(text))
    return counts


def eligible(scope: Scope, counts: Counter[str]) -> bool:
    """Top-level functions and classes, and methods of top-level classes, whose name occurs
    again somewhere (so some use may exist); dunders are protocol hooks, not callable names."""
    name = scope.qualname.rsplit(".", 1)[-1]
    if name.startswith("__") and name.endswith("__"):
        return False
    if len(name) < MIN_NAME_LENGTH or counts[name] < 2:
        return False
    return scope.depth == 0 or (scope.depth == 1 and scope.kind == "method")


def _function_node(tree: ast.AST, scope: Scope) -> ast.FunctionDef | ast.AsyncFunctionDef:
    name = scope.qualname.rsplit(".", 1)[-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            if node.lineno == scope.name_line:
                return node
    raise LookupError(f"no function {scope.qualname} at line {scope.name_line}")


def _single_line_default(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.expr | None:
    args = node.args
    defaults = list(args.defaults) + [d for d in args.kw_defaults if d is not None]
    defaults = [d for d in defaults if d.lineno == d.end_lineno]
    return max(defaults, key=lambda d: (d.lineno, d.col_offset)) if defaults else None


def kinds_for(source: str, scope: Scope) -> tuple[str, ...]:
    """The kinds of change that make sense for this definition."""
    if scope.kind == "class":
        return ("rename",)
    node = _function_node(ast.parse(source), scope)
    if _single_line_default(node) is not None:
        return KINDS
    return ("signature", "rename")


def _paren_tokens(lines: list[str], node: ast.AST) -> list[tokenize.TokenInfo]:
    """The tokens of the parameter list, `(` through the matching `)`."""
    text = "".join(lines[node.lineno - 1:])
    depth, out = 0, []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            if depth:
                out.append(tok)
            if tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
                if depth == 0:
                    return out
    except (tokenize.TokenError, IndentationError):
        pass
    raise LookupError("unbalanced parameter list")


def _insert(lines: list[str], row: int, col: int, text: str, base: int) -> None:
    index = base + row - 1
    lines[index] = lines[index][:col] + text + lines[index][col:]


def _add_parameter(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    toks = _paren_tokens(lines, node)
    base = node.lineno - 1
    args = node.args
    piece = ("*, " if args.vararg is None and not args.kwonlyargs else "") + EXTRA_PARAM
    if args.kwarg is not None:  # a keyword-only parameter must come before **kwargs
        # The last `**` is the one before kwargs (a default such as `2**3` comes earlier).
        star = [t for t in toks if t.type == tokenize.OP and t.string == "**"][-1]
        _insert(lines, star.start[0], star.start[1], piece + ", ", base)
        return
    close = toks[-1]
    significant = [t for t in toks[:-1] if t.type not in (tokenize.NL, tokenize.COMMENT)]
    before = significant[-1].string
    text = piece if before == "(" else (" " + piece if before == "," else ", " + piece)
    _insert(lines, close.start[0], close.start[1], text, base)


def _change_default(lines: list[str], default: ast.expr) -> None:
    index = default.lineno - 1
    raw = lines[index].encode()  # ast columns are UTF-8 byte offsets
    old = raw[default.col_offset:default.end_col_offset].decode()
    new = "0" if old == "None" else "None"
    lines[index] = (raw[:default.col_offset] + new.encode() + raw[default.end_col_offset:]).decode()


def change_source(source: str, scope: Scope, kind: str) -> str:
    """The file text after the scenario's change; the definition alone is touched."""
    lines = source.splitlines(keepends=True)
    if kind == "rename":
        name = scope.qualname.rsplit(".", 1)[-1]
        text = lines[scope.name_line - 1]
        assert text[scope.name_col:scope.name_col + len(name)] == name, (scope, text)
        at = scope.name_col + len(name)
        lines[scope.name_line - 1] = text[:at] + RENAME_SUFFIX + text[at:]
        return "".join(lines)
    node = _function_node(ast.parse(source), scope)
    default = _single_line_default(node)
    if kind == "default" and default is not None:
        _change_default(lines, default)
    elif kind == "signature":
        _add_parameter(lines, node)
    else:
        raise ValueError(f"change {kind!r} does not apply to {scope.qualname}")
    return "".join(lines)


def unified_patch(path: str, old: str, new: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True),
                                        new.splitlines(keepends=True),
                                        f"a/{path}", f"b/{path}", n=1))


def candidates(project: str, texts: dict[str, str]) -> list[Scenario]:
    """Every eligible definition with its change kind still open (kind="")."""
    counts = word_counts(texts)
    found = []
    for path in sorted(texts):
        if not is_library_path(path):
            continue
        file_scopes = parse_or_none(texts[path])
        for scope in file_scopes or []:
            if eligible(scope, counts):
                found.append(Scenario(project, path, scope.qualname,
                                      scope.qualname.rsplit(".", 1)[-1], scope.kind, "",
                                      scope.name_line, scope.name_col))
    return found


def scope_of(scenario: Scenario, source: str) -> Scope:
    for scope in parse_or_none(source) or []:
        if scope.qualname == scenario.qualname and scope.name_line == scenario.line:
            return scope
    raise LookupError(scenario.key)


def with_change(scenario: Scenario, source: str, seed: int) -> Scenario:
    """The candidate with its kind drawn (seeded, stable per definition) and its patch."""
    scope = scope_of(scenario, source)
    rng = random.Random(f"{seed}:{scenario.key}")
    kind = rng.choice(kinds_for(source, scope))
    new = change_source(source, scope, kind)
    return replace(scenario, kind=kind, patch=unified_patch(scenario.path, source, new))


def shuffled(found: list[Scenario], seed: int) -> list[Scenario]:
    order = list(found)
    random.Random(seed).shuffle(order)
    return order


def read_tracked(repo: Path) -> dict[str, str]:
    """Every tracked .py file of a repository, as text (undecodable files are skipped)."""
    out = subprocess.run(["git", "ls-files", "-z", "--", "*.py"], cwd=repo, check=True,
                         capture_output=True).stdout.decode()
    texts = {}
    for path in filter(None, out.split("\0")):
        try:
            texts[path] = (repo / path).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
    return texts


def apply(clone: Path, scenario: Scenario) -> None:
    """Stage the scenario's change in a scratch clone (never the cached corpus)."""
    file = clone / scenario.path
    source = file.read_text(encoding="utf-8")
    file.write_text(change_source(source, scope_of(scenario, source), scenario.kind),
                    encoding="utf-8")
    subprocess.run(["git", "add", "--", scenario.path], cwd=clone, check=True)


def revert(clone: Path, scenario: Scenario) -> None:
    subprocess.run(["git", "reset", "-q", "--", scenario.path], cwd=clone, check=True)
    subprocess.run(["git", "checkout", "-q", "--", scenario.path], cwd=clone, check=True)


def scratch_clone(corpus: Path, dest: Path) -> Path:
    """A throwaway clone to stage changes in; the cached corpus is never touched."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", str(corpus), str(dest)], check=True)
    return dest
