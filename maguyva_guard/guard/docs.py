"""Docs that may need an update: documentation naming a changed, renamed or removed symbol.

For prose, the useful direction is the reverse of a caller search: not "what does this
README line break" (nothing), but "which documentation describes the code this change
touched". A name counts only where the documentation writes it as code: inside backticks
(Markdown `parse_config`, reStructuredText ``parse_config`` or :func:`parse_config`) or
called (`parse_config(`), so that a function named `save` is not found in every sentence
about saving.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from maguyva_guard import git
from maguyva_guard.records import ADDED, RENAMED, ChangedSymbol, DocMention

DOC_PATHSPECS: Final = ("*.md", "*.markdown", "*.rst", "*.txt", "*.adoc", "*.asciidoc",
                        "README", "*/README")
DOCS_PER_SYMBOL: Final = 20  # listed per changed symbol; the rest are counted
MIN_NAME: Final = 4  # shorter names (`id`, `get`) are written in too much prose to tell


@dataclass(frozen=True)
class Review:
    docs: tuple[DocMention, ...]
    hidden: tuple[tuple[str, int], ...]  # (changed symbol, mentions not listed)


def _name(sym: ChangedSymbol) -> str:
    return sym.old_name if sym.change == RENAMED and sym.old_name else sym.name


def _as_code(name: str) -> re.Pattern[str]:
    word = rf"(?<![\w]){re.escape(name)}(?![\w])"
    return re.compile(rf"`[^`]*{word}[^`]*`|{word}\(")


def review(repo: str, rev: str | None, changed: Iterable[ChangedSymbol]) -> Review:
    """Documentation lines at `rev` (None: the staged index) naming a changed symbol as code."""
    return started(repo, rev, changed).result()


class Started:
    """`review` with its `git grep` started (reading every documentation blob: 40 ms of
    git's CPU on Django, which runs beside the callers' search when started before it)."""

    def __init__(self, repo: str, rev: str | None, changed: Iterable[ChangedSymbol]) -> None:
        self.wanted: dict[str, list[ChangedSymbol]] = {}
        for sym in changed:
            name = _name(sym)
            if sym.change != ADDED and len(name) >= MIN_NAME and not name.startswith("__"):
                self.wanted.setdefault(name, []).append(sym)
        self.grep = git.grep_words_started(repo, rev, self.wanted, DOC_PATHSPECS)

    def close(self) -> None:
        self.grep.close()

    def result(self) -> Review:
        return _review(self.wanted, self.grep.result())


def started(repo: str, rev: str | None, changed: Iterable[ChangedSymbol]) -> Started:
    return Started(repo, rev, changed)


def _review(wanted: dict[str, list[ChangedSymbol]], hits: list[git.GrepLine]) -> Review:
    if not wanted:
        return Review((), ())
    patterns = {name: _as_code(name) for name in wanted}
    per_symbol: dict[str, list[DocMention]] = {}
    for hit in hits:
        for name, pattern in patterns.items():
            if pattern.search(hit.text):
                for sym in wanted[name]:
                    per_symbol.setdefault(sym.qualified_name, []).append(
                        DocMention(hit.path, hit.line, sym.qualified_name, name))
    docs: list[DocMention] = []
    hidden: list[tuple[str, int]] = []
    for qn, found in per_symbol.items():
        docs.extend(found[:DOCS_PER_SYMBOL])
        if len(found) > DOCS_PER_SYMBOL:
            hidden.append((qn, len(found) - DOCS_PER_SYMBOL))
    return Review(tuple(docs), tuple(hidden))
