"""Checks of single setting values, shared by the config file and the command line.

Each check returns the value normalised (lists become tuples) or raises `Invalid` with what
was expected ("an integer >= 1"); config.py adds where the value came from.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, Final
from urllib.parse import urlsplit

from maguyva_guard import spec
from maguyva_guard.pathglob import check_pattern
from maguyva_guard.records import RISK_LEVELS

# Deeper than this, transitive callers cover nearly every symbol of a real code base (NOTES:
# "cap the depth"); a larger number only makes the run slower and the report useless.
MAX_DEPTH: Final = 8
# The dimensions voyage-code-3 can return (NOTES: output_dimension 256|512|1024|2048).
VOYAGE_DIMENSIONS: Final = (256, 512, 1024, 2048)
# Embedded vectors are compared 64 bits at a time (a uint64 view), so whole words only.
EMBEDDED_DIMENSION_STEP: Final = 64
BACKENDS: Final = ("embedded", "voyage")
# Upper bounds: a number past them is a typo or a joke, and would reach SQLite (64-bit
# integers), an allocation (bits per vector) or a socket timeout as something they refuse.
MAX_CALLERS_LIMIT: Final = 1_000_000
MAX_FILE_SIZE_LIMIT: Final = 1 << 30  # 1 GiB: parsing a larger file is never wanted
MAX_EMBEDDED_DIMENSION: Final = 65536
MAX_TIMEOUT_SECONDS: Final = 3600.0


class Invalid(ValueError):
    """A value of the wrong type or range; the message says what was expected."""


def show(value: object) -> str:
    """A value as the user wrote it (TOML and JSON agree on strings, numbers, lists)."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def one_of(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if isinstance(value, str) and value in choices:
            return value
        raise Invalid("one of " + ", ".join(choices))

    return check


def integer(low: int, high: int | None = None) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        # bool is an int to Python, never to a user.
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= low
        if ok and (high is None or value <= high):
            return int(value)
        raise Invalid(f"an integer >= {low}" + (f" and <= {high}" if high is not None else ""))

    return check


def positive_number(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        if math.isfinite(value) and 0 < value <= MAX_TIMEOUT_SECONDS:
            return float(value)
    raise Invalid(f"a number of seconds > 0 and <= {MAX_TIMEOUT_SECONDS:g}")


def text(value: Any) -> str:
    if isinstance(value, str) and value.strip():
        return value
    raise Invalid("a non-empty string")


def http_url(value: Any) -> str:
    parts = urlsplit(value) if isinstance(value, str) else None
    if parts and parts.scheme in ("http", "https") and parts.netloc and value.isprintable():
        return str(value).rstrip("/")
    raise Invalid("an http:// or https:// URL")


def globs(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise Invalid('a list of glob patterns (exclude = ["vendor/", "*.min.js"])')
    try:
        return tuple(check_pattern(p) for p in value)
    except ValueError as exc:
        raise Invalid(f"a list of globs inside the repository ({exc})") from None


_CHECKS: Final[dict[str, Callable[[Any], Any]]] = {
    "preset": one_of(spec.PRESETS),
    "depth": integer(1, MAX_DEPTH),
    "exclude": globs,
    "fail_on": one_of(RISK_LEVELS),
    "max_callers": integer(0, MAX_CALLERS_LIMIT),
    "max_file_size": integer(1, MAX_FILE_SIZE_LIMIT),
}


def check_key(key: str, value: Any) -> Any:
    """A top-level setting's value, checked and normalised."""
    if key == "exclude" and isinstance(value, tuple):
        value = list(value)  # from the command line: several --exclude flags
    return _CHECKS[key](value)


def check_semantic_key(key: str, value: Any, backend: Any) -> Any:
    """A `semantic` setting's value; the dimension depends on the backend."""
    if key == "backend":
        return one_of(BACKENDS)(value)
    if key == "dimension":
        return _dimension(value, backend)
    if key == "base_url":
        return http_url(value)
    if key == "timeout":
        return positive_number(value)
    return text(value)  # model


def _dimension(value: Any, backend: Any) -> int:
    if backend == "voyage":
        if isinstance(value, int) and not isinstance(value, bool) and value in VOYAGE_DIMENSIONS:
            return value
        raise Invalid("one of " + ", ".join(map(str, VOYAGE_DIMENSIONS)) + " for voyage")
    ok = isinstance(value, int) and not isinstance(value, bool)
    if ok and 0 < value <= MAX_EMBEDDED_DIMENSION and value % EMBEDDED_DIMENSION_STEP == 0:
        return int(value)
    raise Invalid(f"a positive multiple of {EMBEDDED_DIMENSION_STEP} bits"
                  f" <= {MAX_EMBEDDED_DIMENSION}")
