"""Python local bindings (retrievers/pylocals.py): what a function binds itself, and where
on a line a comment or a string starts."""

from __future__ import annotations

import pytest
from conftest import MemorySource

from maguyva_guard.retrievers.pylocals import LocalBindings, in_comment_or_string
from maguyva_guard.retrievers.resolve import Resolver
from maguyva_guard.retrievers.shadowing import python_locals as locals_of


def test_a_function_binds_its_parameters_assignments_and_targets() -> None:
    source = ("def f(a, /, b, *args, c, **kw):\n"
              "    x = 1\n    for i in y:\n        pass\n    with open(p) as fh:\n        pass\n"
              "    try:\n        pass\n    except E as err:\n        pass\n"
              "    def inner():\n        z = 2\n    import os\n")
    assert locals_of(source) == {"a", "b", "args", "c", "kw", "x", "i", "fh", "err", "inner"}


def test_global_and_nonlocal_names_are_not_local() -> None:
    assert locals_of("def f():\n    global g\n    g = 1\n    h = 2\n") == {"h"}


def test_source_that_does_not_parse_binds_nothing() -> None:
    assert locals_of("def f(:\n") == frozenset()


@pytest.mark.parametrize(("line", "word", "inside"), [
    ("x = target()  # target here", "target", False),
    ("x = 1  # target here", "target", True),
    ("s = 'target'", "target", True),
    ('s = f"{target}"', "target", False),
    ('s = f"{{target}}"', "target", True),
    (r"s = 'it\'s target'", "target", True),
])
def test_comments_and_strings_are_told_from_code(line: str, word: str, inside: bool) -> None:
    assert in_comment_or_string(line, line.index(word)) is inside


def test_a_name_bound_in_an_enclosing_function_is_local() -> None:
    src = MemorySource({"m.py": ("def helper():\n    pass\n\n"
                                 "def outer(helper):\n    def inner():\n        helper()\n"
                                 "    return inner\n\n"
                                 "def plain():\n    helper()\n")})
    local = LocalBindings(Resolver(src))
    assert local.bound_locally("m.py", "m.outer.inner", "helper")  # outer's parameter
    assert not local.bound_locally("m.py", "m.plain", "helper")
    assert not local.bound_locally("m.py", "", "helper")  # module level
