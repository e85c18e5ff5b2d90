"""Shared fixtures: real git repositories built in temporary folders."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    env.pop("GIT_INDEX_FILE", None)
    out = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, check=True, capture_output=True, text=True
    )
    return out.stdout


def write_files(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Path]:
    """make_repo({"pkg/mod.py": "..."}) -> a repository with those files committed."""
    counter = {"n": 0}

    def make(files: dict[str, str], commit: bool = True, name: str | None = None) -> Path:
        counter["n"] += 1
        repo = tmp_path / (name or f"repo{counter['n']}")
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        write_files(repo, files)
        if files:
            git(repo, "add", "-A")
        if commit and files:
            git(repo, "commit", "-q", "-m", "initial")
        return repo

    return make
