"""Benchmark corpora: pinned PyPI sdists, each unpacked into a one-commit git repository.

`ensure_repo("requests", "2.32.3")` downloads the sdist with pip (the only registry we
reach), unpacks it and commits it under bench/.cache/repos/requests-2.32.3. The commit has
a fixed author and date so the same sdist always gives the same commit id. Callers that
change files must clone this repository first: the cache is never mutated.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache"
REPOS = CACHE / "repos"
SDISTS = CACHE / "sdists"
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
}


def _git(args: list[str], cwd: Path) -> str:
    env = {**os.environ, **_GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True,
                          capture_output=True, text=True).stdout


def download_sdist(name: str, version: str) -> Path:
    SDISTS.mkdir(parents=True, exist_ok=True)
    for found in SDISTS.iterdir():
        stem = found.name.lower().replace("_", "-")
        if stem.startswith(f"{name.lower()}-{version}.") and not found.name.endswith(".tmp"):
            return found
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--no-binary", ":all:", f"{name}=={version}", "-d", str(SDISTS)],
                   check=True)
    return download_sdist(name, version)


def _unpack(archive: Path, into: Path) -> Path:
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(into)
    else:
        with tarfile.open(archive) as tf:
            tf.extractall(into, filter="data")  # drops the archive's owners and odd modes
    (top,) = [p for p in into.iterdir() if p.is_dir()]
    return top


def ensure_repo(name: str, version: str) -> Path:
    """The corpus repository for NAME==VERSION, built on first use."""
    dest = REPOS / f"{name}-{version}"
    if (dest / ".git").is_dir():
        return dest
    archive = download_sdist(name, version)
    REPOS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=REPOS) as tmp:
        commit_as_repo(_unpack(archive, Path(tmp)), dest, f"{name} {version} sdist")
    return dest


def commit_as_repo(top: Path, dest: Path, message: str) -> None:
    """Commit everything under `top` (reproducibly: fixed author and dates) and move it to
    `dest`, the cached corpus repository."""
    _git(["init", "-q", "-b", "main"], top)
    _git(["add", "-A", "-f"], top)
    _git(["commit", "-q", "--no-verify", "-m", message], top)
    shutil.move(str(top), dest)


if __name__ == "__main__":
    print(ensure_repo(sys.argv[1], sys.argv[2]))
