"""The guard's report: the model, its summary, and `render` to text, Markdown, JSON or SARIF.

A report is honest about what it could not resolve. When any resolution was partial
(an ambiguous edge, a change that fell back to text search, a language without symbol
support), `complete` is False and every format says the list is a LOWER BOUND: the report
never claims "no impact" when it could not look.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from maguyva_guard.config import DEFAULT_MAX_CALLERS
from maguyva_guard.errors import FatalError
from maguyva_guard.guard.risk import LEVELS, is_due_to, max_risk
from maguyva_guard.records import AMBIGUOUS, Affected, ChangedSymbol, Fallback

TEXT: Final = "text"
MARKDOWN: Final = "markdown"
JSON: Final = "json"
SARIF: Final = "sarif"
FORMATS: Final = (TEXT, MARKDOWN, JSON, SARIF)

STAGED: Final = "STAGED"  # CONTRACT.md: `head` of a check of the staged changes
# Said when the core marks a report incomplete without saying why.
UNSPECIFIED_REASON: Final = "resolution was partial"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def ambiguous_reason(count: int) -> str:
    return f"{plural(count, 'caller')} reached through an ambiguous edge"


POSSIBLE_PREFIX = "possible callers:"


def possible_reason(count: int) -> str:
    return (f"{POSSIBLE_PREFIX} {plural(count, 'call site')} matched by name only (receiver"
            " type unknown), listed apart")


def fallback_reason(count: int) -> str:
    return f"{plural(count, 'change')} not pinned to a symbol, searched for by fallback queries"


@dataclass(frozen=True)
class Stats:
    files_indexed: int = 0
    index_seconds: float = 0.0
    query_seconds: float = 0.0


@dataclass(frozen=True)
class ImpactReport:
    """What one check found. `affected` may come in any order; renderers rank it.

    `complete` is made consistent on construction: it is True exactly when no incomplete
    reason remains. A report with ambiguous callers or fallbacks is never complete; when the
    core gave no reason for them, `ambiguous_reason` and `fallback_reason` say why.
    """

    repo: str
    base: str | None
    head: str
    changed_symbols: tuple[ChangedSymbol, ...]
    affected: tuple[Affected, ...]
    fallbacks: tuple[Fallback, ...] = ()
    stats: Stats = field(default_factory=Stats)
    complete: bool = True
    incomplete_reasons: tuple[str, ...] = ()
    repo_url: str | None = None  # e.g. https://github.com/owner/name: enables links
    # Call sites that match a changed symbol by name only: the receiver's type is unknown
    # and several definitions share the name. Listed apart from `affected`, never dropped.
    possible: tuple[Affected, ...] = ()

    def __post_init__(self) -> None:
        reasons = list(dict.fromkeys(self.incomplete_reasons))
        if not reasons:
            ambiguous = sum(1 for a in self.affected if a.confidence == AMBIGUOUS)
            if ambiguous:
                reasons.append(ambiguous_reason(ambiguous))
            if self.fallbacks:
                reasons.append(fallback_reason(len(self.fallbacks)))
        if self.possible and not any(r.startswith(POSSIBLE_PREFIX) for r in reasons):
            reasons.append(possible_reason(len(self.possible)))
        if not self.complete and not reasons:
            reasons.append(UNSPECIFIED_REASON)
        # Frozen, so set through object; tuples even if the caller passed lists.
        object.__setattr__(self, "changed_symbols", tuple(self.changed_symbols))
        object.__setattr__(self, "affected", tuple(self.affected))
        object.__setattr__(self, "fallbacks", tuple(self.fallbacks))
        object.__setattr__(self, "possible", tuple(self.possible))
        object.__setattr__(self, "incomplete_reasons", tuple(reasons))
        object.__setattr__(self, "complete", not reasons)

    @property
    def risk(self) -> str:
        """The highest risk of any changed symbol (what `--fail-on` compares)."""
        return max_risk(c.risk for c in self.changed_symbols)

    @property
    def summary(self) -> str:
        callers = plural(len(self.affected), "affected caller")
        symbols = plural(len(self.changed_symbols), "changed symbol")
        reasons = "; ".join(self.incomplete_reasons)
        if not self.affected:
            if self.complete:
                return f"No callers affected by {symbols}."
            return f"No affected callers found, but this is a lower bound: {reasons}"
        if self.complete:
            return f"{callers} of {symbols} (complete)"
        return f"{callers} of {symbols} (lower bound: {reasons})"


def rank_key(a: Affected) -> tuple[float, float, int, str, int, str]:
    """Best first: fused score, then centrality (SPEC 7), then nearest; then stable order."""
    return (-a.score, -a.centrality, a.depth, a.path, a.line, a.symbol)


def ranked(affected: Sequence[Affected]) -> list[Affected]:
    return sorted(affected, key=rank_key)


@dataclass(frozen=True)
class SymbolGroup:
    """The callers of one changed symbol, or (`changed` None) the callers due to something
    that is not a changed symbol, such as a fallback search for a module-level edit."""

    label: str  # the changed symbol's qualified name, or the `because_of` entry
    changed: ChangedSymbol | None
    callers: tuple[Affected, ...]  # ranked, all of them
    shown: tuple[Affected, ...]  # the first `max_callers`

    @property
    def hidden(self) -> int:
        return len(self.callers) - len(self.shown)


def groups(report: ImpactReport, max_callers: int = DEFAULT_MAX_CALLERS) -> list[SymbolGroup]:
    """The callers grouped by changed symbol, riskiest first; `max_callers` 0 shows all.

    A caller due to several changed symbols is listed under each of them. Callers due to
    something else (`because_of` naming no changed symbol) come last, grouped by that name.
    """
    order = ranked(report.affected)
    out = []
    for changed in report.changed_symbols:
        mine = tuple(a for a in order if is_due_to(a, changed))
        out.append(_group(changed.qualified_name, changed, mine, max_callers))
    out.sort(key=lambda g: (-LEVELS.index(g.changed.risk) if g.changed else 0, -len(g.callers)))
    others: dict[str, list[Affected]] = {}
    for a in order:
        if not any(is_due_to(a, c) for c in report.changed_symbols):
            for cause in a.because_of or ("",):
                others.setdefault(cause, []).append(a)
    out += [_group(cause, None, tuple(found), max_callers) for cause, found in others.items()]
    return out


def _group(
    label: str, changed: ChangedSymbol | None, callers: tuple[Affected, ...], limit: int
) -> SymbolGroup:
    return SymbolGroup(label, changed, callers, callers[:limit] if limit > 0 else callers)


def render(
    report: ImpactReport,
    fmt: str,
    *,
    color: bool = False,
    max_callers: int = DEFAULT_MAX_CALLERS,
) -> str:
    """The report in one of FORMATS, ending with a newline.

    `color` (ANSI) applies to text only: pass `sys.stdout.isatty()`. `max_callers` limits
    the callers listed per changed symbol in text and Markdown ("... and N more");
    JSON and SARIF are for machines and list every caller.
    """
    if fmt == TEXT:
        from maguyva_guard.report.templated import render_text

        return render_text(report, groups(report, max_callers), color=color)
    if fmt == MARKDOWN:
        from maguyva_guard.report.templated import render_markdown

        return render_markdown(report, max_callers)
    if fmt == JSON:
        from maguyva_guard.report.as_json import render_json

        return render_json(report)
    if fmt == SARIF:
        from maguyva_guard.report.sarif import render_sarif

        return render_sarif(report)
    raise FatalError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}")
