"""One command's questions to git asked once (git.session): a check used to start git
fifteen to eighteen times, asking where the repository is four times, and the staged
listing, HEAD and the diff twice each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from conftest import CALLED_CONFIG, edit, git

from maguyva_guard import git as gitcalls

LOGGING_GIT = """#!/bin/sh
printf '%s\\n' "$*" >> "{log}"
exec {real} "$@"
"""


def _git_calls(repo: Path, tmp_path: Path, *args: str) -> tuple[dict, Counter[str]]:
    """The check's JSON and its git commands (the words after git's own options)."""
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True,
                          check=True).stdout.strip()
    bin_dir, log = tmp_path / "bin", tmp_path / "git.log"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(LOGGING_GIT.format(log=log, real=real))
    (bin_dir / "git").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([sys.executable, "-m", "maguyva_guard", "check", "--repo", str(repo),
                           *args], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    calls = Counter(" ".join(line.split("core.quotepath=off ", 1)[-1].split()[:2])
                    for line in log.read_text().splitlines())
    return json.loads(done.stdout), calls


def test_a_check_asks_git_each_question_once(make_repo, tmp_path):
    repo = make_repo(CALLED_CONFIG)
    edit(repo, "pkg/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    subprocess.run([sys.executable, "-m", "maguyva_guard", "index", "--repo", str(repo)],
                   check=True, capture_output=True)
    report, calls = _git_calls(repo, tmp_path, "--staged", "--format", "json")
    assert {a["path"] for a in report["affected"]} >= {"pkg/cli.py"}
    assert "tests" in report
    asked = {c: n for c, n in calls.items() if c.split()[0] in ("rev-parse", "ls-files", "diff")}
    assert asked == {"rev-parse --is-bare-repository": 1, "rev-parse --verify": 1,
                     "ls-files -s": 1, "diff -M": 2}  # the file list, then the hunks (-U0)
    assert calls["cat-file --batch"] <= 2  # the store keeps its own reader


def test_a_session_keeps_answers_for_its_own_run_only(make_repo):
    repo = make_repo({"a.py": "x = 1\n"})
    before = gitcalls.ls_index_raw(repo)
    with gitcalls.session():
        assert gitcalls.ls_index_raw(repo) == before
        (repo / "a.py").write_text("x = 2\n")
        git(repo, "add", "a.py")
        assert gitcalls.ls_index_raw(repo) == before  # one snapshot per command
        assert gitcalls.repo_info(repo) == gitcalls.repo_info(gitcalls.repo_info(repo).root)
    after = gitcalls.ls_index_raw(repo)
    assert after != before
    assert gitcalls.ls_index_raw(repo) == after
