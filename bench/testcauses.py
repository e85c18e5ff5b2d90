"""Why a selection is large: each selected test of the suite put down to the rule that
selected it, as a share of the suite, per mutant (bench/testselect.py) and per project
(the table in bench/results/tests.md).

A test selected by its own node id was reached through a resolved call chain (a caller, a
fixture it takes, a test class's subclass); a test selected because its whole file was is
put down to that file's reason, sorted into the causes below by the reason's words (the
reasons are guard/tests_to_run.py's; a new wording lands in "other" until named here).
"""

from __future__ import annotations

import statistics
from typing import Any, Final

CHAIN: Final = "call chain"
RUN_ALL: Final = "run all"
OTHER: Final = "other"
# (cause, words of the reason) in the order they are tried: the first match names it
CAUSES: Final = (
    ("count bound", ("walk's bound",)),
    ("narrowed to the class's tests", ("only the tests that name the class",)),
    ("own name-only call", ("its own call is an ambiguous edge",)),
    ("ambiguous edge", ("ambiguous edge",)),
    ("depth bound", ("depth bound",)),
    ("module-level code", ("module-level", "module level", "when the module is imported")),
    ("conftest, config, data", ("conftest", "fixtures reach", "configure how",
                                "dependencies every test", "test data")),
    ("polymorphic method", ("without naming its class",)),
    ("untyped receiver", ("receiver the graph cannot type",)),
    ("named by the test", ("names the changed symbol", "outside a test, and no call")),
    ("no caller found", ("no resolved call reaches",)),
    ("imports the module", ("imports the module of",)),
    ("test class imported", ("imports a test class",)),
    ("string import", ("by name (a string)",)),
    ("not analysed", ("no symbol or statement",)),
    ("changed test file", ("",)),  # a whole file selected without a reason: itself changed
)
ORDER: Final = (CHAIN, *(c for c, _ in CAUSES), OTHER, RUN_ALL)


def cause(reason: str) -> str:
    if not reason:
        return "changed test file"
    for name, words in CAUSES:
        if any(w and w in reason for w in words):
            return name
    return OTHER


def shares(tests: list[tuple[str, str]], run_all: bool, suite: list[str]) -> dict[str, float]:
    """`tests`: the selection's (id, reason); -> cause -> share of the suite it selects
    (a test in a file selected whole is put down to the file's reason)."""
    if run_all:
        return {RUN_ALL: 1.0}
    whole = {tid: cause(reason) for tid, reason in tests if "::" not in tid}
    # a single test with a reason (an imported test class, a file narrowed to the tests
    # that can hold a class): that reason's cause; without one, a call chain
    single = {tid: cause(reason) if reason else CHAIN for tid, reason in tests if "::" in tid}
    counts: dict[str, int] = {}
    for t in suite:
        path = t.split("::", 1)[0]
        name = whole.get(path) or _picked(t, single)
        if name:
            counts[name] = counts.get(name, 0) + 1
    return {name: round(n / len(suite), 4) for name, n in counts.items()}


def _picked(test: str, single: dict[str, str]) -> str | None:
    """The cause of the selected id covering `test` (itself, or its class's)."""
    if test in single:
        return single[test]
    parts = test.split("[", 1)[0].split("::")
    for i in range(len(parts), 1, -1):
        name = single.get("::".join(parts[:i]))
        if name:
            return name
    return None


def table(results: list[dict[str, Any]]) -> list[str]:
    """Per project: the mean share of the suite each cause selects (over the mutants not
    timed out), and in how many mutants it alone selects more than 20% of the suite. A
    cause no project met has no column."""
    values: dict[str, dict[str, list[float]]] = {}
    for res in results:
        scored = [r for r in res["mutants"] if not r["timed_out"] and "causes" in r["guard"]]
        if scored:
            values[res["project"]] = {c: [r["guard"]["causes"].get(c, 0.0) for r in scored]
                                      for c in ORDER}
    met = [c for c in ORDER if any(any(v[c]) for v in values.values())]
    if not values:
        return []
    out = ["| project | " + " | ".join(met) + " |", "|---|" + "---|" * len(met)]
    for project, v in values.items():
        cells = [f"{statistics.mean(v[c]):.1%} ({sum(1 for x in v[c] if x > 0.2)})"
                 if any(v[c]) else "" for c in met]
        out.append(f"| {project} | " + " | ".join(cells) + " |")
    return out
