"""Mentions, not callers: what a fallback search finds for a change no symbol holds.

A module-level statement, a configuration key or a file in a language without symbol
support cannot be resolved to callers. The guard still says where the code names what the
change touched, but apart from the callers: a word search proves no dependency, so its
hits are never counted in the summary or the risk, and each change shows at most
MENTIONS_PER_CHANGE of them ("and N more").

The terms searched are those of the changed lines that can name code AND that the index
knows: an identifier that some definition of the repository has as its name, or a literal
without spaces. English words in a changelog never get this far (changes.STOP_WORDS, and
prose is not searched at all: guard.files).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Protocol

from maguyva_guard import spec
from maguyva_guard.guard import reexports
from maguyva_guard.records import Fallback, Hit, Mention
from maguyva_guard.retrievers.base import SearchRequest

MENTIONS_PER_CHANGE: Final = 20  # listed per change; the rest are counted ("and N more")
TERMS_PER_CHANGE: Final = 8  # known terms searched per change, in the order of the lines
HITS_PER_TERM: Final = 50  # enough to count past the cap without reading every file


class Searcher(Protocol):
    def search(self, request: SearchRequest) -> list[Hit]: ...


@dataclass(frozen=True)
class Found:
    """The mentions of all fallbacks, the fallbacks with the terms actually searched, and
    per change (`because_of`) how many mentions were found beyond those listed."""

    fallbacks: tuple[Fallback, ...]
    mentions: tuple[Mention, ...]
    hidden: tuple[tuple[str, int], ...]


def cause(fb: Fallback) -> str:
    return fb.path + ":<module>"


def known_terms(conn: sqlite3.Connection, candidates: Iterable[str]) -> list[str]:
    """The candidates the index knows, in order, at most TERMS_PER_CHANGE: identifiers that
    name a definition; quoted literals are kept (their hits are the evidence)."""
    out: list[str] = []
    for term in candidates:
        if len(out) >= TERMS_PER_CHANGE:
            break
        if term.startswith('"') or _named(conn, term):
            out.append(term)
    return out


def _named(conn: sqlite3.Connection, name: str) -> bool:
    """A definition of the repository has this name (builtins and the standard library's
    names, referenced everywhere, are not evidence of anything)."""
    return conn.execute("SELECT 1 FROM defs WHERE name = ? LIMIT 1", (name,)).fetchone() is not None


def search(conn: sqlite3.Connection, text: Searcher | None,
           fallbacks: Iterable[Fallback], drop_if_unknown: frozenset[str] = frozenset()) -> Found:
    """Search each fallback's known terms with the text modality; cap the mentions.

    A fallback of a path in `drop_if_unknown` (configuration) with no term the index knows
    is dropped: none of its changed keys is named by the code. So is one for imported names
    a module dropped when no reference takes them from it (guard.reexports)."""
    kept: list[Fallback] = []
    mentions: list[Mention] = []
    hidden: list[tuple[str, int]] = []
    for fb in fallbacks:
        terms = known_terms(conn, fb.queries)
        if not terms and (fb.path in drop_if_unknown
                          or fb.reason.startswith(reexports.IMPORTS_REMOVED)):
            continue  # no changed key, no dropped import names anything of the repository
        kept.append(Fallback(fb.path, fb.reason, tuple(terms)))
        found: dict[tuple[str, int], Mention] = {}
        if fb.reason.startswith(reexports.IMPORTS_REMOVED):
            for term in terms:  # who takes the name from this module, not every use of it
                for path, line, symbol in reexports.takers(conn, fb.path, term):
                    found.setdefault((path, line), Mention(path, line, symbol, cause(fb), term))
            if not found:  # the index's imports and references say nobody does
                kept.pop()
                continue
        elif text is not None:
            for term in terms:
                word = term.strip('"')
                request = SearchRequest(query=word, intent=spec.EXACT_MATCH, terms=(word,),
                                        limit=HITS_PER_TERM, exclude_paths=frozenset({fb.path}))
                for h in text.search(request):
                    found.setdefault((h.path, h.line_start),
                                     Mention(h.path, h.line_start, h.symbol, cause(fb), term))
        ordered = list(found.values())  # best first: the text modality ranks source first
        mentions.extend(ordered[:MENTIONS_PER_CHANGE])
        if len(ordered) > MENTIONS_PER_CHANGE:
            hidden.append((cause(fb), len(ordered) - MENTIONS_PER_CHANGE))
    return Found(tuple(kept), tuple(mentions), tuple(hidden))
