"""The hook's contract, with real `git commit`s through the hook `install-hook` writes.

A hook never blocks a commit for its own failure (a read-only cache, broken settings, a lock
held by a suspended run): one warning line, the commit is made; `--strict` blocks instead.
A block by `--fail-on` says in one line which symbol, which risk, the threshold and how to
skip the hook once. A pass prints a short report. `uninstall-hook` keeps the user's edits.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import GIT_ENV, git
from realfs import without_override

from maguyva_guard.index.schema import INDEX_DIRNAME

CORE = "def parse(x):\n    return x\n"
CHANGED = "def parse(x, y):\n    return x\n"
FILES = {"app/__init__.py": "", "app/core.py": CORE,
         "app/cli.py": "from app.core import parse\n\n\ndef main():\n    return parse(1)\n"}
WARNING = "maguyva-guard: warning: not checked: "
SUSPEND_TIMEOUT = 60.0
HOOK_WAIT = 5.0  # commands/hookmode.py's HOOK_LOCK_WAIT_SECONDS (test_hookmode_constants)
BRIEF = 3  # commands/hookmode.py's BRIEF_CALLERS


def env() -> dict[str, str]:
    full = {**os.environ, **GIT_ENV}
    full.pop("VOYAGE_API_KEY", None)
    full.pop("GIT_INDEX_FILE", None)
    return full


def guard(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "maguyva_guard", *args, "--repo", str(repo)],
                          capture_output=True, text=True, env=env(), timeout=120, check=False)


def commit(repo: Path, wrap=None) -> subprocess.CompletedProcess[str]:  # noqa: ANN001
    argv = ["git", "-C", str(repo), "commit", "-m", "change"]
    return subprocess.run(wrap(argv) if wrap else argv, capture_output=True, text=True,
                          env=env(), timeout=180, check=False)


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def hooked(make_repo, *install: str, files: dict[str, str] | None = None) -> Path:
    """A repository with our pre-commit hook, an index, and a staged signature change."""
    repo = make_repo(files or FILES)
    assert guard(repo, "install-hook", *install).returncode == 0
    assert guard(repo, "index").returncode == 0
    (repo / "app/core.py").write_text(CHANGED)
    git(repo, "add", "app/core.py")
    return repo


def warnings(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The lines about the run, not the report (git sends a hook's stdout to stderr too)."""
    kinds = tuple(f"maguyva-guard: {k}" for k in ("warning", "waiting", "blocked", "error"))
    return [line for line in proc.stderr.splitlines() if line.startswith(kinds)]


# --- a failure of the tool itself lets the commit through ---------------------------------


def test_broken_settings_warn_once_and_the_commit_is_made(make_repo):
    repo = hooked(make_repo)
    (repo / ".maguyva-guard.toml").write_text("depth = [\n")  # the user's own mistake
    before = head(repo)
    proc = commit(repo)
    assert proc.returncode == 0, proc.stderr
    assert head(repo) != before
    (line,) = warnings(proc)
    assert line.startswith(WARNING + ".maguyva-guard.toml: invalid TOML"), line
    assert line.endswith("; letting it through (--strict blocks instead)"), line


def test_a_read_only_index_folder_warns_once_and_the_commit_is_made(make_repo):
    repo = hooked(make_repo)
    folder = repo / ".git" / INDEX_DIRNAME
    (folder / next(p.name for p in folder.glob("index-v*.sqlite"))).chmod(0o444)
    folder.chmod(0o555)
    try:
        before = head(repo)
        proc = commit(repo, wrap=without_override)
        assert proc.returncode == 0, proc.stderr
        assert head(repo) != before
        (line,) = warnings(proc)
        assert line.startswith(WARNING + "cannot "), line
        assert "readonly" in line or "Permission denied" in line, line
    finally:
        folder.chmod(0o755)


def test_strict_restores_blocking_on_the_tools_own_failure(make_repo):
    repo = hooked(make_repo)
    (repo / ".maguyva-guard.toml").write_text("depth = [\n")
    proc = guard(repo, "check", "--staged", "--hook", "--strict")
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    assert line.startswith("maguyva-guard: error: .maguyva-guard.toml: invalid TOML"), line


# --- a suspended run holding the lock ---------------------------------------------------------


def _module(i: int) -> str:
    return f"def func{i}(value):\n    return value * {i}\n\n\ndef call{i}():\n" \
           f"    return func{(i + 1) % 400}(1)\n"


