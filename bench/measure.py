"""Run a command and measure it: wall time and the peak memory of that one process tree.

`os.wait4` returns the rusage of the one child it reaps (including the descendants that
child waited for), so each run gets its own peak RSS; RUSAGE_CHILDREN deltas cannot give
that, since ru_maxrss is a maximum over all children ever reaped.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    max_rss_mb: float
    timed_out: bool = False


def run(cmd: list[str], cwd: Path, timeout: float = 600.0,
        env: dict[str, str] | None = None) -> Run:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, env=env)
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            proc.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped: tell Popen
        out.seek(0)
        err.seek(0)
        return Run(proc.returncode, out.read().decode(errors="replace"),
                   err.read().decode(errors="replace"), seconds,
                   usage.ru_maxrss / 1024.0, killed.is_set())
