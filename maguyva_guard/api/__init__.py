"""The stable Python API: the questions the CLI and the MCP server ask, as typed answers.

    from maguyva_guard import api

    found = api.search(".", "where is the config parsed?")
    for hit in found.results:
        print(hit.path, hit.line_start, hit.symbol, hit.modalities)
    blast = api.impact(".", symbol="mypkg.config.parse_config")
    print(blast.summary)  # "3 affected callers of 1 changed symbol (complete)"

Every function takes `repo` (any folder inside a git working tree), brings the index up to
date with the staged content first (as `check` and `query` do), and returns a frozen record
whose `index` says what the index held when it answered. The user's mistakes (a symbol that
names nothing, an unknown revision, a folder outside a work tree) raise errors.FatalError
with a one-line message. API_VERSION is the JSON contract's "version": records gain fields,
they never lose or rename one.

Where it sits: above report/, below commands/ (the query and check cores call it) and the
MCP server (commands/mcpserver.py). Its records live in api/records.py.

May import: every stage up to report; commands/ and cli.py import it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import replace

from maguyva_guard import git, spec
from maguyva_guard.api.records import (
    API_VERSION,
    CallersAnswer,
    DefinitionAnswer,
    ImpactAnswer,
    SearchAnswer,
    SearchHit,
    TestsAnswer,
)
from maguyva_guard.config import Config, load_config
from maguyva_guard.errors import FatalError
from maguyva_guard.guard import batch, naming
from maguyva_guard.guard import impact as guard
from maguyva_guard.guard import symbol as symbols
from maguyva_guard.guard.model import STAGED, ImpactReport
from maguyva_guard.index import centrality, freshness, indexer
from maguyva_guard.index.freshness import IndexState
from maguyva_guard.index.store import Store
from maguyva_guard.search import engine

__all__ = ["API_VERSION", "CallersAnswer", "DefinitionAnswer", "ImpactAnswer", "IndexState",
           "TestsAnswer",
           "SearchAnswer", "SearchHit", "callers", "definition", "explain", "impact", "search"]

SNIPPET_LINES = 2  # of a search result's first lines
SNIPPET_CHARS = 160
SNIPPET_WINDOW = 6  # lines looked at for the SNIPPET_LINES worth showing
DOC_QUOTES = frozenset({'"""', "'''", 'r"""', "r'''"})  # a docstring's opening line alone


def search(repo: str, question: str, *, preset: str = spec.DEFAULT, limit: int = 10,
           snippets: bool = False, worktree: bool = True,
           progress: indexer.Progress | None = None) -> SearchAnswer:
    """The fused search: intent, plan, modalities run in parallel, ranked results.

    `snippets` adds each result's first lines; `worktree` False skips comparing the working
    tree with the index (`index.up_to_date` None), as the CLI does."""
    pending = freshness.Comparison(repo, worktree)
    with Store.open(repo, exclusive=True) as store:
        indexer.update(store, progress=progress)
        settings = load_config(store.root)
        response = engine.search(store, question, preset=preset, limit=limit,
                                 config=settings.semantic)
        hits = tuple(SearchHit.of(r, _snippet(store, r.path, r.line_start) if snippets else "")
                     for r in response.results)
        index = _staged_state(store, pending)
    return SearchAnswer.of(response, hits, index)


def explain(repo: str, question: str, *, preset: str = spec.DEFAULT, limit: int = 10,
            worktree: bool = True) -> SearchAnswer:
    """search's answer, read for its plan: the classifier's rule and terms, the strategy, k,
    the notes, and every result's score contributions (what `query --explain` shows)."""
    return search(repo, question, preset=preset, limit=limit, worktree=worktree)


def definition(repo: str, name: str, *, worktree: bool = True) -> DefinitionAnswer:
    """Where `name` is defined: a qualified name, a dotted suffix of one, or a bare name
    (every definition of it; in any case when no case-exact one exists)."""
    if not name.strip():
        raise FatalError("the name is empty")
    pending = freshness.Comparison(repo, worktree)
    with Store.open(repo, exclusive=True) as store:
        indexer.update(store)
        found = symbols.find(store, name) or store.definitions(name_caseless=name.strip())
        if not found:
            raise FatalError(f"no definition of {name!r} in the index "
                             f"({len(store.files())} files of the staged view)")
        index = _staged_state(store, pending)
    ordered = sorted(found, key=lambda d: (d.qualified_name, d.path, d.line_start))
    return DefinitionAnswer(name=name, definitions=tuple(ordered), index=index)


