"""Test classes whose base is a value, not a class name (`class BadUnsign(serializer.signer)`,
`class Any(type(obj))`): they may subclass any class, so the dispatch gate
(testdispatch.py) counts them as holding every one. Per file, so that the tests' view
kept in the index (testviewstore.py) stores them and a check need not read every test
file's definitions for them.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterable
from typing import Final

from maguyva_guard.records import CLASS, Definition

_BUILTINS: Final = frozenset(dir(builtins))  # `class A(object)`, `class D(dict)`: a class
_CLASS_BASES: Final = re.compile(r"class\s+\w+\s*\((.*)\)", re.DOTALL)


def dynamic_bases_of(path: str, definitions: Iterable[Definition]) -> list[tuple[str, str]]:
    """(path, qualified name) of the classes of one test file that derive from a value."""
    out = []
    for d in definitions:
        m = _CLASS_BASES.match(d.signature) if d.kind == CLASS else None
        if m is not None and any(_is_value(b) for b in _split(m.group(1))):
            out.append((path, d.qualified_name))
    return out


def _split(bases: str) -> list[str]:
    """Top-level comma-separated parts of a class header's bases, keywords dropped."""
    parts, depth, cur = [], 0, ""
    for c in bases + ",":
        depth += (c in "([{") - (c in ")]}")
        if c == "," and depth == 0:
            if cur.strip() and "=" not in cur:
                parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    return parts


def _is_value(base: str) -> bool:
    """`type(x)` or `obj.attr`; not `Base`, `mod.Base`, `Generic[T]`, `object`."""
    head = base.split("[", 1)[0].strip()
    last = head.rsplit(".", 1)[-1]
    return "(" in head or (last[:1].islower() and last not in _BUILTINS)
