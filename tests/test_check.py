"""`maguyva-guard check` end to end on real repositories: every change kind, every diff mode,
the first commit, binary files, comment-only edits, exit codes, and a repository left as it was."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from conftest import callers, check, check_json, edit, git, write_files

CONFIG = (
    "def parse_config(path):\n"
    '    """Read the configuration file."""\n'
    "    text = open(path).read()\n"
    "    return dict(line.split('=') for line in text.splitlines())\n"
    "\n"
    "\n"
    "class Loader:\n"
    "    def parse_config(self, text):\n"
    "        return text\n"
    "\n"
    "\n"
    "TIMEOUT = 30\n"
)
CLI = (
    "from app.config import Loader, parse_config\n"
    "\n"
    "\n"
    "def main():\n"
    "    # parse_config is only mentioned in this comment line\n"
    "    return parse_config('a')\n"
    "\n"
    "\n"
    "def other():\n"
    "    return Loader().parse_config('x')\n"
    "\n"
    "\n"
    "def top():\n"
    "    return main()\n"
)
FILES = {"app/__init__.py": "", "app/config.py": CONFIG, "app/cli.py": CLI}


def test_signature_change_reports_callers_not_same_named_method(make_repo):
    repo = make_repo(FILES)
    edit(repo, "app/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    report = check_json(repo)
    (sym,) = report["changed_symbols"]
    assert sym["qualified_name"] == "app.config.parse_config"
    assert sym["change"] == "signature_changed"
    found = callers(report)
    assert ("app/cli.py", "app.cli.main") in found
    assert ("app/cli.py", "app.cli.other") not in found  # Loader().parse_config is Loader's
    by_symbol = {a["symbol"]: a for a in report["affected"]}
    assert by_symbol["app.cli.main"]["depth"] == 1
    assert by_symbol["app.cli.top"]["depth"] == 2
    assert by_symbol["app.cli.top"]["via"] == ["app.config.parse_config", "app.cli.main"]
    assert "graph" in by_symbol["app.cli.main"]["modalities"]
    assert report["head"] == "STAGED" and report["complete"] is True


def test_the_semantic_backend_is_asked_once_per_changed_symbol(make_repo, monkeypatch):
    # The guard asks two intents per symbol; their requests are the same, so the second
    # is answered from memory instead of embedding and searching again.
    from maguyva_guard.retrievers import semantic

    repo = make_repo(FILES)
    assert check(repo)[0] == 0  # build the index and its vectors first
    edit(repo, "app/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    asked: list[str] = []
    search = semantic.SemanticRetriever.search
    monkeypatch.setattr(semantic.SemanticRetriever, "search",
                        lambda self, request: (asked.append(request.query),
                                               search(self, request))[1])
    report = check_json(repo, "--preset", "thorough")
    assert ("app/cli.py", "app.cli.main") in callers(report)
    assert len(asked) == 1, asked


def test_text_report_names_callers_and_exit_code_follows_fail_on(make_repo):
    repo = make_repo(FILES)
    edit(repo, "app/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    code, out, _ = check(repo)
    assert code == 0
    assert "app.cli.main" in out and "signature changed" in out
    code, _, _ = check(repo, "--fail-on", "medium")
    assert code == 1  # a signature change with a direct caller is at least medium
    code, _, _ = check(repo, "--fail-on", "high")
    assert code == 0


def test_body_change_is_modified(make_repo):
    repo = make_repo(FILES)
    edit(repo, "app/config.py", "    return dict(", "    return dict(  # noqa\n        ")
    edit(repo, "app/config.py", "text = open(path).read()", "text = open(path).read().strip()")
    report = check_json(repo)
    assert [s["change"] for s in report["changed_symbols"]] == ["modified"]
    assert ("app/cli.py", "app.cli.main") in callers(report)


def test_comment_only_change_raises_no_alarm(make_repo):
    repo = make_repo(FILES)
    edit(repo, "app/config.py", '    text = open(path).read()\n',
         '    # read it all at once\n    text = open(path).read()  # small files\n')
    report = check_json(repo)
    assert report["changed_symbols"] == [] and report["affected"] == []
    code, out, _ = check(repo)
    assert code == 0 and "No callers affected" in out


def test_rename_is_looked_up_on_the_old_side(make_repo):
    repo = make_repo(FILES)
    edit(repo, "app/config.py", "def parse_config(path):", "def read_config(path):")
    report = check_json(repo)
    (sym,) = report["changed_symbols"]
    assert sym["change"] == "renamed" and sym["name"] == "read_config"
    assert sym["old_name"] == "parse_config"
    assert ("app/cli.py", "app.cli.main") in callers(report)  # still calls the old name


def test_removed_function_and_deleted_file(make_repo):
    repo = make_repo(FILES)
    git(repo, "rm", "-q", "app/config.py")
    report = check_json(repo)
    changes = {s["qualified_name"]: s["change"] for s in report["changed_symbols"]}
    assert changes["app.config.parse_config"] == "removed"
    assert changes["app.config.Loader"] == "removed"
    found = callers(report)
    assert ("app/cli.py", "app.cli.main") in found and ("app/cli.py", "app.cli.other") in found


def test_added_function_has_no_callers(make_repo):
    repo = make_repo(FILES)
    edit(repo, "app/config.py", "TIMEOUT = 30\n", "TIMEOUT = 30\n\n\ndef fresh():\n    return 1\n")
    report = check_json(repo)
    assert [(s["name"], s["change"]) for s in report["changed_symbols"]] == [("fresh", "added")]
    assert report["affected"] == []


def test_base_and_head_modes_use_the_merge_base(make_repo):
    repo = make_repo(FILES)
    git(repo, "checkout", "-q", "-b", "feature")
    edit(repo, "app/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    git(repo, "commit", "-q", "-m", "strict")
    git(repo, "checkout", "-q", "main")
    edit(repo, "app/cli.py", "def top():", "def top_level():")  # main moves on meanwhile
    git(repo, "commit", "-q", "-m", "main moves")
    report = check_json(repo, "--base", "main", "--head", "feature")
    assert [s["name"] for s in report["changed_symbols"]] == ["parse_config"]  # not top
    assert report["head"] == git(repo, "rev-parse", "feature").strip()
    git(repo, "checkout", "-q", "feature")
    report = check_json(repo, "--base", "main")
    assert [s["name"] for s in report["changed_symbols"]] == ["parse_config"]


def test_first_commit_and_binary_file(make_repo):
    repo = make_repo({}, commit=False)
    write_files(repo, FILES)
    (repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0binary")
    git(repo, "add", "-A")
    report = check_json(repo)
    assert report["base"] is None
    assert {s["change"] for s in report["changed_symbols"]} == {"added"}
    assert not any(f["path"] == "logo.png" for f in report["fallbacks"])


def test_module_level_change_falls_back_to_mentions_and_says_lower_bound(make_repo):
    repo = make_repo({**FILES, "app/settings.py": "MODE = 'fast'\nprint('mode', MODE)\n",
                      "app/use.py": "def use():\n    return 'fast-path-token'\n"})
    edit(repo, "app/settings.py", "print('mode', MODE)", "print('fast-path-token', MODE)")
    report = check_json(repo)
    (fb,) = report["fallbacks"]
    assert fb["path"] == "app/settings.py" and '"fast-path-token"' in fb["queries"]
    assert report["affected"] == []  # a word search proves no dependency: a mention
    assert {"path": "app/use.py", "line": 2, "symbol": "app.use.use",
            "because_of": "app/settings.py:<module>", "term": '"fast-path-token"'} \
        in report["mentions"]
    assert report["complete"] is False
    code, out, _ = check(repo)
    assert "lower bound" in out


def test_bad_input_is_one_line_and_exit_2(make_repo, tmp_path):
    repo = make_repo(FILES)
    code, out, err = check(repo, "--base", "no-such-rev")
    assert code == 2 and err.count("\n") == 1 and "no-such-rev" in err
    code, _, err = check(tmp_path / "nowhere")
    assert code == 2
    code, _, err = check(repo, "--head", "HEAD")
    assert code == 2 and "--head" in err


def snapshot(repo: Path) -> dict[str, str]:
    """Every file of the working tree and of .git except our own index folder."""
    out = {}
    for path in sorted(repo.rglob("*")):
        if path.is_file() and "maguyva-guard" not in path.parts:
            out[str(path.relative_to(repo))] = hashlib.sha1(path.read_bytes()).hexdigest()
    return out


@pytest.mark.parametrize("args", [(), ("--base", "HEAD~1"), ("--format", "sarif")])
def test_repository_is_byte_identical_after_check(make_repo, args):
    repo = make_repo(FILES)
    edit(repo, "app/cli.py", "def other():", "def other2():", stage=False)
    git(repo, "commit", "-qam", "second")
    edit(repo, "app/config.py", "def parse_config(path):", "def parse_config(path, s):")
    edit(repo, "app/cli.py", "def top():", "def top2():", stage=False)  # unstaged too
    before = snapshot(repo)
    code, _, err = check(repo, *args)
    assert code == 0, err
    assert snapshot(repo) == before


@pytest.mark.parametrize("preset", ["quick", "default", "thorough"])
def test_every_preset_finds_the_callers(make_repo, preset):
    repo = make_repo(FILES)
    edit(repo, "app/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    report = check_json(repo, "--preset", preset)
    assert ("app/cli.py", "app.cli.main") in callers(report)


def test_name_only_matches_are_possible_callers_not_affected(make_repo):
    repo = make_repo({**FILES, "app/jobs.py": (
        "class Job:\n    def parse_config(self, text):\n        return text\n\n\n"
        "def run(thing):\n    return thing.parse_config('x')\n\n\n"
        "def sure():\n    return Job().parse_config('y')\n")})
    edit(repo, "app/jobs.py", "    def parse_config(self, text):",
         "    def parse_config(self, text, strict):")
    report = check_json(repo)
    assert ("app/jobs.py", "app.jobs.run") not in callers(report)
    assert [(a["path"], a["symbol"]) for a in report["possible"]] == [
        ("app/jobs.py", "app.jobs.run")]  # thing.parse_config(): Job's or Loader's
    assert report["complete"] is False


def test_name_only_matches_are_possible_callers_when_nothing_resolved(make_repo):
    """A symbol whose only callers are name matches gets them as possible callers, never
    as affected ones (a word search found them), and the report says it is a lower bound
    and why, never "no impact"; the risk of the breaking change stays low, not none."""
    repo = make_repo({**FILES, "app/jobs.py": (
        "class Job:\n    def parse_config(self, text):\n        return text\n\n\n"
        "def run(thing):\n    return thing.parse_config('x')\n")})
    edit(repo, "app/jobs.py", "    def parse_config(self, text):",
         "    def parse_config(self, text, strict):")
    report = check_json(repo)
    assert report["affected"] == []
    (entry,) = report["possible"]
    assert (entry["symbol"], entry["confidence"]) == ("app.jobs.run", "ambiguous")
    assert report["complete"] is False
    assert report["incomplete_reasons"] == [
        "app.jobs.Job.parse_config: no resolved caller, 1 possible caller matched by name "
        "only (listed apart)",
        "possible callers: 1 call site matched by name only (receiver type unknown), "
        "listed apart"]
    assert report["summary"].startswith("No affected callers found, but this is a lower "
                                        "bound: app.jobs.Job.parse_config: no resolved")
    assert [s["risk"] for s in report["changed_symbols"]] == ["low"]
    code, out, _ = check(repo, "--fail-on", "low")
    assert code == 1
    assert "Possible callers (1; name match only, the receiver's type is unknown):" in out
    assert "app/jobs.py:7 app.jobs.run [for app.jobs.Job.parse_config]" in out
    assert ("app.jobs.Job.parse_config  signature changed  risk low  app/jobs.py:2\n"
            "  no resolved caller; 1 possible caller matched by name only, listed below\n"
            ) in out
    markdown = check(repo, "--format", "markdown")[1]
    assert "| signature changed | **low** | 0 (+1 possible) |" in markdown


def test_renaming_the_implementation_behind_overloads_is_a_rename(make_repo):
    repo = make_repo({
        "app/__init__.py": "",
        "app/deco.py": (
            "import typing as t\n\n\n@t.overload\ndef command(name: str) -> int: ...\n\n\n"
            "@t.overload\ndef command(name: None) -> int: ...\n\n\n"
            "def command(name=None):\n    return 1\n"),
        "app/use.py": "from app.deco import command\n\n\ndef run():\n    return command('x')\n",
    })
    edit(repo, "app/deco.py", "def command(name=None):", "def command_renamed(name=None):")
    report = check_json(repo)
    assert [(s["name"], s["change"]) for s in report["changed_symbols"]] == [
        ("command_renamed", "renamed")]
    assert ("app/use.py", "app.use.run") in callers(report)


_OVERLOADS = {
    "src/p/A.java": ("package p;\n\npublic class A {\n"
                     "    public int size(int x) {\n        return x + 1;\n    }\n\n"
                     "    public int size(String s) {\n        return s.length();\n    }\n}\n"),
    "src/p/B.java": ("package p;\n\npublic class B {\n"
                     "    int f(A a) {\n        return a.size(1);\n    }\n}\n"),
}


def test_renaming_one_of_two_overloads_is_a_rename_not_a_change_of_the_other(make_repo):
    """Overloads are paired by signature before line order: the untouched `size(String)`
    is not reported as a changed signature when `size(int)` next to it is renamed."""
    repo = make_repo(_OVERLOADS)
    edit(repo, "src/p/A.java", "public int size(int x)", "public int count(int x)")
    report = check_json(repo)
    assert [(s["name"], s["change"], s["line_start"], s.get("old_name"))
            for s in report["changed_symbols"]] == [("count", "renamed", 4, "size")]
    assert ("src/p/B.java", "src.p.B.B.f") in callers(report)


def test_removing_the_first_of_two_overloads_removes_that_one(make_repo):
    repo = make_repo(_OVERLOADS)
    edit(repo, "src/p/A.java",
         "    public int size(int x) {\n        return x + 1;\n    }\n\n", "")
    report = check_json(repo)
    sizes = [(s["name"], s["change"], s["line_start"])
             for s in report["changed_symbols"] if s["name"] == "size"]
    assert sizes == [("size", "removed", 4)]
