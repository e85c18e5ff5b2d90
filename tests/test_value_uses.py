"""A definition only ever read as a value (returned in a tuple, a class used as the receiver
of an attribute) has callers too: the check must find them, never say "no impact".

attrs 24.2.0 has both shapes: `_assign_with_converter` is only returned, `return (), _assign,
_assign_with_converter`, and `_Nothing` only read as `NOTHING = _Nothing.NOTHING`. Both
were reported as "No callers affected" (complete) before the graph read such uses.
"""

from __future__ import annotations

from conftest import callers, check_json, edit, git

MAKE = (
    "import enum\n"
    "\n"
    "\n"
    "class _Nothing(enum.Enum):\n"
    "    NOTHING = enum.auto()\n"
    "\n"
    "\n"
    "NOTHING = _Nothing.NOTHING\n"
    "\n"
    "\n"
    "def _assign(name):\n"
    "    return name\n"
    "\n"
    "\n"
    "def _assign_with_converter(name, conv):\n"
    '    """Not to be confused with _assign, which _assign_with_converter extends."""\n'
    "    return conv(name)\n"
    "\n"
    "\n"
    "def _determine_setters(frozen):\n"
    "    # _assign_with_converter is only mentioned in this comment here\n"
    "    if frozen:\n"
    '        return "_assign_with_converter"\n'
    "    return (), _assign, _assign_with_converter\n"
    "\n"
    "\n"
    "def shadowed(_assign_with_converter):\n"
    "    return _assign_with_converter, 1\n"
    "\n"
    "\n"
    "def looped(items):\n"
    "    for _assign_with_converter in items:\n"
    "        print(_assign_with_converter)\n"
)
USER = (
    "from pkg import make\n"
    "from pkg.make import _assign_with_converter as conv\n"
    "\n"
    "\n"
    "def pick(flag):\n"
    "    chosen = conv if flag else make._assign\n"
    "    return chosen\n"
)
FILES = {"pkg/__init__.py": "", "pkg/make.py": MAKE, "pkg/user.py": USER}


def test_function_only_returned_as_a_value_is_affected(make_repo):
    repo = make_repo(FILES)
    edit(repo, "pkg/make.py", "def _assign_with_converter(name, conv):",
         "def _assign_with_converter(name, conv, extra):")
    report = check_json(repo)
    found = {(a["path"], a["symbol"]) for a in report["affected"] if a["depth"] == 1}
    # The tuple it is returned in; not the comment, the string, the docstring, nor the
    # functions where a parameter or loop variable of that name shadows it.
    assert ("pkg/make.py", "pkg.make._determine_setters") in found
    assert not {s for p, s in found if p == "pkg/make.py"} & {
        "pkg.make.shadowed", "pkg.make.looped", "pkg.make._assign_with_converter"}
    assert report["summary"] != "No callers affected by 1 changed symbol."


def test_class_read_as_an_attribute_receiver_is_affected_when_renamed(make_repo):
    repo = make_repo(FILES)
    edit(repo, "pkg/make.py", "class _Nothing(enum.Enum):", "class _Nothing2(enum.Enum):")
    report = check_json(repo)
    (sym,) = report["changed_symbols"]
    assert sym["change"] == "renamed"
    assert ("pkg/make.py", "pkg.make.NOTHING") in callers(report)
    assert report["risk"] != "none"


def test_alias_read_as_a_value_in_another_file(make_repo):
    """`conv if flag else ...` reads the imported alias: the import is indexed, the read of
    it is not; both are uses of the function."""
    repo = make_repo(FILES)
    edit(repo, "pkg/make.py", "def _assign_with_converter(name, conv):",
         "def _assign_with_converter(name, conv, extra):")
    found = callers(check_json(repo))
    assert ("pkg/user.py", "pkg.user.pick") in found
    git(repo, "reset", "-q")
