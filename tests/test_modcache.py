"""retrievers/modcache.py: the module-name maps kept in the index folder per list of paths,
built again exactly when the paths change (an added, removed or renamed file)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import git, write_files
from realfs import without_override

from maguyva_guard.cli import main
from maguyva_guard.retrievers import modcache

MAPS = ({"pkg/a.py": "pkg.a"}, {"pkg.a": "pkg/a.py"})


def counted(maps: modcache.Maps = MAPS) -> tuple[list[int], object]:
    calls: list[int] = []

    def build() -> modcache.Maps:
        calls.append(1)
        return maps

    return calls, build


def test_the_same_paths_read_the_stored_maps(tmp_path):
    calls, build = counted()
    assert modcache.cached(tmp_path, ["pkg/a.py", "pkg/b.py"], build) == MAPS
    assert modcache.cached(tmp_path, ["pkg/a.py", "pkg/b.py"], build) == MAPS
    assert len(calls) == 1


@pytest.mark.parametrize("paths", [["pkg/a.py"], ["pkg/a.py", "pkg/b.py", "pkg/c.py"],
                                   ["pkg/a.py", "pkg/c.py"]],
                         ids=["removed", "added", "renamed"])
def test_other_paths_build_the_maps_again(tmp_path, paths):
    calls, build = counted()
    modcache.cached(tmp_path, ["pkg/a.py", "pkg/b.py"], build)
    modcache.cached(tmp_path, paths, build)
    assert len(calls) == 2
    modcache.cached(tmp_path, paths, build)  # and keeps the new ones
    assert len(calls) == 2


def test_a_damaged_file_is_built_again(tmp_path):
    calls, build = counted()
    modcache.cached(tmp_path, ["pkg/a.py"], build)
    (tmp_path / modcache.FILE_NAME).write_bytes(b"\x00garbage")
    assert modcache.cached(tmp_path, ["pkg/a.py"], build) == MAPS
    assert len(calls) == 2


READ_ONLY_RUN = """
import json, sys
from pathlib import Path
from maguyva_guard.retrievers import modcache
calls = []
maps = ({"pkg/a.py": "pkg.a"}, {"pkg.a": "pkg/a.py"})
def build():
    calls.append(1)
    return maps
folder = Path(sys.argv[1])
got = [modcache.cached(folder, ["pkg/a.py"], build) for _ in range(2)]
print(json.dumps({"same": all(list(g) == list(maps) for g in got), "built": len(calls)}))
"""


def test_a_read_only_folder_builds_the_maps_each_time(tmp_path):
    """A real read-only index folder (mode 0555, for a user without override rights): the
    maps are built each time, nothing is written, no error."""
    folder = tmp_path / "index"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        proc = subprocess.run(without_override([sys.executable, "-c", READ_ONLY_RUN,
                                                str(folder)]),
                              capture_output=True, text=True, check=False)
    finally:
        folder.chmod(0o755)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert json.loads(proc.stdout) == {"same": True, "built": 2}
    assert not list(folder.iterdir())


def callers(repo: Path) -> set[tuple[str, str]]:
    result = CliRunner().invoke(main, ["check", "--repo", str(repo), "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    return {(a["path"], a["symbol"]) for a in json.loads(result.stdout)["affected"]}


def test_a_new_package_file_renames_the_modules_under_it(make_repo):
    """`lib/pkg/mod.py` is `pkg.mod` while `lib/` is no package; once `lib/__init__.py`
    is added it is `lib.pkg.mod`, and `from pkg.mod import f` no longer names it. The
    check after the addition must not answer from the maps kept before it."""
    use = "from pkg.mod import f\n\n\ndef run():\n    return f(1)\n"
    repo = make_repo({"lib/pkg/__init__.py": "", "lib/pkg/mod.py": "def f(x):\n    return x\n",
                      "lib/use.py": use})
    write_files(repo, {"lib/pkg/mod.py": "def f(x, y=0):\n    return x\n"})
    git(repo, "add", "-A")
    assert ("lib/use.py", "lib.use.run") in callers(repo)
    assert (repo / ".git" / "maguyva-guard" / modcache.FILE_NAME).is_file()
    git(repo, "reset", "-q", "--hard")
    write_files(repo, {"lib/__init__.py": ""})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "lib becomes a package")
    write_files(repo, {"lib/pkg/mod.py": "def f(x, y=0):\n    return x\n"})
    git(repo, "add", "-A")
    assert not {c for c in callers(repo) if c[0] == "lib/use.py"}


def test_index_keeps_the_maps_for_the_first_check(make_repo):
    repo = make_repo({"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n"})
    result = CliRunner().invoke(main, ["index", "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    stored = repo / ".git" / "maguyva-guard" / modcache.FILE_NAME
    assert stored.is_file()
    calls, build = counted()
    assert modcache.cached(stored.parent, ["pkg/__init__.py", "pkg/a.py"], build) == (
        {"pkg/__init__.py": "pkg", "pkg/a.py": "pkg.a"},
        {"pkg": "pkg/__init__.py", "pkg.a": "pkg/a.py"})
    assert calls == []
