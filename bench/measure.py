"""Run a command and measure it: wall time and the peak memory of that one process tree.

Linux carries a process's memory high-water mark across exec, and a child forked from the
benchmark starts with the benchmark's own resident set (about 100 MB on Django), so the
`os.wait4` figure of a direct child is floored at our size. GNU time forks the tool from a
tiny process and reports the tool's own peak, so it is used when present; without it the
wait4 figure stands (an upper bound).
"""

from __future__ import annotations

import os
import signal
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
    cpu_seconds: float = 0.0  # user + system CPU of the tool and its children (a shared
    # machine's wall clock waits for other people's work; CPU time does not)


GNU_TIME = Path("/usr/bin/time")


def _peak_kb(report: Path) -> float | None:
    try:
        rows = report.read_text().split()
    except FileNotFoundError:
        return None
    numbers = [r for r in rows if r.isdigit()]
    return float(numbers[-1]) if numbers else None


def tool_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a measured tool runs in: the given one (or ours) without
    PYTHONDONTWRITEBYTECODE, which a shell may set (this machine kind's does) and no user
    of an installed package has: with it every run of a Python tool compiles its own code
    again (0.2 to 0.3 s of CPU for a one-symbol check)."""
    out = dict(os.environ if env is None else env)
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    return out


def run(cmd: list[str], cwd: Path, timeout: float = 600.0,
        env: dict[str, str] | None = None) -> Run:
    with tempfile.TemporaryDirectory(prefix="mg-measure-") as tmp:
        report = Path(tmp) / "peak"
        timed = cmd
        if GNU_TIME.exists():
            timed = [str(GNU_TIME), "-q", "-f", "%M", "-o", str(report), *cmd]
        with open(Path(tmp) / "out", "w+b") as out, open(Path(tmp) / "err", "w+b") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(timed, cwd=cwd, stdout=out, stderr=err,
                                    stdin=subprocess.DEVNULL, env=tool_env(env),
                                    start_new_session=True)
            killed = threading.Event()

            def kill() -> None:  # the whole session: GNU time and the tool under it
                killed.set()
                os.killpg(proc.pid, signal.SIGKILL)

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
            peak_kb = _peak_kb(report) or float(usage.ru_maxrss)
            return Run(proc.returncode, out.read().decode(errors="replace"),
                       err.read().decode(errors="replace"), seconds, peak_kb / 1024.0,
                       killed.is_set(), usage.ru_utime + usage.ru_stime)
