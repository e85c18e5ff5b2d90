"""How risky one changed symbol is, from who depends on it; and the `--fail-on` comparison.

These thresholds are ours, not docs/design.md's, which fixes how callers are found and
ranked, not when a change deserves attention. They live here, each with the reason for its
value, and tests/test_risk.py pins the whole rule table.

The rules, first match wins (a "sure" caller is one whose edge is not ambiguous):

| change                                  | callers                                   | risk   |
|-----------------------------------------|-------------------------------------------|--------|
| any                                     | none                                      | none   |
| removed, renamed, signature_changed     | >= MANY_DIRECT_CALLERS sure direct, or    | high   |
|                                         | >= 1 sure direct and a sure caller with   |        |
|                                         | centrality >= HUB_CENTRALITY              |        |
| removed, renamed, signature_changed     | >= 1 sure direct caller                   | medium |
| removed, renamed, signature_changed     | only ambiguous or indirect callers        | low    |
| modified (body only)                    | >= MANY_DIRECT_CALLERS sure direct, or a  | medium |
|                                         | sure caller (any depth) that is a hub     |        |
| modified, added                         | any other                                 | low    |
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Final

from maguyva_guard.records import (
    ADDED,
    AMBIGUOUS,
    MODIFIED,
    REMOVED,
    RENAMED,
    RISK_LEVELS,
    SIGNATURE_CHANGED,
    Affected,
    ChangedSymbol,
    RiskLevel,
)

NONE: Final = RiskLevel.NONE
LOW: Final = RiskLevel.LOW
MEDIUM: Final = RiskLevel.MEDIUM
HIGH: Final = RiskLevel.HIGH
# Weakest first: the order `exceeds` and `max_risk` compare by.
LEVELS: Final = RISK_LEVELS

# Changes that break a caller for sure: its call no longer resolves (removed, renamed) or no
# longer matches the parameters (signature_changed). A body change or an addition compiles.
BREAKING_CHANGES: Final = frozenset({REMOVED, RENAMED, SIGNATURE_CHANGED})

# Ten direct call sites is where fixing them stops being a glance at the diff and becomes a
# refactor across the code base; below that a reviewer checks each one by eye.
MANY_DIRECT_CALLERS: Final = 10

# Centrality is scaled so that the average symbol has 1 (spec.centrality_boost). Five times
# the average is a hub: the code that most of the project leans on, so a break there travels.
# It is also where the design §5 boost is already near its cap (1 + 0.3 ln 6 ~ 1.54 > 1.5).
HUB_CENTRALITY: Final = 5.0

# A direct caller or user (docs/json.md: depth 1).
DIRECT: Final = 1


def risk_level(changed: ChangedSymbol, callers: Sequence[Affected]) -> str:
    """The risk of one changed symbol, given the callers found for it (see the table above).

    `callers` are this symbol's callers only (`assess` picks them out of a whole report).
    """
    if not callers:
        return NONE
    sure = [a for a in callers if a.confidence != AMBIGUOUS]
    sure_direct = sum(1 for a in sure if a.depth == DIRECT)
    hub = any(a.centrality >= HUB_CENTRALITY for a in sure)
    if changed.change in BREAKING_CHANGES:
        if sure_direct >= MANY_DIRECT_CALLERS or (sure_direct and hub):
            return HIGH
        return MEDIUM if sure_direct else LOW
    if changed.change == MODIFIED:
        return MEDIUM if sure_direct >= MANY_DIRECT_CALLERS or hub else LOW
    if changed.change == ADDED:
        # Its callers are usually new code of the same change; they matter only when the new
        # definition shadows or overrides an older one, which we cannot tell apart here.
        return LOW
    raise ValueError(f"unknown change kind {changed.change!r}")


def assess(
    changed_symbols: Iterable[ChangedSymbol], affected: Sequence[Affected]
) -> tuple[ChangedSymbol, ...]:
    """The changed symbols with their `risk` filled in from the affected callers (each
    symbol's in the order of `affected`: the entries are indexed by the names they are due
    to once, not scanned whole per symbol, 320,000 tests for 200 symbols)."""
    by_cause: dict[str, list[int]] = {}
    for i, a in enumerate(affected):
        for name in a.because_of:
            by_cause.setdefault(name, []).append(i)
    out = []
    for c in changed_symbols:
        due = sorted({i for name in cause_names(c) for i in by_cause.get(name, ())})
        out.append(replace(c, risk=risk_level(c, [affected[i] for i in due])))
    return tuple(out)


def cause_names(changed: ChangedSymbol) -> frozenset[str]:
    """The names by which an affected entry's `because_of` may refer to a changed symbol.

    docs/json.md says `because_of` holds the changed symbols' qualified names; a renamed
    symbol's callers are found on the old side, so its OLD qualified name is accepted too.
    """
    names = {changed.qualified_name}
    qn, name = changed.qualified_name, changed.name
    if changed.change == RENAMED and changed.old_name and qn.endswith(name):
        names.add(qn[: len(qn) - len(name)] + changed.old_name)
    return frozenset(names)


def is_due_to(affected: Affected, changed: ChangedSymbol) -> bool:
    return not cause_names(changed).isdisjoint(affected.because_of)


def max_risk(levels: Iterable[str]) -> str:
    """The highest of `levels`; "none" for no levels."""
    return max(levels, key=_order, default=NONE)


def exceeds(level: str, fail_on: str) -> bool:
    """True when `level` reaches the `--fail-on` threshold (docs/json.md exit code 1).

    `fail_on` "none" never fails. "Reaches" means at or above: `--fail-on medium` fails on
    a medium risk, as the contract's "something reached the --fail-on level" says.
    """
    if fail_on == NONE:
        _order(level)  # still reject a level we do not know
        return False
    return _order(level) >= _order(fail_on)


def _order(level: str) -> int:
    try:
        return LEVELS.index(level)
    except ValueError:
        raise ValueError(f"unknown risk level {level!r}; expected one of {LEVELS}") from None
