"""The pull-request comment, made to fit: GitHub refuses a body over 65,536 characters.

What a reader needs first comes first and is cut last: the summary, the table of changed
symbols, the picture. Then the per-symbol sections in risk order. When the whole report does
not fit, the callers listed per symbol are cut first (the same number for every symbol,
the largest that fits), then the sections from the least risky up, then the table's rows,
each cut saying "and N more" and where the rest is: the Action writes the full report to
the job summary and uploads the JSON and SARIF as an artifact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from maguyva_guard.report.groups import groups

if TYPE_CHECKING:
    from maguyva_guard.guard.model import ImpactReport
    from maguyva_guard.report.groups import SymbolGroup

# GitHub's limit is 65,536; the margin is for what `comment` adds around the report (the
# marker line, the link to the artifact, the note that a report was cut).
MAX_COMMENT_CHARS: Final = 60_000
# A GitHub job summary holds 1 MiB per step: the Action's fuller copy of the report.
MAX_SUMMARY_CHARS: Final = 1_000_000
# Said where a list is cut by --max-callers (a choice of the user, not a lack of room).
LIMIT_NOTE: Final = "the JSON report lists every caller"
# Said where a list is cut to make the comment fit.
FIT_NOTE: Final = "see the job summary / the JSON artifact"
POSSIBLE_SHOWN: Final = 20
FALLBACKS_SHOWN: Final = 50


@dataclass(frozen=True)
class Cut:
    """How much of each part of the comment is shown."""

    callers: int  # per changed symbol; 0: all
    sections: int  # per-symbol sections shown, riskiest first
    table: int  # rows of the changed-symbols table
    possible: int
    fallbacks: int
    note: str


Render = Callable[["list[SymbolGroup]", "list[SymbolGroup]", Cut], str]


def fit(report: ImpactReport, max_callers: int, render: Render,
        limit: int = MAX_COMMENT_CHARS) -> str:
    """The longest rendering of `report` within `limit` characters, cut as described above."""
    all_groups = groups(report, max_callers)
    most = max((len(g.callers) for g in all_groups), default=0)
    n_table = sum(1 for g in all_groups if g.changed)
    n_sections = sum(1 for g in all_groups if g.callers)
    full = Cut(max_callers, n_sections, n_table, POSSIBLE_SHOWN,
               len(report.fallbacks) or FALLBACKS_SHOWN, LIMIT_NOTE)

    def attempt(cut: Cut) -> str:
        shown = all_groups if cut.callers == max_callers else groups(report, cut.callers)
        table = [g for g in shown if g.changed][: cut.table]
        sections = [g for g in shown if g.callers][: cut.sections]
        return render(table, sections, cut)

    text = attempt(full)
    if len(text) <= limit:
        return text
    cap = most if max_callers <= 0 else min(max_callers, most)
    cut = Cut(cap, n_sections, n_table, 1, min(len(report.fallbacks), FALLBACKS_SHOWN), FIT_NOTE)
    # Shrink each part in turn to its smallest until the whole fits; then give the part shrunk
    # last the most room that fits (a binary search: a rendering costs milliseconds).
    for name, smallest, top in (("callers", 1, cap), ("sections", 0, n_sections),
                                ("table", 0, n_table)):
        cut = _replace(cut, name, smallest)
        if len(attempt(cut)) <= limit:
            return _grow(attempt, cut, name, top, limit)
    return attempt(cut)


def _grow(attempt: Callable[[Cut], str], cut: Cut, name: str, top: int, limit: int) -> str:
    """The rendering with `name` as large as fits, between its current value and `top`."""
    low, high = getattr(cut, name), top
    best = attempt(cut)
    while low < high:
        middle = (low + high + 1) // 2
        text = attempt(_replace(cut, name, middle))
        if len(text) <= limit:
            low, best = middle, text
        else:
            high = middle - 1
    return best


def _replace(cut: Cut, name: str, value: int) -> Cut:
    fields = {"callers": cut.callers, "sections": cut.sections, "table": cut.table, name: value}
    return Cut(fields["callers"], fields["sections"], fields["table"], cut.possible,
               cut.fallbacks, cut.note)
