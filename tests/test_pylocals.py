"""Python local bindings (retrievers/pylocals.py): what a function binds itself, and where
on a line a comment or a string starts."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import difflib
import inspect
import re
import subprocess
import tarfile
import textwrap

import pytest
from conftest import MemorySource

from maguyva_guard.retrievers.pylocals import LocalBindings, in_comment_or_string
from maguyva_guard.retrievers.resolve import Resolver
from maguyva_guard.retrievers.shadowing import binds, function_locals, only_read
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


@pytest.mark.parametrize(("source", "read"), [
    ("def f():\n    helper()\n    helper.cache_clear()\n    x.helper = 1\n", True),
    ("def f(helper):\n    helper()\n", False),  # a parameter
    ("def f():\n    helper = make()\n    helper()\n", False),
    ("def f():\n    def helper():\n        pass\n    helper()\n", False),  # `def helper(`
    ("def f():\n    class \\\n      helper(Base):\n        pass\n", False),
    ("def f():\n    for helper in xs:\n        helper()\n", False),
    ("def f():\n    y = ...\n    helper()\n", True),
    ("def f():\n    return [x for x in y if helper(x)]\n", True),
    ("def f():\n    h = 'helper'\n    helper()\n", False),  # a string: parsed, to be sure
    ("def f():\n    ｈelper = 1\n    helper()\n", False),  # NFKC-folded identifiers: parsed
])
def test_only_calls_and_attributes_of_a_name_cannot_bind_it(source: str, read: bool) -> None:
    assert only_read(source, "helper") is read
    if read:
        assert "helper" not in locals_of(source)


def test_the_no_parse_answer_agrees_with_the_parse_on_real_code() -> None:
    """Every function of a few standard-library modules, every word in it: when only_read
    says no parse is needed, the parse indeed does not bind the word (and it often says so)."""
    skipped = 0
    for module in (argparse, inspect, textwrap, dataclasses, subprocess, difflib, tarfile):
        text = inspect.getsource(module)
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            source = "\n".join(lines[start - 1 : node.end_lineno])
            bound = locals_of(source)
            for word in set(re.findall(r"[A-Za-z_]\w*", source)):
                if only_read(source, word):
                    skipped += 1
                    assert word not in bound, (module.__name__, node.name, word)
    assert skipped > 1000


def test_binds_answers_as_the_parse_does() -> None:
    src = MemorySource({"m.py": ("def helper():\n    pass\n\n"
                                 "def calls():\n    helper()\n\n"
                                 "def rebinds():\n    helper = 1\n    helper()\n")})
    r = Resolver(src)
    for d in r.scope("m.py").definitions:
        assert binds(r, "m.py", d, "helper") is ("helper" in function_locals(r, "m.py", d))
    assert [binds(r, "m.py", d, "helper") for d in r.scope("m.py").definitions] == \
        [False, False, True]
