"""The tests to run as JSON: `maguyva-guard tests --format json` and check's `tests` key."""

from __future__ import annotations

from typing import Final, TypedDict

from maguyva_guard.guard.tests_to_run import TestSelection

VERSION: Final = 1


class SelectedTestJSON(TypedDict):
    id: str  # a pytest node id, or a test file's path (a whole file)
    path: str
    symbol: str  # "" for a whole file
    chain: list[str]  # from the test to the changed symbol
    reason: str  # ours: why a whole file


class SelectionJSON(TypedDict):
    tests: list[SelectedTestJSON]
    run_all: bool
    reasons: list[str]


def selection_json(selection: TestSelection) -> SelectionJSON:
    return {
        "tests": [{"id": t.id, "path": t.path, "symbol": t.symbol, "chain": list(t.chain),
                   "reason": t.reason} for t in selection.tests],
        "run_all": selection.run_all,
        "reasons": list(selection.reasons),
    }
