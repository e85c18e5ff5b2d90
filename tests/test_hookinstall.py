"""install-hook / uninstall-hook on real repositories, with real `git commit` and `git push`.

The hooks run for real. Where `check` itself would run, MAGUYVA_GUARD_DRY_RUN=1 (a feature of
the hook scripts) makes them print the command instead, which shows the revisions chosen; a
test at the end runs the real `check` through the hook once that command exists.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CALLED_CONFIG, GIT_ENV, STRICT_CONFIG, git

from maguyva_guard.cli import main
from maguyva_guard.integrations import hookinstall

FOREIGN = b"#!/bin/sh\r\n# someone else's hook, CRLF and all\r\necho foreign\r\nexit 0\r\n"


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def run_git(repo: Path, *args: str, dry_run: bool = True) -> subprocess.CompletedProcess[str]:
    """git with hooks enabled, stderr (where git sends hook output) merged into stdout."""
    env = {**os.environ, **GIT_ENV}
    env.pop("GIT_INDEX_FILE", None)
    if dry_run:
        env["MAGUYVA_GUARD_DRY_RUN"] = "1"
    return subprocess.run(["git", "-C", str(repo), *args], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, check=False)


def write_hook(path: Path, content: bytes | str, mode: int = 0o755) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    path.chmod(mode)


def stage_change(repo: Path, name: str = "b.py") -> None:
    (repo / name).write_text("x = 1\n")
    git(repo, "add", name)


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo({"a.py": "def f():\n    return 1\n"})


def test_fresh_install_writes_an_executable_hook_that_git_runs(repo):
    code, out = cli("install-hook", "--repo", str(repo), "--fail-on", "high")
    hook = repo / ".git/hooks/pre-commit"
    assert (code, out) == (0, f"installed the maguyva-guard pre-commit hook at {hook}\n")
    assert hook.stat().st_mode & 0o777 == 0o755
    text = hook.read_text()
    assert hookinstall.MARKER in text.splitlines()
    assert f"INSTALL_PYTHON={shlex.quote(sys.executable)}\n" in text
    assert "FAIL_ON=high\n" in text and text.count("FAIL_ON=") == 1
    assert 'exec "$INSTALL_PYTHON" -m maguyva_guard "${args[@]}"' in text
    stage_change(repo)
    commit = run_git(repo, "commit", "-q", "-m", "change")
    assert commit.returncode == 0, commit.stdout
    assert "would run: maguyva-guard check --staged --hook --fail-on high" in commit.stdout


def test_without_fail_on_the_hook_leaves_the_level_to_check(repo):
    assert cli("install-hook", "--repo", str(repo))[0] == 0
    stage_change(repo)
    commit = run_git(repo, "commit", "-q", "-m", "change")
    assert "would run: maguyva-guard check --staged --hook\n" in commit.stdout


def test_an_existing_hook_is_never_overwritten_without_force(repo):
    hook = repo / ".git/hooks/pre-commit"
    write_hook(hook, FOREIGN, 0o750)
    code, out = cli("install-hook", "--repo", str(repo))
    assert code == 2
    assert out == (f"maguyva-guard: error: {hook} exists and is not maguyva-guard's; rerun with"
                   " --force to keep it as pre-commit.pre-maguyva-guard and run it before the"
                   " guard\n")
    assert hook.read_bytes() == FOREIGN
    assert hook.stat().st_mode & 0o777 == 0o750
    assert not (repo / ".git/hooks/pre-commit.pre-maguyva-guard").exists()


def test_force_chains_and_a_failing_previous_hook_blocks_the_commit(repo, tmp_path):
    ran = tmp_path / "previous-ran"
    write_hook(repo / ".git/hooks/pre-commit", f"#!/bin/sh\ntouch '{ran}'\nexit 1\n")
    code, out = cli("install-hook", "--repo", str(repo), "--force")
    assert code == 0
    assert out.endswith("; runs pre-commit.pre-maguyva-guard first\n")
    head = git(repo, "rev-parse", "HEAD")
    stage_change(repo)
    commit = run_git(repo, "commit", "-q", "-m", "blocked")
    assert commit.returncode != 0
    assert ran.exists()
    assert "would run" not in commit.stdout  # the guard is not reached after a failure
    assert git(repo, "rev-parse", "HEAD") == head


def test_force_runs_the_previous_hook_first_then_the_guard(repo):
    write_hook(repo / ".git/hooks/pre-commit", "#!/bin/sh\necho previous hook ran\n")
    assert cli("install-hook", "--repo", str(repo), "--force")[0] == 0
    stage_change(repo)
    commit = run_git(repo, "commit", "-q", "-m", "both")
    assert commit.returncode == 0, commit.stdout
    assert commit.stdout.splitlines() == [
        "previous hook ran", "maguyva-guard: would run: maguyva-guard check --staged --hook"]


def test_reinstalling_over_our_own_hook_needs_no_force_and_keeps_the_chain(repo):
    write_hook(repo / ".git/hooks/pre-commit", FOREIGN)
    assert cli("install-hook", "--repo", str(repo), "--force")[0] == 0
    assert cli("install-hook", "--repo", str(repo), "--fail-on", "medium")[0] == 0
    assert "FAIL_ON=medium\n" in (repo / ".git/hooks/pre-commit").read_text()
    assert (repo / ".git/hooks/pre-commit.pre-maguyva-guard").read_bytes() == FOREIGN


def test_force_refuses_to_overwrite_a_saved_hook(repo):
    write_hook(repo / ".git/hooks/pre-commit", FOREIGN)
    write_hook(repo / ".git/hooks/pre-commit.pre-maguyva-guard", b"#!/bin/sh\nexit 0\n")
    code, out = cli("install-hook", "--repo", str(repo), "--force")
    assert code == 2 and "pre-commit.pre-maguyva-guard already exists" in out
    assert (repo / ".git/hooks/pre-commit").read_bytes() == FOREIGN


def test_core_hooks_path_is_honoured_relative_to_the_top(repo):
    git(repo, "config", "core.hooksPath", ".githooks")
    (repo / "sub").mkdir()
    assert cli("install-hook", "--repo", str(repo / "sub"))[0] == 0
    assert (repo / ".githooks/pre-commit").is_file()
    assert not (repo / ".git/hooks/pre-commit").exists()
    assert not (repo / "sub/.githooks").exists()
    stage_change(repo)
    assert "would run" in run_git(repo, "commit", "-q", "-m", "c").stdout


def test_a_worktree_shares_the_hooks_of_the_main_repository(repo, tmp_path):
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(worktree))
    code, out = cli("install-hook", "--repo", str(worktree))
    assert code == 0 and str(repo / ".git/hooks/pre-commit") in out
    stage_change(worktree)
    assert "would run" in run_git(worktree, "commit", "-q", "-m", "c").stdout


def test_uninstall_restores_the_previous_hook_byte_for_byte(repo):
    hook = repo / ".git/hooks/pre-commit"
    write_hook(hook, FOREIGN, 0o700)
    assert cli("install-hook", "--repo", str(repo), "--force")[0] == 0
    assert hook.read_bytes() != FOREIGN
    code, out = cli("uninstall-hook", "--repo", str(repo))
    assert (code, out) == (0, "removed the maguyva-guard pre-commit hook; restored the previous"
                              " one\n")
    assert hook.read_bytes() == FOREIGN
    assert stat.S_IMODE(hook.stat().st_mode) == 0o700
    assert sorted(p.name for p in hook.parent.iterdir() if "pre-commit" in p.name) == [
        "pre-commit", "pre-commit.sample"]


def test_uninstall_restores_a_symlinked_hook_as_a_symlink(repo, tmp_path):
    target = tmp_path / "shared-hook"
    write_hook(target, FOREIGN)
    (repo / ".git/hooks/pre-commit").symlink_to(target)
    assert cli("install-hook", "--repo", str(repo), "--force")[0] == 0
    assert target.read_bytes() == FOREIGN  # the link was moved, not followed
    assert cli("uninstall-hook", "--repo", str(repo))[0] == 0
    assert os.readlink(repo / ".git/hooks/pre-commit") == str(target)


def test_uninstall_without_a_previous_hook_removes_ours(repo):
    assert cli("install-hook", "--repo", str(repo))[0] == 0
    assert cli("uninstall-hook", "--repo", str(repo))[0] == 0
    assert not (repo / ".git/hooks/pre-commit").exists()
    code, out = cli("uninstall-hook", "--repo", str(repo))
    assert code == 0 and "nothing to uninstall" in out


def test_uninstall_refuses_a_hook_it_did_not_install(repo):
    hook = repo / ".git/hooks/pre-push"
    write_hook(hook, FOREIGN)
    code, out = cli("uninstall-hook", "--repo", str(repo), "--hook", "pre-push")
    assert code == 2
    assert out == (f"maguyva-guard: error: {hook} was not installed by maguyva-guard;"
                   " leaving it alone\n")
    assert hook.read_bytes() == FOREIGN


def test_not_a_repository_is_a_usage_error(tmp_path):
    code, out = cli("install-hook", "--repo", str(tmp_path))
    assert (code, out) == (2, f"maguyva-guard: error: not a git repository: {tmp_path}\n")


# --- pre-push ---------------------------------------------------------------------------------


@pytest.fixture
def pushed(make_repo, tmp_path) -> Path:
    """A clone whose main (two commits) is on its bare origin, with the pre-push hook."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    repo = make_repo({"a.py": "def f():\n    return 1\n"}, name="clone")
    git(repo, "remote", "add", "origin", str(origin))
    stage_change(repo, "b.py")
    git(repo, "commit", "-q", "-m", "second")
    git(repo, "push", "-q", "origin", "main")
    assert cli("install-hook", "--repo", str(repo), "--hook", "pre-push")[0] == 0
    return repo


