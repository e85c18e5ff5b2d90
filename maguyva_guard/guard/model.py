"""The report model: what one check found, its summary and its completeness.

The guard (impact.py) builds an ImpactReport; report/ renders it in every format. It lives
here, at the guard's level, so that the arrows run one way: guard -> report.

A report is honest about what it could not resolve. When any resolution was partial
(an ambiguous edge, a change that fell back to text search, a language without symbol
support), `complete` is False and every format says the list is a LOWER BOUND: the report
never claims "no impact" when it could not look.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from maguyva_guard.guard.files import ANALYSED
from maguyva_guard.guard.risk import is_due_to, max_risk
from maguyva_guard.records import (
    AMBIGUOUS,
    Affected,
    ChangedFile,
    ChangedSymbol,
    DocMention,
    Fallback,
    Mention,
)

if TYPE_CHECKING:
    from maguyva_guard.guard.testpicker import TestSelection

STAGED: Final = "STAGED"  # docs/json.md: `head` of a check of the staged changes
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


def only_possible_reasons(changed: Sequence[ChangedSymbol], affected: Sequence[Affected],
                          possible: Sequence[Affected]) -> list[str]:
    """Per changed symbol whose callers are all possible ones (matched by name only): the
    report lists no affected caller for it, which is a lower bound, not "no impact"."""
    out = []
    for c in changed:
        if any(is_due_to(a, c) for a in affected):
            continue
        n = sum(1 for a in possible if is_due_to(a, c))
        if n:
            out.append(f"{c.qualified_name}: no resolved caller, "
                       f"{plural(n, 'possible caller')} matched by name only (listed apart)")
    if len(out) <= UNREAD_NAMED:
        return out
    return [*out[:UNREAD_NAMED],
            f"{plural(len(out) - UNREAD_NAMED, 'more changed symbol')} with possible callers "
            "only"]


def fallback_reason(count: int) -> str:
    return (f"{plural(count, 'change')} not pinned to a symbol (what names it is listed as"
            " mentions, not callers)")


DROPPED_PREFIX: Final = "ranking partial:"


class Dropped:
    """The search modalities that failed or missed the engine's deadline (a loaded machine,
    a slow remote backend) while a check asked about its changed symbols, by modality and
    reason, with the symbols they failed for. Only the graph decides who is a caller, and
    the guard asks it again when it did not answer, so the callers stay whole; but their
    fused scores, hence their order, lack the dropped modality's evidence. Said in the
    report, never silent: two runs of one check may otherwise rank differently."""

    def __init__(self) -> None:
        self._symbols: dict[tuple[str, str], set[tuple[str, str]]] = {}

    def note(self, modality: str, reason: str, target: object) -> None:
        key = (getattr(target, "path", ""), getattr(target, "qualified_name", ""))
        self._symbols.setdefault((modality, reason), set()).add(key)

    def reasons(self) -> list[str]:
        return [f"{DROPPED_PREFIX} the {modality} search {_failed(reason)} for"
                f" {plural(len(keys), 'changed symbol')} (callers complete, ranked without"
                " its evidence)" for (modality, reason), keys in sorted(self._symbols.items())]


def _failed(reason: str) -> str:
    return reason if reason.startswith("timed out") else f"failed ({reason})"


MODULE_CAUSE: Final = ":<module>"  # `because_of` of a mention: "<path>:<module>"
# Paths listed per group of the files section in text and Markdown (JSON lists all).
FILES_SHOWN: Final = 5
# Files named one by one in the summary's reasons; past this, they are counted.
UNREAD_NAMED: Final = 3


@dataclass(frozen=True)
class FileGroup:
    """Changed files not analysed as code that share a class and a reason."""

    kind: str
    reason: str
    paths: tuple[str, ...]
    lower_bound: bool

    @property
    def shown(self) -> tuple[str, ...]:
        return self.paths[:FILES_SHOWN]

    @property
    def hidden(self) -> int:
        return max(len(self.paths) - FILES_SHOWN, 0)


def file_groups(files: Sequence[ChangedFile]) -> list[FileGroup]:
    """The not-analysed files by (class, reason), the ones that make a lower bound first."""
    by: dict[tuple[str, str, bool], list[str]] = {}
    for f in files:
        if f.treatment == "not-analysed":
            by.setdefault((f.kind, f.reason, f.lower_bound), []).append(f.path)
    out = [FileGroup(k, r, tuple(p), lb) for (k, r, lb), p in by.items()]
    return sorted(out, key=lambda g: (not g.lower_bound, g.kind))


def unread_reasons(files: Sequence[ChangedFile]) -> list[str]:
    """Why the list is a lower bound because of files whose code could not be read."""
    unread = [f for f in files if f.lower_bound and f.treatment != ANALYSED]
    # Generic-tier files are analysed, but their callers are found by name only.
    by_name = [f.path for f in files if f.lower_bound and f.treatment == ANALYSED]
    out = []
    if by_name:
        named = ", ".join(by_name[:UNREAD_NAMED]) + (", ..." if len(by_name) > UNREAD_NAMED
                                                     else "")
        out.append(f"callers of symbols in {named} matched by name only (generic tier)")
    if len(unread) <= UNREAD_NAMED:
        return [*out, *(f"{f.path} not analysed ({f.reason})" for f in unread)]
    return [*out,
            f"{plural(len(unread), 'changed file')} not analysed as code (listed under files)"]


def derived_reasons(affected: Sequence[Affected], fallbacks: Sequence[Fallback]) -> list[str]:
    """The reasons a report is a lower bound that its own entries show: ambiguous callers,
    changes searched for by fallback queries."""
    reasons = []
    ambiguous = sum(1 for a in affected if a.confidence == AMBIGUOUS)
    if ambiguous:
        reasons.append(ambiguous_reason(ambiguous))
    if fallbacks:
        reasons.append(fallback_reason(len(fallbacks)))
    return reasons


@dataclass(frozen=True)
class Stats:
    files_indexed: int = 0
    index_seconds: float = 0.0
    query_seconds: float = 0.0
    # References resolved by this check, and answered from the index's edge cache instead.
    edges_resolved: int = 0
    edges_reused: int = 0


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
    # The tests to run (`maguyva-guard tests`), when the format shows them (Markdown, JSON).
    tests: TestSelection | None = None
    # Every changed path with its class, treatment and reason (issue 17).
    files: tuple[ChangedFile, ...] = ()
    # What fallback searches found: places naming what a change touched, never callers,
    # never counted in the summary or the risk; per change, how many were not listed.
    mentions: tuple[Mention, ...] = ()
    mentions_hidden: tuple[tuple[str, int], ...] = ()
    # Documentation naming a changed or removed symbol; per symbol, how many not listed.
    docs_to_review: tuple[DocMention, ...] = ()
    docs_hidden: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        reasons = list(dict.fromkeys(self.incomplete_reasons))
        if not reasons:
            reasons = derived_reasons(self.affected, self.fallbacks)
            reasons.extend(unread_reasons(self.files))
        if self.possible and not any(r.startswith(POSSIBLE_PREFIX) for r in reasons):
            only = only_possible_reasons(self.changed_symbols, self.affected, self.possible)
            reasons.extend(r for r in only if r not in reasons)
            reasons.append(possible_reason(len(self.possible)))
        if not self.complete and not reasons:
            reasons.append(UNSPECIFIED_REASON)
        # Frozen, so set through object; tuples even if the caller passed lists.
        object.__setattr__(self, "changed_symbols", tuple(self.changed_symbols))
        object.__setattr__(self, "affected", tuple(self.affected))
        object.__setattr__(self, "fallbacks", tuple(self.fallbacks))
        object.__setattr__(self, "possible", tuple(self.possible))
        for name in ("files", "mentions", "mentions_hidden", "docs_to_review", "docs_hidden"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
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


    @property
    def not_analysed(self) -> tuple[ChangedFile, ...]:
        """The changed files not analysed as code (the report's compact files section)."""
        return tuple(f for f in self.files if f.treatment == "not-analysed")

    @property
    def mention_count(self) -> int:
        """Every mention found, listed or not."""
        return len(self.mentions) + sum(n for _, n in self.mentions_hidden)

    def mentions_for(self, fallback: Fallback) -> tuple[Mention, ...]:
        cause = fallback.path + MODULE_CAUSE
        return tuple(m for m in self.mentions if m.because_of == cause)

    def hidden_mentions(self, because_of: str) -> int:
        return dict(self.mentions_hidden).get(because_of, 0)

    def hidden_docs(self, symbol: str) -> int:
        return dict(self.docs_hidden).get(symbol, 0)


def rank_key(a: Affected) -> tuple[float, float, int, str, int, str]:
    """Best first: fused score, then centrality (design §7), then nearest; then stable order."""
    return (-a.score, -a.centrality, a.depth, a.path, a.line, a.symbol)


def ranked(affected: Sequence[Affected]) -> list[Affected]:
    return sorted(affected, key=rank_key)
