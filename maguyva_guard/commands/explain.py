"""`maguyva-guard query` for humans: one line per result, and with --explain, the arithmetic.

It renders the JSON of engine.SearchResponse.to_json() (docs/json.md `query --json` plus our
fields), so what a person reads and what a script parses cannot drift apart. Every fused
score is shown as the trail of its contributions (design §5):

    weight x 1/(k + rank + 1) x boost = value, summed, times the demotion factor.
"""

from __future__ import annotations

from typing import Any

from maguyva_guard.report.escape import terminal


def render(data: dict[str, Any], explain: bool = False) -> str:
    lines = _header(data) if explain else []
    results = data.get("results", [])
    for r in results:
        span = (f"{r['line_start']}" if r["line_start"] == r["line_end"]
                else f"{r['line_start']}-{r['line_end']}")
        # Paths and symbols come from the repository: no control character reaches the
        # terminal, and a newline in a name cannot forge a result line.
        lines.append(f"{terminal(r['path'])}:{span}  {terminal(r['symbol'])}  {r['score']:.4f}  "
                     f"[{','.join(r['modalities'])}]")
        if explain:
            lines.extend(_trail(r, data.get("k", 0)))
    if not results:
        lines.append("no results")
    return "\n".join(lines)


def warnings(data: dict[str, Any]) -> list[str]:
    """One line per modality that failed (for stderr): the answer may be incomplete."""
    return [f"warning: {modality} failed: {terminal(str(reason))}"
            for modality, reason in data.get("modalities_failed", {}).items()]


def _header(data: dict[str, Any]) -> list[str]:
    terms = ", ".join(terminal(t) for t in data.get("terms", [])) or "none"
    lines = [
        f"intent {data['intent']} (confidence {data['confidence']:.2f}, rule {data['rule']};"
        f" terms: {terms})",
        f"{data['fusion_strategy']} · preset {data['preset']} · k {data['k']} · "
        f"ran {', '.join(data['modalities_run'])}",
    ]
    lines.extend(_recognised(data.get("recognised")))
    lines.extend(f"note: {terminal(note)}" for note in data.get("notes", []))
    return [*lines, ""]


def _recognised(pasted: dict[str, Any] | None) -> list[str]:
    """What was read out of a pasted error: its kind, class, message and frames."""
    if not pasted:
        return []
    cls = f"{pasted['error_class']}: " if pasted["error_class"] else ""
    lines = [f"recognised {pasted['kind']}: {cls}{pasted['message']}"]
    if pasted["prefix"]:
        lines.append(f"prefix set aside: {pasted['prefix'].strip()}")
    if pasted["frames"]:
        innermost = pasted["frames"][0]
        lines.append(f"{len(pasted['frames'])} frames, innermost "
                     f"{innermost['file']}:{innermost['line']} {innermost['function']}".rstrip())
    lines.append(f"answered by: {pasted['stage']}")
    return [terminal(line) for line in lines]  # pasted text and paths: no control codes


def _trail(r: dict[str, Any], k: int) -> list[str]:
    lines = [
        f"    {c['modality']:<10} rank {c['rank']:<3} {c['weight']:.1f} x 1/({k}+{c['rank']}+1)"
        f" x boost {c['boost']:.3f} = {c['value']:.6f}"
        for c in r.get("contributions", [])
    ]
    if r.get("demotion", 1.0) != 1.0:
        lines.append(f"    x {r['demotion']:g} demoted ({terminal(r.get('category', ''))})")
    if r.get("centrality"):
        lines.append(f"    centrality {r['centrality']:.2f}")
    if r.get("also_found"):
        found = ", ".join(f"{c['modality']} rank {c['rank']} ({c['value']:.6f})"
                          for c in r["also_found"])
        lines.append(f"    also in this file: {found}")
    return lines
