"""The TypeScript leg's own parts (bench/tsleg.py): which definitions make scenarios, the
change it stages, and how lines map to callers (no network: tsc itself is not run here)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import tsleg  # noqa: E402

LIB = (
    "import { helper } from './util';\n"
    "export function plain(a: number, b: string): number {\n  return a;\n}\n"
    "export function optional(a?: number) { return a; }\n"
    "export function withDefault(a = 1) { return a; }\n"
    "export function rest(...xs: number[]) { return xs; }\n"
    "export function over(a: number): number;\n"
    "export function over(a: string): string;\n"
    "export function over(a: any) { return a; }\n"
    "export class Box {\n  store(item: string) {\n    return plain(1, item);\n  }\n}\n"
)
USER = "import { plain, optional, withDefault, rest, over, Box } from './lib';\n" \
       "export const x = plain(1, 'a') + new Box().store('b').length;\n"


def test_only_plain_required_parameters_without_overloads_make_scenarios():
    found = {s.qualname: s for s in tsleg.candidates({"src/lib.ts": LIB, "src/user.ts": USER})}
    assert set(found) == {"plain", "Box.store"}
    assert found["Box.store"].kind == "method"


def test_the_change_appends_one_required_parameter_to_the_definition_only():
    (s,) = [c for c in tsleg.candidates({"src/lib.ts": LIB, "src/user.ts": USER})
            if c.qualname == "plain"]
    changed = tsleg.change(LIB, s)
    assert "export function plain(a: number, b: string, mgExtra: string): number {" in changed
    assert changed.replace(", mgExtra: string", "", 1) == LIB


def test_lines_map_to_enclosing_symbols_and_import_lines_are_known():
    scopes = tsleg.Scopes(LIB, tsleg._parser())
    assert scopes.at(3) == "plain"
    assert scopes.at(14) == "Box.store"
    assert scopes.at(1) == tsleg.MODULE
    assert 1 in scopes.imports and 3 not in scopes.imports
