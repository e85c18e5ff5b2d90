"""What `maguyva-guard mcp` costs an agent on Django 5.2.8: tokens per answer, and latency.

    python bench/mcp_tools.py [--runs 5] [--max-tokens 2000]

Starts the real server (python -m maguyva_guard mcp) on the Django corpus with the SDK's
stdio client, as an agent would. For three typical questions (one symbol's impact, a
how-question, a who-calls question) it counts the tokens of the answer (characters / 4,
the estimate the server budgets with): the first page, which is what one call costs, and
all pages; beside the same question answered by `git grep` output, which has no bound.
Then it times every tool on a warm index (the first call of each is untimed) and git grep.
Writes bench/results/mcp.md and mcp.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio  # noqa: E402
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from bench.corpus import ensure_repo  # noqa: E402
from bench.report import machine  # noqa: E402

PROJECT, VERSION = "django", "5.2.8"
CHARS_PER_TOKEN = 4
RESULTS = Path(__file__).resolve().parent / "results"
# (label, tool, arguments, the git grep a user would run for the same question)
QUESTIONS = (
    ("impact of one symbol", "impact", {"symbol": "django.utils.choices.flatten_choices"},
     ["-n", "-w", "flatten_choices", "--", "*.py"]),
    ("how-question", "search", {"question": "how are migrations squashed"},
     ["-n", "-i", "squash", "--", "*.py"]),
    ("who calls", "callers", {"symbol": "django.utils.html.format_html"},
     ["-n", "-w", "format_html", "--", "*.py"]),
)
LATENCY = (
    ("search", {"question": "how are migrations squashed"}),
    ("explain", {"question": "how are migrations squashed"}),
    ("definition", {"name": "QuerySet.filter"}),
    ("callers", {"symbol": "django.utils.html.format_html"}),
    ("impact", {"symbol": "django.utils.choices.flatten_choices"}),
    ("impact", {"staged": True}),
)


def tokens(text: str) -> int:
    return round(len(text) / CHARS_PER_TOKEN)


async def all_pages(s: ClientSession, tool: str, args: dict[str, Any]) -> list[str]:
    pages = []
    cursor = None
    while True:
        result = await s.call_tool(tool, {**args, **({"cursor": cursor} if cursor else {})})
        text = result.content[0].text
        if result.is_error:
            raise SystemExit(f"{tool} {args}: {text}")
        pages.append(text)
        cursor = json.loads(text)["page"]["next_cursor"]
        if not cursor:
            return pages


def grep(repo: Path, args: list[str]) -> tuple[str, float]:
    started = time.perf_counter()
    out = subprocess.run(["git", "grep", *args], cwd=repo, capture_output=True, text=True).stdout
    return out, time.perf_counter() - started


async def measure(repo: Path, runs: int, max_tokens: int) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "maguyva_guard", "mcp", "--max-tokens", str(max_tokens)],
        cwd=str(repo), env=dict(os.environ))
    answers, latency = [], {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        for label, tool, args, grep_args in QUESTIONS:
            pages = await all_pages(s, tool, args)
            first = json.loads(pages[0])
            out, _ = grep(repo, grep_args)
            answers.append({
                "question": label, "tool": tool, "arguments": args,
                "first_page_tokens": tokens(pages[0]), "pages": len(pages),
                "all_pages_tokens": sum(tokens(p) for p in pages),
                "items": first["page"]["total"],
                "grep": "git grep " + " ".join(grep_args), "grep_tokens": tokens(out),
                "grep_lines": len(out.splitlines()),
            })
        for tool, args in LATENCY:
            await s.call_tool(tool, args)  # untimed: the warm-up of this question
            times = []
            for _ in range(runs):
                started = time.perf_counter()
                await s.call_tool(tool, args)
                times.append(time.perf_counter() - started)
            latency[f"{tool} {json.dumps(args)}"] = times
    greps = {}
    for label, _, _, grep_args in QUESTIONS:
        greps[f"git grep ({label})"] = [grep(repo, grep_args)[1] for _ in range(runs)]
    return {"answers": answers, "latency": latency, "grep_latency": greps}


def markdown(data: dict[str, Any], command: str) -> str:
    lines = [f"# `maguyva-guard mcp` on {PROJECT} {VERSION}: tokens per answer and latency", "",
             f"Machine: {machine()}, load average {data.get('load', '?')} when the run ended "
             f"(latencies swing with it). Command: `{command}`. Tokens = characters / 4 (the "
             f"server's own estimate); budget {data['max_tokens']} tokens per call.", "",
             "## Tokens per answer", "",
             "| question | tool | items | first page (one call) | pages | all pages | "
             "git grep | grep lines | grep / first page |", "|---|---|---|---|---|---|---|---|---|"]
    for a in data["answers"]:
        ratio = a["grep_tokens"] / a["first_page_tokens"] if a["first_page_tokens"] else 0
        lines.append(
            f"| {a['question']} | `{a['tool']} {json.dumps(a['arguments'])}` | {a['items']} | "
            f"{a['first_page_tokens']:,} | {a['pages']} | {a['all_pages_tokens']:,} | "
            f"`{a['grep']}`: {a['grep_tokens']:,} | {a['grep_lines']:,} | {ratio:.1f}x |")
    lines += ["", f"## Latency on a warm index ({data['runs']} runs, seconds, through the "
              "stdio client)", "", "| call | median | runs |", "|---|---|---|"]
    for name, times in {**data["latency"], **data["grep_latency"]}.items():
        lines.append(f"| `{name}` | {statistics.median(times):.3f} | "
                     f"{' '.join(f'{t:.2f}' for t in times)} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=2000)
    args = parser.parse_args()
    repo = ensure_repo(PROJECT, VERSION)
    subprocess.run([sys.executable, "-m", "maguyva_guard", "index"], cwd=repo, check=True)
    data = anyio.run(measure, repo, args.runs, args.max_tokens)
    data.update(runs=args.runs, max_tokens=args.max_tokens, machine=machine(),
                load=" / ".join(f"{x:.1f}" for x in os.getloadavg()))
    command = f"python bench/mcp_tools.py --runs {args.runs} --max-tokens {args.max_tokens}"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "mcp.json").write_text(json.dumps(data, indent=2) + "\n")
    (RESULTS / "mcp.md").write_text(markdown(data, command))
    print(markdown(data, command))


if __name__ == "__main__":
    main()
