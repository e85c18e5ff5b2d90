"""Running a corpus project's own pytest suite: collect its tests, run it, read what failed.

The suite runs in one virtualenv of its own (bench/.cache/tests-venv: pytest, the test
dependencies from PyPI, pytest-testmon), with the project's package taken from its working
copy through PYTHONPATH, so that a mutant in the working copy is what the tests import.
One pytest at a time, no xdist: the machine has 2 cores shared with other people.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.corpus import CACHE

VENV = CACHE / "tests-venv"
VENV_PACKAGES = ("pytest", "freezegun", "hypothesis", "pytest-testmon", "six",
                 "pytest-cov")
BASE_ARGS = ("-q", "-p", "no:cacheprovider", "--tb=no", "-rfE", "--no-header",
             "-o", "addopts=", "-W", "ignore::DeprecationWarning")


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    package_root: str  # what goes on PYTHONPATH ("src", or "." for a flat layout)
    tests: str  # the test folder, as pytest is given it
    library: str  # the folder whose files are mutated

    @property
    def label(self) -> str:
        return f"{self.name}-{self.version}"


@dataclass(frozen=True)
class Run:
    failed: frozenset[str]  # node ids (or a file's path, when the file failed to import)
    seconds: float
    timed_out: bool
    exit_code: int


def python() -> str:
    if not (VENV / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(VENV / "bin" / "python"), "-m", "pip", "install", "-q",
                        *VENV_PACKAGES], check=True)
    return str(VENV / "bin" / "python")


def _env(work: Path, project: Project) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["PYTHONPATH"] = str((work / project.package_root).resolve())
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a mutant must never be read from a stale .pyc
    env["HYPOTHESIS_PROFILE"] = "default"
    return env


def pytest(work: Path, project: Project, *args: str, timeout: float = 600,
           cache: bool = False) -> tuple[str, float, int | None]:
    """pytest's stdout, the wall time and the exit code (None on timeout). `cache` keeps
    pytest's cache provider (pytest-testmon needs it)."""
    base = [a for a in BASE_ARGS if a not in ("-p", "no:cacheprovider")] if cache else BASE_ARGS
    cmd = [python(), "-m", "pytest", *base, *args, project.tests]
    t0 = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=work, env=_env(work, project), capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return out, time.perf_counter() - t0, None
    return done.stdout, time.perf_counter() - t0, done.returncode


def collect(work: Path, project: Project) -> list[str]:
    out, _, code = pytest(work, project, "--collect-only")
    head = out.split("\n\n", 1)[0]  # the ids, one a line, then a blank line and the count
    ids = [line.strip() for line in head.splitlines() if "::" in line]
    if code not in (0, 5) or not ids:
        raise RuntimeError(f"{project.label}: collection failed (exit {code}):\n{out[-2000:]}")
    return ids


def parse_failures(out: str) -> frozenset[str]:
    """FAILED/ERROR lines of -rfE: `FAILED tests/x.py::t[a b] - msg` -> `tests/x.py::t[a b]`."""
    failed = set()
    for line in out.splitlines():
        for tag in ("FAILED ", "ERROR "):
            if line.startswith(tag):
                rest = line[len(tag):]
                failed.add(rest.split(" - ", 1)[0].strip())
    return frozenset(failed)


def run_suite(work: Path, project: Project, timeout: float) -> Run:
    out, seconds, code = pytest(work, project, timeout=timeout)
    if code is None:
        return Run(frozenset(), seconds, True, -1)
    failed = parse_failures(out)
    if code not in (0, 1) and not failed:
        failed = frozenset({"<suite>"})  # pytest itself failed (an import error at startup)
    return Run(failed, seconds, False, code)


def expand(failed: frozenset[str], suite: list[str]) -> set[str]:
    """Failing ids as collected ids: a file that failed to import fails all its tests, a
    failed suite fails every test."""
    out: set[str] = set()
    for f in failed:
        if f == "<suite>":
            return set(suite)
        if "::" in f:
            out.add(f)
        else:
            out.update(t for t in suite if t.split("::", 1)[0] == f)
    return out
