"""Real disk faults: a full filesystem, a read-only index folder, a full disk under --output.

Only a failed integrity check is corruption. A full disk or a folder we may not write is
one line, exit 2, and the index stays where it is, byte for byte: the next run, with space
or rights again, uses it as it was. Each test reproduces the fault for real (a tmpfs that
fills up, capabilities dropped so that file modes bind root too); see realfs.py.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import GIT_ENV, git
from realfs import fill, small_fs, without_override

from maguyva_guard.index.schema import INDEX_DIRNAME, SCHEMA_VERSION

INDEX_FILE = f"index-v{SCHEMA_VERSION}.sqlite"
SMALL = {"app/__init__.py": "", "app/core.py": "def parse(x):\n    return x\n",
         "app/cli.py": "from app.core import parse\n\n\ndef main():\n    return parse(1)\n"}
FS_KIB = 512  # room for the small index, filled up before the run


def guard(repo: Path, *args: str, wrap: Callable[[list[str]], list[str]] | None = None,
          ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV}
    env.pop("VOYAGE_API_KEY", None)
    argv = [sys.executable, "-m", "maguyva_guard", *args, "--repo", str(repo)]
    return subprocess.run(wrap(argv) if wrap else argv, capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def indexed(make_repo) -> tuple[Path, Path]:
    repo = make_repo(SMALL)
    assert guard(repo, "index").returncode == 0
    return repo, repo / ".git" / INDEX_DIRNAME


def assert_kept(folder: Path, before: str, proc: subprocess.CompletedProcess[str]) -> str:
    """One error line, exit 2, nothing moved aside, the index's bytes unchanged."""
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("maguyva-guard: error: "), line
    assert "corrupt" not in line and "rebuilding" not in line
    assert not list(folder.glob("*.corrupt"))
    assert digest(folder / INDEX_FILE) == before
    return line


@pytest.mark.parametrize("staged", [False, True], ids=["nothing changed", "a staged change"])
def test_a_full_disk_keeps_a_healthy_index_in_place(make_repo, staged):
    repo, folder = indexed(make_repo)
    if staged:
        (repo / "app/core.py").write_text("def parse(x, y):\n    return x\n")
        git(repo, "add", "app/core.py")
    before = digest(folder / INDEX_FILE)
    with small_fs(folder, FS_KIB):
        fill(folder)
        proc = guard(repo, "check")
        line = assert_kept(folder, before, proc)
        assert "full" in line, line
        for extra in folder.glob("filler*"):
            extra.unlink()
        again = guard(repo, "check", "--format", "json")  # space again: the same index serves
        assert again.returncode == 0, again.stderr
        assert "rebuilding" not in again.stderr


def test_a_read_only_index_folder_is_one_line_and_kept(make_repo):
    repo, folder = indexed(make_repo)
    (repo / "app/core.py").write_text("def parse(x, y):\n    return x\n")
    git(repo, "add", "app/core.py")
    (folder / f"{INDEX_FILE}.clean").unlink()  # so that the integrity check runs too
    before = digest(folder / INDEX_FILE)
    folder.chmod(0o555)
    try:
        line = assert_kept(folder, before, guard(repo, "check", wrap=without_override))
        assert "Permission denied" in line or "readonly" in line, line
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("mode", [0o444, 0o000], ids=["read-only", "unreadable"])
def test_an_index_file_we_may_not_write_is_not_thrown_away(make_repo, mode):
    """The folder is writable, so moving the index aside would succeed: it must not."""
    repo, folder = indexed(make_repo)
    (repo / "app/core.py").write_text("def parse(x, y):\n    return x\n")
    git(repo, "add", "app/core.py")
    (folder / f"{INDEX_FILE}.clean").unlink()
    before = digest(folder / INDEX_FILE)
    (folder / INDEX_FILE).chmod(mode)
    line = assert_kept(folder, before, guard(repo, "check", wrap=without_override))
    assert "readonly" in line or "unable to open" in line, line


def test_output_on_a_full_disk_keeps_the_previous_report(make_repo, tmp_path):
    callers = {f"app/use{i}.py": f"from app.core import parse\n\n\ndef use{i}():\n"
               f"    return parse({i})\n" for i in range(60)}
    repo = make_repo({**SMALL, **callers})
    (repo / "app/core.py").write_text("def parse(x, y):\n    return x\n")
    git(repo, "add", "app/core.py")
    reports = tmp_path / "reports"
    with small_fs(reports, 64):
        previous = "the previous report\n"  # one page: the new report needs more
        (reports / "impact.md").write_text(previous)
        fill(reports)
        proc = guard(repo, "check", "--format", "markdown", "--output",
                     str(reports / "impact.md"))
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.returncode == 2, proc.stderr
        (line,) = proc.stderr.splitlines()
        assert line.startswith(f"maguyva-guard: error: cannot write {reports / 'impact.md'}: ")
        assert "No space left on device" in line
        assert (reports / "impact.md").read_text() == previous
        assert sorted(p.name for p in reports.iterdir()) == ["filler", "impact.md"]
        (reports / "filler").unlink()
        again = guard(repo, "check", "--format", "markdown", "--output",
                      str(reports / "impact.md"))
        assert again.returncode == 0, again.stderr
        assert "app.cli.main" in (reports / "impact.md").read_text()


def _records(path: Path) -> int:
    import numpy as np

    return int(np.load(path, allow_pickle=False).shape[0])


def test_a_deleted_vectors_file_is_made_again_by_the_next_index(make_repo):
    """`maguyva-guard index` on an unchanged view embeds what is missing: a vectors file
    someone deleted (a cache cleaner, `rm -rf .git/maguyva-guard/vectors-*`) comes back
    (it stayed missing, and every search embedded the view again in memory)."""
    modules = {f"app/m{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(30)}
    repo = make_repo({**SMALL, **modules})
    assert guard(repo, "index").returncode == 0
    (vec,) = (repo / ".git" / INDEX_DIRNAME).glob("vectors-*.npy")
    whole = _records(vec)
    vec.unlink()
    proc = guard(repo, "index")
    assert proc.returncode == 0, proc.stderr
    assert vec.is_file() and _records(vec) == whole


@pytest.mark.parametrize("damage", ["truncated", "header overwritten"])
def test_a_damaged_vectors_file_is_detected_rebuilt_and_said_once(make_repo, damage):
    modules = {f"app/m{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(30)}
    repo = make_repo({**SMALL, **modules})
    assert guard(repo, "index").returncode == 0
    (vec,) = (repo / ".git" / INDEX_DIRNAME).glob("vectors-*.npy")
    whole = _records(vec)
    data = vec.read_bytes()
    if damage == "truncated":  # a copy cut short, a disk that filled up under another tool
        vec.write_bytes(data[: len(data) // 2])
    else:
        vec.write_bytes(b"\0" * 64 + data[64:])
    proc = guard(repo, "query", "--json", "who calls parse")
    assert proc.returncode == 0, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("maguyva-guard: warning: semantic vectors were damaged ("), line
    assert line.endswith("); rebuilding them"), line
    assert _records(vec) == whole
    again = guard(repo, "query", "--json", "who calls parse")
    assert again.returncode == 0 and again.stderr == ""
