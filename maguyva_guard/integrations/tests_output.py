"""The GitHub Action's `tests` outputs, from `maguyva-guard tests --format json`.

action.yml runs `python -m maguyva_guard.integrations.tests_output TESTS.json FORMAT >>
"$GITHUB_OUTPUT"`: `tests` is the selection on one line, space-separated (pytest node ids
for FORMAT pytest, test files for paths: jest, vitest), empty when every test must run (a
runner given no arguments runs them all); `tests-run-all` is "true" or "false".
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

FORMATS = ("pytest", "paths")
OUTPUT_NAMES = ("tests", "tests-run-all")


def outputs(selection: Mapping[str, Any], fmt: str) -> dict[str, str]:
    run_all = bool(selection.get("run_all"))
    tests = selection.get("tests", [])
    key = "id" if fmt == "pytest" else "path"
    items = [] if run_all else list(dict.fromkeys(str(t[key]) for t in tests))
    # One line: a newline in a path would end the output early, so it cannot pass.
    items = [i for i in items if "\n" not in i and "\r" not in i]
    return {"tests": " ".join(items), "tests-run-all": "true" if run_all else "false"}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or args[1] not in FORMATS:
        print("usage: python -m maguyva_guard.integrations.tests_output TESTS.json pytest|paths",
              file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as handle:
            values = outputs(json.load(handle), args[1])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"maguyva-guard: error: {args[0]}: {exc}", file=sys.stderr)
        return 2
    for name, value in values.items():
        print(f"{name}={value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
