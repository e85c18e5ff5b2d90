"""Callers grouped by the changed symbol they depend on, riskiest first (text, Markdown)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from maguyva_guard.config import DEFAULT_MAX_CALLERS
from maguyva_guard.guard.model import ImpactReport, ranked
from maguyva_guard.guard.risk import LEVELS, is_due_to
from maguyva_guard.records import Affected, ChangedSymbol


@dataclass(frozen=True)
class SymbolGroup:
    """The callers of one changed symbol, or (`changed` None) the callers due to something
    that is not a changed symbol, such as a fallback search for a module-level edit."""

    label: str  # the changed symbol's qualified name, or the `because_of` entry
    changed: ChangedSymbol | None
    callers: tuple[Affected, ...]  # ranked, all of them
    shown: tuple[Affected, ...]  # the first `max_callers`
    possible: int = 0  # its possible (name-only) callers, listed apart from `callers`

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
        group = _group(changed.qualified_name, changed, mine, max_callers)
        maybe = sum(1 for a in report.possible if is_due_to(a, changed))
        out.append(replace(group, possible=maybe) if maybe else group)
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
