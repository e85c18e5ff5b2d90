"""`maguyva-guard tests` without click: the guard's callers, then the tests they reach.

Formats: `text` (one line per test with its chain), `pytest` (node ids, one a line:
`pytest $(maguyva-guard tests --format pytest)`), `paths` (test files, one a line, for
jest or vitest), `json` ({version, tests, run_all, reasons}). When every test must run,
`pytest` and `paths` print nothing, so that the runner's own default (all tests) applies;
the reason goes to stderr.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from dataclasses import dataclass, replace
from typing import Final

from maguyva_guard import git
from maguyva_guard.config import load_config
from maguyva_guard.errors import FatalError
from maguyva_guard.guard import (
    impact,
    testlocals,
    testnames,
    testscopes,
    testtrails,
    testview,
)
from maguyva_guard.guard.model import ImpactReport
from maguyva_guard.guard.tests_to_run import TestSelection, chain_text, select
from maguyva_guard.index import indexer
from maguyva_guard.index.store import Store
from maguyva_guard.integrations import prepush
from maguyva_guard.report.tests_json import selection_json

FORMATS: Final = ("text", "pytest", "paths", "json")
VERSION: Final = 1
# How far callers are followed to find tests: tests sit at the far end of call chains, so
# deeper than check's default; bounded, and a caller at the bound selects its importers.
TESTS_DEPTH: Final = 8
# The trails check's "tests to run" section walks past the report's edges: none. Each is a
# graph query (1.2 s of a 2.5 s one-symbol Django check went to them): the section runs
# the tests importing the callers left there, and says that this command may select fewer.
CHECK_WALKS: Final = 0
COARSER: Final = ("coarser than `maguyva-guard tests`, which follows the trails left here "
                  f"(to depth {TESTS_DEPTH} and past name-only edges) and may select fewer")


@dataclass(frozen=True)
class Outcome:
    text: str  # stdout
    notes: tuple[str, ...]  # stderr lines
    selection: TestSelection


@git.in_session
def run(repo: str, *, base: str | None = None, head: str | None = None,
        from_env: bool = False, preset: str | None = None, depth: int | None = None,
        fmt: str = "text", progress: indexer.Progress | None = None) -> Outcome:
    if fmt not in FORMATS:
        raise FatalError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    info = git.repo_info(repo)
    config = load_config(info.root).merged(preset=preset, depth=depth)
    if from_env:
        if base or head:
            raise FatalError("--from-env cannot be combined with --base or --head")
        revs = prepush.revisions_from_env()
        if revs is None:
            empty = TestSelection((), False, ())
            return Outcome(render(empty, fmt), (), empty)
        base, head = revs
    bound = depth if depth is not None else max(config.depth, TESTS_DEPTH)
    views = ViewReader()
    with ExitStack() as hold:
        result = impact.check(
            str(info.root), base=base, head=head, preset=config.preset, depth=bound,
            semantic_config=config.semantic, max_file_size=config.max_file_size,
            progress=progress, after=views, hold=hold,
        )
        selection = selection_for(str(info.root), result, views.view, base=base, head=head,
                                  depth=bound, session=views.session)
    return Outcome(render(selection, fmt), notes(selection, fmt), selection)


class ViewReader:
    """impact.check's `after` hook: the tests' view, read while the check holds the lock,
    and the check's open view itself (`session`: with `hold`, the trails go on in it)."""

    def __init__(self) -> None:
        self._view: testview.TestView | None = None
        self.session: Store | None = None

    def __call__(self, store: Store) -> None:
        self._view = testview.load(store)
        self.session = store

    @property
    def view(self) -> testview.TestView:
        if self._view is None:
            raise RuntimeError("the check did not read the tests' view")
        return self._view


def selection_for(repo: str, result: ImpactReport, view: testview.TestView, *,
                  base: str | None, head: str | None, depth: int,
                  session: Store | None = None, max_walks: int | None = None
                  ) -> TestSelection:
    """The tests of one impact result (the diff read again for its paths: conftests,
    configuration and lock files select tests without any symbol). `session`: the check's
    view, still open (ViewReader), for the trails; `max_walks`: their count bound
    (testtrails.MAX_WALKS when None; check's section: CHECK_WALKS)."""
    revs = impact.revisions(repo, base, head)
    paths = sorted({p for f in git.diff_files(repo, revs.base, revs.head)
                    for p in (f.new_path, f.old_path) if p})
    result = _own_locals(repo, result, view, session)
    trails = testtrails.continue_trails(repo, result, view, depth, session, max_walks)
    named = testnames.named_uses(repo, list(result.changed_symbols), view, session)
    names = testscopes.naming(session, frozenset(view.files)) if session is not None else None
    selection = select(result, paths, view, depth=depth, trails=trails, named=named,
                       naming=names)
    if max_walks is None or not trails.unfollowed or selection.run_all:
        return selection
    return replace(selection, reasons=(*selection.reasons, COARSER))


def _own_locals(repo: str, result: ImpactReport, view: testview.TestView,
                session: Store | None) -> ImpactReport:
    """The report without the name-only entries no edge can lead to (testlocals)."""
    if session is not None:
        return testlocals.without_impossible_edges(result, view, session)
    with Store.open(repo) as store:
        return testlocals.without_impossible_edges(result, view, store)


def render(selection: TestSelection, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(to_json(selection), indent=2) + "\n"
    if fmt in ("pytest", "paths"):
        if selection.run_all:
            return ""
        items = [t.id for t in selection.tests] if fmt == "pytest" else \
            list(dict.fromkeys(t.path for t in selection.tests))
        return "".join(f"{i}\n" for i in items)
    return _text(selection)


def to_json(selection: TestSelection) -> dict[str, object]:
    return {"version": VERSION, **selection_json(selection)}


def _text(selection: TestSelection) -> str:
    if selection.run_all:
        lines = ["maguyva-guard: run all tests"]
        lines += [f"  because {r}" for r in selection.reasons]
        return "\n".join(lines) + "\n"
    if not selection.tests:
        return "maguyva-guard: no tests reach this change\n"
    files = len({t.path for t in selection.tests})
    lines = [f"maguyva-guard: {len(selection.tests)} to run "
             f"({files} test file{'s' if files != 1 else ''})"]
    for t in selection.tests:
        why = f"  [{t.reason}]" if t.reason else ""
        lines.append(f"  {t.id}  <- {chain_text(t)}{why}")
    lines += [f"  note: {r}" for r in selection.reasons]
    return "\n".join(lines) + "\n"


def notes(selection: TestSelection, fmt: str) -> tuple[str, ...]:
    """What the machine formats cannot say on stdout."""
    if fmt not in ("pytest", "paths"):
        return ()
    if selection.run_all:
        return tuple(f"maguyva-guard: run all tests: {r}" for r in selection.reasons)
    if not selection.tests:
        return ("maguyva-guard: no tests reach this change",)
    return ()
