"""Changes that no call graph can follow into the tests: what a test selection does then.

Tests depend on more than the code they call: pytest configuration, the installed
dependencies, conftest fixtures injected by name, test data read at run time. A change to
any of these is answered with a broad selection and its reason, never with "no tests".
"""

from __future__ import annotations

import fnmatch
import posixpath
from typing import Final, NamedTuple

from maguyva_guard.extract.classify import PROSE_EXTENSIONS

# Files that configure how tests run (a changed marker, plugin or option can change any).
TEST_CONFIG: Final = (
    "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "noxfile.py", ".coveragerc",
    "jest.config.*", "vitest.config.*", "vite.config.*", "karma.conf.*", "babel.config.*",
    ".babelrc", "tsconfig.json", "tsconfig.*.json", "package.json", ".mocharc*",
)
# Files that pin the dependencies the tests run against.
LOCK_FILES: Final = (
    "*.lock", "requirements*.txt", "requirements/*.txt", "constraints*.txt", "Pipfile",
    "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "go.sum", "go.mod",
)
TEST_DIRS: Final = frozenset({"tests", "test", "__tests__", "testing", "spec"})


class Broad(NamedTuple):
    """A changed path that selects more than its callers: all tests (`under` None) or every
    test module under a folder (`under` "" is the repository)."""

    path: str
    reason: str
    under: str | None


def _matches(path: str, patterns: tuple[str, ...]) -> bool:
    name = posixpath.basename(path)
    return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(path, p) for p in patterns)


def _test_root(path: str) -> str | None:
    """The outermost test folder above `path` ("tests" for tests/data/x.json), if any."""
    parts = path.split("/")[:-1]
    for i, part in enumerate(parts):
        if part in TEST_DIRS:
            return "/".join(parts[: i + 1])
    return None


def classify_change(path: str, *, is_test_module: bool, is_conftest: bool) -> Broad | None:
    """What one changed path selects beyond its symbols' callers; None: nothing more."""
    if is_conftest:
        folder = posixpath.dirname(path)
        return Broad(path, f"{path} changed: its fixtures reach the tests under "
                           f"{folder or 'the repository'} by name, not by call", folder)
    if _matches(path, LOCK_FILES):
        return Broad(path, f"{path} changed: the dependencies every test runs against", None)
    if _matches(path, TEST_CONFIG):
        return Broad(path, f"{path} changed: it can configure how every test runs", None)
    if is_test_module:
        return None
    root = _test_root(path)
    if root is not None and not path.endswith((".py", ".js", ".ts", ".jsx", ".tsx")):
        return Broad(path, f"{path} changed: test data, read by the tests under {root}", root)
    return None


def is_prose(path: str) -> bool:
    """Documentation a test run does not read (outside test folders)."""
    dot = path.rfind(".")
    return dot > path.rfind("/") and path[dot:].lower() in PROSE_EXTENSIONS \
        and _test_root(path) is None and not _matches(path, LOCK_FILES)