def commit(repo: Path, name: str) -> str:
    stage_change(repo, name)
    git(repo, "commit", "-q", "-m", name)
    return git(repo, "rev-parse", "HEAD").strip()


def would_run(proc: subprocess.CompletedProcess[str]) -> list[str]:
    prefix = "maguyva-guard: would run: maguyva-guard "
    return [line.removeprefix(prefix) for line in proc.stdout.splitlines()
            if line.startswith(prefix)]


def test_pre_push_checks_from_the_remote_tip(pushed):
    remote_tip = git(pushed, "rev-parse", "HEAD").strip()
    head = commit(pushed, "c.py")
    push = run_git(pushed, "push", "-q", "origin", "main")
    assert push.returncode == 0, push.stdout
    assert would_run(push) == [f"check --base {remote_tip} --head {head} --hook"]


def test_pre_push_of_a_new_branch_starts_below_its_first_new_commit(pushed):
    fork_point = git(pushed, "rev-parse", "HEAD").strip()
    git(pushed, "checkout", "-q", "-b", "feature")
    commit(pushed, "c.py")
    head = commit(pushed, "d.py")
    push = run_git(pushed, "push", "-q", "origin", "feature")
    assert would_run(push) == [f"check --base {fork_point} --head {head} --hook"]


def test_pre_push_skips_deletions_and_what_the_remote_has(pushed):
    git(pushed, "push", "-q", "origin", "main:old")
    assert would_run(run_git(pushed, "push", "-q", "origin", ":old")) == []
    assert would_run(run_git(pushed, "push", "-q", "origin", "main:copy")) == []


