"""The guard: from a diff to the callers it can break.

Owns the change mapper (changes.py: changed lines to changed symbols), the impact analysis
(impact.py: the engine asked about each changed symbol, callers ranked), risk (risk.py) and
the report model the analysis returns (model.py), and the tests to run (tests_to_run.py:
the rules; testview.py: the test files read from the index, kept there file by file
(testviewstore.py); testbases.py: test classes deriving from a value; testpicker.py: the selection
and its import-graph walks; testfallbacks.py: what selects tests without a call;
testtrails.py: the trails the report stops at, followed on for the tests, in one shared
walk (trailwalk.py) and through module-level objects (testinstances.py)).

May import: the top-level basics, extract, embed, index, retrievers and search.
"""