def impact(repo: str, *, symbol: str | None = None, base: str | None = None,
           head: str | None = None, staged: bool = False, preset: str | None = None,
           depth: int | None = None, worktree: bool = True,
           progress: indexer.Progress | None = None,
           after: Callable[[Store], None] | None = None,
           hold: ExitStack | None = None) -> ImpactAnswer:
    """What a change can break: the staged changes (the default), the revision range
    merge-base(base, head)..head, or, with `symbol`, an edit inside that one symbol's body.
    `preset` and `depth` default to the repository's configuration (thorough, 2). `after`
    reads more of the index before its lock is released (check's tests to run); with
    `hold`, the index stays open until it closes (guard/impact.py)."""
    if symbol is not None and (base or head or staged):
        raise FatalError("give a symbol or revisions (base/head, staged), not both")
    if staged and (base or head):
        raise FatalError("staged cannot be combined with base or head")
    info = git.repo_info(repo)
    config = load_config(info.root).merged(preset=preset, depth=depth)
    if symbol is not None:
        return _symbol_impact(str(info.root), symbol, config, worktree, progress)
    pending = freshness.Comparison(str(info.root), worktree and base is None)
    with batch.collector_paused():  # a check makes millions of objects, no cycles
        result = guard.check(
            str(info.root), base=base, head=head, preset=config.preset, depth=config.depth,
            semantic_config=config.semantic, max_file_size=config.max_file_size,
            progress=progress, after=after, hold=hold,
        )
    head_rev = None if result.head == STAGED else result.head
    result = _excluded(_for_users(result, str(info.root), head_rev), config)
    view = indexer.STAGED_VIEW
    if base is not None:
        view = f"{freshness.TREE_PREFIX}{git.resolve(str(info.root), head or 'HEAD')}"
    return ImpactAnswer.of(result, pending.state(view, result.stats.files_indexed))


def callers(repo: str, symbol: str, *, depth: int = 1, preset: str | None = None,
            worktree: bool = True) -> CallersAnswer:
    """Who calls `symbol` (to `depth`), each with its confidence and chain; name-only
    matches apart in `possible`; `complete` False (with reasons) for a lower bound."""
    answer = impact(repo, symbol=symbol, depth=depth, preset=preset, worktree=worktree)
    (target,) = answer.changed_symbols
    return CallersAnswer(
        symbol=target, depth=depth, callers=answer.affected, possible=answer.possible,
        complete=answer.complete, incomplete_reasons=answer.incomplete_reasons,
        index=answer.index,
    )


def tests(repo: str, *, base: str | None = None, head: str | None = None,
          staged: bool = False, preset: str | None = None, depth: int | None = None,
          worktree: bool = True) -> TestsAnswer:
    """The tests the staged changes (or merge-base(base, head)..head) can break, as
    `maguyva-guard tests` selects them: through callers, imports and fixtures, or all of
    them with the reasons when the change cannot be followed."""
    from maguyva_guard.commands import tests as selecting

    if staged and (base or head):
        raise FatalError("staged cannot be combined with base or head")
    if head and not base:
        raise FatalError("head needs base: give the base revision too (or neither)")
    root = str(git.repo_info(repo).root)
    pending = freshness.Comparison(root, worktree and base is None)
    outcome = selecting.run(root, base=base, head=head, preset=preset, depth=depth, fmt="json")
    view = indexer.STAGED_VIEW
    if base is not None:
        view = f"{freshness.TREE_PREFIX}{git.resolve(root, head or 'HEAD')}"
    with Store.open(root) as store:
        files = len(store.files())
    return TestsAnswer(outcome.selection, pending.state(view, files))


def _symbol_impact(root: str, symbol: str, config: Config, worktree: bool,
                   progress: indexer.Progress | None) -> ImpactAnswer:
    pending = freshness.Comparison(root, worktree)
    with Store.open(root, exclusive=True) as store:
        indexer.update(store, progress=progress, max_size=config.max_file_size)
        centrality.refresh(store)
        result = symbols.impact(store, symbol, preset=config.preset, depth=config.depth,
                                semantic_config=config.semantic)
        index = _staged_state(store, pending)
    return ImpactAnswer.of(_excluded(_for_users(result, root, None), config), index)


def _for_users(result: ImpactReport, root: str, head: str | None) -> ImpactReport:
    """Names as the project's users write them (src-layout, package.json, go.mod), read
    from the revision `head` (None: the staged index)."""
    return naming.for_users(result, naming.roots_at(root, head))


def _excluded(result: ImpactReport, config: Config) -> ImpactReport:
    if not config.exclude:
        return result
    return replace(result, affected=tuple(a for a in result.affected
                                          if not config.is_excluded(a.path)))


def _staged_state(store: Store, pending: freshness.Comparison) -> IndexState:
    """The staged view's state; its digest is the one the update just compared."""
    return pending.state(indexer.STAGED_VIEW, len(store.files()), store.meta_get("view_digest"))


def _snippet(store: Store, path: str, line: int) -> str:
    """The result's first lines with something to read (a bare docstring quote is skipped),
    stripped and joined, cut at SNIPPET_CHARS."""
    window = store.text(path).splitlines()[max(line - 1, 0): line - 1 + SNIPPET_WINDOW]
    kept = [s.strip() for s in window if s.strip() and s.strip() not in DOC_QUOTES]
    text = " ⏎ ".join(kept[:SNIPPET_LINES])
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"
