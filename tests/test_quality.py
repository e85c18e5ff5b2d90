"""The checks that run with the tests: ruff's lint rules and mypy (strict for the package, as
configured in pyproject.toml). A lint or type error fails the suite like a failing test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True)


def test_ruff_finds_nothing() -> None:
    pytest.importorskip("ruff")
    done = _run("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing() -> None:
    pytest.importorskip("mypy")
    done = _run("mypy", "--no-incremental")
    assert done.returncode == 0, done.stdout + done.stderr
