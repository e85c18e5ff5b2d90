"""Names a function binds itself, so that a receiver bound locally is not read as the
module's definition of the same name: in `def autorun(): reaction = Reaction();
reaction.dispose()` next to a module-level `def reaction()`, `reaction.dispose()` calls
Reaction's method, not an attribute of the function (which resolved to nothing and gave a
complete "no callers" for `Reaction.dispose`). Python from `ast` on the function's lines;
JavaScript/TypeScript from its parameters and `let`/`const`/`var` declarations."""

from __future__ import annotations

import ast
import functools
import re
import textwrap

from maguyva_guard.extract.languages import language_for as language_of
from maguyva_guard.records import Definition
from maguyva_guard.retrievers.importpaths import JS_LANGUAGES
from maguyva_guard.retrievers.resolution_base import CLASS_KINDS, Entity, ResolverAPI


def shadows(r: ResolverAPI, path: str, scope: str, name: str, found: Entity) -> bool:
    """Whether `found` (what the module binds to `name`, or an outer definition) is hidden
    at `scope` by a parameter or local of that name in a function around it. A function
    defined inside one of those functions is the local binding itself, never hidden."""
    return not _inner(r, path, found.definition) and bound_around(r, path, scope, name)


def bound_around(r: ResolverAPI, path: str, scope: str, name: str) -> bool:
    """Whether a function around `scope` (itself or one enclosing it) binds `name` as a
    parameter or local (Python and JavaScript/TypeScript; False elsewhere)."""
    language = language_of(path)
    if language != "python" and language not in JS_LANGUAGES:
        return False
    memo: dict[tuple[str, str, str], bool] = r.__dict__.setdefault("_shadowed", {})
    key = (path, scope, name)
    if key not in memo:
        memo[key] = _bound_around(r, path, scope, name, language == "python")
    return memo[key]


def function_locals(r: ResolverAPI, path: str, d: Definition) -> frozenset[str]:
    """The names a Python function binds itself (python_locals on its lines), memoised."""
    memo: dict[tuple[str, str, int], frozenset[str]] = r.__dict__.setdefault(
        "_function_locals", {})
    key = (path, d.qualified_name, d.line_start)
    found = memo.get(key)
    if found is None:
        found = memo[key] = python_locals(_source(r, path, d))
    return found


def binds(r: ResolverAPI, path: str, d: Definition, name: str) -> bool:
    """Whether Python function `d` binds `name` itself (`name in function_locals`), with
    no parse when each use of `name` on its lines is a call or an attribute (`only_read`):
    the parse and walk of a function cost a 50-symbol check most of a second."""
    memo: dict[tuple[str, str, int], frozenset[str]] = r.__dict__.setdefault(
        "_function_locals", {})
    found = memo.get((path, d.qualified_name, d.line_start))
    if found is None and only_read(_source(r, path, d), name):
        return False
    return name in (found if found is not None else function_locals(r, path, d))


def only_read(source: str, name: str) -> bool:
    """Whether no occurrence of the word `name` in `source` can bind it: each is called
    (`name(`, not after `def` or `class`), the owner of an attribute (`name.x`) or an
    attribute itself (`x.name`). Those are loads in Python's grammar, so python_locals
    cannot hold `name` then. ASCII only (Python folds other identifiers, NFKC)."""
    if not (source.isascii() and name.isascii() and name.isidentifier()):
        return False
    at, size = source.find(name), len(name)
    while at >= 0:
        end = at + size
        if not (_word(source, at - 1) or _word(source, end)):  # a whole word
            after = source[end:end + 80].lstrip(" \t")[:1]
            attribute = source[at - 1 : at] == "." and source[at - 2 : at - 1] != "."
            called = after == "(" and _DEFINED.search(source, max(0, at - 80), at) is None
            if not (attribute or after == "." or called):
                return False
        at = source.find(name, end)
    return True


def _word(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


_DEFINED = re.compile(r"\b(?:def|class)[\s\\]+$")  # `def name(`: binds the name


def _source(r: ResolverAPI, path: str, d: Definition) -> str:
    return "\n".join(r.lines(path)[d.line_start - 1 : d.line_end])


def _bound_around(r: ResolverAPI, path: str, scope: str, name: str, python: bool) -> bool:
    fs = r.scope(path)
    d = fs.by_qualified.get(scope)
    while d is not None:
        if d.kind not in CLASS_KINDS:
            if python and binds(r, path, d, name):
                return True
            if not python and ecma_declares(
                    d.signature, r.lines(path)[d.line_start - 1 : d.line_end], name):
                return True
        d = fs.by_qualified.get(d.parent) if d.parent else None
    return False


def _inner(r: ResolverAPI, path: str, d: Definition | None) -> bool:
    if d is None or d.path != path or not d.parent:
        return False
    parent = r.scope(path).by_qualified.get(d.parent)
    return parent is not None and parent.kind not in CLASS_KINDS


def python_locals(source: str) -> frozenset[str]:
    """Names bound in the first function of `source`: parameters, assignment, loop,
    `with` and `except` targets, nested definitions (not names declared global or
    nonlocal; a local import binds the imported definition, which the resolver follows).
    Empty when the lines do not parse alone."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError):
        return frozenset()
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)),
              None)
    if fn is None:
        return frozenset()
    args = fn.args
    bound = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    bound |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    declared: set[str] = set()
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)  # its body is its own scope; decorators are not walked
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared |= set(node.names)
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(bound - declared)


@functools.lru_cache(maxsize=512)
def _ecma_patterns(name: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    n = re.escape(name)
    declared = re.compile(
        # `let x`, `const x: T =`, `var x`, `const { a, x } =`, `let [x] =`
        rf"\b(?:let|const|var)\s+(?:{n}\b|[{{\[][^=;]*?(?<![\w$.]){n}(?![\w$])[^=;]*?[}}\]])"
        # an arrow function's parameter: `x =>`, `(a, x: T) =>`
        rf"|(?<![\w$.]){n}\s*=>|\(\s*(?:[^()]*,\s*)?(?:\.\.\.)?{n}\s*\??\s*(?::[^()]*)?\)"
        rf"\s*(?::[^=()]*)?=>")
    # a parameter in the function's own signature: `(x)`, `(a, x: T)`, `(...x)`, `(x = 1)`
    parameter = re.compile(rf"[(,]\s*(?:\.\.\.)?{n}\s*\??\s*[:,)=]")
    return declared, parameter


def ecma_declares(signature: str, lines: list[str], name: str) -> bool:
    """Whether a function (its signature, then its lines) declares `name` itself."""
    declared, parameter = _ecma_patterns(name)
    if name in signature and parameter.search(signature):
        return True
    return any(name in line and declared.search(line) for line in lines)
