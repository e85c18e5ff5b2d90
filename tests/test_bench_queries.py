"""bench/queries.py: the labelled query set is well formed, and the scorer counts right."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import queries  # noqa: E402
from bench.corpus import REPOS  # noqa: E402

PROJECT, QUERIES = queries.load()
CORPUS = REPOS / PROJECT.replace("==", "-")


def test_the_set_is_large_spread_over_every_kind_and_without_duplicates():
    assert len(QUERIES) >= 110
    texts = [q.text for q in QUERIES]
    assert len(set(texts)) == len(texts)
    for kind in queries.KINDS:
        assert sum(q.kind == kind for q in QUERIES) >= 10, kind
    assert {q.kind for q in QUERIES} <= set(queries.KINDS)


def test_every_label_is_a_plausible_repository_path():
    for q in QUERIES:
        assert q.labels, q.text
        for label in q.labels:
            path = PurePosixPath(label)
            assert not path.is_absolute() and ".." not in path.parts and "\\" not in label
            assert path.parts[0] in ("django", "tests") and path.suffix == ".py", label


@pytest.mark.skipif(not (CORPUS / ".git").is_dir(), reason="corpus repository not built")
def test_labels_are_tracked_files_and_literals_occur_in_them():
    tracked = set(subprocess.run(["git", "-C", str(CORPUS), "ls-files"], capture_output=True,
                                 text=True, check=True).stdout.splitlines())
    for q in QUERIES:
        assert set(q.labels) <= tracked, q.text
        if q.kind == "literal":
            head = q.text.strip('"')[:40]  # a long message may wrap onto a second source line
            for label in q.labels:
                assert head in (CORPUS / label).read_text(encoding="utf-8"), (q.text, label)


def test_rank_is_the_first_labelled_file_among_distinct_files():
    files = queries.distinct_files(["a.py", "a.py", "b.py", "c.py"])
    assert files == ("a.py", "b.py", "c.py")
    assert queries.rank_of(files, ["c.py", "b.py"]) == 2
    assert queries.rank_of(files, ["z.py"]) is None
    many = queries.distinct_files(f"{i}.py" for i in range(20))
    assert len(many) == queries.CUTOFF and queries.rank_of(many, ["10.py"]) is None


def test_summary_counts_hits_at_1_and_10_zero_results_and_latency():
    rows = [{"rank": 1, "files": ("a",), "seconds": 0.010},
            {"rank": 4, "files": ("x", "y", "z", "b"), "seconds": 0.020},
            {"rank": None, "files": ("x",), "seconds": 0.030},
            {"rank": None, "files": (), "seconds": 1.000}]
    s = queries.summarise(rows)
    assert s["n"] == 4
    assert s["zero"] == 0.25 and s["hit1"] == 0.25 and s["hit10"] == 0.5
    assert s["mrr"] == pytest.approx((1 + 1 / 4) / 4)
    assert s["median_ms"] == pytest.approx(25.0) and s["p95_ms"] == pytest.approx(1000.0)


def test_grep_baseline_ranks_files_by_count_and_maps_queries_to_terms():
    assert queries.rank_grep_counts("b.py:3\na.py:3\nc.py:9\n") == ("c.py", "a.py", "b.py")
    assert queries.grep_args('"Session data corrupted"') == [
        "-i", "-F", "-e", "Session data corrupted"]
    assert queries.grep_args("who calls timezone.now") == ["-w", "-F", "-e", "now"]
    assert queries.grep_args("how are passwords hashed") == [
        "-i", "-w", "-F", "-e", "passwords", "-e", "hashed"]
