"""`maguyva-guard tests` where a test module names a changed method where no call to it
resolves (guard/testscopes.py): only the tests naming it run, unless a helper, fixture or
module-level line of the module names it (then any test may make the call: all run)."""

from __future__ import annotations

from test_tests_to_run import selection, stage

CORE = ("class Group:\n    def group(self, *a):\n        def deco(f):\n"
        "            return Group()\n        return deco\n\n"
        "    def command(self, *a):\n        def deco(f):\n            return Group()\n"
        "        return deco\n\n\n"
        "class Other:\n    def group(self):\n        return 0\n\n\n"
        "def group(*a):\n    def deco(f):\n        return Group()\n    return deco\n")
# `core.group()` is the module's function, `cli.command()` a Group's method: the module
# names `group`, and no call of Group.group resolves in it
CMDS = ("from app import core\n\n\n"
        "def test_plain():\n    @core.group()\n    def cli():\n        pass\n\n"
        "    @cli.command()\n    def sub():\n        pass\n\n\n"
        "def test_unrelated():\n    assert core\n")
FILES = {
    "app/__init__.py": "", "app/core.py": CORE, "tests/test_cmds.py": CMDS,
    # a resolved chain reaches Group.group elsewhere
    "tests/test_direct.py": ("from app.core import Group\n\n\n"
                             "def test_direct():\n    assert Group().group()\n"),
}
CHANGE = ("    def group(self, *a):\n", "    def group(self, *a):\n        self.seen = True\n")


def _ids(make_repo, files: dict[str, str]) -> list[str]:
    repo = make_repo(files)
    stage(repo, {"app/core.py": CORE.replace(*CHANGE, 1)})
    return [t["id"] for t in selection(repo)["tests"]]


def test_only_the_tests_naming_the_method_run(make_repo):
    assert _ids(make_repo, FILES) == ["tests/test_cmds.py::test_plain",
                                      "tests/test_direct.py::test_direct"]


def test_a_helper_naming_the_method_runs_the_whole_module(make_repo):
    helper = CMDS + "\n\ndef make():\n    return core.group()\n"
    assert _ids(make_repo, FILES | {"tests/test_cmds.py": helper}) == [
        "tests/test_cmds.py", "tests/test_direct.py::test_direct"]
