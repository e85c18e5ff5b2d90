"""A file the parser read only in part (syntax errors it recovered from) that names a changed
symbol makes the answer a lower bound, naming the file: a call in the damaged region may be
no reference at all (pythonnet's Finalizer.cs parsed with an error at its root, and the check
said "no callers", complete)."""

from __future__ import annotations

from conftest import check_json, edit

LIB = "def run(x):\n    return x\n"
BROKEN_CALLER = "from lib import run\n\nx = = 3\n\n\ndef caller():\n    return run(1)\n"
BROKEN_OTHER = "x = = 3\n"


def test_a_partly_parsed_file_naming_the_changed_function_makes_a_lower_bound(make_repo):
    repo = make_repo({"lib.py": LIB, "use.py": BROKEN_CALLER})
    edit(repo, "lib.py", "def run(x):", "def run(x, y):")
    report = check_json(repo)
    assert report["complete"] is False
    [reason] = [r for r in report["incomplete_reasons"] if "parsed only in part" in r]
    assert "naming run" in reason and "(use.py)" in reason


def test_a_partly_parsed_file_that_does_not_name_it_changes_nothing(make_repo):
    repo = make_repo({"lib.py": LIB, "use.py": "from lib import run\n\nrun(1)\n",
                      "other.py": BROKEN_OTHER})
    edit(repo, "lib.py", "def run(x):", "def run(x, y):")
    report = check_json(repo)
    assert report["complete"] is True, report["incomplete_reasons"]
    assert {a["path"] for a in report["affected"]} == {"use.py"}
