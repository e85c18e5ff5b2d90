"""The GitHub Action's step outputs, from `check --format json` (docs/json.md).

action.yml runs `python -m maguyva_guard.integrations.action REPORT.json >> "$GITHUB_OUTPUT"`:
here rather than in a shell one-liner, so that the rule (the highest risk of any changed symbol, the
number of affected entries) is code with a test, not jq that may be missing on a runner.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from maguyva_guard.guard import risk

OUTPUT_NAMES = ("risk", "affected-count")


def outputs(report: Mapping[str, Any]) -> dict[str, str]:
    """{"risk": the highest changed_symbols[].risk or "none", "affected-count": N}."""
    levels = [symbol.get("risk", risk.NONE) for symbol in report.get("changed_symbols", [])]
    return {"risk": risk.max_risk(levels), "affected-count": str(len(report.get("affected", [])))}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m maguyva_guard.integrations.action REPORT.json", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as handle:
            values = outputs(json.load(handle))
    except (OSError, ValueError) as exc:  # unreadable, not JSON, or an unknown risk level
        print(f"maguyva-guard: error: {args[0]}: {exc}", file=sys.stderr)
        return 2
    for name in OUTPUT_NAMES:
        print(f"{name}={values[name]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
