"""pytest fixtures: a test that names a fixture as a parameter is run with its value.

No call edge leads from the test to the fixture (pytest injects it by parameter name), so a
changed fixture had no caller and a check said "No callers affected" (complete) while every
test taking it would run the new code, or fail at setup when the fixture asks for a
parameter pytest cannot give (urllib3 2.2.3 -> 2.3.0: 19 changed fixtures of
`test/conftest.py`, 120 tests taking them). The functions that take a fixture where pytest
can see it (its own module; for a `conftest.py`, every module under its folder) are its
callers, as the tests' selection already treats them (guard.tests_to_run).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import Final

from maguyva_guard.index.store import Store
from maguyva_guard.records import CALL, FUNCTION, METHOD, Definition, Reference

CONFTEST: Final = "conftest.py"
_FIXTURE = re.compile(r"@\s*(?:pytest\.)?fixture\b")
_PARAMS = re.compile(r"\bdef\s+\w+\s*\((.*)\)", re.DOTALL)


def is_fixture(d: Definition) -> bool:
    return _FIXTURE.search(d.signature) is not None


def parameters(d: Definition) -> frozenset[str]:
    """The parameter names of a Python function's header (its fixtures, for a test)."""
    m = _PARAMS.search(d.signature)
    if m is None:
        return frozenset()
    names = set()
    depth = 0
    current = ""
    for c in m.group(1) + ",":
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            name = re.split(r"[:=]", current, maxsplit=1)[0].strip().lstrip("*")
            if name.isidentifier():
                names.add(name)
            current = ""
        else:
            current += c
    return frozenset(names)


def _injected(d: Definition) -> bool:
    """pytest fills the parameters of module-level functions and of methods, not of a
    function nested in a test (urllib3's `def pyodide_test(selenium_coverage, ...)` inside
    each emscripten test is run in a browser with its own arguments)."""
    return d.kind == METHOD or (d.kind == FUNCTION and not d.parent)


def users(store: Store, fixture: Definition) -> Iterator[Reference]:
    """A reference (at its `def` line) for each function or method that takes `fixture`
    where pytest can see it."""
    home = posixpath.dirname(fixture.path)
    if posixpath.basename(fixture.path) == CONFTEST:
        paths = [p for p in store.files() if p.endswith(".py")
                 and (not home or p.startswith(home + "/"))]
    else:
        paths = [fixture.path]
    for path in paths:
        lines: list[str] | None = None
        for d in store.definitions_in(path):
            if _injected(d) and d != fixture and fixture.name in parameters(d):
                line = d.line_start
                if d.signature.startswith("@"):  # decorated: the parameter is on its `def` line
                    lines = store.text(path).splitlines() if lines is None else lines
                    line = next((i for i in range(d.line_start, d.line_end + 1)
                                 if i <= len(lines) and lines[i - 1].lstrip().startswith(
                                     ("def ", "async def "))), d.line_start)
                yield Reference(d.path, fixture.name, CALL, line, d.qualified_name)
