"""bench/testcauses.py: each selected test of a suite put down to the rule that took it."""

from __future__ import annotations

from bench.testcauses import cause, shares, table

SUITE = ["a.py::TestX::test_1[p0]", "a.py::TestX::test_1[p1]", "a.py::test_2", "a.py::test_3",
         "b.py::test_4", "b.py::test_5", "c.py::test_6", "d.py::test_7"]


def test_each_test_is_put_down_to_its_file_or_its_own_selection():
    tests = [("a.py::TestX::test_1", "imports a test class of e.py: its tests run there too"),
             ("a.py::test_2", ""),
             ("b.py", "reached through an ambiguous edge: the whole file runs"),
             ("c.py", "x.y is reached through the depth bound: the tests importing it run")]
    assert shares(tests, False, SUITE) == {"test class imported": 0.25, "call chain": 0.125,
                                           "ambiguous edge": 0.25, "depth bound": 0.125}
    assert shares([], True, SUITE) == {"run all": 1.0}


def test_a_reason_no_cause_names_is_other_and_none_is_a_changed_test_file():
    assert cause("something new") == "other"
    assert cause("") == "changed test file"
    assert cause("x.y was left unfollowed at the walk's bound: the tests importing it run") == \
        "count bound"


def test_the_table_has_a_column_only_for_causes_some_project_met():
    rows = [{"timed_out": False, "guard": {"causes": {"call chain": 0.1}}},
            {"timed_out": False, "guard": {"causes": {"call chain": 0.3, "depth bound": 0.5}}},
            {"timed_out": True, "guard": {"causes": {"run all": 1.0}}}]
    assert table([{"project": "p", "mutants": rows}]) == [
        "| project | call chain | depth bound |", "|---|---|---|",
        "| p | 20.0% (1) | 25.0% (1) |"]
