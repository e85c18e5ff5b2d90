"""The text modality (design §1): literals, error strings and exact identifiers.

Candidates come from the FTS5 trigram index (index/fulltext.py); every candidate is verified
against its text (textmatch.py), so a hit is always a real occurrence at its exact line.
A term under 3 characters has no trigram: the view's texts are scanned instead, source
first, within SCAN_MAX_BYTES / SCAN_MAX_LINES.

Matching: an identifier term (`parse_config`, `os.path.join`) matches whole words only,
case-sensitively unless the request says otherwise. Any other term is a literal substring,
always found case-insensitively; exact case and whole words rank first.

Raw score in [0, 1]: MATCH_* (whole word? exact case?) x CONTEXT_* (code, or comment and
docstring, comments.py) x the path's category (source > test > vendor/build/archive/
generated). A line found by several of the terms scores more (TERM_COVERAGE). Equal scores
are ordered so each file's best hit comes before anyone's second: the fused list, which
keeps one result per file, sees as many files as possible.

The indexer fills those tables (index/fulltext.py: `index_contents`, `drop_blobs`).
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from maguyva_guard import spec
from maguyva_guard.extract import classify
from maguyva_guard.index.fulltext import candidate_blobs, check_fts5, read_texts
from maguyva_guard.records import MODULE_SYMBOL, Definition, Hit, Span
from maguyva_guard.retrievers import pasted
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.retrievers.comments import CommentMap, CommentStyle, style_for
from maguyva_guard.retrievers.textmatch import Match, Term, find, make_term

__all__ = ["TextRetriever"]


# --- Score factors: one block; raw score = match x context x category x coverage. --------
MATCH_WHOLE_EXACT: Final = 1.0
MATCH_WHOLE_FOLDED: Final = 0.85  # right word, other case (case-insensitive requests)
MATCH_PART_EXACT: Final = 0.7  # a literal inside a longer word
MATCH_PART_FOLDED: Final = 0.6
CONTEXT_CODE: Final = 1.0
CONTEXT_COMMENT: Final = 0.5  # comments, docstrings (a source comment ranks below test code)
TEXT_CATEGORY_FACTOR: Final = {classify.SOURCE: 1.0, classify.TEST: 0.7}  # test below source ...
TEXT_OTHER_CATEGORY_FACTOR: Final = 0.25  # ... vendor, build, archive, generated below test
TERM_COVERAGE: Final = 0.3  # share of the score that depends on how many terms a line has

MAX_TERMS: Final = 8  # a request's first terms; more would multiply index look-ups
MAX_HITS_PER_FILE: Final = 50  # "who calls X" wants every line of a file; cap the pathological
SCAN_MAX_BYTES: Final = 64 << 20  # bound of the scan for terms under 3 characters
SCAN_MAX_LINES: Final = 20_000
SCAN_BATCH: Final = 256  # blobs read per statement while scanning
_SCAN_ORDER: Final = {classify.SOURCE: 0, classify.TEST: 1}
# The last view built, shared by the retrievers of later searches (the engine builds one
# per search): sorting 7k paths by category cost ~90 ms a search on Django under load.
_SHARED: list[tuple[Any, dict[str, Any], dict[str, list[str]]]] = []


class TextStore(Protocol):
    conn: sqlite3.Connection

    def files(self) -> Mapping[str, Any]: ...  # path -> FileInfo(blob, language, category)

    def definitions_in(self, path: str) -> list[Definition]: ...


@dataclass
class _Line:
    """The best match found on one line of one file, and which terms matched there."""

    match: Match
    score: float
    terms: set[str]


class TextRetriever:
    modality = spec.TEXT

    def __init__(self, store: TextStore) -> None:
        check_fts5(store.conn)  # a clear failure reason, before any query runs
        self.store = store
        self._memo: tuple[Any, dict[str, Any], dict[str, list[str]]] | None = None
        self._symbols: tuple[Any, _Symbols] | None = None
        self._found_memo: tuple[Any, dict[tuple[tuple[Term, ...], frozenset[str]],
                                          dict[tuple[str, int], _Line]]] | None = None

    def search(self, request: SearchRequest) -> list[Hit]:
        if request.message.strip() or request.frames:  # a pasted error: retrievers/pasted.py
            view, paths_of = self._view(request.exclude_paths)
            return pasted.search(self.store.conn, request, view, paths_of,
                                 _Symbols(self.store).enclosing)
        terms = request_terms(request)
        if not terms or request.limit <= 0:
            return []
        found = self._found(tuple(terms), request.exclude_paths)
        return self._ranked(found, len(terms), request.limit)

    def _found(self, terms: tuple[Term, ...], exclude: frozenset[str]
               ) -> dict[tuple[str, int], _Line]:
        """The best match per line of the terms, before ranking: kept per terms while the
        view lasts, for the same terms asked with another limit (a check asks a changed
        member's name for the text modality's 200 hits and for the graph's 2,000-line
        scans: half of a 50-symbol Django check's searches, 0.4 s of CPU, were repeats).
        The lines are only read once found: ranking never changes them."""
        files = self.store.files()
        if self._found_memo is None or self._found_memo[0] is not files:
            self._found_memo = (files, {})
        known = self._found_memo[1]
        found = known.get((terms, exclude))
        if found is not None:
            return found
        view, paths_of = self._view(exclude)
        found = {}
        # One term: a file's lines past its MAX_HITS_PER_FILE best-possible ones cannot rank,
        # so stop reading its matches there ("self" has 28k lines on Django).
        stop = MAX_HITS_PER_FILE if len(terms) == 1 else 0
        for term in terms:
            candidates = candidate_blobs(self.store.conn, term.text)
            if candidates is None:
                self._scan(term, paths_of, view, found, stop)
                continue
            texts = read_texts(self.store.conn, candidates.intersection(paths_of))
            for blob, text in texts.items():
                self._collect(term, text, paths_of[blob], view, found, stop)
        known[(terms, exclude)] = found
        return found

    def _view(self, exclude: frozenset[str]) -> tuple[Mapping[str, Any], dict[str, list[str]]]:
        """The view's files and, per blob, its paths (source first): computed once per view
        and reused while it lasts (the guard searches once per symbol and caller). With
        `exclude` (the mentions of a changed file leave that file out), derived from that
        whole view rather than sorted again: 100,000 paths for each fallback term."""
        if exclude:
            narrowed = self._narrowed(exclude)
            if narrowed is not None:
                return narrowed
        files = self.store.files()
        if not exclude and self._memo is None and _SHARED and _SHARED[0][0] is files:
            self._memo = _SHARED[0]  # another retriever of this view built it (one per search)
        if exclude or self._memo is None or self._memo[0] is not files:
            view = {p: i for p, i in files.items() if p not in exclude}
            paths_of: dict[str, list[str]] = {}
            for path in _scan_order(view):
                paths_of.setdefault(view[path].blob, []).append(path)
            if exclude:
                return view, paths_of
            self._memo = (files, view, paths_of)
            _SHARED[:] = [self._memo]
        return self._memo[1], self._memo[2]

    def _narrowed(self, exclude: frozenset[str]
                  ) -> tuple[Mapping[str, Any], dict[str, list[str]]] | None:
        """The whole view's tables without the `exclude` paths, in the order a sort of the
        rest gives; None when a blob left at another path would move in that order."""
        view, paths_of = self._view(frozenset())
        gone = [p for p in exclude if p in view]
        if not gone:
            return view, paths_of
        narrowed = dict(paths_of)
        for blob in {view[p].blob for p in gone}:
            kept = [p for p in paths_of[blob] if p not in exclude]
            if kept and kept[0] != paths_of[blob][0]:
                return None  # its place was its first path's, now excluded
            if kept:
                narrowed[blob] = kept
            else:
                del narrowed[blob]
        return _Without(view, frozenset(gone)), narrowed

    def _symbols_of_view(self) -> _Symbols:
        """The enclosing-definition tables, kept while the view lasts: each search used to
        read its hits' files' definitions again (the tests' trails: 6,800 reads of the
        same files on Django's 5.2.7 -> 5.2.8 release diff)."""
        files = self.store.files()
        if self._symbols is None or self._symbols[0] is not files:
            self._symbols = (files, _Symbols(self.store))
        return self._symbols[1]

    def _scan(self, term: Term, paths_of: dict[str, list[str]], view: Mapping[str, Any],
              found: dict[tuple[str, int], _Line], stop: int) -> None:
        """A term without trigrams: every text of the view, source first, within bounds."""
        blobs = list(paths_of)
        scanned = 0
        for i in range(0, len(blobs), SCAN_BATCH):
            batch = blobs[i : i + SCAN_BATCH]
            texts = read_texts(self.store.conn, batch)
            for blob in batch:
                text = texts.get(blob)
                if text is None:
                    continue
                self._collect(term, text, paths_of[blob], view, found, stop)
                scanned += len(text)
                if scanned >= SCAN_MAX_BYTES or len(found) >= SCAN_MAX_LINES:
                    return

    def _collect(self, term: Term, text: str, paths: list[str], view: Mapping[str, Any],
                 found: dict[tuple[str, int], _Line], stop: int) -> None:
        matches: Iterable[Match] = find(text, term)
        if len(paths) > 1:
            matches = list(matches)
        styles: dict[CommentStyle, CommentMap] = {}
        for path in paths:
            info = view[path]
            style = style_for(path, info.language)
            if style not in styles:
                styles[style] = CommentMap(text, style)
            comments = styles[style]
            weight = TEXT_CATEGORY_FACTOR.get(info.category or classify.SOURCE,
                                              TEXT_OTHER_CATEGORY_FACTOR)
            full = 0  # lines at the best score this file can give
            for m in matches:
                factor = weight * _match_factor(m)
                line = found.get((path, m.line))
                if line is not None and line.score >= factor:  # this match cannot do better
                    line.terms.add(term.text)
                    continue
                in_comment = comments.is_comment(m.start, m.line_offset)
                score = factor * (CONTEXT_COMMENT if in_comment else CONTEXT_CODE)
                if line is not None:
                    line.terms.add(term.text)
                    if score > line.score:
                        line.match, line.score = m, score
                    continue
                found[(path, m.line)] = _Line(m, score, {term.text})
                if stop and score >= weight:
                    full += 1
                    if full >= stop:
                        break

    def _ranked(self, found: dict[tuple[str, int], _Line], n_terms: int,
                limit: int) -> list[Hit]:
        per_file: dict[str, list[tuple[float, int, _Line]]] = {}
        for (path, line_no), line in found.items():
            coverage = 1 - TERM_COVERAGE + TERM_COVERAGE * len(line.terms) / n_terms
            per_file.setdefault(path, []).append((line.score * coverage, line_no, line))
        keyed = []
        for path, lines in per_file.items():
            lines.sort(key=lambda x: (-x[0], x[1]))
            for rank, (score, line_no, line) in enumerate(lines[:MAX_HITS_PER_FILE]):
                keyed.append(((-score, rank, -len(lines), path, line_no), score, path, line))
        symbols = self._symbols_of_view()
        hits = []
        for _, score, path, line in heapq.nsmallest(limit, keyed, key=lambda x: x[0]):
            symbol, kind = symbols.enclosing(path, line.match.line)
            hits.append(Hit(path=path, line_start=line.match.line, line_end=line.match.line_end,
                            symbol=symbol, score=round(score, 6), modality=spec.TEXT, kind=kind))
        return hits


def request_terms(request: SearchRequest) -> list[Term]:
    """The request's terms; else the target's name; else the query text itself."""
    words: Sequence[str] = request.terms
    if not words:
        words = (request.target.name,) if request.target is not None else (request.query,)
    terms: dict[str, Term] = {}
    for word in words:
        term = make_term(word, request.case_sensitive)
        if term is not None and term.text not in terms:
            terms[term.text] = term
    return list(terms.values())[:MAX_TERMS]


def _match_factor(m: Match) -> float:
    if m.whole_word:
        return MATCH_WHOLE_EXACT if m.exact_case else MATCH_WHOLE_FOLDED
    return MATCH_PART_EXACT if m.exact_case else MATCH_PART_FOLDED


class _Without(Mapping[str, Any]):
    """A view's files without a few paths (read-only, nothing copied)."""

    def __init__(self, files: Mapping[str, Any], gone: frozenset[str]) -> None:
        self._files, self._gone = files, gone

    def __getitem__(self, path: str) -> Any:
        if path in self._gone:
            raise KeyError(path)
        return self._files[path]

    def __iter__(self) -> Iterator[str]:
        return (p for p in self._files if p not in self._gone)

    def __len__(self) -> int:
        return len(self._files) - len(self._gone)


def _scan_order(view: Mapping[str, Any]) -> list[str]:
    """The view's paths sorted by (category rank, path): sorted by path (the view's own
    order already: cheap), then grouped by rank, which keeps that order within each group
    (the sort with a key per path cost 0.1 s on 100,000 paths)."""
    ranks = {c: _category_rank(c) for c in {info.category for info in view.values()}}
    groups: dict[int, list[str]] = {r: [] for r in sorted(set(ranks.values()))}
    into = {c: groups[r].append for c, r in ranks.items()}
    for path in sorted(view):
        into[view[path].category](path)
    return [p for group in groups.values() for p in group]


def _category_rank(category: str | None) -> int:
    """Scan order: source first, then test, then the rest (what the scan bound cuts)."""
    return _SCAN_ORDER.get(category or classify.SOURCE, len(_SCAN_ORDER))


class _Symbols:
    """The innermost definition spanning a line, per path.

    Each path's definitions are read once and painted onto a line -> definition table,
    outermost first so inner ones overwrite: a look-up is then an index, whatever the
    number of hits ("self" on Django: 12k hits in files of hundreds of definitions).
    """

    def __init__(self, store: TextStore) -> None:
        self._store = store
        self._owners: dict[str, tuple[list[Span], list[int]]] = {}

    def enclosing(self, path: str, line: int) -> tuple[str, str]:
        if path not in self._owners:
            self._owners[path] = _paint(self._spans(path))
        defs, owner = self._owners[path]
        i = owner[line] if 0 <= line < len(owner) else -1
        return (defs[i].qualified_name, defs[i].kind) if i >= 0 else (MODULE_SYMBOL, "")

    def _spans(self, path: str) -> list[Span]:
        """Where the path's definitions are: the store's light read when it has one."""
        spans = getattr(self._store, "definition_spans", None)
        if spans is not None:
            return spans(path)  # type: ignore[no-any-return]
        return [Span(d.qualified_name, d.kind, d.line_start, d.line_end)
                for d in self._store.definitions_in(path)]


def _paint(defs: list[Span]) -> tuple[list[Span], list[int]]:
    ordered = sorted(defs, key=lambda d: (d.line_start - d.line_end, -d.line_start))
    owner = [-1] * (max((d.line_end for d in ordered), default=0) + 1)
    for i, d in enumerate(ordered):
        if d.line_start >= 1:
            owner[d.line_start : d.line_end + 1] = [i] * (d.line_end - d.line_start + 1)
    return ordered, owner
