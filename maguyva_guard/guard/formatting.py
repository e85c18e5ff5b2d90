"""Whether a file's change is only whitespace or formatting: then it changes no behaviour.

A reformatting commit (black, prettier, a new indentation) touches thousands of files and
must not become thousands of "changed" symbols and fallback searches. Two sides are the
same code when:

- Python: both parse, and their syntax trees are equal (`ast.dump` without positions):
  quotes, parentheses, line breaks, trailing commas and indentation that keeps the
  nesting all disappear, while any change of behaviour, even a dedented statement, shows.
- other languages: equal once each run of whitespace is one space, or one newline when it
  held a newline (a newline can matter: JavaScript's automatic semicolons).
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Final

_SPACES: Final = re.compile(r"\s+")
PYTHON_SUFFIXES: Final = (".py", ".pyi")


def formatting_only(path: str, old: bytes, new: bytes) -> bool:
    """True when `old` and `new` (a file's two sides) are the same code."""
    if old == new:
        return True
    try:
        old_text, new_text = old.decode("utf-8"), new.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if path.endswith(PYTHON_SUFFIXES):
        tree = _python_tree(old_text)
        return tree is not None and tree == _python_tree(new_text)
    return _squeezed(old_text) == _squeezed(new_text)


def _python_tree(text: str) -> str | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            return ast.dump(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _squeezed(text: str) -> str:
    return _SPACES.sub(lambda m: "\n" if "\n" in m.group() else " ", text).strip()
