"""Names as users write them, in real repositories checked through the CLI: src-layout, flat
layout, namespace packages, setup.cfg, a bare src/ folder, package.json and go.mod."""

from __future__ import annotations

import json

import pytest
from conftest import check, check_json, edit, git

from maguyva_guard.guard import naming

CALLEE = "def parse(text):\n    return text\n"
CALLER = "from {module} import parse\n\n\ndef main():\n    return parse('x')\n"


def python_project(root: str, module: str, extra: dict[str, str]) -> dict[str, str]:
    """A package at `root` whose `config` module's parse() is called by `cli`."""
    return {
        f"{root}/config.py": CALLEE,
        f"{root}/cli.py": CALLER.format(module=f"{module}.config"),
        **extra,
    }


def names(report: dict) -> tuple[list[tuple[str, str]], list[tuple[str, str, list[str]]]]:
    changed = [(c["path"], c["qualified_name"]) for c in report["changed_symbols"]]
    callers = [(a["path"], a["symbol"], a["because_of"]) for a in report["affected"]]
    return changed, callers


PYPROJECT_SRC = (
    '[project]\nname = "acme-widgets"\n\n[tool.setuptools.packages.find]\nwhere = ["src"]\n'
)

LAYOUTS = {
    "src-layout (setuptools find where=src)": (
        python_project("src/widgets", "widgets",
                       {"pyproject.toml": PYPROJECT_SRC, "src/widgets/__init__.py": ""}),
        "src/widgets", "widgets"),
    "flat layout": (
        python_project("widgets", "widgets",
                       {"pyproject.toml": '[project]\nname = "w"\n', "widgets/__init__.py": ""}),
        "widgets", "widgets"),
    "namespace package under src (no __init__.py in acme)": (
        python_project("src/acme/widgets", "acme.widgets",
                       {"pyproject.toml": PYPROJECT_SRC + "namespaces = true\n",
                        "src/acme/widgets/__init__.py": ""}),
        "src/acme/widgets", "acme.widgets"),
    "setup.cfg package_dir": (
        python_project("lib/widgets", "widgets",
                       {"setup.cfg": "[options]\npackage_dir =\n    =lib\n",
                        "lib/widgets/__init__.py": ""}),
        "lib/widgets", "widgets"),
    "a bare src/ folder holding packages": (
        python_project("src/widgets", "widgets", {"src/widgets/__init__.py": ""}),
        "src/widgets", "widgets"),
    "poetry packages from src, in a monorepo folder": (
        python_project("svc/api/src/widgets", "widgets", {
            "svc/api/pyproject.toml": '[tool.poetry]\npackages = [{include = "widgets",'
                                      ' from = "src"}]\n',
            "svc/api/src/widgets/__init__.py": ""}),
        "svc/api/src/widgets", "widgets"),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_python_names_as_users_import_them(make_repo, layout):
    files, folder, module = LAYOUTS[layout]
    repo = make_repo(files)
    edit(repo, f"{folder}/config.py", "def parse(text):", "def parse(text, strict=False):")
    changed, callers = names(check_json(repo))
    assert changed == [(f"{folder}/config.py", f"{module}.config.parse")]
    assert sorted(callers) == [  # the import line, and the call in main()
        (f"{folder}/cli.py", "<module>", [f"{module}.config.parse"]),
        (f"{folder}/cli.py", f"{module}.cli.main", [f"{module}.config.parse"])]


def test_json_links_name_the_changed_symbol_as_changed_symbols_do(make_repo):
    """Each affected entry's `links[].changed_symbol` names a changed symbol "as in
    `because_of`": it kept the `src.` path name while changed_symbols and because_of said
    `widgets.config.parse`, so no link matched its changed symbol (bench/prs.py scored 0)."""
    files, folder, module = LAYOUTS["src-layout (setuptools find where=src)"]
    repo = make_repo(files)
    edit(repo, f"{folder}/config.py", "def parse(text):", "def parse(text, strict=False):")
    report = check_json(repo)
    links = {(k["changed_symbol"], *k["via"]) for a in report["affected"] for k in a["links"]}
    assert links == {("widgets.config.parse", "widgets.config.parse")}


def test_every_format_uses_the_users_names(make_repo):
    files, folder, module = LAYOUTS["src-layout (setuptools find where=src)"]
    repo = make_repo(files)
    edit(repo, f"{folder}/config.py", "def parse(text):", "def parse(text, strict=False):")
    for fmt in ("text", "markdown", "sarif", "html"):
        code, out, err = check(repo, "--format", fmt)
        assert code == 0, err
        assert "widgets.config.parse" in out and "src.widgets" not in out, fmt
    sarif = json.loads(check(repo, "--format", "sarif")[1])
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for r in sarif["runs"][0]["results"] for loc in r["locations"]}
    assert uris == {"src/widgets/cli.py"}  # paths stay paths


