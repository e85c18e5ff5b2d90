"""Whether a file's change is only whitespace or formatting: then it changes no behaviour.

A reformatting commit (black, prettier, a new indentation) touches thousands of files and
must not become thousands of "changed" symbols and fallback searches. Two sides are the
same code when:

- Python: both parse, and their syntax trees are equal (`ast.dump` without positions):
  quotes, parentheses, line breaks, trailing commas and indentation that keeps the
  nesting all disappear, while any change of behaviour, even a dedented statement, shows.
- other languages: equal once each run of whitespace is one space, or one newline when it
  held a newline (a newline can matter: JavaScript's automatic semicolons).

Parsing both sides of a Python file cost 30 ms per 100 KB (a 50-file diff on Django: 0.4 s
of CPU) and a changed file is rarely a reformatted one: the names and keywords outside
strings and comments, in order, are compared first (one regular expression, 4 ms per
100 KB), and only files where they agree are parsed. Equal trees always have equal words
(`elif` counts as `else if`, which is what it parses to); where this lexing could disagree
with Python's (a non-ASCII name, normalised by the parser; an f-string on Python 3.12 and
later, which may nest its own quotes), the words are not compared.
"""

from __future__ import annotations

import ast
import re
import sys
import warnings
from typing import Any, Final

_NEWLINE_RUN: Final = re.compile(r"\s*\n\s*")  # a whitespace run holding a newline
_SPACE_RUN: Final = re.compile(r"[^\S\n]+")  # one holding none
PYTHON_SUFFIXES: Final = (".py", ".pyi")
# Python's tokens as far as names go: strings (any prefix, triple-quoted or not) and
# comments are skipped whole, numbers too (`1e5`, `0x1f`); group 1 is a name or keyword.
_PY_WORDS: Final = re.compile(
    r"[rRbBuUfF]{0,3}(?:'''(?:[^'\\]|\\.|'(?!''))*'''"  # a string: triple-quoted,
    r'|"""(?:[^"\\]|\\.|"(?!""))*"""'
    r"""|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""  # or on one line
    r"|#[^\n]*"  # a comment
    r"|0[xXoObB][0-9a-fA-F_]+|\d[\d_]*\.?[\d_]*(?:[eE][+-]?[\d_]+)?[jJ]?"  # a number
    r"|([^\W\d]\w*)",  # a name or keyword
    re.DOTALL)
# From 3.12 an f-string may nest its own quotes (`f"{d["k"]}"`), which the pattern above
# would lex differently from Python: the words of a file with an f-string are not compared.
_NESTED_QUOTES: Final = sys.version_info >= (3, 12)
_FSTRING: Final = re.compile(r"""(?<![\w])(?:[rRbB]?[fF]|[fF][rRbB])['"]""")


def formatting_only(path: str, old: bytes, new: bytes) -> bool:
    """True when `old` and `new` (a file's two sides) are the same code."""
    if old == new:
        return True
    try:
        old_text, new_text = old.decode("utf-8"), new.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if path.endswith(PYTHON_SUFFIXES):
        old_words = _python_words(old_text)
        if old_words is not None and (new_words := _python_words(new_text)) is not None \
                and old_words != new_words:
            return False  # different names or keywords: different trees, no parse needed
        tree = _python_tree(old_text)
        other = _python_tree(new_text) if tree is not None else None
        return other is not None and same_tree(tree, other)
    return _squeezed(old_text) == _squeezed(new_text)


def _python_words(text: str) -> list[str] | None:
    """The names and keywords of Python source in order, outside strings and comments
    (`elif` as `else`, `if`); None where they might not be what Python reads."""
    if _NESTED_QUOTES and _FSTRING.search(text):
        return None
    words = [w for w in _PY_WORDS.findall(text) if w]
    if not text.isascii() and not all(w.isascii() for w in words):
        return None  # the parser normalises names (NFKC): `ﬁle` is `file`
    if "elif" in words:
        words = [part for w in words for part in (("else", "if") if w == "elif" else (w,))]
    return words


def _python_tree(text: str) -> ast.AST | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def same_tree(a: object, b: object) -> bool:
    """What `ast.dump(a) == ast.dump(b)` says (fields, not positions), walking both trees
    together and stopping at the first difference: dumping both whole cost 20 ms a file
    (a 50-file diff on Django: 1.4 s), and a changed file differs long before its end."""
    todo: list[tuple[Any, Any]] = [(a, b)]
    while todo:
        x, y = todo.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, ast.AST):
            todo.extend((getattr(x, f, None), getattr(y, f, None)) for f in x._fields)
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y, strict=True))
        elif x != y:
            return False
    return True


def _squeezed(text: str) -> str:
    """Each run of whitespace as one newline if it held one, else as one space (two
    substitutions without a Python call per run: docs and data files are mostly runs)."""
    return _SPACE_RUN.sub(" ", _NEWLINE_RUN.sub("\n", text)).strip()
