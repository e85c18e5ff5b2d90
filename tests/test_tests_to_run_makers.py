"""`maguyva-guard tests` for a method no call in the repository reaches (an override the
standard library calls: `string.Formatter.format_field`): it runs only on an object of its
class, so the tests reaching the places that make one run, not every test importing its
package (markupsafe's EscapeFormatter.format_field ran 96% of the suite, now 13%). Where
objects of the class can come from elsewhere (a derived class, the class passed as a
value), the import-level fallback stays."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import edit
from test_tests_to_run import selection

FMT = ("import string\n\n\nclass Esc(string.Formatter):\n"
       "    def format_field(self, value, spec):\n        return '<' + str(value) + '>'\n\n\n"
       "def render(template, *args):\n    return Esc().format(template, *args)\n\n\n"
       "def other(x):\n    return x\n")
FILES = {
    "app/__init__.py": "from app.fmt import other, render\n",
    "app/fmt.py": FMT,
    "tests/test_render.py": ("from app import render\n\n\n"
                             "def test_render():\n    assert render('{}', 1) == '<1>'\n\n\n"
                             "def test_plain():\n    assert 1\n"),
    "tests/test_other.py": ("from app import other\n\n\n"
                            "def test_other():\n    assert other(1) == 1\n"),
}
CHANGE = ("return '<' + str(value) + '>'", "return '[' + str(value) + ']'")


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(FILES)


def test_a_method_only_outside_code_calls_runs_where_its_objects_are_made(repo):
    edit(repo, "app/fmt.py", *CHANGE)
    sel = selection(repo)
    assert [(t["id"], t["chain"]) for t in sel["tests"]] == [(
        "tests/test_render.py::test_render",
        ["tests.test_render.test_render", "app.fmt.render", "app.fmt.Esc.format_field"])]


def test_a_class_passed_as_a_value_keeps_the_import_fallback(make_repo):
    repo = make_repo({**FILES, "app/fmt.py": FMT + "\n\nFACTORY = Esc\n"})
    edit(repo, "app/fmt.py", *CHANGE)
    ids = [t["id"] for t in selection(repo)["tests"]]
    assert ids == ["tests/test_other.py", "tests/test_render.py"]


def test_a_derived_class_keeps_the_import_fallback(make_repo):
    repo = make_repo({**FILES, "app/fmt.py": FMT + "\n\nclass Sub(Esc):\n    pass\n"})
    edit(repo, "app/fmt.py", *CHANGE)
    ids = [t["id"] for t in selection(repo)["tests"]]
    assert ids == ["tests/test_other.py", "tests/test_render.py"]


def test_a_base_class_making_objects_of_its_subclasses_keeps_the_import_fallback(make_repo):
    # `Base.make()` does `cls()`: `Esc.make()` makes an Esc where no call names Esc(...)
    fmt = FMT.replace("class Esc(string.Formatter):", (
        "class Base(string.Formatter):\n    @classmethod\n    def make(cls):\n"
        "        return cls()\n\n\nclass Esc(Base):"))
    repo = make_repo({**FILES, "app/fmt.py": fmt})
    edit(repo, "app/fmt.py", *CHANGE)
    ids = [t["id"] for t in selection(repo)["tests"]]
    assert ids == ["tests/test_other.py", "tests/test_render.py"]
