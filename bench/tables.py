"""Markdown for the comparison: one row per tool, and the disagreement lists."""

from __future__ import annotations

from collections.abc import Sequence

from bench.scoring import Score

COLUMNS = ("tool", "n", "caller P", "caller R", "file P", "file R", "R@10", "false-safe",
           "crash", "median s", "p90 s", "peak MB")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def row(tool: str, s: Score) -> str:
    cells = (tool, str(s.scenarios), _pct(s.caller_precision), _pct(s.caller_recall),
             _pct(s.file_precision), _pct(s.file_recall), _pct(s.recall_at_10),
             _pct(s.false_safe_rate), _pct(s.crash_rate), _num(s.median_seconds),
             _num(s.p90_seconds), _num(s.peak_rss_mb, 0))
    return "| " + " | ".join(cells) + " |"


def table(scores: dict[str, Score], unavailable: dict[str, str]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += [row(tool, s) for tool, s in scores.items()]
    lines += [f"| {tool} | {why} |" + " |" * (len(COLUMNS) - 2)
              for tool, why in unavailable.items()]
    return "\n".join(lines)


def disagreements(project: str, rows: Sequence[tuple[str, str, str, str, int, str]]) -> str:
    """rows: (tool, scenario key, kind, caller, line, code line)."""
    out = [f"# Callers a tool reports and jedi (limits lifted) does not: {project}", "",
           "Check each by hand: jedi misses re-exports through `__init__`, dynamic uses",
           "(getattr, strings) and some attribute calls; the tool may be right.", ""]
    if not rows:
        out.append("(none)")
    tool_now = None
    for tool, key, kind, caller, line, code in rows:
        if tool != tool_now:
            out += ["", f"## {tool}", "", "| scenario | change | caller | line | code |",
                    "|---|---|---|---|---|"]
            tool_now = tool
        code = code.strip().replace("|", "\\|")[:120]
        out.append(f"| `{key}` | {kind} | `{caller}` | {line} | `{code}` |")
    return "\n".join(out) + "\n"
