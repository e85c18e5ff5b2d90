"""The text modality's answer to a pasted error: the trace's frames, then the code that
builds the message.

1. Frames (`request.frames`, innermost first) that name a file of this repository
   (frames.py) are results as they stand: the innermost first, above everything (it is
   where the error happened), the others after the message's sites.
2. The message is matched against the string expressions (templates.py) of the files most
   likely to hold it: the files with the most of its distinctive words, rarer words
   weighing more (a trigram look-up per word, no scan). A site scores
       recall x (1 - PRECISION_SHARE + PRECISION_SHARE x precision) x site x category
   where `site` says what the string is for (sites.py): a `raise`/`throw` of the class the
   paste names ranks first, then other raise and log calls, then other code, then
   comments and docstrings; tests and vendored code below source, as for any text hit.
A site needs MIN_RECALL of the message to count: an answer of "some words in common" is
the fallback chain's business (search/fallback.py), which says so.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping
from typing import Any, Final

from maguyva_guard import spec
from maguyva_guard.extract import classify
from maguyva_guard.index.fulltext import candidate_blobs, read_texts
from maguyva_guard.records import Hit
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.retrievers.comments import HASH, PYTHON, CommentMap, style_for
from maguyva_guard.retrievers.frames import resolve_frames
from maguyva_guard.retrievers.sites import site_factor
from maguyva_guard.retrievers.templates import (
    anchor_pairs,
    anchor_words,
    coverage,
    normalise,
    regions,
    string_groups,
)

MIN_RECALL: Final = 0.3  # share of the message a site's literal text must cover
PRECISION_SHARE: Final = 0.4  # how much a site's extra literal text lowers its score
CANDIDATE_POOL: Final = 24  # blobs read per message, by the trigram index's weight ...
CANDIDATE_FILES: Final = 12  # ... of which these are scanned, by the anchors they hold
CANDIDATE_PRIOR: Final = {classify.SOURCE: 1.0, classify.TEST: 0.5}
OTHER_CANDIDATE_PRIOR: Final = 0.3
VERIFIED_ANCHORS: Final = 6  # the rarest anchors, checked in each pooled text
MAX_ANCHORS: Final = 6  # words looked up, longest first
MAX_PAIRS: Final = 6  # word pairs looked up, longest first
RARE_ANCHORS: Final = 3  # the rarest words: the text is read around their occurrences ...
REGION_RADIUS: Final = 800  # ... this many characters either side (a long raise statement)
MAX_OCCURRENCES: Final = 64  # per word and file
FRAME_FIRST: Final = 2.0  # the innermost project frame: above any message site (<= 1)
FRAME_REST: Final = 0.6  # the other frames, each a little below the one inside it
FRAME_STEP: Final = 0.98
CATEGORY_FACTOR: Final = {classify.SOURCE: 1.0, classify.TEST: 0.7}
OTHER_CATEGORY_FACTOR: Final = 0.6  # vendored or generated code raises for real

Enclosing = Callable[[str, int], tuple[str, str]]  # (path, line) -> (symbol, kind)


def search(conn: Any, request: SearchRequest, view: Mapping[str, Any],
           paths_of: Mapping[str, list[str]], enclosing: Enclosing) -> list[Hit]:
    """Frames and message sites, best first, at most `request.limit`."""
    scored: dict[tuple[str, int], tuple[float, int]] = {}  # (path, line) -> (score, end)
    frames = resolve_frames(request.frames, view)
    for i, (path, line) in enumerate(frames):
        score = FRAME_FIRST if i == 0 else FRAME_REST * FRAME_STEP ** i
        if (path, line) not in scored:
            scored[(path, line)] = (score, line)
    if request.message.strip():
        for key, value in _message_sites(conn, request, view, paths_of).items():
            if value[0] > scored.get(key, (0.0, 0))[0]:
                scored[key] = value
    ranked = sorted(scored.items(), key=lambda kv: (-kv[1][0], kv[0]))[: request.limit]
    hits = []
    for (path, line), (score, end) in ranked:
        symbol, kind = enclosing(path, line)
        hits.append(Hit(path=path, line_start=line, line_end=end, symbol=symbol,
                        score=round(score, 6), modality=spec.TEXT, kind=kind))
    return hits


def _message_sites(conn: Any, request: SearchRequest, view: Mapping[str, Any],
                   paths_of: Mapping[str, list[str]]) -> dict[tuple[str, int], tuple[float, int]]:
    message = normalise(request.message)
    anchors = anchor_words(request.message)[:MAX_ANCHORS]
    if not anchors:
        return {}
    candidates = _candidates(conn, (*anchors, *anchor_pairs(request.message, MAX_PAIRS)),
                             paths_of, view)
    need = 1 if len(anchors) <= 2 else 2
    words = [a.lower() for a in anchors]

    def keep(raw: str) -> bool:
        return sum(w in raw for w in words) >= need

    found: dict[tuple[str, int], tuple[float, int]] = {}
    for blob, text, low, held in candidates:
        paths = paths_of[blob]
        style = style_for(paths[0], view[paths[0]].language)
        positions = [m for w in held[:RARE_ANCHORS] for m in _occurrences(low, w)]
        groups = string_groups(text, hash_comments=style in (PYTHON, HASH), keep=keep,
                               regions=regions(text, positions, REGION_RADIUS))
        comments: CommentMap | None = None
        for group in groups:
            recall, precision = coverage(group, message)
            if recall < MIN_RECALL:
                continue
            quality = recall * (1 - PRECISION_SHARE + PRECISION_SHARE * precision)
            comments = comments or CommentMap(text, style)
            site = site_factor(text, group, comments, request.error_class)
            line = text.count("\n", 0, group.start) + 1
            end = line + text.count("\n", group.start, group.end)
            for path in paths:
                category = view[path].category or classify.SOURCE
                score = quality * site * CATEGORY_FACTOR.get(category, OTHER_CATEGORY_FACTOR)
                if score > found.get((path, line), (0.0, 0))[0]:
                    found[(path, line)] = (score, end)
    return found


def _candidates(conn: Any, anchors: tuple[str, ...], paths_of: Mapping[str, list[str]],
                view: Mapping[str, Any]) -> list[tuple[str, str, str, list[str]]]:
    """The CANDIDATE_FILES blobs most likely to build the message: (blob, text, lower-cased
    text, the anchors it holds, rarest first: their occurrences say where to read).

    The trigram index answers a superset (every trigram of "title cannot" is somewhere in a
    big test module), so the CANDIDATE_POOL best by that answer are read and weighed again
    by the VERIFIED_ANCHORS rarest anchors they really hold, source files above tests and
    vendored code (where a message is built, not repeated)."""
    total = max(len(paths_of), 1)
    idfs: dict[str, float] = {}
    holders_of: dict[str, set[str]] = {}
    for anchor in anchors:
        holders = candidate_blobs(conn, anchor)
        if not holders:
            continue
        holders &= paths_of.keys()
        holders_of[anchor.lower()] = holders
        idfs[anchor.lower()] = math.log(1 + total / (1 + len(holders)))
    rare = sorted(idfs, key=lambda w: -idfs[w])[:VERIFIED_ANCHORS]
    # Pairs' supersets lie most (a pair spanning a value holds trigrams of big files
    # only): the pool is chosen by the words, the pairs weigh in once verified.
    words = {w.lower() for w in anchors if " " not in w}
    pooled: dict[str, float] = {}
    for word in words & holders_of.keys():
        for blob in holders_of[word]:
            pooled[blob] = pooled.get(blob, 0.0) + idfs[word]
    pool = heapq.nsmallest(CANDIDATE_POOL, pooled,
                           key=lambda b: (-pooled[b] * _prior(b, paths_of, view), b))
    weighed = []
    for blob, text in read_texts(conn, pool).items():
        low = text.lower()
        held = [w for w in rare if w in low]
        weighed.append((-_prior(blob, paths_of, view) * sum(idfs[w] for w in held), blob,
                        text, low, held))
    weighed.sort(key=lambda x: (x[0], x[1]))
    return [(blob, text, low, held) for _, blob, text, low, held in weighed[:CANDIDATE_FILES]]


def _prior(blob: str, paths_of: Mapping[str, list[str]], view: Mapping[str, Any]) -> float:
    category = view[paths_of[blob][0]].category or classify.SOURCE
    return CANDIDATE_PRIOR.get(category, OTHER_CANDIDATE_PRIOR)


def _occurrences(text: str, word: str) -> list[int]:
    found: list[int] = []
    at = text.find(word)
    while at >= 0 and len(found) < MAX_OCCURRENCES:
        found.append(at)
        at = text.find(word, at + len(word))
    return found
