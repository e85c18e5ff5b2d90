"""The `exclude` globs: what they match, and why none can point outside the repository.

Semantics (kept small so they can be stated in one breath):

- A pattern is matched with `fnmatch` rules, case-sensitively, against the whole
  repository-relative path with "/" separators. `*` also crosses "/", so `*.min.js` excludes
  minified files at any depth and `docs/*` everything under docs/.
- A pattern that matches a folder excludes everything below it: `vendor` or `vendor/`
  excludes `vendor/lib/x.py`.
- A leading `**/` also matches at the top: `**/fixtures` excludes `fixtures/` and `a/fixtures/`.
- A leading `./` is dropped.

Patterns name paths inside the repository: absolute paths and `..` segments are refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import PurePosixPath, PureWindowsPath


def check_pattern(pattern: str) -> str:
    """The pattern, normalised; ValueError when it is empty or could leave the repository."""
    if not pattern.strip() or not pattern.isprintable():
        raise ValueError(f"{pattern!r} is empty or has control characters")
    if PurePosixPath(pattern).is_absolute() or PureWindowsPath(pattern).anchor:
        raise ValueError(f"{pattern!r} is an absolute path")
    if pattern.startswith("~"):
        raise ValueError(f"{pattern!r} names a home folder")
    if ".." in pattern.replace("\\", "/").split("/"):
        raise ValueError(f"{pattern!r} has a '..' segment")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = pattern.rstrip("/")
    if not pattern or pattern == ".":
        raise ValueError("a pattern must name something below the repository root")
    return pattern


def matches(path: str, pattern: str) -> bool:
    """Whether a repository-relative path is excluded by one (normalised) pattern."""
    candidates = [pattern]
    if pattern.startswith("**/"):
        candidates.append(pattern[3:])
    parts = path.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(len(parts), 0, -1)]
    return any(fnmatchcase(prefix, p) for p in candidates for prefix in prefixes)


def matches_any(path: str, patterns: Iterable[str]) -> bool:
    return any(matches(path, p) for p in patterns)
