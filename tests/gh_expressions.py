"""GitHub Actions expressions (`${{ ... }}`) as the runner evaluates them, for the tests.

Contexts are plain dicts; property access on a missing value gives null; `==` compares
strings ignoring case and other types as numbers (null and "" are 0); `&&` and `||` return
an operand, as in JavaScript; functions are passed in (success(), always() ...).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)
_TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>-?\d+(?:\.\d+)?)"
                    r"|(?P<op>==|!=|<=|>=|&&|\|\||[!<>().,\[\]*])"
                    r"|(?P<name>[A-Za-z_][\w-]*))")



def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise ValueError(f"cannot parse expression at {text[pos:]!r}")
        kind = match.lastgroup or ""
        out.append((kind, match[kind]))
        pos = match.end()
    return out


def _number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip()) if value.strip() else 0.0
        except ValueError:
            return float("nan")
    return float("nan")


def _equal(a: Any, b: Any) -> bool:
    """GitHub: strings compare ignoring case; different types are compared as numbers."""
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    if type(a) is type(b) and not isinstance(a, str):
        return bool(a == b)
    return _number(a) == _number(b)


def truthy(value: Any) -> bool:
    return value not in (None, False, 0, "") and not (isinstance(value, float) and value != value)


def to_string(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


class Parser:
    def __init__(self, text: str, contexts: Mapping[str, Any],
                 functions: Mapping[str, Callable[..., Any]]) -> None:
        self.tokens = _tokens(text)
        self.pos = 0
        self.contexts = contexts
        self.functions = functions

    def parse(self) -> Any:
        value = self._or()
        if self.pos != len(self.tokens):
            raise ValueError(f"unexpected {self.tokens[self.pos]}")
        return value

    def _peek(self) -> str:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else ""

    def _take(self, expected: str | None = None) -> tuple[str, str]:
        token = self.tokens[self.pos]
        if expected is not None and token[1] != expected:
            raise ValueError(f"expected {expected}, got {token[1]}")
        self.pos += 1
        return token

    def _or(self) -> Any:
        value = self._and()
        while self._peek() == "||":
            self._take()
            right = self._and()
            value = value if truthy(value) else right
        return value

    def _and(self) -> Any:
        value = self._compare()
        while self._peek() == "&&":
            self._take()
            right = self._compare()
            value = right if truthy(value) else value
        return value

    def _compare(self) -> Any:
        value = self._unary()
        while self._peek() in ("==", "!=", "<", ">", "<=", ">="):
            op = self._take()[1]
            right = self._unary()
            if op in ("==", "!="):
                value = _equal(value, right) == (op == "==")
            else:
                a, b = _number(value), _number(right)
                value = {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
        return value

    def _unary(self) -> Any:
        if self._peek() == "!":
            self._take()
            return not truthy(self._unary())
        return self._primary()

    def _primary(self) -> Any:
        kind, text = self._take()
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if kind == "num":
            return float(text)
        if text == "(":
            value = self._or()
            self._take(")")
            return value
        if kind != "name":
            raise ValueError(f"unexpected {text}")
        if text in ("true", "false"):
            return text == "true"
        if text == "null":
            return None
        if self._peek() == "(":
            return self._call(text)
        value = self.contexts.get(text)
        while self._peek() in (".", "["):
            if self._take()[1] == ".":
                key = self._take()[1]
            else:
                key = to_string(self._or())
                self._take("]")
            value = value.get(key) if isinstance(value, Mapping) else None
        return value

    def _call(self, name: str) -> Any:
        self._take("(")
        args = []
        while self._peek() != ")":
            args.append(self._or())
            if self._peek() == ",":
                self._take()
        self._take(")")
        return self.functions[name.lower()](*args)


def expand(text: str, contexts: Mapping[str, Any]) -> str:
    """Every `${{ }}` in `text` replaced by its value as a string."""
    return EXPR.sub(lambda m: to_string(Parser(m[1], contexts, {}).parse()), text)


def evaluate(text: str, contexts: Mapping[str, Any],
             functions: Mapping[str, Callable[..., Any]] | None = None) -> Any:
    """An `if:` condition, with or without its `${{ }}`."""
    match = EXPR.fullmatch(text.strip())
    return Parser(match[1] if match else text, contexts, functions or {}).parse()
