"""Accuracy and speed of impact analysis on real projects (issue 8).

    python bench/compare.py [--projects requests click ...] [--scenarios 30] [--seed 1]
                            [--tools grep jedi-default crg crg-impact maguyva-guard]

For each pinned project: a seeded sample of definitions used elsewhere (bench/sampling.py),
one staged change each in a scratch clone, every tool run on it, its callers scored against
jedi with lifted file limits. Writes bench/results/compare.md (also printed),
compare.json and disagreements-<project>.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import baselines, report, sampling, scenarios  # noqa: E402
from bench.baselines import Answer, Context  # noqa: E402
from bench.corpus import ensure_repo  # noqa: E402
from bench.oracle import Mapper  # noqa: E402
from bench.scoring import Outcome  # noqa: E402

PROJECTS = {"requests": "2.32.3", "click": "8.1.7", "flask": "3.0.3", "attrs": "24.2.0",
            "django": "5.2.8"}
TOOLS = ("grep", "jedi-default", "crg", "crg-impact", "maguyva-guard")
DEFAULT_SCENARIOS = 30
DEFAULT_SEED = 1


def prepare_tools(ctx: Context, tools: list[str]) -> tuple[dict, dict[str, str]]:
    """The runnable tools for this project (setup done, one-time costs in ctx.notes)."""
    runners: dict = {}
    unavailable: dict[str, str] = {}
    if "grep" in tools:
        runners["grep"] = baselines.grep
    if "jedi-default" in tools:
        runners["jedi-default"] = baselines.jedi_default
    if {"crg", "crg-impact"} & set(tools):
        why = baselines.ensure_crg()
        build = None if why else baselines.crg_build(ctx.clone)
        if build is not None and build.returncode != 0:
            why = f"`code-review-graph build` failed: {build.stderr.strip()[-300:]}"
        if why:
            unavailable.update({t: why for t in ("crg", "crg-impact") if t in tools})
        else:
            ctx.notes["crg build"] = f"{build.seconds:.1f} s, {build.max_rss_mb:.0f} MB"
            if "crg" in tools:
                runners["crg"] = baselines.crg_callers
            if "crg-impact" in tools:
                runners["crg-impact"] = baselines.crg_impact
    if "maguyva-guard" in tools:
        why = baselines.mg_available(ctx.clone)
        if why:
            unavailable["maguyva-guard"] = why
        for preset in [] if why else baselines.MG_PRESETS:
            clone = scenarios.scratch_clone(ctx.corpus, ctx.clone.with_name(
                f"{ctx.clone.name}-{preset}"))
            index = baselines.mg_index(clone)
            if index.returncode != 0:
                unavailable["maguyva-guard"] = (
                    f"`maguyva-guard index` failed: {index.stderr.strip()[-300:]}")
                break
            ctx.clones.append(clone)
            ctx.notes[f"maguyva-guard index ({preset} clone)"] = (
                f"{index.seconds:.1f} s, {index.max_rss_mb:.0f} MB")
            runners[f"maguyva-guard:{preset}"] = (
                lambda c, s, p=preset, k=clone: baselines.maguyva(c, s, p, k))
    return runners, unavailable


def run_scenarios(ctx: Context, items: list[sampling.Sampled],
                  runners: dict) -> list[dict[str, Answer]]:
    answers = []
    for number, item in enumerate(items, 1):
        scenario = item.scenario
        for clone in ctx.clones:
            scenarios.apply(clone, scenario)
        try:
            answers.append({tool: fn(ctx, scenario) for tool, fn in runners.items()})
        finally:
            for clone in ctx.clones:
                scenarios.revert(clone, scenario)
        print(f"  [{ctx.project} {number}/{len(items)}] {scenario.key} ({scenario.kind}): "
              + ", ".join(f"{t}={len(a.callers)}" for t, a in answers[-1].items()),
              file=sys.stderr, flush=True)
    return answers


def run_project(name: str, version: str, want: int, seed: int, tools: list[str],
                workdir: Path) -> report.ProjectRun:
    corpus = ensure_repo(name, version)
    texts = scenarios.read_tracked(corpus)
    smp = sampling.sample(name, corpus, texts, want, seed)
    clone = scenarios.scratch_clone(corpus, workdir / name)
    ctx = Context(name, corpus, clone, Mapper(texts), clones=[clone])
    runners, unavailable = prepare_tools(ctx, tools)
    answers = run_scenarios(ctx, smp.items, runners)
    outcomes: dict[str, list[Outcome]] = {tool: [] for tool in runners}
    for item, per_tool in zip(smp.items, answers, strict=True):
        for tool, answer in per_tool.items():
            outcomes[tool].append(Outcome(frozenset(item.callers), answer.callers, answer.ok,
                                          answer.seconds, answer.max_rss_mb))
    return report.ProjectRun(name, version, smp, answers, outcomes, unavailable,
                             dict(ctx.notes), texts)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", nargs="+", default=list(PROJECTS),
                        help="names from: " + ", ".join(f"{k} {v}" for k, v in PROJECTS.items()))
    parser.add_argument("--scenarios", type=int, default=DEFAULT_SCENARIOS)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=TOOLS)
    parser.add_argument("--out", type=Path, default=report.RESULTS,
                        help="folder for compare.md, compare.json, disagreements-*.md")
    args = parser.parse_args(argv)
    unknown = [p for p in args.projects if p not in PROJECTS]
    if unknown:
        parser.error(f"unknown project(s): {', '.join(unknown)}")
    return args


def main(argv: list[str] | None = None) -> int:
    import tempfile

    args = parse_args(sys.argv[1:] if argv is None else argv)
    runs = []
    with tempfile.TemporaryDirectory(prefix="mg-compare-") as tmp:
        for name in args.projects:
            print(f"{name} {PROJECTS[name]}: sampling and running", file=sys.stderr, flush=True)
            runs.append(run_project(name, PROJECTS[name], args.scenarios, args.seed,
                                    args.tools, Path(tmp)))
    command = "python bench/compare.py " + " ".join(sys.argv[1:] if argv is None else argv)
    markdown = report.write(runs, command.strip(), args, args.out)
    print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
