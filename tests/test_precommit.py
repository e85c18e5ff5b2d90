"""The pre-commit framework running this repository's hooks (.pre-commit-hooks.yaml) for real.

`pre-commit try-repo` builds a fresh virtualenv and pip-installs this repository every time
(it ignores PRE_COMMIT_HOME), and a configuration that names this repository installs it
once into PRE_COMMIT_HOME: so this module pays two installs, shared by all its runs through
one module-scoped PRE_COMMIT_HOME.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GIT_ENV, git

ROOT = Path(__file__).resolve().parent.parent  # this project's repository
INSTALL_SECONDS = 900  # a cold pip install of the tree-sitter language pack is slow



def test_the_manifest_is_valid_for_pre_commit():
    from pre_commit.clientlib import load_manifest

    hooks = {hook["id"]: hook for hook in load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))}
    assert set(hooks) == {"maguyva-guard", "maguyva-guard-pre-push"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert (hook["pass_filenames"], hook["require_serial"], hook["always_run"]) == (
            False, True, True)
        assert hook["minimum_pre_commit_version"] == "3.2.0"
        assert hook["verbose"] is True  # else pre-commit shows only "Passed", never the report
    assert (hooks["maguyva-guard"]["entry"], hooks["maguyva-guard"]["stages"]) == (
        "maguyva-guard check --hook", ["pre-commit"])
    assert (hooks["maguyva-guard-pre-push"]["entry"], hooks["maguyva-guard-pre-push"]["stages"]) \
        == ("maguyva-guard check --from-env --hook", ["pre-push"])


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def pre_commit(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("GIT_INDEX_FILE", None)
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=repo, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=INSTALL_SECONDS, check=False)


@pytest.fixture
def signature_change(make_repo) -> Path:
    """A function, its caller in another module, and a staged change of its signature."""
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/config.py": "def parse_config(path):\n    return {'path': path}\n",
        "pkg/cli.py": "from pkg.config import parse_config\n\n\ndef main():\n"
                      "    return parse_config('app.toml')\n",
    })
    (repo / "pkg/config.py").write_text(
        "def parse_config(path, strict):\n    return {'path': path, 'strict': strict}\n")
    git(repo, "add", "pkg/config.py")
    return repo


def test_try_repo_reports_the_affected_caller(signature_change, pre_commit_home):
    # --ref: the committed HEAD. Without it try-repo adds this checkout's modified tracked
    # files but not its untracked ones, a state that nobody commits or installs.
    proc = pre_commit(signature_change, pre_commit_home, "try-repo", str(ROOT), "maguyva-guard",
                      "--ref", head_of_this_repo(), "--verbose")
    assert "pkg/cli.py" in proc.stdout, proc.stdout


@functools.cache
def head_of_this_repo() -> str:
    """Read once: a commit landing mid-run must not cost another install."""
    return git(ROOT, "rev-parse", "HEAD").strip()


def use_config(repo: Path, hook_id: str, fail_on: str) -> None:
    rev = head_of_this_repo()
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {ROOT}\n  rev: {rev}\n  hooks:\n  - id: {hook_id}\n"
        f"    args: [--fail-on, {fail_on}]\n    verbose: true\n")  # the report even on a pass
    git(repo, "add", ".pre-commit-config.yaml")  # pre-commit refuses an unstaged config


@pytest.mark.parametrize(("fail_on", "code"), [("low", 1), ("high", 0), ("none", 0)])
def test_the_fail_on_argument_decides_the_exit_code(signature_change, pre_commit_home,
                                                    fail_on, code):
    use_config(signature_change, "maguyva-guard", fail_on)
    proc = pre_commit(signature_change, pre_commit_home, "run", "--hook-stage", "pre-commit")
    assert proc.returncode == code, proc.stdout
    assert "maguyva-guard (what this commit can break)" in proc.stdout
    assert "pkg/cli.py" in proc.stdout


@pytest.mark.parametrize(("fail_on", "blocked"), [("low", True), ("none", False)])
def test_the_pre_push_hook_checks_the_pushed_range(signature_change, pre_commit_home, tmp_path,
                                                   fail_on, blocked):
    repo = signature_change
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "push", "-q", "origin", "main")  # the base: the staged change is not in it
    use_config(repo, "maguyva-guard-pre-push", fail_on)
    git(repo, "commit", "-q", "-m", "strict")
    install = pre_commit(repo, pre_commit_home, "install", "--hook-type", "pre-push")
    assert install.returncode == 0, install.stdout
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(pre_commit_home)}
    push = subprocess.run(["git", "push", "origin", "main"], cwd=repo, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    assert (push.returncode != 0) is blocked, push.stdout
    assert "pkg/cli.py" in push.stdout


def test_a_real_commit_through_pre_commit_shows_the_short_report_on_a_pass(signature_change,
                                                                            pre_commit_home):
    """`pre-commit install`, then a plain `git commit`: the configuration does not ask for
    verbose output, the manifest does, so the report is read on every commit."""
    repo = signature_change
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {ROOT}\n  rev: {head_of_this_repo()}\n  hooks:\n"
        "  - id: maguyva-guard\n")
    git(repo, "add", ".pre-commit-config.yaml")
    install = pre_commit(repo, pre_commit_home, "install")
    assert install.returncode == 0, install.stdout
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(pre_commit_home),
           "PRE_COMMIT_COLOR": "never"}
    env.pop("GIT_INDEX_FILE", None)
    before = git(repo, "rev-parse", "HEAD")
    proc = subprocess.run(["git", "commit", "-m", "strict"], cwd=repo, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=INSTALL_SECONDS, check=False)
    assert proc.returncode == 0, proc.stdout
    assert git(repo, "rev-parse", "HEAD") != before
    lines = proc.stdout.splitlines()
    assert any(line.startswith("maguyva-guard (what this commit can break)")
               and line.endswith("Passed") for line in lines), proc.stdout
    assert any(line.startswith("maguyva-guard: 2 affected callers of 1 changed symbol")
               for line in lines), proc.stdout
    assert any("pkg/cli.py:" in line and "pkg.cli.main" in line for line in lines), proc.stdout
