"""What every compiler-oracle leg shares (bench/tsleg.py, bench/compilerleg.py).

A leg seeds signature changes (a required parameter appended to one definition), asks a
compiler which lines break, and scores maguyva-guard and `git grep -w` against it. The
language-specific parts come in as a `Leg`: how to list the files, map a line to its
enclosing symbol (`Scopes`), apply a change and run the compiler. This module owns the rest:
the scenario loop, the mapping of every tool's answer to callers, the tables.

Errors and reported lines map to callers the same way for every tool: (file, innermost
enclosing function, method or type, dotted, or `<module>`). A signature change breaks no
import, and no compiler flags one, so import lines are dropped from every tool's answer.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench import measure
from bench.baselines import mg_bin
from bench.oracle import Caller
from bench.scenarios import revert, scratch_clone
from bench.scoring import Outcome, Score, score
from bench.tables import table

MODULE = "<module>"
MG = "maguyva-guard:default"
Error = tuple[str, int, str]  # path, line, code


@dataclass(frozen=True)
class Scenario:
    path: str
    qualname: str
    name: str
    kind: str  # function | method
    start: int  # the definition's lines, 1-based
    end: int
    insert_at: int  # byte offset of the closing ")" of its parameters
    empty: bool  # no parameters yet

    @property
    def key(self) -> str:
        return f"{self.path}::{self.qualname}"


def node_name(node) -> str | None:
    name = node.child_by_field_name("name")
    return name.text.decode() if name is not None else None


class Scopes:
    """Line -> innermost enclosing named scope of one file, and its import lines.

    `scope_name(node)` gives the segment a node adds to the dotted name (None: not a
    scope); `is_import(node)` says whether a node is an import statement."""

    def __init__(self, text: str, parser, scope_name: Callable[[object], str | None],
                 is_import: Callable[[object], bool]) -> None:
        self.spans: list[tuple[int, int, str]] = []  # 1-based start, end, dotted name
        self.imports: set[int] = set()
        self._scope_name, self._is_import = scope_name, is_import
        self.root = parser.parse(text.encode()).root_node
        self._walk(self.root, ())

    def _walk(self, node, outer: tuple[str, ...]) -> None:
        for child in node.children:
            if self._is_import(child):
                self.imports.update(range(child.start_point[0] + 1, child.end_point[0] + 2))
            inner = outer
            segment = self._scope_name(child)
            if segment:
                inner = (*outer, segment)
                self.spans.append((child.start_point[0] + 1, child.end_point[0] + 1,
                                   ".".join(inner)))
            self._walk(child, inner)

    def at(self, line: int) -> str:
        best = None
        for start, end, name in self.spans:
            if start <= line <= end and (best is None or start >= best[0]):
                best = (start, name)
        return best[1] if best else MODULE


def append_parameter(text: str, s: Scenario, extra: str) -> str:
    """The definition with `extra` appended to its parameters (after a trailing comma or an
    empty list without one more comma)."""
    data = text.encode()
    before = data[: s.insert_at].rstrip()
    sep = b"" if s.empty or before.endswith((b",", b"(")) else b", "
    return (data[: s.insert_at] + sep + extra.encode() + data[s.insert_at:]).decode()


@dataclass
class Leg:
    """One language's leg: `compile(clone)` returns the compiler's errors and seconds."""

    name: str  # results file stem
    glob: str  # git pathspec of the language's files
    scopes: Callable[[str], Scopes]  # path -> Scopes of the corpus text
    change: Callable[[str, Scenario], str]
    compile: Callable[[Path], tuple[set[Error], float]]
    prepare: Callable[[Path], None] = lambda clone: None  # e.g. link a toolchain's folder


@dataclass
class Result:
    rows: list[dict] = field(default_factory=list)
    outcomes: dict[str, list[Outcome]] = field(
        default_factory=lambda: {"grep": [], MG: []})
    baseline: int = 0
    skipped: int = 0
    no_callers: int = 0
    compile_seconds: list[float] = field(default_factory=list)
    index_seconds: float = 0.0

    def scores(self) -> dict[str, Score]:
        return {t: score(o) for t, o in self.outcomes.items()}


def oracle(new_errors: set[Error], s: Scenario, scopes) -> frozenset[Caller]:
    """The callers the compiler says the change breaks (errors it did not report before)."""
    out = set()
    for path, line, _code in new_errors:
        if path == s.path and s.start <= line <= s.end:
            continue  # inside the changed definition itself
        out.add(Caller(path, scopes(path).at(line)))
    return frozenset(out)


def run_mg(leg: Leg, clone: Path, s: Scenario) -> tuple[tuple[Caller, ...], measure.Run, bool]:
    run = measure.run([mg_bin(), "check", "--repo", str(clone), "--staged", "--format", "json"],
                      clone, 600.0)
    if run.returncode not in (0, 1):
        return (), run, False
    suffix = leg.glob.lstrip("*")
    seen: dict[Caller, None] = {}
    for entry in json.loads(run.stdout).get("affected", []):
        if entry.get("depth", 1) != 1 or not entry["path"].endswith(suffix):
            continue
        line = entry.get("line") or 0
        if line in leg.scopes(entry["path"]).imports:
            continue  # a signature change breaks no import: no compiler flags one
        c = Caller(entry["path"], leg.scopes(entry["path"]).at(line))
        if c != Caller(s.path, s.qualname):
            seen.setdefault(c, None)
    return tuple(seen), run, True


def run_grep(leg: Leg, clone: Path, s: Scenario) -> tuple[tuple[Caller, ...], measure.Run, bool]:
    run = measure.run(["git", "grep", "-n", "-w", s.name, "--", leg.glob], clone, 60.0)
    seen: dict[Caller, None] = {}
    for row in run.stdout.splitlines():
        path, line, _ = row.split(":", 2)
        if (path == s.path and s.start <= int(line) <= s.end) or \
                int(line) in leg.scopes(path).imports:
            continue
        seen.setdefault(Caller(path, leg.scopes(path).at(int(line))), None)
    return tuple(seen), run, run.returncode in (0, 1)


def run_leg(leg: Leg, corpus: Path, texts: dict[str, str], found: list[Scenario],
            wanted: int) -> Result:
    """Apply scenarios in order until `wanted` have callers; score both tools on each."""
    res = Result()
    with tempfile.TemporaryDirectory(prefix=f"mg-{leg.name}-") as tmp:
        clone = scratch_clone(corpus, Path(tmp) / "clone")
        leg.prepare(clone)
        baseline, _ = leg.compile(clone)
        res.baseline = len(baseline)
        res.index_seconds = measure.run([mg_bin(), "index"], clone, 1800.0).seconds
        for s in found:
            if len(res.rows) == wanted:
                break
            (clone / s.path).write_text(leg.change(texts[s.path], s), encoding="utf-8")
            errors, seconds = leg.compile(clone)
            new = errors - baseline
            truth = oracle(new, s, leg.scopes)
            if any(p == s.path and s.start <= line <= s.end for p, line, _ in new):
                res.skipped += 1  # the change broke its own definition: not a clean scenario
            elif not truth:
                res.no_callers += 1
            else:
                subprocess.run(["git", "add", "--", s.path], cwd=clone, check=True)
                res.compile_seconds.append(seconds)
                res.rows.append(_score_one(leg, clone, s, truth, res.outcomes))
                row = res.rows[-1]
                print(f"  [{len(res.rows)}/{wanted}] {s.key}: oracle={len(truth)}, " +
                      ", ".join(f"{t}={len(r['callers'])}" for t, r in row["tools"].items()),
                      file=sys.stderr)
            revert(clone, s)
    return res


def _score_one(leg: Leg, clone: Path, s: Scenario, truth: frozenset[Caller],
               outcomes: dict[str, list[Outcome]]) -> dict:
    row: dict = {"key": s.key, "kind": s.kind,
                 "oracle": sorted([c.path, c.symbol] for c in truth), "tools": {}}
    for tool, fn in (("grep", run_grep), (MG, run_mg)):
        callers, run, ok = fn(leg, clone, s)
        outcomes[tool].append(Outcome(truth, callers, ok, run.seconds, run.max_rss_mb))
        row["tools"][tool] = {"callers": sorted([c.path, c.symbol] for c in callers),
                              "seconds": round(run.seconds, 3), "ok": ok}
    return row


def header(title: str, command: str, toolchain: str) -> list[str]:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return [f"# {title}", "",
            f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} "
            f"cores (load average {load:.1f}), Python {platform.python_version()}, "
            f"{toolchain}. Command: `{command}`.", ""]


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2] if values else 0.0


def write(out: Path, stem: str, md: str, meta: dict, res: Result) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.md").write_text(md)
    (out / f"{stem}.json").write_text(json.dumps({**meta, "scenarios": res.rows}, indent=1)
                                      + "\n")


def score_table(res: Result) -> str:
    return table(res.scores(), {})
