"""bench/prlegs.py: a release diff's changed definition as a compiler leg's scenario, the
TypeScript fallback when the appended parameter breaks the definition, and the mapping of
the check's entries (no compiler here: a stand-in reads the changed text)."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from conftest import git

pytest.importorskip("tree_sitter_language_pack")

from bench import legcore, prlegs, tsleg  # noqa: E402
from bench.oracle import Caller  # noqa: E402

THROTTLE = (
    "export function throttle(duration: number, config?: object): number {\n"  # 1
    "  return duration;\n"                                                       # 2
    "}\n"                                                                        # 3
    "\n"                                                                         # 4
    "export function throttle2(n: number): number {\n"                           # 5
    "  return throttle(n) + throttle(n, {});\n"                                  # 6
    "}\n"                                                                        # 7
)
USE = ("import { throttle } from './throttle';\n\n"
       "export function use() {\n  return throttle(1);\n}\n")
TEXTS = {"src/throttle.ts": THROTTLE, "src/use.ts": USE}


def fake_tsc(clone: Path) -> tuple[set[legcore.Error], float]:
    """tsc as the changed text makes it answer: a required parameter after an optional one
    is an error of the definition itself; `never` first breaks every call."""
    text = (clone / "src/throttle.ts").read_text()
    if "config?: object, mgExtra: string" in text:
        return {("src/throttle.ts", 1, "TS1016")}, 0.0
    if "throttle(mgExtra: never, " in text:
        return {("src/throttle.ts", 6, "TS2554"), ("src/use.ts", 4, "TS2554"),
                ("src/throttle.ts", 1, "TS2416")}, 0.0
    return set(), 0.0


@pytest.fixture
def oracle() -> prlegs.Oracle:
    parser = tsleg._parser()
    scopes = functools.cache(lambda path: tsleg.Scopes(TEXTS.get(path, ""), parser))
    leg = legcore.Leg("pr-typescript", "*.ts", scopes, tsleg.change, fake_tsc)
    return prlegs.Oracle(leg, TEXTS, parser, prlegs.TS_DEFS, lambda node: "")


def test_an_optional_parameter_list_gets_never_first_and_its_calls_are_the_callers(
        oracle, tmp_path) -> None:
    clone = tmp_path / "clone"
    for path, text in TEXTS.items():
        (clone / path).parent.mkdir(parents=True, exist_ok=True)
        (clone / path).write_text(text)
    git(clone, "init", "-q")
    git(clone, "add", "-A")
    git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "r")
    sym = {"path": "src/throttle.ts", "qualified_name": "src.throttle.throttle",
           "kind": "function", "line_start": 1}
    s, node = prlegs.scenario(oracle, sym)
    assert (s.qualname, s.start, s.end) == ("throttle", 1, 3)
    truth = prlegs.broken_callers(oracle, clone, set(), s, node)
    assert truth == {Caller("src/throttle.ts", "throttle2"), Caller("src/use.ts", "use")}
    assert (clone / "src/throttle.ts").read_text() == THROTTLE  # reverted


def test_entries_map_to_enclosing_symbols_without_imports_or_the_definition(oracle) -> None:
    s, _ = prlegs.scenario(oracle, {"path": "src/throttle.ts", "kind": "function",
                                    "qualified_name": "src.throttle.throttle", "line_start": 1})
    link = {"changed_symbol": "src.throttle.throttle", "depth": 1}
    entries = [{"path": "src/use.ts", "line": 1, "links": [{**link, "confidence": "exact"}]},
               {"path": "src/use.ts", "line": 4, "links": [{**link, "confidence": "exact"}]},
               {"path": "src/throttle.ts", "line": 2, "links": [{**link, "confidence": "exact"}]},
               {"path": "src/throttle.ts", "line": 6,
                "links": [{**link, "confidence": "ambiguous"}]},
               {"path": "README.md", "line": 3, "links": [{**link, "confidence": "exact"}]}]
    every, resolved = prlegs.answer(oracle, entries, "src.throttle.throttle", s)
    assert every == {Caller("src/use.ts", "use"), Caller("src/throttle.ts", "throttle2")}
    assert resolved == {Caller("src/use.ts", "use")}


def test_callers_whose_error_lines_never_name_the_method_are_told_apart(oracle) -> None:
    """tsc flags `use(value)` where an instance no longer fits an interface (structural
    typing): that caller names no `throttle` on its error line, the calls do."""
    s, _ = prlegs.scenario(oracle, {"path": "src/throttle.ts", "kind": "function",
                                    "qualified_name": "src.throttle.throttle", "line_start": 1})
    errors = {("src/throttle.ts", 6, "TS2554"), ("src/use.ts", 4, "TS2554"),
              ("src/use.ts", 3, "TS2345")}
    assert legcore.oracle(errors, s, oracle.leg.scopes) == {
        Caller("src/throttle.ts", "throttle2"), Caller("src/use.ts", "use")}
    assert prlegs.naming(oracle, errors, s) == {Caller("src/throttle.ts", "throttle2"),
                                                Caller("src/use.ts", "use")}
    assert prlegs.naming(oracle, {("src/use.ts", 3, "TS2345")}, s) == set()


ATOM = ("export interface IAtom {\n"           # 1
        "  reportChanged(): void;\n"           # 2
        "}\n"                                  # 3
        "\n"                                   # 4
        "export class Atom implements IAtom {\n"  # 5
        "  reportChanged(): void {\n"          # 6
        "    return;\n"                        # 7
        "  }\n"                                # 8
        "}\n")                                 # 9


def test_an_interface_method_is_not_scored_as_a_class_method_of_its_name() -> None:
    """mobx 6.10.0 -> 6.10.1 changed `IAtom.reportChanged()` (an interface's method, no
    definition the compiler can take a parameter on): the class Atom's method of the same
    name lines below is another symbol, not scored in its place; Atom's own change is."""
    parser = tsleg._parser()
    scopes = functools.cache(lambda path: tsleg.Scopes(ATOM, parser))
    leg = legcore.Leg("pr-typescript", "*.ts", scopes, tsleg.change, fake_tsc)
    o = prlegs.Oracle(leg, {"src/atom.ts": ATOM}, parser, prlegs.TS_DEFS, lambda node: "")
    interface = {"path": "src/atom.ts", "qualified_name": "src.atom.IAtom.reportChanged",
                 "kind": "method", "line_start": 2, "line_end": 2}
    assert prlegs.scenario(o, interface) == (None, None)
    method = {**interface, "qualified_name": "src.atom.Atom.reportChanged",
              "line_start": 6, "line_end": 8}
    s, _node = prlegs.scenario(o, method)
    assert (s.qualname, s.start, s.end) == ("Atom.reportChanged", 6, 8)
