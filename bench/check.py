"""Latency of `maguyva-guard check` on Django with a warm index (issue 6).

    python bench/check.py [--runs 5] [--seed 1] [--preset default]

One-symbol and five-symbol staged changes (the first scenarios of compare.py's seeded
sample) and a 50-symbol release-sized one (the next seeded candidates, one per file, not
asked of the oracle: timed, not scored), each timed N times end to end, the tools
alternated run by run: `maguyva-guard check --format json` twice over,
`:new-blob` (before each run the index is brought up to date on HEAD, untimed, and the
change is staged with a comment line of its own: a blob the index has never seen, what a
pre-commit hook meets) and `:same-blob` (the same staged change again), and
`--format text` on a new blob (`:text:new-blob`: the pre-commit hook's report, which has
no "tests to run" section; timed, not scored), beside
`git grep -n -w` of the changed names and jedi `get_references` with default limits (one
fresh process for all the symbols), each scored against the oracle (jedi, limits lifted).
`--before DIR` adds the previous code (DIR holds its `maguyva_guard` package, e.g.
`git archive <commit> maguyva_guard | tar -x -C DIR`) as `maguyva-guard-before` tools, on a
clone of their own (each version keeps its own index). Medians of wall time and of CPU
time (user + system: on a shared machine the wall clock also counts others' work).
Targets (issue 18): one symbol <= 0.35 s, five <= 1.0 s, 50 <= 2 s.
Writes bench/results/check.md and check.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import baselines, measure, report, sampling, scenarios  # noqa: E402
from bench.baselines import Context  # noqa: E402
from bench.corpus import ensure_repo  # noqa: E402
from bench.oracle import Caller, Mapper  # noqa: E402
from bench.scoring import Outcome, score  # noqa: E402

PROJECT, VERSION = "django", "5.2.8"
TARGET_SECONDS = {1: 0.35, 5: 1.0, 50: 2.0}  # issue 18, end to end, warm index
SIZES = (1, 5, 50)
SCORED = 5  # sizes up to this are drawn from the oracle's sample and scored against it
NEW_BLOB = ":new-blob"  # a tool name suffix: each run meets a blob the index has not seen
BEFORE = "maguyva-guard-before"
TEXT = ":text"  # a tool name part: `--format text`, the pre-commit hook's report (unscored)


def _callers(ctx: Context, hits: list[tuple[str, int]], targets: set[Caller]) -> tuple:
    found: dict[Caller, None] = {}
    for path, line in hits:
        caller = ctx.mapper.caller(path, line)
        if caller not in targets:
            found.setdefault(caller, None)
    return tuple(found)


def _grep(ctx: Context, items: list[sampling.Sampled]) -> tuple[measure.Run, list]:
    names = [arg for i in items for arg in ("-e", i.scenario.name)]
    run = measure.run(["git", "grep", "-n", "-w", "-I", *names, "--", "*.py"], ctx.clone)
    hits = [(p, int(n)) for p, n, _ in (r.split(":", 2) for r in run.stdout.splitlines())]
    return run, hits


def _jedi(ctx: Context, items: list[sampling.Sampled]) -> tuple[measure.Run, list]:
    targets = [f"{i.scenario.path}:{i.scenario.line}:{i.scenario.col}" for i in items]
    run = measure.run([ctx.python, str(baselines.BENCH / "oracle.py"), str(ctx.corpus),
                       *targets, "--default-limits"], ctx.corpus, baselines.TOOL_TIMEOUT)
    refs = json.loads(run.stdout)["refs"] if run.returncode == 0 else []
    return run, [(p, line) for p, line, _ in refs]


def _check(ctx: Context, preset: str, before: Path | None = None, fmt: str = "json"
           ) -> tuple[measure.Run, list]:
    """One check; `fmt` "text" is the pre-commit hook's report (no tests section), timed
    only: its callers are not parsed (the JSON runs score them)."""
    cmd = [baselines.mg_bin(), "check", "--repo", str(_clone(ctx, before)), "--staged",
           "--format", fmt, "--preset", preset]
    env = None
    if before is not None:  # the previous code, on its own clone (its own index)
        cmd[:1] = [sys.executable, "-m", "maguyva_guard"]
        env = {**os.environ, "PYTHONPATH": str(before)}
    run = measure.run(cmd, _clone(ctx, before), baselines.TOOL_TIMEOUT, env)
    if run.returncode not in (0, 1) or fmt != "json":
        return run, []
    payload = json.loads(run.stdout)
    return run, [(c.path, line) for c, line in baselines.affected_callers(ctx, payload)]


def _clone(ctx: Context, before: Path | None) -> Path:
    return ctx.clone if before is None else ctx.clone.with_name(ctx.clone.name + "-before")


def _clones(ctx: Context) -> list[Path]:
    other = _clone(ctx, Path("."))
    return [ctx.clone, *([other] if other.exists() else [])]


def _stage(ctx: Context, items: list[sampling.Sampled], nonce: int | None = None) -> None:
    """Stage the items' changes (in every clone); with `nonce`, each changed file also gets
    a comment line of its own, so its blob is one the index has never seen (a commit's
    usual case)."""
    for clone in _clones(ctx):
        for item in items:
            scenarios.apply(clone, item.scenario)
            if nonce is not None:
                file = clone / item.scenario.path
                file.write_text(file.read_text(encoding="utf-8") + f"# bench run {nonce}\n",
                                encoding="utf-8")
                subprocess.run(["git", "add", "--", item.scenario.path], cwd=clone,
                               check=True)


def _unstage(ctx: Context, items: list[sampling.Sampled]) -> None:
    for clone in _clones(ctx):
        for item in items:
            scenarios.revert(clone, item.scenario)


def _fresh(ctx: Context, items: list[sampling.Sampled], nonce: int, before: Path | None
           ) -> None:
    """The state a pre-commit hook meets: the index warm on HEAD (as the last commit left
    it, untimed), then a change the index has never seen staged."""
    _unstage(ctx, items)
    if before is None:
        baselines.mg_index(ctx.clone)
    else:
        measure.run([sys.executable, "-m", "maguyva_guard", "index", "--repo",
                     str(_clone(ctx, before))], _clone(ctx, before), baselines.TOOL_TIMEOUT,
                    {**os.environ, "PYTHONPATH": str(before)})
    _stage(ctx, items, nonce)


def measure_size(ctx: Context, items: list[sampling.Sampled], runs: int,
                 tools: dict, scored: bool = True) -> dict[str, dict]:
    """Stage all the items' changes together, run every tool `runs` times, alternating the
    tools run by run. A maguyva-guard tool named `...:new-blob` gets a never-seen blob
    before each of its runs (then the plain staged change is restored for the others)."""
    targets = {Caller(i.scenario.path, i.scenario.qualname) for i in items}
    truth = frozenset(c for i in items for c in i.callers if c not in targets)
    _stage(ctx, items)
    timings: dict[str, list[measure.Run]] = {tool: [] for tool in tools}
    hits: dict[str, list] = {}
    try:
        for run in range(runs):
            for tool, (fn, before) in tools.items():
                if tool.endswith(NEW_BLOB):
                    _fresh(ctx, items, run, before)
                last, hits[tool] = fn(ctx, items)
                timings[tool].append(last)
                if tool.endswith(NEW_BLOB):
                    _unstage(ctx, items)
                    _stage(ctx, items)
    finally:
        _unstage(ctx, items)
    out = {}
    for tool, done in timings.items():
        last = done[-1]
        ok = last.returncode in (0, 1)
        s = score([Outcome(truth, _callers(ctx, hits[tool], targets), ok, 0.0, 0.0)])
        graded = scored and TEXT not in tool
        walls, cpus = [r.seconds for r in done], [r.cpu_seconds for r in done]
        out[tool] = {"seconds": walls, "median": statistics.median(walls),
                     "cpu_seconds": cpus, "cpu_median": statistics.median(cpus),
                     "max_rss_mb": round(max(r.max_rss_mb for r in done)), "ok": ok,
                     "error": "" if ok else last.stderr.strip()[-300:],
                     "precision": s.caller_precision if graded else None,
                     "recall": s.caller_recall if graded else None}
    return out


def render(results: dict, meta: dict) -> str:
    lines = [f"# `maguyva-guard check` latency on {PROJECT} {VERSION}", "",
             f"Machine: {meta['machine']}. Command: `{meta['command']}`. "
             f"{meta['runs']} runs each, tools alternated; warm index ({meta['index']}). "
             "CPU: user + system seconds of the tool and its children.", ""]
    for size, block in results.items():
        base = block["tools"].get("grep", {}).get("median")
        keys = block["keys"] if len(block["keys"]) <= SCORED else \
            [*block["keys"][:3], f"... {len(block['keys']) - 3} more (one per file, unscored)"]
        lines += [f"## {size} changed symbol(s): " + ", ".join(f"`{k}`" for k in keys), "",
                  "| tool | median s | CPU median s | runs (s) | x grep | precision | recall "
                  "| peak MB |", "|---|---|---|---|---|---|---|---|"]
        for tool, r in block["tools"].items():
            ratio = f"{r['median'] / base:.1f}" if base else "-"
            pct = [("-" if v is None else f"{100 * v:.0f}%") for v in (r["precision"],
                                                                       r["recall"])]
            runs = " ".join(f"{t:.2f}" for t in r["seconds"])
            lines.append(f"| {tool} | {r['median']:.3f} | {r['cpu_median']:.2f} | {runs} | "
                         f"{ratio} | {pct[0]} | {pct[1]} | {r['max_rss_mb']} |")
        lines.append("")
    targets = ", ".join(f"{n} symbol(s) <= {t} s" for n, t in TARGET_SECONDS.items())
    lines += [f"Targets (new blob, end to end): {targets}.", ""]
    lines += [f"- {tool}: {why}" for tool, why in meta["unavailable"].items()]
    return "\n".join(lines) + "\n"


def release_sized(texts: dict[str, str], taken: list[sampling.Sampled], want: int,
                  seed: int) -> list[sampling.Sampled]:
    """`want` seeded candidates past the scored sample, one per file (a file's changes
    then never shift each other's lines), not asked of the oracle."""
    counts = sampling.file_counts(texts)
    files = {i.scenario.path for i in taken}
    out: list[sampling.Sampled] = []
    for cand in scenarios.shuffled(scenarios.candidates(PROJECT, texts), seed):
        if len(out) >= want:
            break
        if counts[cand.name] > sampling.MAX_NAME_FILES or cand.path in files:
            continue
        files.add(cand.path)
        out.append(sampling.Sampled(scenarios.with_change(cand, texts[cand.path], seed), (),
                                    (), 0.0))
    return out


def _tools(ctx: Context, preset: str, before: Path | None) -> dict:
    """name -> (run function, the previous code's folder or None)."""
    def mg(b: Path | None, fmt: str = "json"):  # noqa: ANN202 - a closure per version
        return lambda c, i: _check(c, preset, b, fmt)

    tools: dict = {f"maguyva-guard:{preset}{NEW_BLOB}": (mg(None), None)}
    if before is not None:
        tools[f"{BEFORE}:{preset}{NEW_BLOB}"] = (mg(before), before)
    tools[f"maguyva-guard:{preset}{TEXT}{NEW_BLOB}"] = (mg(None, "text"), None)
    if before is not None:
        tools[f"{BEFORE}:{preset}{TEXT}{NEW_BLOB}"] = (mg(before, "text"), before)
    tools[f"maguyva-guard:{preset}:same-blob"] = (mg(None), None)
    if before is not None:
        tools[f"{BEFORE}:{preset}:same-blob"] = (mg(before), before)
    return tools


def main(argv: list[str] | None = None) -> int:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="default", choices=baselines.MG_PRESETS)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--before", type=Path, default=None,
                        help="a folder holding the previous code's maguyva_guard package")
    parser.add_argument("--unscored", action="store_true",
                        help="draw every size past the oracle (no jedi oracle run): timed only")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.sizes.split(",")]
    corpus = ensure_repo(PROJECT, VERSION)
    texts = scenarios.read_tracked(corpus)
    if args.unscored:
        items = release_sized(texts, [], 1 + SCORED, args.seed)
    else:
        items = sampling.sample(PROJECT, corpus, texts, 1 + SCORED, args.seed).items
    meta = {"machine": report.machine(), "runs": args.runs, "unavailable": {}, "index": "-",
            "command": " ".join(["python bench/check.py", *(argv or sys.argv[1:])])}
    with tempfile.TemporaryDirectory(prefix="mg-check-") as tmp:
        ctx = Context(PROJECT, corpus, scenarios.scratch_clone(corpus, Path(tmp) / "c"),
                      Mapper(texts))
        tools: dict = {"grep": (_grep, None), "jedi-default": (_jedi, None)}
        why = baselines.mg_available(ctx.clone)
        if why:
            meta["unavailable"]["maguyva-guard"] = why
        else:
            index = baselines.mg_index(ctx.clone)
            meta["index"] = f"`maguyva-guard index` {index.seconds:.1f} s"
            if args.before is not None:
                scenarios.scratch_clone(corpus, _clone(ctx, args.before))
            tools = {**_tools(ctx, args.preset, args.before), **tools}
        results = {}
        for size in sizes:
            if size <= SCORED:
                chosen = items[:1] if size == 1 else items[1:1 + size]
            else:
                chosen = release_sized(texts, items, size, args.seed)
            scored = size <= SCORED and not args.unscored
            results[size] = {"keys": [i.scenario.key for i in chosen],
                             "tools": measure_size(ctx, chosen, args.runs, tools, scored)}
    markdown = render(results, meta)
    report.RESULTS.mkdir(parents=True, exist_ok=True)
    (report.RESULTS / "check.md").write_text(markdown)
    (report.RESULTS / "check.json").write_text(json.dumps({**meta, "results": results},
                                                          indent=1))
    print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
