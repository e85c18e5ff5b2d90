"""Scores of one tool over many scenarios, against the oracle's callers.

Precision and recall are pooled (micro-averaged): every caller of every scenario weighs the
same. recall@10 is per scenario, over min(10, |truth|) so that a perfect ranking scores 1,
then averaged. A crash counts as an empty answer for recall and is also counted apart.
The false-safe rate is the share of scenarios with callers where the tool said "nothing
affected" (crashes excluded: they are not a silent all-clear).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from bench.oracle import Caller

TOP_K = 10


@dataclass(frozen=True)
class Outcome:
    """One tool on one scenario."""

    truth: frozenset[Caller]
    ranked: tuple[Caller, ...]
    ok: bool
    seconds: float
    max_rss_mb: float


@dataclass(frozen=True)
class Score:
    scenarios: int
    caller_precision: float | None
    caller_recall: float | None
    file_precision: float | None
    file_recall: float | None
    recall_at_10: float | None
    false_safe_rate: float | None
    crash_rate: float
    median_seconds: float | None
    p90_seconds: float | None
    peak_rss_mb: float | None


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile: simple and exact on small samples."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def score(outcomes: Sequence[Outcome]) -> Score:
    tp = predicted = actual = 0
    ftp = fpred = factual = 0
    at_k: list[float] = []
    safe = with_truth_ok = crashes = 0
    for o in outcomes:
        got = set(o.ranked) if o.ok else set()
        tp += len(got & o.truth)
        predicted += len(got)
        actual += len(o.truth)
        files, true_files = {c.path for c in got}, {c.path for c in o.truth}
        ftp += len(files & true_files)
        fpred += len(files)
        factual += len(true_files)
        if o.truth:
            top = set(o.ranked[:TOP_K]) if o.ok else set()
            at_k.append(len(top & o.truth) / min(TOP_K, len(o.truth)))
        crashes += not o.ok
        if o.truth and o.ok:
            with_truth_ok += 1
            safe += not got
    times = [o.seconds for o in outcomes if o.ok]
    mems = [o.max_rss_mb for o in outcomes if o.ok]
    return Score(
        scenarios=len(outcomes),
        caller_precision=_ratio(tp, predicted),
        caller_recall=_ratio(tp, actual),
        file_precision=_ratio(ftp, fpred),
        file_recall=_ratio(ftp, factual),
        recall_at_10=statistics.fmean(at_k) if at_k else None,
        false_safe_rate=_ratio(safe, with_truth_ok),
        crash_rate=crashes / len(outcomes) if outcomes else 0.0,
        median_seconds=statistics.median(times) if times else None,
        p90_seconds=percentile(times, 0.9),
        peak_rss_mb=max(mems) if mems else None,
    )
