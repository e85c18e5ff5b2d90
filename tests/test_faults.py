"""Faults the hook must survive: a run killed mid-write, two runs at once, a full disk.

Each runs the real command in a child process (`python -m maguyva_guard`), since these are
faults of processes: SIGKILL, a second process waiting on the lock, a file-size limit
(RLIMIT_FSIZE, with SIGXFSZ ignored, so that a write past it fails like one on a full disk).
"""

from __future__ import annotations

import errno
import json
import os
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import GIT_ENV, git, write_files

from maguyva_guard.index.schema import INDEX_DIRNAME, SCHEMA_VERSION

MODULES = 1000  # a cold index of these takes a couple of seconds: long enough to be killed
DEFS_PER_MODULE = 6  # funcN and funcN_0..4
REFS_PER_MODULE = 6  # one import and five calls
INDEX_FILE = f"index-v{SCHEMA_VERSION}.sqlite"
KILL_TIMEOUT = 30.0
ORPHAN_TIMEOUT = 10.0  # seconds for a killed run's workers to notice and exit


def module_source(i: int) -> str:
    j = (i * 7 + 1) % MODULES
    steps = "".join(f'def func{i}_{k}(value):\n    """Step {k}."""\n'
                    f"    return func{j}(value) + {k}\n\n\n" for k in range(5))
    return (f"from pkg.m{j // 100}.mod{j} import func{j}\n\n\n{steps}"
            f"def func{i}(value):\n    return value * {i}\n")


