"""Real faults for tests: a small filesystem that fills up, a user without override rights.

Both need root (mount(2), dropping capabilities); without it the tests that use them skip
with the reason. CI runs the suite as root, so there they run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

# Capabilities that let root ignore file modes: without them a mode-0555 folder is read-only
# to root as well, as it is to any user.
OVERRIDE_CAPS = ("dac_override", "dac_read_search", "fowner")


def need_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root: mounts a small filesystem / drops capabilities")


@contextmanager
def small_fs(where: Path, size_kib: int) -> Iterator[Path]:
    """A tmpfs of `size_kib` KiB mounted at `where`, holding what was there before (copied
    in); on exit the content is copied back out and the mount removed."""
    need_root()
    saved = where.with_name(where.name + ".saved")
    if where.exists():
        shutil.move(where, saved)
    where.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs",
                           str(where)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        where.rmdir()
        if saved.exists():
            shutil.move(saved, where)
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        if saved.exists():
            shutil.copytree(saved, where, dirs_exist_ok=True, symlinks=True)
            shutil.rmtree(saved)
        yield where
    finally:
        kept = where.with_name(where.name + ".kept")
        shutil.copytree(where, kept, symlinks=True)
        subprocess.run(["umount", "-l", str(where)], check=True)
        where.rmdir()
        kept.rename(where)


def fill(folder: Path) -> None:
    """Write a file in `folder` until its filesystem has no byte left."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (65536, 4096, 1):  # down to the last partial block
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)


def without_override(argv: list[str]) -> list[str]:
    """`argv` run as root without the capabilities that bypass file modes."""
    need_root()
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux) to drop capabilities")
    drop = ",".join(f"-{cap}" for cap in OVERRIDE_CAPS)
    return ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", *argv]
