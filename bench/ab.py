"""A/B latency of one `check` between two checkouts of maguyva-guard, on one corpus.

    python bench/ab.py OLD_CHECKOUT NEW_CHECKOUT [--project django] [--version 5.2.8] [--runs 10]

Each run stages the same one-line signature change of a function (a copy of the corpus, so
nothing is shared between the two sides but the machine) and times `python -m maguyva_guard
check --format json` with the checkout on PYTHONPATH, alternating old and new so that the
machine's load falls on both alike. Prints the medians and the ratio, and whether the two
sides reported the same callers.
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


def _run(checkout: Path, repo: Path) -> tuple[float, list]:
    env = measure.tool_env({**os.environ, "PYTHONPATH": str(checkout)})
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-m", "maguyva_guard", "check", "--repo", str(repo),
                          "--format", "json"], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    _CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
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
    args = ap.parse_args()
    source = corpus.ensure_repo(args.project, args.version)
    work = Path(tempfile.mkdtemp(prefix="ab-"))
    repos = {}
    for side in ("old", "new"):
        repos[side] = work / side
        shutil.copytree(source, repos[side], symlinks=True)
        name = _stage_change(repos[side])
    checkouts = {"old": args.old.resolve(), "new": args.new.resolve()}
    for side in ("old", "new"):  # warm: build each side's index once
        _run(checkouts[side], repos[side])
    times: dict[str, list[float]] = {"old": [], "new": []}
    cpu: dict[str, list[float]] = {"old": [], "new": []}  # user+sys: what load does not inflate
    callers: dict[str, list] = {}
    for _ in range(args.runs):
        for side in ("old", "new"):
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
    same = callers["old"] == callers["new"]
    print(f"callers: old {len(callers['old'])}, new {len(callers['new'])}"
          f"{' (same)' if same else ' (differ)'}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