def generated_files() -> dict[str, str]:
    files = {f"pkg/m{i // 100}/mod{i}.py": module_source(i) for i in range(MODULES)}
    files.update({f"pkg/m{d}/__init__.py": "" for d in range(MODULES // 100)})
    files["pkg/__init__.py"] = ""
    return files


def expected_summary() -> re.Pattern[str]:
    """What a complete index of the generated repository says. It parsed every blob, or none
    when the killed run had committed them already (it was then embedding)."""
    files = MODULES + MODULES // 100 + 1
    parsed = MODULES + 1  # the empty __init__.py files are one blob
    return re.compile(
        rf"indexed {files:,} files \(({parsed:,}|0) parsed\) · {DEFS_PER_MODULE * MODULES:,} "
        rf"symbols · {REFS_PER_MODULE * MODULES:,} references · ")


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """A committed repository of MODULES modules that call each other, never indexed."""
    repo = tmp_path_factory.mktemp("generated") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_files(repo, generated_files())
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "generated")
    return repo


@pytest.fixture
def fresh_copy(generated, tmp_path) -> Path:
    """A copy of the generated repository without any index."""
    repo = tmp_path / "repo"
    shutil.copytree(generated, repo, symlinks=True)
    shutil.rmtree(repo / ".git" / INDEX_DIRNAME, ignore_errors=True)
    return repo


def _env() -> dict[str, str]:
    env = {**os.environ, **GIT_ENV}
    env.pop("VOYAGE_API_KEY", None)
    return env


def guard(repo: Path, *args: str, preexec: Callable[[], None] | None = None,
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "maguyva_guard", *args, "--repo", str(repo)],
                          capture_output=True, text=True, env=_env(), preexec_fn=preexec,
                          timeout=120, check=False)


def start(repo: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "maguyva_guard", *args, "--repo", str(repo)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(), start_new_session=True)


def quick_check(repo: Path) -> str:
    conn = sqlite3.connect(repo / ".git" / INDEX_DIRNAME / INDEX_FILE)
    try:
        return str(conn.execute("PRAGMA quick_check").fetchone()[0])
    finally:
        conn.close()


def indexed_paths(repo: Path) -> set[str]:
    conn = sqlite3.connect(repo / ".git" / INDEX_DIRNAME / INDEX_FILE)
    try:
        return {row[0] for row in conn.execute("SELECT path FROM files")}
    finally:
        conn.close()


def assert_no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr


# --- kill -9 during `index` ----------------------------------------------------------------


def _wal_size(repo: Path) -> int:
    try:
        return (repo / ".git" / INDEX_DIRNAME / f"{INDEX_FILE}-wal").stat().st_size
    except OSError:
        return 0


def _writing(db: Path) -> bool:
    """True while another connection holds the index's write lock (a transaction is open)."""
    if not db.exists():
        return False
    probe = sqlite3.connect(db, timeout=0)
    try:
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        return "locked" in str(exc)
    finally:
        probe.close()


def _kill_when(proc: subprocess.Popen[str], ready: Callable[[], bool]) -> None:
    deadline = time.monotonic() + KILL_TIMEOUT
    while not ready():
        if proc.poll() is not None:
            pytest.fail(f"the index ended (exit {proc.returncode}) before it could be killed:"
                        f" {proc.communicate()[1]}")
        assert time.monotonic() < deadline
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    try:  # its parse workers must not outlive it, holding its output pipes open
        proc.communicate(timeout=ORPHAN_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the session of the run this test started
        proc.communicate()
        pytest.fail("worker processes outlived the killed index run")
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.parametrize("moment", ["while parsing", "while committing"])
def test_an_index_killed_mid_write_is_recovered_on_the_next_run(fresh_copy, moment):
    repo = fresh_copy
    db = repo / ".git" / INDEX_DIRNAME / INDEX_FILE
    proc = start(repo, "index")
    if moment == "while parsing":  # the cold build's transaction is open, rows in memory
        seen: list[float] = []

        def ready() -> bool:
            if _writing(db):
                seen.append(time.monotonic())
            return bool(seen) and seen[-1] - seen[0] > 0.3

        _kill_when(proc, ready)
    else:  # the commit is being written into the WAL
        _kill_when(proc, lambda: _wal_size(repo) > 256 * 1024)
    again = guard(repo, "index")
    assert_no_traceback(again)
    assert again.returncode == 0, again.stderr
    # The summary, then (a cold build) the note on the vectors' background job.
    assert any(expected_summary().match(line) for line in again.stderr.splitlines()), \
        again.stderr
    assert quick_check(repo) == "ok"
    found = guard(repo, "query", "--json", "who calls func8")  # mod1 calls func8 (1*7+1)
    assert found.returncode == 0, found.stderr
    paths = {r["path"] for r in json.loads(found.stdout)["results"]}
    assert "pkg/m0/mod1.py" in paths


# --- two runs at once ----------------------------------------------------------------------


def test_two_checks_at_once_both_succeed_one_after_the_other(fresh_copy):
    repo = fresh_copy
    path = repo / "pkg/m0/mod8.py"
    path.write_text(path.read_text().replace("def func8(value)", "def func8(value, scale)"))
    git(repo, "add", "pkg/m0/mod8.py")
    runs = [start(repo, "check", "--format", "json") for _ in range(2)]
    outputs = [run.communicate(timeout=120) for run in runs]
    for run, (_, err) in zip(runs, outputs, strict=True):
        assert "Traceback" not in err
        assert run.returncode == 0, err
    reports = [json.loads(out) for out, _ in outputs]
    for report in reports:
        report.pop("stats")
    assert reports[0] == reports[1]
    assert {(a["path"], a["symbol"]) for a in reports[0]["affected"]} >= {
        ("pkg/m0/mod1.py", "pkg.m0.mod1.func1_0")}
    waited = [err for _, err in outputs if "waiting for another maguyva-guard run" in err]
    assert len(waited) == 1, "the lock did not serialise the two cold builds"


# --- a full disk ---------------------------------------------------------------------------


def file_size_limit(limit: int) -> Callable[[], None]:
    """A child's writes past `limit` bytes of any file fail with EFBIG, as on a full disk."""

    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


SMALL = {"app/__init__.py": "", "app/core.py": "def parse(x):\n    return x\n",
         "app/cli.py": "from app.core import parse\n\n\ndef main():\n    return parse(1)\n"}


def test_a_full_disk_while_writing_the_index_keeps_the_old_one(make_repo):
    repo = make_repo(SMALL)
    assert guard(repo, "index").returncode == 0
    before = indexed_paths(repo)
    write_files(repo, {f"more/m{i}.py": module_source(i) for i in range(200)})
    git(repo, "add", "-A")
    full = guard(repo, "check", preexec=file_size_limit(64 * 1024))
    assert_no_traceback(full)
    assert full.returncode == 2
    assert full.stdout == ""
    (line,) = full.stderr.splitlines()
    assert line.startswith("maguyva-guard: error: cannot write the index ")
    assert quick_check(repo) == "ok"
    assert indexed_paths(repo) == before  # the old index, intact
    after = guard(repo, "check")  # space again: no rebuild needed, the new files come in
    assert after.returncode == 0, after.stderr
    assert "rebuilding" not in after.stderr
    assert len(indexed_paths(repo)) == len(before) + 200


def test_a_full_disk_while_saving_vectors_only_warns(make_repo, monkeypatch):
    """The semantic vectors are an optional cache: failing to save them must not fail the
    commit; the other modalities answer. (In-process: the index must fit where the vectors
    do not, which one file-size limit cannot arrange.)"""
    from click.testing import CliRunner

    from maguyva_guard.cli import main
    from maguyva_guard.embed import backend as embedding
    from maguyva_guard.embed import vectors

    def no_space(*args: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(vectors, "save", no_space)
    monkeypatch.setattr(embedding, "_warned", set())
    repo = make_repo(SMALL)
    (repo / "app/core.py").write_text("def parse(x, y):\n    return x\n")
    git(repo, "add", "app/core.py")
    result = CliRunner().invoke(main, ["check", "--repo", str(repo), "--format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("maguyva-guard: warning: semantic vectors not saved: "
                                    "No space left on device\n")
    report = json.loads(result.stdout)
    assert "app.cli.main" in {a["symbol"] for a in report["affected"]}
