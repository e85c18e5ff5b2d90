"""Load: `maguyva-guard check` on a repository of 20,000 files with a diff touching 200 of them.

    python bench/load.py [--files 20000] [--changed 200] [--fresh]
    python bench/load.py --files 100000 --changed 10 --typescript --warm-only
    python bench/load.py --files 100000 --changed 10 --typescript --check-only --out NAME

Generates the repository once under bench/.cache/load/ (small Python modules that import and
call each other across 200 packages, a tenth of them JavaScript), commits it, then measures,
each command in its own child process. `--typescript`: a fifth of the modules are TypeScript
instead, and every module also imports one of a few hundred core modules with a skewed
(Zipf-like) choice, so some modules have thousands of importers, as a monorepo's utilities
do. `--warm-only` stops after step 2 (a 100,000-file repository); `--check-only` runs step
2 alone on the index an earlier run left; `--out NAME` writes bench/results/NAME.md|json
instead of load.md (load-FILES.md for other sizes):

  1. `index`, cold (no index yet);
  2. `check` of a staged diff that changes a function's signature in `--changed` files,
     with the index warm (what the hook does on such a commit);
  3. the same `check` with no index at all (the first run of the hook in a fresh clone).

For each: wall time, the peak RSS of the largest single process (getrusage RUSAGE_CHILDREN
of a fresh intermediate process, so every descendant counts), and the peak RSS of the
whole process tree (its members' RSS summed, sampled every 50 ms from /proc: parse workers
run at once). Step 3 runs once more under a pseudo-terminal, to show that progress is
drawn there (the bar appears only on a TTY). Target: under 2 GB. Writes
bench/results/load.md and load.json.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
CACHE = BENCH / ".cache" / "load"
RESULTS = BENCH / "results"
LIMIT_BYTES = 2 * 1024**3  # the issue's memory budget
MODULES_PER_PACKAGE = 100
JS_EVERY = 10  # one file in ten is JavaScript
TS_EVERY = 5  # --typescript: one file in five is TypeScript
CORE_MODULES = 300  # --typescript: the modules everyone imports, skewed to the first ones
SAMPLE_SECONDS = 0.05
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}


@dataclass(frozen=True)
class Measured:
    label: str
    seconds: float
    max_process_rss_mib: float
    peak_tree_rss_mib: float
    returncode: int
    stderr_tail: str
    cpu_seconds: float  # user + system of every descendant (the parse workers included)


# --- The repository ------------------------------------------------------------------------


def python_module(i: int, n: int) -> str:
    j, k = (i * 7919 + 1) % n, (i + 1) % n
    return (f'"""Module {i}."""\nfrom pkgs.p{j // MODULES_PER_PACKAGE}.m{j} import helper_{j}\n'
            f"from pkgs.p{k // MODULES_PER_PACKAGE} import m{k} as sibling\n\n"
            f"CONSTANT_{i} = {i}\n\n\n"
            f"def helper_{i}(value, scale=1):\n    \"\"\"Scale a value.\"\"\"\n"
            f"    return helper_{j}(value) * scale + CONSTANT_{i}\n\n\n"
            f"def compute_{i}(items):\n    total = 0\n    for item in items:\n"
            f"        total += helper_{i}(item)\n    return sibling.helper_{k}(total)\n\n\n"
            f"class Model{i}:\n    def run(self, x):\n        return compute_{i}([x])\n")


def js_module(i: int, n: int) -> str:
    j = (i * 31 + 3) % n
    return (f"import {{ helper{j} }} from '../p{j // MODULES_PER_PACKAGE}/m{j}.js';\n\n"
            f"export function helper{i}(value, scale = 1) {{\n"
            f"  return helper{j}(value) * scale + {i};\n}}\n\n"
            f"export class Widget{i} {{\n  render(x) {{ return helper{i}(x); }}\n}}\n")


def core_of(i: int) -> int:
    """A skewed pick among the first CORE_MODULES modules: module 0 is imported by about a
    quarter of the repository, module 299 by a few dozen files (deterministic in i)."""
    r = ((i * 2654435761) % 2**32) / 2**32
    return min(int(CORE_MODULES * r**4), CORE_MODULES - 1)


def ts_module(i: int, n: int) -> str:
    j, c = (i * 31 + 3) % n, core_of(i)
    return (f"import {{ helper_{j} }} from '../p{j // MODULES_PER_PACKAGE}/m{j}';\n"
            f"import {{ helper_{c} as core }} from '../p0/m{c}';\n\n"
            f"export function helper_{i}(value: number, scale = 1): number {{\n"
            f"  return helper_{j}(value) * scale + core({i});\n}}\n\n"
            f"export class Widget{i} {{\n  render(x: number) {{ return helper_{i}(x); }}\n}}\n")


def typed_python_module(i: int, n: int) -> str:
    c = core_of(i)
    return (python_module(i, n).replace('"""\n', f'"""\nfrom pkgs.p0.m{c} import helper_{c}'
                                        f' as core_{c}\n', 1)
            + f"\n\ndef uses_core_{i}(x):\n    return core_{c}(x)\n")


def path_of(i: int, typescript: bool = False) -> str:
    if typescript:
        # The core modules (package 0) stay Python: both languages import them.
        ext = "ts" if i >= MODULES_PER_PACKAGE and i % TS_EVERY == TS_EVERY - 1 else "py"
    else:
        ext = "js" if i % JS_EVERY == JS_EVERY - 1 else "py"
    return f"pkgs/p{i // MODULES_PER_PACKAGE}/m{i}.{ext}"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={**os.environ, **GIT_ENV})


def ensure_repo(files: int, fresh: bool, typescript: bool = False,
                keep_index: bool = False) -> Path:
    """The generated repository at its first commit, with nothing staged and no index
    (`keep_index`: the index of an earlier run left in place)."""
    repo = CACHE / (f"repo-{files}" + ("-ts" if typescript else ""))
    if fresh and repo.exists():
        shutil.rmtree(repo)
    if not (repo / ".git").exists():
        repo.mkdir(parents=True, exist_ok=True)
        git(repo, "init", "-q", "-b", "main")
        for i in range(files):
            path = repo / path_of(i, typescript)
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix == ".py":
                source = typed_python_module if typescript else python_module
            else:
                source = ts_module if path.suffix == ".ts" else js_module
            path.write_text(source(i, files))
        for p in range(-(-files // MODULES_PER_PACKAGE)):
            (repo / f"pkgs/p{p}/__init__.py").write_text("")
        (repo / "pkgs/__init__.py").write_text("")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "generated")
    git(repo, "reset", "-q", "--hard")  # drop the change a previous run staged
    if not keep_index:
        shutil.rmtree(repo / ".git" / "maguyva-guard", ignore_errors=True)
    return repo


def stage_change(repo: Path, files: int, changed: int, typescript: bool = False) -> int:
    """Change a signature in `changed` Python files spread over the repository; returns
    how many files the staged diff touches."""
    step = max(files // changed, 1)
    touched = []
    # --typescript: off the core modules (module 0 has a quarter of the repository as
    # importers): the diff of an ordinary commit.
    for i in range(step // 2 if typescript else 0, files, step):
        if len(touched) == changed:
            break
        if path_of(i, typescript).endswith(".py"):
            path = repo / path_of(i, typescript)
            path.write_text(path.read_text().replace(
                f"def helper_{i}(value, scale=1):", f"def helper_{i}(value, scale=1, offset=0):"))
            touched.append(path_of(i, typescript))
    git(repo, "add", *touched)
    return len(touched)


# --- Measuring -----------------------------------------------------------------------------


def _tree_rss(root: int) -> int:
    """Bytes of RSS of `root` and every descendant (from /proc; 0 once it is gone)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry), int(fields[1])
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(fields[21]) * page
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total


