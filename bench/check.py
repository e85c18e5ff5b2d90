"""Latency of `maguyva-guard check` on Django with a warm index (issue 6).

    python bench/check.py [--runs 5] [--seed 1] [--preset default]

One-symbol and five-symbol staged changes (the first scenarios of compare.py's seeded
sample), each timed N times end to end: `maguyva-guard check --format json` twice over,
`:new-blob` (before each run the index is brought up to date on HEAD, untimed, and the
change is staged with a comment line of its own: a blob the index has never seen, what a
pre-commit hook meets) and `:same-blob` (the same staged change again), beside
`git grep -n -w` of the changed names and jedi `get_references` with default limits (one
fresh process for all the symbols), each scored against the oracle (jedi, limits lifted).
Target: one symbol under 0.5 s. Writes bench/results/check.md and check.json.
"""

from __future__ import annotations

import argparse
import json
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
TARGET_SECONDS = 0.5  # issue 6: one-symbol check, end to end, warm index
SIZES = (1, 5)
NEW_BLOB = ":new-blob"  # a tool name suffix: each run meets a blob the index has not seen


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


def _check(ctx: Context, preset: str) -> tuple[measure.Run, list]:
    run = measure.run([baselines.mg_bin(), "check", "--repo", str(ctx.clone), "--staged",
                       "--format", "json", "--preset", preset], ctx.clone,
                      baselines.TOOL_TIMEOUT)
    if run.returncode not in (0, 1):
        return run, []
    payload = json.loads(run.stdout)
    return run, [(c.path, line) for c, line in baselines.affected_callers(ctx, payload)]


def _stage(ctx: Context, items: list[sampling.Sampled], nonce: int | None = None) -> None:
    """Stage the items' changes; with `nonce`, each changed file also gets a comment line
    of its own, so its blob is one the index has never seen (a commit's usual case)."""
    for item in items:
        scenarios.apply(ctx.clone, item.scenario)
        if nonce is not None:
            file = ctx.clone / item.scenario.path
            file.write_text(file.read_text(encoding="utf-8") + f"# bench run {nonce}\n",
                            encoding="utf-8")
            subprocess.run(["git", "add", "--", item.scenario.path], cwd=ctx.clone, check=True)


def _unstage(ctx: Context, items: list[sampling.Sampled]) -> None:
    for item in items:
        scenarios.revert(ctx.clone, item.scenario)


def _fresh(ctx: Context, items: list[sampling.Sampled], nonce: int) -> None:
    """The state a pre-commit hook meets: the index warm on HEAD (as the last commit left
    it, untimed), then a change the index has never seen staged."""
    _unstage(ctx, items)
    baselines.mg_index(ctx.clone)
    _stage(ctx, items, nonce)


def measure_size(ctx: Context, items: list[sampling.Sampled], runs: int,
                 tools: dict) -> dict[str, dict]:
    """Stage all the items' changes together, run every tool `runs` times. A
    maguyva-guard tool named `...:new-blob` gets a never-seen blob before each run."""
    targets = {Caller(i.scenario.path, i.scenario.qualname) for i in items}
    truth = frozenset(c for i in items for c in i.callers if c not in targets)
    _stage(ctx, items)
    out = {}
    try:
        for tool, fn in tools.items():
            timings, peak, last = [], 0.0, None
            for run in range(runs):
                if tool.endswith(NEW_BLOB):
                    _fresh(ctx, items, run)
                last, hits = fn(ctx, items)
                timings.append(last.seconds)
                peak = max(peak, last.max_rss_mb)
            ok = last.returncode in (0, 1)
            s = score([Outcome(truth, _callers(ctx, hits, targets), ok, 0.0, 0.0)])
            out[tool] = {"seconds": timings, "median": statistics.median(timings),
                         "max_rss_mb": round(peak), "ok": ok,
                         "error": "" if ok else last.stderr.strip()[-300:],
                         "precision": s.caller_precision, "recall": s.caller_recall}
            if tool.endswith(NEW_BLOB):
                _unstage(ctx, items)
                _stage(ctx, items)
    finally:
        _unstage(ctx, items)
    return out


def render(results: dict, meta: dict) -> str:
    lines = [f"# `maguyva-guard check` latency on {PROJECT} {VERSION}", "",
             f"Machine: {meta['machine']}. Command: `{meta['command']}`. "
             f"{meta['runs']} runs each; warm index ({meta['index']}).", ""]
    for size, block in results.items():
        base = block["tools"].get("grep", {}).get("median")
        lines += [f"## {size} changed symbol(s): " + ", ".join(f"`{k}`" for k in block["keys"]),
                  "", "| tool | median s | runs (s) | x grep | precision | recall | peak MB |",
                  "|---|---|---|---|---|---|---|"]
        for tool, r in block["tools"].items():
            ratio = f"{r['median'] / base:.1f}" if base else "-"
            pct = [("-" if v is None else f"{100 * v:.0f}%") for v in (r["precision"],
                                                                       r["recall"])]
            runs = " ".join(f"{t:.2f}" for t in r["seconds"])
            lines.append(f"| {tool} | {r['median']:.3f} | {runs} | {ratio} | {pct[0]} | "
                         f"{pct[1]} | {r['max_rss_mb']} |")
        lines.append("")
    lines += [f"Target: one symbol under {TARGET_SECONDS} s end to end.", ""]
    lines += [f"- {tool}: {why}" for tool, why in meta["unavailable"].items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="default", choices=baselines.MG_PRESETS)
    args = parser.parse_args(argv)
    corpus = ensure_repo(PROJECT, VERSION)
    texts = scenarios.read_tracked(corpus)
    items = sampling.sample(PROJECT, corpus, texts, 1 + max(SIZES), args.seed).items
    tools: dict = {"grep": _grep, "jedi-default": _jedi}
    meta = {"machine": report.machine(), "runs": args.runs, "unavailable": {}, "index": "-",
            "command": " ".join(["python bench/check.py", *(argv or sys.argv[1:])])}
    with tempfile.TemporaryDirectory(prefix="mg-check-") as tmp:
        ctx = Context(PROJECT, corpus, scenarios.scratch_clone(corpus, Path(tmp) / "c"),
                      Mapper(texts))
        why = baselines.mg_available(ctx.clone)
        if why:
            meta["unavailable"]["maguyva-guard"] = why
        else:
            index = baselines.mg_index(ctx.clone)
            meta["index"] = f"`maguyva-guard index` {index.seconds:.1f} s"
            tools = {f"maguyva-guard:{args.preset}{NEW_BLOB}":
                         lambda c, i: _check(c, args.preset),
                     f"maguyva-guard:{args.preset}:same-blob":
                         lambda c, i: _check(c, args.preset), **tools}
        results = {}
        for size in SIZES:
            chosen = items[:1] if size == 1 else items[1:1 + size]
            results[size] = {"keys": [i.scenario.key for i in chosen],
                             "tools": measure_size(ctx, chosen, args.runs, tools)}
    markdown = render(results, meta)
    report.RESULTS.mkdir(parents=True, exist_ok=True)
    (report.RESULTS / "check.md").write_text(markdown)
    (report.RESULTS / "check.json").write_text(json.dumps({**meta, "results": results},
                                                          indent=1))
    print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
