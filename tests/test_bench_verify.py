"""bench/verify.py: hand verdicts on oracle misses, and the scores they adjust."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import verify  # noqa: E402
from bench.verify import Verdict  # noqa: E402

TOOL = verify.JUDGED_TOOL


def scenario(key: str, oracle: list[list[str]], got: list[list[str]]) -> dict:
    return {"key": key, "oracle": {"callers": oracle},
            "tools": {TOOL: {"ok": True, "callers": [[p, s, 1] for p, s in got]}}}


RAW = {"projects": {"demo": {"version": "1", "scenarios": [
    # 2 oracle callers, 1 found; 3 extras: one verified real, one verified not, one open
    scenario("a.py::f", [["b.py", "g"], ["c.py", "h"]],
             [["b.py", "g"], ["d.py", "x"], ["e.py", "y"], ["f.py", "z"]]),
    # 1 oracle caller found, 1 extra without a verdict (no verdict in this scenario)
    scenario("a.py::k", [["b.py", "g"]], [["b.py", "g"], ["z.py", "w"]]),
]}}}
VERDICTS = {v.key: v for v in (
    Verdict("demo", "a.py::f", "d.py", "x", True, "calls f"),
    Verdict("demo", "a.py::f", "e.py", "y", False, "another f"),
)}


def test_raw_adjusted_and_estimated_precision():
    a = verify.adjust(RAW["projects"]["demo"], "demo", TOOL, VERDICTS)
    assert (a.predicted, a.tp, a.truth, a.extras) == (6, 2, 3, 4)
    assert (a.verified_real, a.verified_false, a.unverified, a.oracle_false) == (1, 1, 2, 0)
    assert a.precision() == pytest.approx(2 / 6)
    assert a.precision("adjusted") == pytest.approx(3 / 6)
    # f.py: its scenario's rate (1 of 2 real); z.py: the project's rate (1 of 2 real)
    assert a.precision("estimated") == pytest.approx((2 + 1 + 0.5 + 0.5) / 6)
    # recall: the verified-real extra joins the truth and is found
    assert a.recall() == pytest.approx(2 / 3)
    assert a.recall("adjusted") == pytest.approx(3 / 4)


def test_an_oracle_caller_verified_wrong_leaves_the_truth():
    verdicts = {**VERDICTS, ("demo", "a.py::f", "c.py", "h"): Verdict(
        "demo", "a.py::f", "c.py", "h", False, "reads the getter, not the setter")}
    a = verify.adjust(RAW["projects"]["demo"], "demo", TOOL, verdicts)
    assert a.oracle_false == 1
    assert a.recall("adjusted") == pytest.approx(3 / 3)  # truth: b.py g (x2), d.py x
    assert a.precision("adjusted") == pytest.approx(3 / 6)
    assert "1 oracle callers wrong" in verify.section(RAW, verdicts)


def test_sample_is_per_scenario_seeded_and_capped():
    rows = [(("p", "s1", f"f{i}.py", "x"), i) for i in range(30)]
    rows += [(("p", "s2", "g.py", "y"), 1)]
    first = verify.sample(rows, 10)
    assert first == verify.sample(list(reversed(rows)), 10)
    assert sum(r[0][1] == "s1" for r in first) == 10
    assert [r for r in first if r[0][1] == "s2"] == [rows[-1]]


def test_verdict_file_round_trip_and_duplicates(tmp_path):
    row = {"project": "demo", "scenario": "a.py::f", "path": "d.py", "symbol": "x",
           "real": True, "why": "calls f"}
    file = tmp_path / "v.json"
    file.write_text(json.dumps({"verdicts": [row]}))
    assert list(verify.load_verdicts(file)) == [("demo", "a.py::f", "d.py", "x")]
    file.write_text(json.dumps({"verdicts": [row, row]}))
    with pytest.raises(ValueError, match="two verdicts"):
        verify.load_verdicts(file)


def test_section_states_counts_and_keeps_raw():
    text = verify.section(RAW, VERDICTS)
    assert "demo: 1 extras real, 1 not, 0 oracle callers wrong" in text
    assert f"| {TOOL} | demo | 4 | 1 / 1 | 0 | 33% | 50% | 67% | 67% | 75% |" in text


def test_committed_verdicts_are_well_formed():
    verdicts = verify.load_verdicts()
    for v in verdicts.values():
        assert v.why.strip(), v
        assert "::" in v.scenario, v