def test_pre_push_of_a_whole_history_has_nothing_to_compare(make_repo, tmp_path):
    origin = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    repo = make_repo({"a.py": "x = 1\n"}, name="fresh")
    git(repo, "remote", "add", "origin", str(origin))
    assert cli("install-hook", "--repo", str(repo), "--hook", "pre-push")[0] == 0
    push = run_git(repo, "push", "-q", "origin", "main")
    assert push.returncode == 0
    assert would_run(push) == []
    assert "pushing the first commit of the history; nothing to compare" in push.stdout


def test_pre_push_hands_the_previous_hook_its_arguments_and_stdin(pushed, tmp_path):
    hooks = pushed / ".git/hooks"
    assert cli("uninstall-hook", "--repo", str(pushed), "--hook", "pre-push")[0] == 0
    record = tmp_path / "record"
    write_hook(hooks / "pre-push",
               f'#!/bin/sh\necho "$@" > "{record}"\ncat >> "{record}"\nexit 1\n')
    assert cli("install-hook", "--repo", str(pushed), "--hook", "pre-push", "--force")[0] == 0
    head = commit(pushed, "c.py")
    remote_tip = git(pushed, "rev-parse", "origin/main").strip()
    push = run_git(pushed, "push", "-q", "origin", "main")
    assert push.returncode != 0
    assert would_run(push) == []
    assert record.read_text().splitlines() == [
        f"origin {tmp_path / 'origin.git'}",
        f"refs/heads/main {head} refs/heads/main {remote_tip}",
    ]
    assert git(pushed, "rev-parse", "origin/main").strip() == remote_tip  # nothing was pushed


# --- with the real check -------------------------------------------------------------------


@pytest.mark.parametrize(("fail_on", "blocked"), [("low", True), ("none", False)])
def test_the_hook_runs_the_real_check_and_blocks_at_the_level(make_repo, fail_on, blocked):
    repo = make_repo(CALLED_CONFIG)
    assert cli("install-hook", "--repo", str(repo), "--fail-on", fail_on)[0] == 0
    (repo / "pkg/config.py").write_text(STRICT_CONFIG)
    git(repo, "add", "pkg/config.py")
    proc = run_git(repo, "commit", "-q", "-m", "strict", dry_run=False)
    assert "main" in proc.stdout
    assert (proc.returncode != 0) is blocked