def measure(label: str, argv: list[str], cwd: Path) -> Measured:
    """Run argv in a fresh intermediate process that reports its descendants' peak RSS."""
    probe = ("import json, resource, subprocess, sys, time\n"
             "t = time.perf_counter()\n"
             "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "print(json.dumps({'seconds': time.perf_counter() - t, 'rc': p.returncode,"
             " 'maxrss_kib': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,"
             " 'cpu': resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime"
             " + resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime,"
             " 'stderr': p.stderr[-600:]}))\n")
    proc = subprocess.Popen([sys.executable, "-c", probe, *argv], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, env={**os.environ, **GIT_ENV})
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss(proc.pid))
        time.sleep(SAMPLE_SECONDS)
    out = json.loads(proc.communicate()[0])
    return Measured(label, round(out["seconds"], 2), round(out["maxrss_kib"] / 1024, 1),
                    round(peak / 1024**2, 1), out["rc"], out["stderr"].strip()[-300:],
                    round(out["cpu"], 2))


def progress_on_a_tty(argv: list[str], cwd: Path) -> str:
    """What stderr shows when it is a terminal (the progress bar is drawn only there)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=slave,
                            env={**os.environ, **GIT_ENV})
    os.close(slave)
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the terminal closed with its last writer
                    return
                if not data:
                    return
                chunks.append(data)
            elif proc.poll() is not None:
                return

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    proc.wait()
    reader.join(timeout=5)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


def guard(*args: str) -> list[str]:
    return [sys.executable, "-m", "maguyva_guard", *args]


# --- The report ----------------------------------------------------------------------------


def write_results(files: int, touched: int, runs: list[Measured], progress: str,
                  command: str = "", out: str = "") -> str:
    command = command or f"python bench/load.py --files {files} --changed {touched}"
    lines = [f"# Load: {files:,} files, a staged diff touching {touched} files",
             "", f"Command: `{command}`, "
             f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, load average "
             f"{os.getloadavg()[0]:.1f} at the end (wall times at a high load mostly measure "
             "the other jobs; CPU time is the comparable figure).", "",
             "| run | wall time | CPU (user + system) | peak RSS, largest process "
             "| peak RSS, process tree | exit |",
             "|---|---:|---:|---:|---:|---:|"]
    for m in runs:
        lines.append(f"| {m.label} | {m.seconds:.1f} s | {m.cpu_seconds:.1f} s | "
                     f"{m.max_process_rss_mib:,.0f} MiB | "
                     f"{m.peak_tree_rss_mib:,.0f} MiB | {m.returncode} |")
    worst = max(m.peak_tree_rss_mib for m in runs)
    verdict = "within" if worst * 1024**2 <= LIMIT_BYTES else "OVER"
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", progress)  # cursor hiding and the like
    shown = [line for line in plain.replace("\r", "\n").splitlines() if "%" in line]
    lines += ["", f"Peak memory {worst:,.0f} MiB: {verdict} the 2 GB budget.", "",
              f"Progress on a terminal: {len(shown)} progress-bar updates drawn on stderr; "
              f"the last: `{shown[-1].strip() if shown else 'none'}`.", ""]
    text = "\n".join(lines)
    RESULTS.mkdir(exist_ok=True)
    stem = out or ("load" if files == 20_000 else f"load-{files}")
    (RESULTS / f"{stem}.md").write_text(text)
    (RESULTS / f"{stem}.json").write_text(json.dumps(
        {"files": files, "touched": touched, "runs": [asdict(m) for m in runs],
         "progress_updates": len(shown)}, indent=2) + "\n")
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--changed", type=int, default=200)
    parser.add_argument("--fresh", action="store_true", help="regenerate the repository")
    parser.add_argument("--typescript", action="store_true",
                        help="TypeScript beside Python, skewed imports of core modules")
    parser.add_argument("--warm-only", action="store_true",
                        help="cold index and warm check only (no fresh-clone check)")
    parser.add_argument("--check-only", action="store_true",
                        help="the warm check alone, on the index an earlier run left")
    parser.add_argument("--out", default="",
                        help="results file stem under bench/results/ (default load or"
                             " load-FILES): keeps earlier results")
    args = parser.parse_args()
    started = time.perf_counter()
    repo = ensure_repo(args.files, args.fresh, args.typescript, keep_index=args.check_only)
    print(f"repository ready in {time.perf_counter() - started:.1f} s: {repo}", file=sys.stderr)
    if args.check_only and not (repo / ".git" / "maguyva-guard").exists():
        print("--check-only: no index yet; run without it first", file=sys.stderr)
        return 2
    runs = [] if args.check_only else [
        measure("index, cold", guard("index", "--repo", str(repo)), repo)]
    touched = stage_change(repo, args.files, args.changed, args.typescript)
    check = guard("check", "--repo", str(repo), "--format", "json")
    runs.append(measure(f"check, {touched} files changed, warm index", check, repo))
    progress = ""
    if not (args.warm_only or args.check_only):
        shutil.rmtree(repo / ".git" / "maguyva-guard")
        runs.append(measure(f"check, {touched} files changed, no index yet", check, repo))
        shutil.rmtree(repo / ".git" / "maguyva-guard")
        progress = progress_on_a_tty(guard("check", "--repo", str(repo)), repo)
    command = " ".join(["python bench/load.py", *sys.argv[1:]])
    print(write_results(args.files, touched, runs, progress, command, args.out))
    return 0 if all(m.returncode in (0, 1) for m in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