def test_a_suspended_run_holding_the_lock_does_not_hold_the_commit(make_repo):
    files = {**FILES, **{f"gen/m{i}.py": _module(i) for i in range(400)}}
    repo = make_repo(files)
    assert guard(repo, "install-hook").returncode == 0
    lock = repo / ".git" / INDEX_DIRNAME / "lock"
    holder = subprocess.Popen([sys.executable, "-m", "maguyva_guard", "index", "--repo",
                               str(repo)], env=env(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + SUSPEND_TIMEOUT
        while not (lock.exists() and lock.read_text().strip() == str(holder.pid)):
            assert holder.poll() is None, "the cold index ended before it could be suspended"
            assert time.monotonic() < deadline
            time.sleep(0.001)
        os.killpg(holder.pid, signal.SIGSTOP)  # the run and its parse workers, as Ctrl-Z does
        (repo / "app/core.py").write_text(CHANGED)
        git(repo, "add", "app/core.py")
        before = head(repo)
        proc = commit(repo)
        assert proc.returncode == 0, proc.stderr
        assert head(repo) != before
        lines = warnings(proc)
        assert lines[0].startswith(f"maguyva-guard: waiting for another maguyva-guard run"
                                   f" (pid {holder.pid}: "), lines
        assert "-m maguyva_guard index --repo" in lines[0]
        assert lines[1].startswith(WARNING + f"another maguyva-guard run (pid {holder.pid}: ")
        assert f"kept the index locked for {HOOK_WAIT:g} s" in lines[1]
        assert len(lines) == 2, lines
    finally:
        os.killpg(holder.pid, signal.SIGKILL)
        holder.wait()


# --- --fail-on: one line that says why and how to skip once -----------------------------------


def test_a_fail_on_block_names_symbol_risk_threshold_and_bypass(make_repo):
    repo = hooked(make_repo, "--fail-on", "medium")
    before = head(repo)
    proc = commit(repo)
    assert proc.returncode != 0
    assert head(repo) == before
    assert warnings(proc)[-1] == (
        "maguyva-guard: blocked: app.core.parse (signature changed) has risk medium, at or"
        " above --fail-on medium; to skip the check once: git commit --no-verify")
    assert "app/cli.py:5 app.cli.main" in proc.stderr  # the report: git shows it on stderr


# --- a pass prints a short report ----------------------------------------------------------


def test_a_hooks_report_on_a_pass_is_short_and_says_how_to_see_the_rest(make_repo):
    callers = {f"app/use{i}.py": f"from app.core import parse\n\n\ndef use{i}():\n"
               f"    return parse({i})\n" for i in range(8)}
    repo = hooked(make_repo, files={**FILES, **callers})
    proc = commit(repo)
    assert proc.returncode == 0, proc.stderr
    out = proc.stderr.splitlines()
    found = re.match(r"maguyva-guard: (\d+) affected callers of 1 changed symbol", out[0])
    assert found and int(found[1]) > 8, out
    listed = [line for line in out if "app/" in line and "[depth 1" in line]
    assert len(listed) == BRIEF, out
    assert f"  ... and {int(found[1]) - BRIEF} more" in out
    assert "maguyva-guard: the full report: maguyva-guard check --staged" in out


# --- uninstall-hook keeps what the user changed -------------------------------------------


def test_uninstall_keeps_the_users_edits_aside_and_says_where(make_repo):
    repo = make_repo(FILES)
    assert guard(repo, "install-hook").returncode == 0
    hook = repo / ".git" / "hooks" / "pre-commit"
    edited = hook.read_text() + "echo 'my own step' >&2\n"
    hook.write_text(edited)
    proc = guard(repo, "uninstall-hook")
    assert proc.returncode == 0, proc.stderr
    kept = repo / ".git" / "hooks" / "pre-commit.maguyva-guard-edited"
    assert proc.stdout.strip() == (
        f"removed the maguyva-guard pre-commit hook from {hook}; it had edits of yours,"
        f" kept in {kept}")
    assert not hook.exists()
    assert kept.read_text() == edited


def test_uninstall_of_an_unedited_hook_keeps_nothing(make_repo):
    repo = make_repo(FILES)
    assert guard(repo, "install-hook", "--fail-on", "high").returncode == 0
    assert guard(repo, "uninstall-hook").returncode == 0
    assert sorted(p.name for p in (repo / ".git" / "hooks").iterdir()
                  if not p.name.endswith(".sample")) == []


def test_hookmode_constants():
    from maguyva_guard.commands import hookmode

    assert (hookmode.HOOK_LOCK_WAIT_SECONDS, hookmode.BRIEF_CALLERS) == (HOOK_WAIT, BRIEF)
