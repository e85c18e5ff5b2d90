"""bench/results/tests.md from the rows of bench/testselect.py."""

from __future__ import annotations

import statistics
from typing import Any

from bench import testcauses

SELECTORS = (("guard", "maguyva-guard tests"),
             ("check", "check's section (its depth, no trails)"),
             ("picked", "pytest-picked style"), ("testmon", "pytest-testmon"))
WORST = 12


def _stats(rows: list[dict[str, Any]], key: str) -> dict[str, Any] | None:
    scored = [r for r in rows if key in r and not r["timed_out"]]
    if not scored:
        return None
    failing = [r for r in scored if r["failed"]]
    total = sum(len(r["failed"]) for r in failing)
    missed = sum(len(r[key]["missed"]) for r in failing)
    shares = [r[key]["share"] for r in scored]
    seconds = [r[key]["seconds"] for r in scored if "seconds" in r[key]]
    select_s = [r[key]["select_seconds"] for r in scored if "select_seconds" in r[key]]
    return {
        "mutants": len(scored), "caught": len(failing), "failing": total,
        "recall": (total - missed) / total if total else 1.0,
        "missing": sum(1 for r in failing if r[key]["missed"]),
        "share": statistics.median(shares), "p90": _p90(shares),
        "seconds": statistics.median(seconds) if seconds else None,
        "select_seconds": statistics.median(select_s) if select_s else None,
        "run_all": sum(1 for r in scored if r[key].get("run_all")),
    }


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def _row(name: str, label: str, s: dict[str, Any]) -> str:
    secs = f"{s['seconds']:.2f}" if s["seconds"] is not None else ""
    if s["select_seconds"] is not None:
        secs += f" ({s['select_seconds']:.2f})"
    return (f"| {name} | {label} | {s['mutants']} ({s['caught']} caught) | {s['failing']} | "
            f"{s['recall']:.3f} | {s['missing']} | {s['share']:.1%} | {s['p90']:.1%} | "
            f"{s['run_all']} | {secs} |")


def _misses(results: list[dict[str, Any]], key: str) -> list[str]:
    misses = [(res["project"], r) for res in results for r in res["mutants"]
              if r["failed"] and key in r and r[key]["missed"]]
    misses.sort(key=lambda pr: -len(pr[1][key]["missed"]))
    out = []
    for project, r in misses[:WORST]:
        m = r[key]["missed"]
        out.append(f"- {project} `{r['key']}`: {len(m)} of {len(r['failed'])} missed, "
                   f"e.g. `{m[0]}`")
    return out or ["- none"]


def _floor(results: list[dict[str, Any]]) -> list[str]:
    out = ["| project | median share failing | p90 share failing | mutants failing >= 20% |"
           " maguyva-guard median share | maguyva-guard mutants under 20% |",
           "|---|---|---|---|---|---|"]
    pooled: list[tuple[float, float]] = []
    for res in [*results, None]:
        if res is None:
            rows, name = pooled, "**all**"
        else:
            rows = [(len(r["failed"]) / res["suite"], r["guard"]["share"])
                    for r in res["mutants"] if not r["timed_out"] and "guard" in r]
            pooled += rows
            name = res["project"]
        if not rows:
            continue
        fail = [f for f, _ in rows]
        guard = [g for _, g in rows]
        out.append(f"| {name} | {statistics.median(fail):.1%} | {_p90(fail):.1%} | "
                   f"{sum(1 for f in fail if f >= 0.2)} of {len(rows)} | "
                   f"{statistics.median(guard):.1%} | {sum(1 for g in guard if g < 0.2)} |")
    return out


def markdown(results: list[dict[str, Any]]) -> str:
    out = ["| project | selector | mutants | failing tests | recall | mutants with a miss |"
           " median share | p90 share | run all | median s (selection step) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    pooled: dict[str, list[dict[str, Any]]] = {}
    for res in results:
        for key, label in SELECTORS:
            s = _stats(res["mutants"], key)
            if s is not None:
                out.append(_row(f"{res['project']} ({res['suite']} tests)", label, s))
                pooled.setdefault(key, []).extend(res["mutants"])
    for key, label in SELECTORS:
        s = _stats(pooled.get(key, []), key)
        if s is not None:
            out.append(_row("**all**", f"**{label}**", s))
    for key, label in SELECTORS[:2]:
        out += ["", f"Worst misses of {label} (failing tests it did not select):", ""]
        out += _misses(results, key)
    out += ["", "The floor: the share of the suite that really fails per mutant (the oracle's "
            "own selection; a mutant no test catches counts 0%), beside maguyva-guard's:", "",
            *_floor(results)]
    out += ["", "Why the selection of `maguyva-guard tests` is as large as it is: the mean "
            "share of the suite each rule selects (a test selected by node id: a resolved "
            "call chain; a test in a file selected whole: the file's reason), in brackets "
            "the mutants where that rule alone selects more than 20% of the suite "
            "(bench/testcauses.py):", "", *testcauses.table(results)]
    timed = sum(1 for res in results for r in res["mutants"] if r["timed_out"])
    out += ["", f"Mutants whose suite run timed out (left out of recall): {timed}."]
    return "\n".join(out) + "\n"
