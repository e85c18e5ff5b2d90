"""Callers the check must not report, and reads it must not lose, end to end.

Shapes from the comparison benchmark (bench/verified.json): a parameter named like an
imported function (click's `command`), a property setter whose reads use the getter
(flask's `App.debug`), `obj.name` reads on receivers of unknown type (flask's `App.name`
against `ep.name`, `param.name`), a docstring that mentions `attrs.evolve`, and an f-string
field `f"{self.name}-x"` that is a real read.
"""

from __future__ import annotations

from conftest import check_json, edit

APP = (
    "class App:\n"
    "    def __init__(self, import_name):\n"
    "        self.import_name = import_name\n"
    "\n"
    "    @property\n"
    "    def debug(self):\n"
    "        return False\n"
    "\n"
    "    @debug.setter\n"
    "    def debug(self, value):\n"
    "        self.flag = value\n"
    "\n"
    "    @property\n"
    "    def title(self):\n"
    "        return self.import_name\n"
    "\n"
    "    def label(self):\n"
    '        return f"{self.title}-label"\n'
    "\n"
    "    def evolve(self, **changes):\n"
    "        return self\n"
    "\n"
    "    @property\n"
    "    def revision(self):\n"
    "        return 1\n"
    "\n"
    "\n"
    "def command(name):\n"
    "    return App(name)\n"
)
USE = (
    "from pkg.app import App, command\n"
    "\n"
    "\n"
    "def run(app: App):\n"
    "    app.debug = True\n"
    "    return app.title\n"
    "\n"
    "\n"
    "def check(app: App):\n"
    "    return 1 if app.debug else 0\n"
    "\n"
    "\n"
    "def make():\n"
    "    return command('x')\n"
    "\n"
    "\n"
    "def sub_context(command):\n"
    "    return command('y')\n"
    "\n"
    "\n"
    "def loop(names):\n"
    "    for command in names:\n"
    "        print(command)\n"
    "\n"
    "\n"
    "def plugins(entry_points):\n"
    "    for ep in entry_points:\n"
    "        print(ep.title)\n"
    "\n"
    "\n"
    "class Plugin:\n"
    "    def __init__(self, title):\n"
    "        self.title = title  # data: `ep.title` above may be this\n"
    "\n"
    "\n"
    "def versions(things):\n"
    "    return [print(t.revision) for t in things]\n"
    "\n"
    "\n"
    "def helper():\n"
    '    """Use `attrs.evolve` instead, or App.evolve."""\n'
    "    return None\n"
)
FILES = {"pkg/__init__.py": "", "pkg/app.py": APP, "pkg/use.py": USE}


def direct(report: dict, group: str = "affected") -> set[str]:
    return {a["symbol"].rsplit(".", 1)[-1] for a in report[group] if a["depth"] == 1}


def test_parameter_or_loop_variable_named_like_the_function_is_no_caller(make_repo):
    repo = make_repo(FILES)
    edit(repo, "pkg/app.py", "def command(name):", "def command(name, extra):")
    found = direct(check_json(repo))
    assert "make" in found
    assert not found & {"sub_context", "loop"}


def test_property_setter_is_used_by_writes_only(make_repo):
    repo = make_repo(FILES)
    edit(repo, "pkg/app.py", "    def debug(self, value):", "    def debug(self, value, extra):")
    report = check_json(repo)
    (sym,) = report["changed_symbols"]
    assert sym["line_start"] == 9  # the setter, not the getter above it
    found = direct(report) | direct(report, "possible")
    assert "run" in direct(report)  # `app.debug = True`
    assert "check" not in found  # `app.debug` read: the getter's


def test_getter_keeps_its_reads(make_repo):
    repo = make_repo(FILES)
    edit(repo, "pkg/app.py", "    def debug(self):", "    def debug(self, extra):")
    assert {"run", "check"} <= direct(check_json(repo))


def test_attribute_read_on_unknown_receiver_is_only_possible(make_repo):
    """`ep.title` (ep of unknown type, and Plugin stores a `title` of its own) is listed
    apart, `app.title` (app: App) is affected, and the f-string field in App.label is a
    real read."""
    repo = make_repo(FILES)
    edit(repo, "pkg/app.py", "    def title(self):", "    def title_renamed(self):")
    report = check_json(repo)
    affected = direct(report)
    assert {"run", "label"} <= affected
    assert "plugins" not in affected
    assert "plugins" in direct(report, "possible")
    assert not report["complete"]


def test_docstring_mention_is_no_caller(make_repo):
    repo = make_repo(FILES)
    edit(repo, "pkg/app.py", "    def evolve(self, **changes):",
         "    def evolve(self, *, extra, **changes):")
    report = check_json(repo)
    assert "helper" not in direct(report) | direct(report, "possible")


def test_read_of_a_name_no_class_stores_stays_affected(make_repo):
    """`t.revision` (t of unknown type): only App defines `revision` and no class assigns
    `self.revision`, so the read is a probable caller, not a mere possibility."""
    repo = make_repo(FILES)
    edit(repo, "pkg/app.py", "    def revision(self):", "    def revision_renamed(self):")
    assert "versions" in direct(check_json(repo))
