"""A/B latency of one `check` between two checkouts of maguyva-guard, on one corpus.

    python bench/ab.py OLD_CHECKOUT NEW_CHECKOUT [--project django] [--version 5.2.8] [--runs 10]

Each run stages the same one-line signature change of a function (a copy of the corpus, so
nothing is shared between the two sides but the machine) and times `python -m maguyva_guard
check --format json` with the checkout on PYTHONPATH, alternating old and new so that the
machine's load falls on both alike. Prints the medians and the ratio, and whether the two
sides reported the same callers.

Each side is warmed until its index is whole: a cold index embeds only part of the chunks
and each later check embeds more within a one-second wall-clock box, so on a loaded machine
the first several measured runs of a side did extra embedding work, and how many differed
between the sides. `--control` adds a third side, OLD again on its own copy, alternated with
the other two: its ratio to OLD is what "within noise" means in that run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import corpus, measure  # noqa: E402

_CPU: list[float] = []  # each run's child CPU seconds, in order


def _stage_change(repo: Path) -> str:
    """Add a parameter to the first top-level function with callers elsewhere; its name."""
    for path in sorted(repo.rglob("*.py")):
        if "test" in path.parts or path.name.startswith("test"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        m = re.search(r"^def ([a-z_][a-z0-9_]{6,})\(([^)\n]*)\):", text, re.M)
        if m and len(subprocess.run(["git", "-C", str(repo), "grep", "-lw", m.group(1)],
                                    capture_output=True, text=True).stdout.split()) > 3:
            sep = ", " if m.group(2).strip() else ""
            new = f"def {m.group(1)}({m.group(2)}{sep}ab_extra=None):"
            path.write_text(text.replace(m.group(0), new, 1), encoding="utf-8")
            subprocess.run(["git", "-C", str(repo), "add", str(path)], check=True)
            return m.group(1)
    raise SystemExit("no function to change")


MAX_WARM = 8  # warm-up runs per side at most (each embeds more of a cold index's chunks)
_STDERR: list[str] = []  # each run's stderr, in order


def _run(checkout: Path, repo: Path) -> tuple[float, list]:
    env = measure.tool_env({**os.environ, "PYTHONPATH": str(checkout)})
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-m", "maguyva_guard", "check", "--repo", str(repo),
                          "--format", "json"], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    _CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    _STDERR.append(out.stderr)
    report = json.loads(out.stdout) if out.stdout.strip() else {}
    callers = sorted((a["path"], a["symbol"], a["line"]) for a in report.get("affected", []))
    return seconds, callers


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--project", default="django")
    ap.add_argument("--version", default="5.2.8")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--control", action="store_true",
                    help="a third side, OLD again on its own copy (A against A)")
    args = ap.parse_args()
    source = corpus.ensure_repo(args.project, args.version)
    work = Path(tempfile.mkdtemp(prefix="ab-"))
    repos = {}
    sides = ("old", "new", "control") if args.control else ("old", "new")
    for side in sides:
        repos[side] = work / side
        shutil.copytree(source, repos[side], symlinks=True)
        name = _stage_change(repos[side])
    checkouts = {"old": args.old.resolve(), "new": args.new.resolve(),
                 "control": args.old.resolve()}
    for side in sides:  # warm: build each side's index, then until it is whole
        for _ in range(MAX_WARM):
            _run(checkouts[side], repos[side])
            if "index incomplete" not in _STDERR[-1]:
                break
    times: dict[str, list[float]] = {side: [] for side in sides}
    cpu: dict[str, list[float]] = {side: [] for side in sides}  # user+sys: load-proof
    callers: dict[str, list] = {}
    for _ in range(args.runs):
        for side in sides:
            seconds, found = _run(checkouts[side], repos[side])
            times[side].append(seconds)
            cpu[side].append(_CPU[-1])
            callers[side] = found
    old, new = statistics.median(times["old"]), statistics.median(times["new"])
    print(f"{args.project} {args.version}, one staged signature change of {name}, "
          f"{args.runs} alternating runs each (warm index)")
    print(f"old median {old:.3f} s, new median {new:.3f} s, new/old {new / old:.2f}")
    old_cpu, new_cpu = statistics.median(cpu["old"]), statistics.median(cpu["new"])
    print(f"CPU (user+sys) old median {old_cpu:.3f} s, new median {new_cpu:.3f} s, "
          f"new/old {new_cpu / old_cpu:.2f}; load average {os.getloadavg()[0]:.1f}")
    if args.control:
        ctl, ctl_cpu = statistics.median(times["control"]), statistics.median(cpu["control"])
        print(f"control (old again): median {ctl:.3f} s, control/old {ctl / old:.2f}; "
              f"CPU median {ctl_cpu:.3f} s, control/old {ctl_cpu / old_cpu:.2f}")
    same = callers["old"] == callers["new"]
    print(f"callers: old {len(callers['old'])}, new {len(callers['new'])}"
          f"{' (same)' if same else ' (differ)'}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