def test_the_reasons_name_symbols_as_the_lists_do(make_repo):
    """A reason that names a changed symbol (its callers are possible ones only) uses the
    user's name, as changed_symbols does: it said `src.widgets.jobs.Job.parse`."""
    files, folder, _ = LAYOUTS["src-layout (setuptools find where=src)"]
    repo = make_repo({**files, f"{folder}/jobs.py": (
        "class Job:\n    def parse(self, text):\n        return text\n\n\n"
        "def run(thing):\n    return thing.parse('x')\n")})
    edit(repo, f"{folder}/jobs.py", "def parse(self, text):", "def parse(self, text, strict):")
    report = check_json(repo)
    assert report["incomplete_reasons"][0] == (
        "widgets.jobs.Job.parse: no resolved caller, 1 possible caller matched by name only "
        "(listed apart)")
    assert "src.widgets" not in report["summary"]


def test_a_renamed_symbols_callers_stay_grouped_under_it(make_repo):
    files, folder, _ = LAYOUTS["src-layout (setuptools find where=src)"]
    repo = make_repo(files)
    edit(repo, f"{folder}/config.py", "def parse(text):", "def parse_text(text):")
    report = check_json(repo)
    [sym] = report["changed_symbols"]
    assert sym["qualified_name"] == "widgets.config.parse_text" and sym["change"] == "renamed"
    callers = {a["symbol"]: a["because_of"] for a in report["affected"]}
    assert callers["widgets.cli.main"] == ["widgets.config.parse_text"]
    code, text, _ = check(repo)
    assert "widgets.config.parse_text  renamed from parse" in text
    assert "-- src/widgets/cli.py:5 widgets.cli.main" in text  # grouped under it


def test_typescript_package_json_and_go_module_names(make_repo):
    repo = make_repo({
        "web/package.json": json.dumps({"name": "@acme/web", "exports": {
            ".": "./dist/index.js", "./format": {"import": "./dist/format.js"}}}),
        "web/src/index.ts": "export { shout } from './format';\n",
        "web/src/format.ts": "export function shout(s: string) { return s; }\n",
        "web/src/view.ts": "import { shout } from './format';\n"
                           "export function render() { return shout('a'); }\n",
        "go.mod": "module example.com/acme/tasks\n",
        "store/store.go": "package store\n\nfunc Open(path string) int { return 1 }\n",
        "app/app.go": "package app\n\nimport \"example.com/acme/tasks/store\"\n\n"
                      "func Run() int { return store.Open(\"a\") }\n",
    })
    edit(repo, "web/src/format.ts", "shout(s: string)", "shout(s: string, loud: boolean)")
    edit(repo, "store/store.go", "Open(path string)", "Open(path string, mode int)")
    report = check_json(repo)
    changed = {c["qualified_name"] for c in report["changed_symbols"]}
    assert changed == {"@acme/web/format.shout", "example.com/acme/tasks/store.Open"}
    callers = {a["symbol"] for a in report["affected"]}
    assert {"@acme/web/src/view.render", "example.com/acme/tasks/app.Run"} <= callers


def test_roots_from_each_configuration_kind() -> None:
    files = {
        "pyproject.toml": b'[tool.setuptools]\npackage-dir = {"" = "python"}\n',
        "tools/setup.py": b"setup(package_dir={'': 'source'})\n",
        "hatch/pyproject.toml": b'[tool.hatch.build.targets.wheel]\npackages = ["src/h"]\n',
        "broken/pyproject.toml": b"[tool.setuptools\n",  # not TOML: ignored
    }
    paths = [*files, "python/a/b.py", "tools/source/t/u.py", "hatch/src/h/m.py", "broken/x/y.py"]
    roots = naming.discover(paths, lambda wanted: {p: files[p] for p in wanted if p in files})
    assert roots.user_module("python/a/b.py", "python") == "a.b"
    assert roots.user_module("python/a/__init__.py", "python") == "a"
    assert roots.user_module("tools/source/t/u.py", "python") == "t.u"
    assert roots.user_module("hatch/src/h/m.py", "python") == "h.m"
    assert roots.user_module("broken/x/y.py", "python") == "x.y"  # its folder is a root
    assert roots.user_module("scripts/run.py", "python") == "scripts.run"
    assert roots.user_module("a.rs", "rust") is None


def test_staged_check_reads_the_staged_configuration(make_repo):
    files, folder, _ = LAYOUTS["flat layout"]
    repo = make_repo(files)
    git(repo, "mv", "widgets", "src")  # now a bare src/ folder holding... the modules
    git(repo, "commit", "-qm", "move")
    (repo / "src" / "pkg").mkdir()
    git(repo, "mv", "src/config.py", "src/cli.py", "src/__init__.py", "src/pkg/")
    git(repo, "commit", "-qm", "package")
    edit(repo, "src/pkg/config.py", "def parse(text):", "def parse(text, strict=False):")
    changed, _ = names(check_json(repo))
    assert changed == [("src/pkg/config.py", "pkg.config.parse")]


@pytest.mark.parametrize("value", ["pdf=x.pdf", "json", "json=", "=x"])
def test_a_bad_save_option_is_one_line_exit_2(make_repo, value):
    repo = make_repo({"a.py": "x = 1\n"})
    code, out, err = check(repo, "--save", value)
    assert code == 2 and out == ""
    assert err == ("maguyva-guard: error: --save takes FORMAT=FILE with FORMAT one of text,"
                   f" markdown, json, sarif, html, summary: {value!r}\n")
