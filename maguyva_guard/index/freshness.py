"""How fresh the index was when it answered: which view it held, and what it did not hold.

The index holds the staged content (or, for a check of a revision range, the head's tree),
never the working tree: an agent that edited a file without staging it must be told that
the answer does not see that edit, instead of getting a normal-looking answer from an old
view. `state` says so, with the paths (the first few; all of them counted).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from maguyva_guard import git
from maguyva_guard.index.indexer import STAGED_VIEW

if TYPE_CHECKING:
    from concurrent.futures import Future

LISTED_PATHS: Final = 20  # paths named per kind; the counts are always whole
TREE_PREFIX: Final = "tree:"


@dataclass(frozen=True)
class IndexState:
    """The view an answer was computed on, and what of the working tree it did not see.

    `up_to_date` is True when the index held exactly what the question was about: for the
    staged view, the working tree has no unstaged edit and no untracked file; for a revision
    range, the head's tree (the working tree is not what was asked about). None: not looked
    at (the CLI, which does not show it, skips the two git calls).
    """

    view: str  # "staged", or "tree:<commit>" for a revision range
    files: int  # paths in the view
    up_to_date: bool | None
    unstaged: tuple[str, ...] = ()  # tracked files edited but not staged (first LISTED_PATHS)
    untracked: tuple[str, ...] = ()  # untracked, not ignored paths (first LISTED_PATHS)
    unstaged_count: int = 0
    untracked_count: int = 0
    digest: str = ""  # the view's fingerprint: the same digest, the same index

    @property
    def note(self) -> str:
        """One sentence for a reader: what the answer did not see, or that it saw it all."""
        if self.view.startswith(TREE_PREFIX):
            return f"the index held the tree of {self.view.removeprefix(TREE_PREFIX)[:12]}"
        if self.up_to_date is None:
            return "the working tree was not compared with the index"
        if self.up_to_date:
            return "the index held the working tree's content (staged = working tree)"
        parts = []
        if self.unstaged_count:
            parts.append(f"{self.unstaged_count} tracked file(s) edited but not staged "
                         "(answered from their staged content)")
        if self.untracked_count:
            parts.append(f"{self.untracked_count} untracked path(s) not indexed")
        return "; ".join(parts) + ": `git add` them to include them"


class Comparison:
    """The working tree compared with the staged index, started at once and run in the
    background while the question is answered: two walks of the working tree, 0.1 to 0.2 s
    on Django, hidden behind the answer instead of added to it.

    `enabled` False compares nothing (the CLI, which does not show it): the state then
    claims nothing (up_to_date None).
    """

    def __init__(self, repo: str, enabled: bool = True) -> None:
        self.repo = repo
        self.pending: Future[tuple[list[str], list[str]]] | None = None
        if enabled:  # (the CLI does not compare: it does not import the thread pool)
            from concurrent.futures import ThreadPoolExecutor

            pool = ThreadPoolExecutor(1, thread_name_prefix="worktree")
            self.pending = pool.submit(git.worktree_changes, repo)
            pool.shutdown(wait=False)

    def state(self, view: str, files: int, digest: str | None = None) -> IndexState:
        """The IndexState of an index just brought up to date with `view`; `digest` is the
        staged view's fingerprint (computed here when not given)."""
        if view != STAGED_VIEW:
            return IndexState(view=view, files=files, up_to_date=True, digest=view)
        if self.pending is None:
            return IndexState(view=view, files=files, up_to_date=None, digest=digest or "")
        if digest is None:
            digest = hashlib.sha1(git.ls_index_raw(self.repo)).hexdigest()
        unstaged, untracked = self.pending.result()
        return IndexState(
            view=view, files=files, up_to_date=not unstaged and not untracked,
            unstaged=tuple(unstaged[:LISTED_PATHS]), untracked=tuple(untracked[:LISTED_PATHS]),
            unstaged_count=len(unstaged), untracked_count=len(untracked), digest=digest,
        )
