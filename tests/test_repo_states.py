"""Every command leaves the repository byte-identical, in every unusual state a user can be in.

A pre-commit hook runs on the commits of people who did not write it, mid-merge, mid-rebase,
in worktrees, shallow clones and repositories with odd file names. For each such state this
runs the real commands (`index`, `query`, `check` staged, `check --format json`, `check
--base`) and snapshots, around every one of them: every file of the working tree and of the
git directory (the index, refs, logs, objects, MERGE_HEAD, rebase state...) except our own
`maguyva-guard/` folder, plus `git stash list`, `git config --list --local`, `git for-each-ref`
and HEAD. Bad input (a bare repository, a folder that is no repository, a revision a shallow
clone lacks) must be exit 2 with one line on stderr; nothing may end in a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import GIT_ENV, git, write_files

from maguyva_guard.cli import main

CORE = (
    "def parse(text):\n"
    '    """Split a line."""\n'
    "    return text.split()\n"
    "\n"
    "\n"
    "def helper():\n"
    "    return parse('a b')\n"
)
CLI = "from app.core import parse\n\n\ndef main():\n    return parse('x y')\n"
FILES = {"app/__init__.py": "", "app/core.py": CORE, "app/cli.py": CLI}
BIG_BYTES = 50 * 1024 * 1024
OUR_DIR = "maguyva-guard"
QUERY = "who calls parse"


# --- The snapshot -------------------------------------------------------------------------


def _files(top: Path) -> dict[str, str]:
    """path -> sha1 of the content (or "link:<target>"), for every file below `top`."""
    out: dict[str, str] = {}
    for folder, dirs, names in os.walk(top):
        if os.path.basename(folder) == ".git":  # our index folder, and only that one
            dirs[:] = [d for d in dirs if d != OUR_DIR]
        for name in [*names, *(d for d in dirs if os.path.islink(os.path.join(folder, d)))]:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, top)
            if os.path.islink(path):
                out[rel] = "link:" + os.readlink(path)
            else:
                with open(path, "rb") as handle:
                    out[rel] = hashlib.sha1(handle.read()).hexdigest()
    return out


def stale_stat(top: Path) -> None:
    """Backdate every working-tree file, so that git's index no longer matches their stat
    data: any index refresh (git status, git diff without --cached, git add) would then
    rewrite .git/index and show in the snapshot, even within the same second (racy git)."""
    past = os.stat(top).st_mtime - 1000
    for folder, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in [*names, *dirs]:
            os.utime(os.path.join(folder, name), (past, past), follow_symlinks=False)


def _git_out(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV, "GIT_OPTIONAL_LOCKS": "0"}
    proc = subprocess.run(["git", "--no-optional-locks", "-C", str(repo), *args], env=env,
                          capture_output=True, check=False)
    return f"{proc.returncode}:{proc.stdout!r}"


def snapshot(*tops: Path) -> dict[str, object]:
    """Everything a command could touch in these working trees and their git directories."""
    shot: dict[str, object] = {}
    for top in tops:
        shot[f"files {top}"] = _files(top)
        for args in (("stash", "list"), ("config", "--list", "--local"), ("for-each-ref",),
                     ("rev-parse", "HEAD"), ("symbolic-ref", "-q", "HEAD")):
            shot[f"{top} git {' '.join(args)}"] = _git_out(top, *args)
    return shot


# --- The states ---------------------------------------------------------------------------


def _commit(repo: Path, message: str) -> None:
    git(repo, "commit", "-q", "-m", message)


def _base(root: Path, name: str = "repo", files: dict[str, str] | None = None) -> Path:
    """Two commits (the second renames nothing, adds a caller), ready for a staged edit."""
    repo = root / name
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    write_files(repo, files or FILES)
    git(repo, "add", "-A")
    _commit(repo, "one")
    (repo / "app" / "more.py").write_text("from app import core\n\n\ndef more():\n"
                                          "    return core.parse('z')\n")
    git(repo, "add", "-A")
    _commit(repo, "two")
    return repo


def _stage_signature_change(repo: Path) -> None:
    path = repo / "app" / "core.py"
    path.write_bytes(path.read_bytes().replace(b"def parse(text)", b"def parse(text, sep)"))
    git(repo, "add", "app/core.py")


def _conflict(root: Path) -> Path:
    """main and topic change parse() differently; returns the repo on main."""
    repo = _base(root)
    git(repo, "checkout", "-q", "-b", "topic")
    (repo / "app/core.py").write_text(CORE.replace("def parse(text)", "def parse(text, a)"))
    git(repo, "commit", "-qam", "topic")
    git(repo, "checkout", "-q", "main")
    (repo / "app/core.py").write_text(CORE.replace("def parse(text)", "def parse(text, b)"))
    git(repo, "commit", "-qam", "main")
    return repo


def state_no_commits(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    write_files(repo, FILES)
    git(repo, "add", "-A")
    return repo


def state_detached_head(root: Path) -> Path:
    repo = _base(root)
    git(repo, "checkout", "-q", "--detach", "HEAD")
    _stage_signature_change(repo)
    return repo


def state_mid_merge_with_conflicts(root: Path) -> Path:
    repo = _conflict(root)
    proc = subprocess.run(["git", "-C", str(repo), "merge", "-q", "topic"],
                          env={**os.environ, **GIT_ENV}, capture_output=True, check=False)
    assert proc.returncode == 1 and (repo / ".git" / "MERGE_HEAD").exists()
    return repo


def state_mid_rebase(root: Path) -> Path:
    repo = _conflict(root)
    proc = subprocess.run(["git", "-C", str(repo), "rebase", "-q", "topic"],
                          env={**os.environ, **GIT_ENV}, capture_output=True, check=False)
    assert proc.returncode != 0 and (repo / ".git" / "rebase-merge").is_dir()
    return repo


def state_shallow_clone(root: Path) -> Path:
    origin = _base(root, "origin")
    repo = root / "repo"
    git(root, "clone", "-q", "--depth", "1", f"file://{origin}", str(repo))
    assert (repo / ".git" / "shallow").exists()
    _stage_signature_change(repo)
    return repo


def state_worktree(root: Path) -> Path:
    main_repo = _base(root, "main")
    repo = root / "repo"
    git(main_repo, "worktree", "add", "-q", "-b", "side", str(repo))
    _stage_signature_change(repo)
    return repo


def state_submodule(root: Path) -> Path:
    sub = _base(root, "sub")
    repo = _base(root)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/sub")
    _commit(repo, "submodule")
    (repo / "vendor/sub/app/core.py").write_text(CORE + "# changed inside the submodule\n")
    _stage_signature_change(repo)
    return repo


def state_bare(root: Path) -> Path:
    repo = root / "repo.git"
    git(root, "init", "-q", "--bare", str(repo))
    return repo


def state_not_a_repository(root: Path) -> Path:
    repo = root / "plain"
    write_files(repo, FILES)
    return repo


def state_core_hooks_path(root: Path) -> Path:
    repo = _base(root)
    hooks = repo / ".githooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "pre-commit").chmod(0o755)
    git(repo, "config", "core.hooksPath", ".githooks")
    _stage_signature_change(repo)
    return repo


ODD_NAMES = ("app/with space.py", "app/ünïcödé_模块.py", "app/new\nline.py", 'app/q"uote.py')


def state_odd_file_names(root: Path) -> Path:
    repo = _base(root)
    for i, name in enumerate(ODD_NAMES):
        (repo / name).write_text(f"from app.core import parse\n\n\ndef use{i}():\n"
                                 "    return parse('a')\n")
    git(repo, "add", "-A")
    _commit(repo, "odd names")
    for name in ODD_NAMES:
        path = repo / name
        path.write_text(path.read_text().replace("def use", "def used"))
    git(repo, "add", "-A")
    _stage_signature_change(repo)
    return repo


def state_symlinks(root: Path) -> Path:
    repo = _base(root)
    (repo / "link.py").symlink_to("app/core.py")
    (repo / "applink").symlink_to("app")
    (repo / "dangling.py").symlink_to("nowhere/at/all.py")
    git(repo, "add", "-A")
    _commit(repo, "links")
    (repo / "link.py").unlink()
    (repo / "link.py").symlink_to("app/cli.py")
    git(repo, "add", "-A")
    _stage_signature_change(repo)
    return repo


def state_crlf_files(root: Path) -> Path:
    crlf = {k: v.replace("\n", "\r\n") for k, v in FILES.items()}
    repo = _base(root, files=crlf)
    _stage_signature_change(repo)
    return repo


def state_files_not_utf8(root: Path) -> Path:
    repo = _base(root)
    latin = ("# caf\xe9 \xe0 la cr\xe8me\ndef r\xe9sum\xe9():\n    return 'na\xefve'\n\n\n"
             "def after():\n    return resume()\n").encode("latin-1")
    (repo / "app/latin.py").write_bytes(latin)
    (repo / "app/utf16.py").write_bytes("def sixteen():\n    return 1\n".encode("utf-16"))
    git(repo, "add", "-A")
    _commit(repo, "latin")
    (repo / "app/latin.py").write_bytes(latin.replace(b"def after()", b"def after(x)"))
    git(repo, "add", "-A")
    return repo


def state_50mb_generated_file(root: Path) -> Path:
    repo = _base(root)
    line = b"VALUE_0000000 = 'generated filler, generated filler, generated'  # data\n"
    with open(repo / "app/generated_table.py", "wb") as handle:
        handle.write(b"# Code generated by a tool. DO NOT EDIT.\n")
        handle.write(line * (BIG_BYTES // len(line) + 1))
    git(repo, "add", "-A")
    _commit(repo, "big")
    with open(repo / "app/generated_table.py", "r+b") as handle:  # one line changed
        handle.seek(BIG_BYTES // 2 // len(line) * len(line))
        handle.write(line.replace(b"VALUE_", b"OTHER_"))
    git(repo, "add", "-A")
    return repo


SYNTAX_ERROR = (
    "def before(x):\n    return x\n\n\n"
    "def broken(:\n    return ((]\n\n\n"
    "class AfterTheError:\n    def method(self):\n        return before(1)\n\n\n"
    "def after_the_error(y):\n    return before(y)\n"
)


def state_syntax_error(root: Path) -> Path:
    repo = _base(root)
    (repo / "app/broken.py").write_text(SYNTAX_ERROR)
    git(repo, "add", "-A")
    _commit(repo, "broken")
    path = repo / "app/broken.py"
    path.write_text(SYNTAX_ERROR.replace("def after_the_error(y)", "def after_the_error(y, z)"))
    git(repo, "add", "-A")
    return repo


def state_empty_diff(root: Path) -> Path:
    return _base(root)


# state -> (builder, exit code of index/query/check, exit code of check --base HEAD~1)
STATES: dict[str, tuple[Callable[[Path], Path], int, int]] = {
    "no commits yet": (state_no_commits, 0, 2),  # HEAD~1: unknown revision
    "detached HEAD": (state_detached_head, 0, 0),
    "mid-merge with conflicts": (state_mid_merge_with_conflicts, 0, 0),
    "mid-rebase": (state_mid_rebase, 0, 0),
    "shallow clone": (state_shallow_clone, 0, 2),  # HEAD~1 is beyond the cut
    "git worktree": (state_worktree, 0, 0),
    "submodule": (state_submodule, 0, 0),
    "bare repository": (state_bare, 2, 2),
    "not a repository": (state_not_a_repository, 2, 2),
    "core.hooksPath": (state_core_hooks_path, 0, 0),
    "odd file names": (state_odd_file_names, 0, 0),
    "symlinks": (state_symlinks, 0, 0),
    "CRLF files": (state_crlf_files, 0, 0),
    "files that are not UTF-8": (state_files_not_utf8, 0, 0),
    "50 MB generated file": (state_50mb_generated_file, 0, 0),
    "syntax error": (state_syntax_error, 0, 0),
    "empty diff": (state_empty_diff, 0, 0),
}
ERRORS = {
    "no commits yet": "unknown revision: HEAD",  # no HEAD to compare with yet
    "shallow clone": "unknown revision: HEAD~1",
    "bare repository": "a bare repository has no working tree",
    "not a repository": "not a git repository",
}


def commands(repo: Path) -> list[list[str]]:
    where = ["--repo", str(repo)]
    return [["index", *where], ["query", QUERY, *where], ["check", *where],
            ["check", "--staged", "--format", "json", *where],
            ["check", "--base", "HEAD~1", "--format", "markdown", *where]]


def _tops(state: str, repo: Path) -> list[Path]:
    """The folders to snapshot: the repository, and what it shares its git directory with."""
    if state == "git worktree":
        return [repo, repo.parent / "main"]
    if state == "shallow clone":
        return [repo, repo.parent / "origin"]
    return [repo]


@pytest.mark.parametrize("state", list(STATES))
def test_every_command_leaves_the_repository_byte_identical(state, tmp_path):
    build, code, base_code = STATES[state]
    repo = build(tmp_path)
    tops = _tops(state, repo)
    for top in tops:
        stale_stat(top)
    runner = CliRunner()
    for argv in commands(repo):
        before = snapshot(*tops)
        result = runner.invoke(main, argv)
        assert snapshot(*tops) == before, f"{argv[0]} changed the repository in {state}"
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            f"{argv}: {result.exception!r}")
        assert "Traceback" not in result.output
        expected = base_code if "--base" in argv else code
        assert result.exit_code == expected, (argv, result.output)
        if expected == 2:
            assert result.stdout == ""
            assert len(result.stderr.splitlines()) == 1, result.stderr
            assert result.stderr.startswith("maguyva-guard: error: ")
            assert ERRORS[state] in result.stderr
        if argv[0] == "check" and "json" in argv and expected == 0:
            json.loads(result.stdout)  # a whole report, whatever the state


def _check_json(repo: Path, *args: str) -> dict:
    result = CliRunner().invoke(main, ["check", "--repo", str(repo), "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _changed(report: dict) -> set[tuple[str, str]]:
    return {(s["qualified_name"], s["change"]) for s in report["changed_symbols"]}


def test_a_syntax_error_leaves_the_rest_of_the_file_indexed(tmp_path):
    """tree-sitter recovers: definitions after the error are still found, and changed."""
    repo = state_syntax_error(tmp_path)
    report = _check_json(repo)
    assert ("app.broken.after_the_error", "signature_changed") in _changed(report)
    result = CliRunner().invoke(main, ["query", "--repo", str(repo), "--json",
                                       "def AfterTheError"])
    assert result.exit_code == 0, result.output
    top = json.loads(result.stdout)["results"][0]
    assert (top["path"], top["line_start"]) == ("app/broken.py", 9)


def test_conflicted_and_odd_named_files_are_still_checked(tmp_path):
    """The states are not merely survived: the change in them is seen."""
    merge = state_mid_merge_with_conflicts(tmp_path / "m")
    assert _check_json(merge)["changed_symbols"] == []  # unmerged: the index holds "ours"
    (merge / "app/core.py").write_text(CORE.replace("def parse(text)", "def parse(text, a, b)"))
    git(merge, "add", "app/core.py")  # resolved, still mid-merge: what the commit hook sees
    assert ("app.core.parse", "signature_changed") in _changed(_check_json(merge))
    odd = state_odd_file_names(tmp_path / "o")
    paths = {s["path"] for s in _check_json(odd)["changed_symbols"]}
    assert set(ODD_NAMES) <= paths
    crlf = state_crlf_files(tmp_path / "c")
    report = _check_json(crlf)
    assert ("app.core.parse", "signature_changed") in _changed(report)
    assert {a["symbol"] for a in report["affected"]} >= {"app.cli.main", "app.core.helper"}


def test_fallback_queries_read_a_bounded_prefix_of_a_huge_change():
    """A generated file changes a million lines: the fallback's queries must not scan them all
    (an unclosed quote on each line is the regular expression's worst case)."""
    from maguyva_guard.guard import changes

    lines = ["x = '" + "unclosed string " * 5] * 1_000_000 + ["late_identifier = 1"]
    started = time.perf_counter()
    queries = changes._queries(lines)
    assert time.perf_counter() - started < 2.0
    assert "late_identifier" not in queries and queries
