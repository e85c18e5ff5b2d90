"""The tools under comparison, each run on one staged scenario, each answer mapped to callers.

A tool answer is a ranked list of distinct callers, (path, enclosing symbol) as the oracle
names them, plus its wall time and peak memory. Every tool gets the same post-filter: the
changed definition itself is no caller of itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from bench import measure
from bench.oracle import Caller, Mapper, Reference
from bench.pysource import MODULE
from bench.scenarios import Scenario

BENCH = Path(__file__).resolve().parent
CRG_VENV = BENCH / ".cache" / "venvs" / "crg"
CRG_HOME = BENCH / ".cache" / "crg-home"  # crg keeps a registry in $HOME: keep it here
CRG_SPEC = "code-review-graph>=2,<3"
TOOL_TIMEOUT = 600.0
# MG_BENCH_PRESETS="default" runs one preset only (they answer alike; a third of the time)
MG_PRESETS = tuple(os.environ.get("MG_BENCH_PRESETS", "quick default thorough").split())


@dataclass(frozen=True)
class Answer:
    tool: str
    callers: tuple[Caller, ...]
    seconds: float
    max_rss_mb: float
    ok: bool
    error: str = ""
    lines: dict[Caller, int] = field(default_factory=dict)  # a reference line per caller
    inner_seconds: float | None = None  # time the tool reports for its own work
    # maguyva-guard: its depth-1 possible (name-only) callers, listed apart from `callers`,
    # and whether it called its answer complete (False: a lower bound, never "no impact")
    possible: tuple[Caller, ...] = ()
    complete: bool | None = None


@dataclass
class Context:
    """One project's state while its scenarios run: the scratch clone is ours to change;
    `corpus` is the cached repository at HEAD (the old side), never changed."""

    project: str
    corpus: Path
    clone: Path
    mapper: Mapper
    python: str = sys.executable
    notes: dict[str, str] = field(default_factory=dict)
    # Every scratch clone a scenario is staged in: maguyva-guard gets one per preset, so
    # that each preset pays the incremental index update of the changed file itself.
    clones: list[Path] = field(default_factory=list)


def _ranked(tool: str, scenario: Scenario, hits: list[tuple[Caller, int]], run: measure.Run,
            ok: bool = True, error: str = "", inner: float | None = None) -> Answer:
    target = Caller(scenario.path, scenario.qualname)
    lines: dict[Caller, int] = {}
    for caller, line in hits:
        # Like the oracle: callers live in .py files (a .pyi stub only declares).
        if caller != target and caller.path.endswith(".py"):
            lines.setdefault(caller, line)
    return Answer(tool, tuple(lines), run.seconds, run.max_rss_mb, ok, error, lines, inner)


def _failed(tool: str, run: measure.Run, why: str = "") -> Answer:
    error = why or ("timed out" if run.timed_out else
                    f"exit {run.returncode}: {run.stderr.strip()[-300:]}")
    return Answer(tool, (), run.seconds, run.max_rss_mb, False, error)


def grep(ctx: Context, scenario: Scenario) -> Answer:
    """The naive baseline: every whole-word line in a tracked Python file."""
    run = measure.run(["git", "grep", "-n", "-w", "-I", "--no-color", "-e", scenario.name,
                       "--", "*.py"], ctx.clone)
    if run.returncode not in (0, 1):
        return _failed("grep", run)
    hits = []
    for row in run.stdout.splitlines():
        path, line, _ = row.split(":", 2)
        hits.append((ctx.mapper.caller(path, int(line)), int(line)))
    return _ranked("grep", scenario, hits, run)


def jedi_default(ctx: Context, scenario: Scenario) -> Answer:
    """jedi with its default limits, in a fresh process, on the old side (the corpus)."""
    oracle_py = str(BENCH / "oracle.py")
    target = f"{scenario.path}:{scenario.line}:{scenario.col}"
    run = measure.run([ctx.python, oracle_py, str(ctx.corpus), target, "--default-limits"],
                      ctx.corpus, TOOL_TIMEOUT)
    if run.returncode != 0:
        return _failed("jedi-default", run)
    data = json.loads(run.stdout)
    refs = [Reference(*r) for r in data["refs"]]
    hits = [(ctx.mapper.caller(r.path, r.line), r.line) for r in refs]
    return _ranked("jedi-default", scenario, hits, run, inner=data["seconds"])


# --- code-review-graph -------------------------------------------------------------------

def crg_bin() -> Path:
    return CRG_VENV / "bin" / "code-review-graph"


def ensure_crg() -> str | None:
    """Install code-review-graph into its own venv (never ours); None when ready, else why."""
    if crg_bin().exists():
        return None
    try:
        subprocess.run([sys.executable, "-m", "venv", str(CRG_VENV)], check=True)
        subprocess.run([str(CRG_VENV / "bin" / "python"), "-m", "pip", "install", "-q",
                        CRG_SPEC], check=True)
    except subprocess.CalledProcessError as exc:
        return f"cannot install {CRG_SPEC}: {exc}"
    return None if crg_bin().exists() else "installed, but no code-review-graph script"


def crg_env() -> dict[str, str]:
    CRG_HOME.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "HOME": str(CRG_HOME)}


def crg_build(clone: Path) -> measure.Run:
    return measure.run([str(crg_bin()), "build", "--repo", str(clone), "-q"], clone,
                       TOOL_TIMEOUT, crg_env())


def _crg_caller(ctx: Context, node: dict) -> tuple[Caller, int] | None:
    file_path = node.get("file_path") or ""
    try:
        rel = Path(file_path).resolve().relative_to(ctx.clone.resolve()).as_posix()
    except ValueError:
        return None
    line = (node.get("call_site") or {}).get("line") or node.get("line_start") or 1
    if node.get("kind") == "File":
        return Caller(rel, MODULE), line
    enc = ctx.mapper.enclosing(rel)
    symbol = enc.resolve(node.get("qualified_name", ""), line) if enc else MODULE
    return Caller(rel, symbol), line


def _innermost(nodes: list[dict]) -> list[dict]:
    """crg lists every node whose span overlaps the diff (a method and its class): ask
    about the innermost ones only, as a careful user would."""
    def inside(a: dict, b: dict) -> bool:
        return (a is not b and a.get("file_path") == b.get("file_path")
                and b["line_start"] <= a["line_start"] and a["line_end"] <= b["line_end"])
    nodes = [n for n in nodes if n.get("kind") != "File" and n.get("line_start")]
    return [b for b in nodes if not any(inside(a, b) for a in nodes)]


def crg_callers(ctx: Context, scenario: Scenario) -> Answer:
    """`detect-changes --base HEAD` (read-only against the graph built at HEAD, so a rename
    is still looked up on the old side), then `query callers_of` for each changed node."""
    base = [str(crg_bin())]
    detect = measure.run(base + ["detect-changes", "--base", "HEAD", "--repo", str(ctx.clone)],
                         ctx.clone, TOOL_TIMEOUT, crg_env())
    if detect.returncode != 0:
        return _failed("crg", detect)
    seconds, rss, hits = detect.seconds, detect.max_rss_mb, []
    try:
        changed = _innermost(json.loads(detect.stdout).get("changed_functions", []))
    except json.JSONDecodeError:
        return _failed("crg", detect, "detect-changes printed no JSON")
    for node in changed:
        query = measure.run(base + ["query", "callers_of", node["qualified_name"],
                                    "--repo", str(ctx.clone)], ctx.clone, TOOL_TIMEOUT,
                            crg_env())
        seconds, rss = seconds + query.seconds, max(rss, query.max_rss_mb)
        if query.returncode != 0:
            return _failed("crg", query)
        for result in json.loads(query.stdout).get("results", []):
            hit = _crg_caller(ctx, result)
            if hit:
                hits.append(hit)
    total = measure.Run(0, "", "", seconds, rss)
    return _ranked("crg", scenario, hits, total)


def crg_impact(ctx: Context, scenario: Scenario) -> Answer:
    """`impact --base HEAD --depth 1`: crg's own blast radius (it seeds every node of the
    changed files); the nodes that carry a call site are its direct callers."""
    run = measure.run([str(crg_bin()), "impact", "--base", "HEAD", "--depth", "1",
                       "--max-results", "500", "--repo", str(ctx.clone)], ctx.clone,
                      TOOL_TIMEOUT, crg_env())
    if run.returncode != 0:
        return _failed("crg-impact", run)
    nodes = json.loads(run.stdout).get("impacted_nodes", [])
    hits = [h for n in nodes if n.get("call_site") and (h := _crg_caller(ctx, n))]
    return _ranked("crg-impact", scenario, hits, run)


# --- maguyva-guard -----------------------------------------------------------------------

def mg_bin() -> str:
    return str(Path(sys.executable).with_name("maguyva-guard"))


def mg_available(cwd: Path) -> str | None:
    """None when `maguyva-guard check` exists, else why not."""
    run = measure.run([mg_bin(), "check", "--help"], cwd, 60.0)
    return None if run.returncode == 0 else "not available: `maguyva-guard check` " + (
        run.stderr.strip().splitlines() or ["failed"])[-1]


def mg_index(clone: Path) -> measure.Run:
    return measure.run([mg_bin(), "index", "--repo", str(clone)], clone, TOOL_TIMEOUT)


def affected_callers(ctx: Context, payload: dict) -> list[tuple[Caller, int]]:
    """CONTRACT.md's `affected[]`: only depth-1 entries are direct callers."""
    hits = []
    for entry in payload.get("affected", []):
        if entry.get("depth", 1) != 1:
            continue
        path, line = entry["path"], entry.get("line")
        enc = ctx.mapper.enclosing(path)
        symbol = enc.resolve(entry.get("symbol", MODULE), line) if enc else MODULE
        hits.append((Caller(path, symbol), line or 0))
    return hits


def maguyva(ctx: Context, scenario: Scenario, preset: str, clone: Path | None = None) -> Answer:
    tool = f"maguyva-guard:{preset}"
    clone = clone or ctx.clone
    run = measure.run([mg_bin(), "check", "--repo", str(clone), "--staged",
                       "--format", "json", "--preset", preset], clone, TOOL_TIMEOUT)
    if run.returncode not in (0, 1):
        return _failed(tool, run)
    try:
        payload = json.loads(run.stdout)
    except json.JSONDecodeError:
        return _failed(tool, run, "stdout is not JSON")
    inner = payload.get("stats", {}).get("query_seconds")
    answer = _ranked(tool, scenario, affected_callers(ctx, payload), run, inner=inner)
    possible = affected_callers(ctx, {"affected": payload.get("possible", [])})
    return replace(answer, possible=tuple(dict.fromkeys(c for c, _ in possible)),
                   complete=payload.get("complete"))
