"""A pytest fixture's parameter typed by what the fixture returns: `_mod.quiet(1)` in a test
taking a fixture `_mod` that returns a module (`import pkg.util as m; return m`) calls
`pkg.util.quiet`. Untyped, the call was matched against methods only, so the module
function got no caller there: `tests` missed the test when `quiet` had other callers, and
`check` called its caller list complete."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import callers, check_json, edit
from test_tests_to_run import selection

UTIL = "def quiet(x):\n    return x\n\n\ndef loud(x):\n    return x * 2\n"
FILES = {
    "pkg/__init__.py": "",
    "pkg/util.py": UTIL,
    "pkg/other.py": "from pkg.util import quiet\n\n\ndef wrap(x):\n    return quiet(x)\n",
    "tests/conftest.py": ("import pytest\n\n\n@pytest.fixture\ndef _mod():\n"
                          "    import pkg.util as m\n    return m\n"),
    "tests/test_mod.py": ("def test_quiet(_mod):\n    assert _mod.quiet(1) == 1\n\n\n"
                          "def test_loud(_mod):\n    assert _mod.loud(1) == 2\n"),
    "tests/test_wrap.py": ("from pkg.other import wrap\n\n\n"
                           "def test_wrap():\n    assert wrap(1) == 1\n"),
}
CHANGED = ("return x\n\n\ndef loud", "return x + 0\n\n\ndef loud")


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(FILES)


def test_a_call_on_a_fixture_returning_a_module_selects_the_test(repo):
    edit(repo, "pkg/util.py", *CHANGED)
    ids = [t["id"] for t in selection(repo)["tests"]]
    assert ids == ["tests/test_mod.py::test_quiet", "tests/test_wrap.py::test_wrap"]


def test_check_lists_the_test_calling_through_the_fixture(repo):
    edit(repo, "pkg/util.py", *CHANGED)
    report = check_json(repo)
    assert ("tests/test_mod.py", "tests.test_mod.test_quiet") in callers(report)
    assert ("tests/test_mod.py", "tests.test_mod.test_loud") not in callers(report)


def test_each_module_of_the_fixtures_params_is_what_request_param_gives(make_repo):
    # markupsafe's conftest: `params=(_native, pytest.param(_speedups, marks=...))`
    repo = make_repo({**FILES, "pkg/fast.py": UTIL, "tests/conftest.py": (
        "import pytest\n\nfrom pkg import fast, util\n\n\n"
        "@pytest.fixture(\n    params=(\n        util,\n"
        "        pytest.param(fast, marks=pytest.mark.skipif(False, reason='')),\n    ),\n)\n"
        "def _mod(request):\n    return request.param\n")})
    edit(repo, "pkg/fast.py", *CHANGED)
    ids = [t["id"] for t in selection(repo)["tests"]]
    assert ids == ["tests/test_mod.py::test_quiet"]


def test_the_nearest_fixture_is_the_one_injected(make_repo):
    # the test module's own `_mod` overrides the conftest's: it returns pkg.fast
    repo = make_repo({**FILES, "pkg/fast.py": UTIL, "tests/test_mod.py": (
        "import pytest\n\n\n@pytest.fixture\ndef _mod():\n    import pkg.fast as m\n"
        "    return m\n\n\n" + FILES["tests/test_mod.py"])})
    edit(repo, "pkg/util.py", *CHANGED)
    report = check_json(repo)
    assert ("tests/test_mod.py", "tests.test_mod.test_quiet") not in callers(report)
    edit(repo, "pkg/fast.py", *CHANGED)
    report = check_json(repo)
    assert ("tests/test_mod.py", "tests.test_mod.test_quiet") in callers(report)


def test_a_parametrized_argument_of_the_fixtures_name_is_not_typed_by_it(make_repo):
    # `parametrize("_mod", ...)` gives the test its own values: the fixture says nothing
    repo = make_repo({**FILES, "tests/test_mod.py": (
        "import pytest\n\n\n@pytest.mark.parametrize('_mod', [object()])\n"
        "def test_quiet(_mod):\n    assert _mod.quiet(1) == 1\n")})
    edit(repo, "pkg/util.py", *CHANGED)
    report = check_json(repo)
    assert ("tests/test_mod.py", "tests.test_mod.test_quiet") not in callers(report)


def test_a_fixture_value_of_unknown_type_types_nothing(make_repo):
    repo = make_repo({**FILES, "tests/conftest.py": (
        "import pytest\n\n\n@pytest.fixture\ndef _mod(request):\n"
        "    return request.getfixturevalue('x')\n")})
    edit(repo, "pkg/util.py", *CHANGED)
    report = check_json(repo)
    assert ("tests/test_mod.py", "tests.test_mod.test_quiet") not in callers(report)
