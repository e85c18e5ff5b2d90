"""`maguyva-guard tests` through a call resolved to every override of a method: Base.describe
calls self.area(), which runs Square.area or Circle.area depending on the receiver. A test
is selected through that dispatch only where a receiver of the override's class can exist:
its test (or the module-level code and helpers of its file, a conftest it sees) names the
class or a subclass, or code under test names it (a factory: then every caller stays)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git
from test_tests_to_run import chains, selection, stage

SHAPES = ("class Base:\n    def area(self):\n        return 0\n\n"
          "    def describe(self):\n        return f'area {self.area()}'\n\n\n"
          "class Square(Base):\n    def area(self):\n        return 4\n\n\n"
          "class Circle(Base):\n    def area(self):\n        return 3\n")
TESTS = ("from app import Circle, Square\n\n\n"
         "def test_square():\n    assert Square().describe() == 'area 4'\n\n\n"
         "def test_circle():\n    assert Circle().describe() == 'area 3'\n")
FILES = {
    "app/__init__.py": "from app.shapes import Base, Circle, Square\n",
    "app/shapes.py": SHAPES,
    "tests/test_shapes.py": TESTS,
    "tests/test_circles.py": ("from app import Circle\n\n\n"
                              "def test_only_circles():\n"
                              "    assert Circle().describe() == 'area 3'\n"),
}
SQUARE_CHAIN = ["tests.test_shapes.test_square", "app.shapes.Base.describe",
                "app.shapes.Base.area", "app.shapes.Square.area"]


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(FILES)


def _change_square(repo: Path) -> dict:
    stage(repo, {"app/shapes.py": SHAPES.replace("return 4", "return 5")})
    return selection(repo)


def test_an_override_selects_only_the_tests_that_can_hold_its_class(repo):
    # test_circle and test_only_circles reach Base.describe too, but only on Circles.
    sel = _change_square(repo)
    assert chains(sel) == {"tests/test_shapes.py::test_square": SQUARE_CHAIN}
    assert sel["reasons"] == [] and sel["run_all"] is False


def test_a_module_level_object_of_the_class_keeps_every_test_of_its_file(repo):
    # SHAPE is made on import: any test of the file may use it without naming Square.
    stage(repo, {"tests/test_circles.py": "from app import Circle, Square\n\nSHAPE = Square()\n"
                                          "\n\ndef test_only_circles():\n"
                                          "    assert Circle().describe() == 'area 3'\n"})
    git(repo, "commit", "-q", "-m", "module-level square")
    sel = _change_square(repo)
    assert set(chains(sel)) == {"tests/test_shapes.py::test_square",
                                "tests/test_circles.py::test_only_circles"}


def test_a_subclass_of_the_overriding_class_keeps_the_test_that_names_it(repo):
    stage(repo, {"tests/test_circles.py": "from app import Circle, Square\n\n\n"
                                          "def test_only_circles():\n"
                                          "    class Big(Square):\n        pass\n\n"
                                          "    assert Big().describe() == 'area 4'\n"})
    git(repo, "commit", "-q", "-m", "subclass")
    sel = _change_square(repo)
    assert set(chains(sel)) == {"tests/test_shapes.py::test_square",
                                "tests/test_circles.py::test_only_circles"}


def test_a_factory_in_the_code_under_test_keeps_every_caller(repo):
    # make() returns a Square without the test naming it: the rule cannot cut anything.
    stage(repo, {"app/shapes.py": SHAPES + "\n\ndef make():\n    return Square()\n",
                 "app/__init__.py": "from app.shapes import Base, Circle, Square, make\n",
                 "tests/test_circles.py": "from app import Circle, make\n\n\n"
                                          "def test_only_circles():\n"
                                          "    assert make().describe() == 'area 4'\n"})
    git(repo, "commit", "-q", "-m", "factory")
    stage(repo, {"app/shapes.py": (SHAPES + "\n\ndef make():\n    return Square()\n").replace(
        "return 4", "return 5")})
    sel = selection(repo)
    assert set(chains(sel)) == {"tests/test_shapes.py::test_square",
                                "tests/test_shapes.py::test_circle",
                                "tests/test_circles.py::test_only_circles"}


def test_a_file_naming_the_method_on_an_untyped_receiver_runs_only_if_it_holds_the_class(repo):
    # shapes[0].area() could be any class's area: the file names no Square, so it is not
    # Square.area that runs there.
    stage(repo, {"tests/test_circles.py": "from app import Circle\n\n\n"
                                          "def test_only_circles():\n"
                                          "    shapes = [Circle()]\n"
                                          "    assert shapes[0].area() == 3\n"})
    git(repo, "commit", "-q", "-m", "untyped receiver")
    sel = _change_square(repo)
    assert chains(sel) == {"tests/test_shapes.py::test_square": SQUARE_CHAIN}


def test_a_call_resolved_to_every_override_selects_the_tests_holding_the_changed_class(repo):
    # measure(obj) calls obj.area() for any shape: its callers run Square.area only when
    # they pass a Square; nothing here is a method change or a name-only edge.
    stage(repo, {"app/use.py": "def measure(obj):\n    return obj.area()\n",
                 "app/__init__.py": "from app.shapes import Base, Circle, Square\n"
                                    "from app.use import measure\n",
                 "tests/test_use.py": "from app import Circle, Square, measure\n\n\n"
                                      "def test_square():\n    assert measure(Square()) == 4\n\n\n"
                                      "def test_circle():\n    assert measure(Circle()) == 3\n"})
    git(repo, "commit", "-q", "-m", "measure")
    sel = _change_square(repo)
    assert set(chains(sel)) == {"tests/test_shapes.py::test_square",
                                "tests/test_use.py::test_square"}


def test_a_test_class_subclassed_where_the_class_is_named_keeps_its_tests(repo):
    # TestShape names only Circle; TestSquare, in another module, runs its tests on Squares.
    stage(repo, {"tests/__init__.py": "",
                 "tests/test_base.py": "from app import Circle\n\n\nclass TestShape:\n"
                                       "    shape_class = Circle\n\n"
                                       "    def test_describe(self):\n"
                                       "        assert Circle.describe(self.shape_class())\n",
                 "tests/test_sub.py": "from app import Square\nfrom tests.test_base import "
                                      "TestShape\n\n\nclass TestSquare(TestShape):\n"
                                      "    shape_class = Square\n"})
    git(repo, "commit", "-q", "-m", "test classes")
    sel = _change_square(repo)
    assert {t["id"] for t in sel["tests"]} >= {"tests/test_base.py::TestShape::test_describe",
                                               "tests/test_sub.py::TestSquare::test_describe"}


def test_a_test_class_deriving_from_a_value_may_hold_any_class(repo):
    # type(shape) is a Square here, though the file names none.
    stage(repo, {"tests/test_circles.py": "from app import Base, make\n\n\n"
                                          "def test_only_circles():\n"
                                          "    class Any(type(make())):\n        pass\n\n"
                                          "    assert Base.describe(Any())\n",
                 "app/shapes.py": SHAPES + "\n\ndef make():\n    return Circle()\n",
                 "app/__init__.py": "from app.shapes import Base, Circle, Square, make\n"})
    git(repo, "commit", "-q", "-m", "dynamic base")
    stage(repo, {"app/shapes.py": (SHAPES + "\n\ndef make():\n    return Circle()\n").replace(
        "return 4", "return 5")})
    sel = selection(repo)
    assert set(chains(sel)) == {"tests/test_shapes.py::test_square",
                                "tests/test_circles.py::test_only_circles"}
