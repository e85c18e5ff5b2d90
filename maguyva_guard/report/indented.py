"""`json.dumps(value, indent=2)`, the same text, faster.

With an indent, the standard library drops its C encoder for a chain of Python generators
that yields every token: about a second for a release-sized check's report (5,000 callers,
each with its links and contributions). This writes the same text with one Python call
per value and the C string encoder; anything it does not know (a non-string key, another
type) goes to json.dumps itself. tests/test_indented.py compares both on real reports.
"""

from __future__ import annotations

import json
from json.encoder import INFINITY, encode_basestring_ascii
from typing import Any


class _Unknown(Exception):
    """A value json.dumps encodes its own way (or refuses): it gets the whole value."""


def dumps(value: Any, indent: int = 2) -> str:
    """Exactly `json.dumps(value, indent=indent)` (ensure_ascii, allow_nan, key order)."""
    out: list[str] = []
    try:
        _encode(value, out, "\n", " " * indent)
    except _Unknown:
        return json.dumps(value, indent=indent)
    return "".join(out)


def _encode(o: Any, out: list[str], newline: str, step: str) -> None:
    # The order of json.encoder's own tests: str first (an str subclass is a string).
    if isinstance(o, str):
        out.append(encode_basestring_ascii(o))
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif isinstance(o, int):
        out.append(int.__repr__(o))
    elif isinstance(o, float):
        out.append(_float(o))
    elif isinstance(o, list | tuple):
        _array(o, out, newline, step)
    elif isinstance(o, dict):
        _object(o, out, newline, step)
    else:
        raise _Unknown


def _array(o: list[Any] | tuple[Any, ...], out: list[str], newline: str, step: str) -> None:
    if not o:
        out.append("[]")
        return
    inner = newline + step
    separator = "[" + inner
    for item in o:
        out.append(separator)
        _encode(item, out, inner, step)
        separator = "," + inner
    out.append(newline + "]")


def _object(o: dict[Any, Any], out: list[str], newline: str, step: str) -> None:
    if not o:
        out.append("{}")
        return
    inner = newline + step
    separator = "{" + inner
    for key, item in o.items():
        if not isinstance(key, str):
            raise _Unknown
        out.append(separator + encode_basestring_ascii(key) + ": ")
        _encode(item, out, inner, step)
        separator = "," + inner
    out.append(newline + "}")


def _float(o: float) -> str:
    if o != o:
        return "NaN"
    if o == INFINITY:
        return "Infinity"
    if o == -INFINITY:
        return "-Infinity"
    return float.__repr__(o)
