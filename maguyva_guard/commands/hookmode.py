"""What `check --hook` changes: a hook must never be why a commit cannot be made.

Hook mode is explicit: the scripts `install-hook` writes and the pre-commit framework's
entry (.pre-commit-hooks.yaml) pass `--hook`; nothing is guessed from the environment, so
the same command in CI keeps failing loudly. In hook mode:

- a failure of the tool itself (bad settings, a full disk, a read-only cache, a lock held
  by a suspended run, an internal error) is one warning line and exit 0: the commit goes
  ahead. `--strict` restores the plain exit codes (2, 3).
- the index lock is waited for a few seconds, not two minutes.
- a pass prints a short report (the summary, the top callers of each changed symbol and how
  to see the rest): pre-commit shows it with `verbose: true` on every commit.
- a block by `--fail-on` says in one line which symbol, which risk, the threshold, and how
  to skip the hook once.
"""

from __future__ import annotations

from typing import Final

from maguyva_guard.guard import risk
from maguyva_guard.guard.model import ImpactReport
from maguyva_guard.report import render as report
from maguyva_guard.report.groups import groups

HOOK_LOCK_WAIT_SECONDS: Final = 5.0  # a suspended run must not hold every commit for minutes
BRIEF_CALLERS: Final = 3  # callers shown per changed symbol in a hook's report
BRIEF_SYMBOLS: Final = 10  # changed symbols shown in a hook's report, riskiest first
FULL_REPORT_HINT: Final = "maguyva-guard: the full report: maguyva-guard check{args}"
COMMIT_BYPASS: Final = "git commit --no-verify"
PUSH_BYPASS: Final = "git push --no-verify"


def brief(result: ImpactReport, *, color: bool, max_callers: int, args: str) -> str:
    """The text report cut to what a hook's output can hold, and how to see the rest."""
    callers = min(max_callers, BRIEF_CALLERS) if max_callers > 0 else BRIEF_CALLERS
    text = report.render(result, "text", color=color, max_callers=callers,
                         max_symbols=BRIEF_SYMBOLS)
    found = groups(result, callers)
    if len(found) > BRIEF_SYMBOLS or any(g.hidden for g in found):
        text += FULL_REPORT_HINT.format(args=args) + "\n"
    return text


def blocked_line(result: ImpactReport, fail_on: str, bypass: str | None) -> str | None:
    """One line naming the riskiest changed symbol at or above `fail_on`, or None."""
    over = [c for c in result.changed_symbols if risk.exceeds(c.risk, fail_on)]
    if not over:
        return None
    worst = max(over, key=lambda c: risk.LEVELS.index(c.risk))
    others = f" (and {len(over) - 1} more)" if len(over) > 1 else ""
    line = (f"maguyva-guard: blocked: {worst.qualified_name} ({worst.change.replace('_', ' ')})"
            f" has risk {worst.risk}{others}, at or above --fail-on {fail_on}")
    return line + (f"; to skip the check once: {bypass}" if bypass else "")


def let_through(message: str) -> str:
    """The warning a hook prints instead of failing for its own reasons."""
    return (f"maguyva-guard: warning: not checked: {message}; letting it through"
            " (--strict blocks instead)")
