"""The risk rule table of maguyva_guard/risk.py, pinned row by row."""

from __future__ import annotations

import pytest

from maguyva_guard.guard import risk
from maguyva_guard.records import (
    ADDED,
    AMBIGUOUS,
    CHANGE_KINDS,
    EXACT,
    MODIFIED,
    PROBABLE,
    REMOVED,
    RENAMED,
    SIGNATURE_CHANGED,
    Affected,
    ChangedSymbol,
)

TARGET = "pkg.mod.f"
MANY = risk.MANY_DIRECT_CALLERS
HUB = risk.HUB_CENTRALITY


def changed(change: str) -> ChangedSymbol:
    return ChangedSymbol("pkg/mod.py", "f", TARGET, "function", change, 1, 5)


def caller(
    i: int = 0,
    depth: int = 1,
    centrality: float = 1.0,
    confidence: str = EXACT,
    because_of: tuple[str, ...] = (TARGET,),
) -> Affected:
    return Affected(
        path=f"pkg/c{i}.py", symbol=f"pkg.c{i}.g", line=i + 1, kind="function", score=0.01,
        centrality=centrality, depth=depth, because_of=because_of, modalities=("graph",),
        fusion_strategy="rrf", confidence=confidence,
    )


def direct(n: int, **kw: object) -> list[Affected]:
    return [caller(i, **kw) for i in range(n)]  # type: ignore[arg-type]


BREAKING = (REMOVED, RENAMED, SIGNATURE_CHANGED)

# (change, callers, expected): one row per rule of the table in risk.py, plus its edges.
TABLE = [
    *[(c, [], risk.NONE) for c in CHANGE_KINDS],
    *[(c, direct(MANY), risk.HIGH) for c in BREAKING],
    *[(c, direct(MANY - 1), risk.MEDIUM) for c in BREAKING],
    *[(c, direct(1), risk.MEDIUM) for c in BREAKING],
    *[(c, direct(1, confidence=PROBABLE), risk.MEDIUM) for c in BREAKING],
    *[(c, [caller(0), caller(1, depth=2, centrality=HUB)], risk.HIGH) for c in BREAKING],
    *[(c, [caller(0, centrality=HUB)], risk.HIGH) for c in BREAKING],
    *[(c, [caller(0, centrality=HUB - 0.01)], risk.MEDIUM) for c in BREAKING],
    # An ambiguous hub does not make it high; ambiguous callers alone make it low.
    *[(c, [caller(0), caller(1, centrality=HUB, confidence=AMBIGUOUS)], risk.MEDIUM)
      for c in BREAKING],
    *[(c, direct(MANY, confidence=AMBIGUOUS), risk.LOW) for c in BREAKING],
    *[(c, [caller(0, depth=2)], risk.LOW) for c in BREAKING],
    (MODIFIED, direct(1), risk.LOW),
    (MODIFIED, direct(MANY - 1), risk.LOW),
    (MODIFIED, direct(MANY), risk.MEDIUM),
    (MODIFIED, direct(MANY, confidence=AMBIGUOUS), risk.LOW),
    (MODIFIED, [caller(0, depth=2, centrality=HUB)], risk.MEDIUM),
    (MODIFIED, [caller(0, centrality=HUB, confidence=AMBIGUOUS)], risk.LOW),
    (MODIFIED, direct(MANY * 5, centrality=HUB), risk.MEDIUM),  # a body change is never high
    (ADDED, direct(1), risk.LOW),
    (ADDED, direct(MANY, centrality=HUB), risk.LOW),
]


@pytest.mark.parametrize(("change", "callers", "expected"), TABLE)
def test_risk_table(change: str, callers: list[Affected], expected: str) -> None:
    assert risk.risk_level(changed(change), callers) == expected


def test_thresholds_are_ours_and_named() -> None:
    assert risk.MANY_DIRECT_CALLERS == 10
    assert risk.HUB_CENTRALITY == 5.0
    assert risk.BREAKING_CHANGES == {REMOVED, RENAMED, SIGNATURE_CHANGED}


def test_unknown_change_kind_is_a_bug() -> None:
    with pytest.raises(ValueError, match="unknown change kind"):
        risk.risk_level(changed("exploded"), direct(1))


def test_assess_fills_risk_per_symbol_from_its_own_callers() -> None:
    sig = changed(SIGNATURE_CHANGED)
    body = ChangedSymbol("pkg/b.py", "h", "pkg.b.h", "function", MODIFIED, 3, 4)
    others = [caller(i, because_of=("pkg.other",)) for i in range(MANY)]
    out = risk.assess([sig, body], [*direct(1), *others])
    assert [c.risk for c in out] == [risk.MEDIUM, risk.NONE]
    assert out[0].qualified_name == TARGET


def test_renamed_callers_may_name_the_old_symbol() -> None:
    renamed = ChangedSymbol("pkg/mod.py", "g", "pkg.mod.g", "function", RENAMED, 1, 5,
                            old_name="f")
    assert risk.cause_names(renamed) == {"pkg.mod.g", "pkg.mod.f"}
    (out,) = risk.assess([renamed], direct(1))  # because_of = ("pkg.mod.f",)
    assert out.risk == risk.MEDIUM
    assert not risk.is_due_to(caller(because_of=("pkg.mod.h",)), renamed)


@pytest.mark.parametrize(
    ("levels", "expected"),
    [([], "none"), (["low"], "low"), (["low", "high", "medium"], "high"), (["none"], "none")],
)
def test_max_risk(levels: list[str], expected: str) -> None:
    assert risk.max_risk(levels) == expected


@pytest.mark.parametrize(
    ("level", "fail_on", "expected"),
    [
        ("high", "none", False),
        ("none", "none", False),
        ("none", "low", False),
        ("low", "low", True),
        ("medium", "low", True),
        ("low", "medium", False),
        ("medium", "medium", True),
        ("high", "medium", True),
        ("medium", "high", False),
        ("high", "high", True),
    ],
)
def test_exceeds(level: str, fail_on: str, expected: bool) -> None:
    assert risk.exceeds(level, fail_on) is expected


@pytest.mark.parametrize(("level", "fail_on"), [("severe", "low"), ("low", "severe")])
def test_exceeds_rejects_unknown_levels(level: str, fail_on: str) -> None:
    with pytest.raises(ValueError, match="unknown risk level"):
        risk.exceeds(level, fail_on)
