"""compare.py's outputs: Markdown (stdout and compare.md), raw JSON, disagreement lists."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import random
from dataclasses import dataclass
from pathlib import Path

from bench import sampling, tables, verify
from bench.baselines import Answer
from bench.sampling import Sample
from bench.scoring import Outcome, score

RESULTS = Path(__file__).resolve().parent / "results"
DISAGREEMENT_SAMPLE = 30  # per tool and project: enough to judge the oracle by hand
JUDGED = ("maguyva-guard", "crg")  # tools whose extra callers are listed for hand checks


@dataclass
class ProjectRun:
    name: str
    version: str
    sample: Sample
    answers: list[dict[str, Answer]]
    outcomes: dict[str, list[Outcome]]
    unavailable: dict[str, str]
    notes: dict[str, str]
    texts: dict[str, str]


def machine() -> str:
    return (f"{os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{platform.system()} {platform.machine()}")


def _scenario_json(run: ProjectRun) -> list[dict]:
    out = []
    for item, per_tool in zip(run.sample.items, run.answers, strict=True):
        s = item.scenario
        out.append({
            "key": s.key, "kind": s.kind, "symbol_kind": s.symbol_kind, "patch": s.patch,
            "oracle": {"seconds": item.oracle_seconds, "references": len(item.refs),
                       "callers": [[c.path, c.symbol] for c in item.callers]},
            "tools": {tool: {"ok": a.ok, "error": a.error, "seconds": round(a.seconds, 4),
                             "inner_seconds": a.inner_seconds, "max_rss_mb": round(a.max_rss_mb),
                             "callers": [[c.path, c.symbol, a.lines.get(c)] for c in a.callers],
                             "possible": [[c.path, c.symbol] for c in a.possible],
                             "complete": a.complete}
                      for tool, a in per_tool.items()},
        })
    return out


def _disagreement_rows(run: ProjectRun) -> list[tuple]:
    rows = []
    for tool in sorted({t for per in run.answers for t in per}):
        if not tool.startswith(JUDGED):
            continue
        found = []
        for item, per_tool in zip(run.sample.items, run.answers, strict=True):
            answer = per_tool[tool]
            for caller in answer.callers:
                if caller not in item.callers:
                    line = answer.lines.get(caller) or 0
                    text = run.texts.get(caller.path, "").splitlines()
                    code = text[line - 1] if 0 < line <= len(text) else ""
                    found.append((tool, item.scenario.key, item.scenario.kind,
                                  f"{caller.path}::{caller.symbol}", line, code))
        if len(found) > DISAGREEMENT_SAMPLE:
            found = random.Random(0).sample(found, DISAGREEMENT_SAMPLE)
            found.sort(key=lambda r: (r[1], r[3]))
        rows += found
    return rows


def _project_md(run: ProjectRun) -> str:
    smp = run.sample
    scores = {tool: score(o) for tool, o in run.outcomes.items()}
    callers = [len(i.callers) for i in smp.items]
    kinds = {k: sum(i.scenario.kind == k for i in smp.items) for k in ("signature", "default",
                                                                         "rename")}
    lines = [f"## {run.name} {run.version}", "",
             f"{len(smp.items)} scenarios ({', '.join(f'{v} {k}' for k, v in kinds.items())}); "
             f"{sum(callers)} oracle callers in all, median "
             f"{sorted(callers)[len(callers) // 2] if callers else 0} a scenario. "
             f"Oracle asked {smp.asked} of {smp.candidates} candidates ({smp.unused} unused "
             f"elsewhere, {smp.failed} jedi errors); {smp.skipped_common} skipped, name in "
             f"more than {sampling.MAX_NAME_FILES} files.", ""]
    if run.notes:
        lines += ["One-time setup: " + "; ".join(f"{k} {v}" for k, v in run.notes.items()), ""]
    lines += [tables.table(scores, run.unavailable), ""]
    lines += _empty_answers(run)
    return "\n".join(lines)


def _empty_answers(run: ProjectRun) -> list[str]:
    """maguyva-guard's answers with no affected caller where the oracle has some: a false
    "no impact" is one that called itself complete; a lower bound that lists possible
    (name-only) callers is not one (false-safe above counts both)."""
    out = []
    for tool in sorted({t for per in run.answers for t in per if t.startswith("maguyva-guard")}):
        empty = [(i, per[tool]) for i, per in zip(run.sample.items, run.answers, strict=True)
                 if i.callers and per[tool].ok and not per[tool].callers]
        if not empty:
            continue
        claimed = sum(1 for _, a in empty if a.complete)
        listed = sum(len(set(a.possible) & set(i.callers)) for i, a in empty)
        out += [f"{tool}: {len(empty)} scenarios with callers and no affected caller; "
                f"{claimed} of them said complete (a false \"no impact\"), "
                f"{len(empty) - claimed} said lower bound, their possible callers holding "
                f"{listed} of the oracle's {sum(len(i.callers) for i, _ in empty)}.", ""]
    return out


def _overall_md(runs: list[ProjectRun]) -> str:
    pooled: dict[str, list[Outcome]] = {}
    for run in runs:
        for tool, outcomes in run.outcomes.items():
            pooled.setdefault(tool, []).extend(outcomes)
    unavailable = {t: w for run in runs for t, w in run.unavailable.items() if t not in pooled}
    return "## Overall (all scenarios pooled)\n\n" + tables.table(
        {t: score(o) for t, o in pooled.items()}, unavailable) + "\n"


HOW = """How to read: callers are (file, enclosing function/method/class or `<module>`), the
oracle is jedi `get_references` with its file limits lifted, plus jedi's `goto` at every
other whole-word occurrence of the name where it lands on the definition (pytest on its
path, so fixture parameters are typed), mapped to enclosing symbols with `ast`. P/R are
pooled over all callers; R@10 is per scenario over min(10, callers);
false-safe = scenarios with callers where the tool (without crashing) reported none; a
crash counts as an empty answer. Times are wall time of one fresh process per scenario
(crg: detect-changes plus one `query callers_of` per changed node); peak MB is the largest
max RSS of one run. grep = `git grep -n -w NAME -- '*.py'`; only depth-1 entries of
maguyva-guard's `affected[]` count."""


def write(runs: list[ProjectRun], command: str, args: argparse.Namespace,
          out: Path = RESULTS) -> str:
    out.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    head = [f"# Impact analysis compared: {now}", "", f"Machine: {machine()}.", "",
            f"Command: `{command}`", "", HOW, ""]
    raw = {"date": now, "machine": machine(), "command": command, "seed": args.seed,
           "projects": {r.name: {"version": r.version, "notes": r.notes,
                                 "unavailable": r.unavailable,
                                 "sample": {k: v for k, v in vars(r.sample).items()
                                            if k != "items"},
                                 "scores": {t: dataclasses.asdict(score(o))
                                            for t, o in r.outcomes.items()},
                                 "scenarios": _scenario_json(r)} for r in runs}}
    # Beside the raw scores: the same with the hand-verified oracle misses (bench/verify.py).
    markdown = "\n".join(head + [_project_md(r) for r in runs] + [_overall_md(runs)]
                         + [verify.section(raw)])
    (out / "compare.md").write_text(markdown)
    (out / "compare.json").write_text(json.dumps(raw, separators=(",", ":")))  # ~1 MB
    for run in runs:
        (out / f"disagreements-{run.name}.md").write_text(
            tables.disagreements(run.name, _disagreement_rows(run)))
    return markdown
