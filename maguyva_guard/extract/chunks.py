"""Chunks to embed: one per definition body, plus the module-level code between them.

A function or method chunk is its whole span (nested functions included, and repeated in
their own chunks). A class-like chunk (class, interface, type) is its header, docstring and
fields: from its first line to the line before its first member definition. Module-level
code is every line outside function and class-like spans (constants stay in it). A chunk
longer than CHUNK_MAX_LINES becomes overlapping windows of CHUNK_WINDOW_LINES.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

from maguyva_guard.records import CLASS, CONSTANT, INTERFACE, TYPE, Chunk, Definition

# Not design numbers: sized so that a window fits an embedding model's context with room to
# spare and that code cut at a window edge appears whole in the next window.
CHUNK_MAX_LINES: Final = 60
CHUNK_WINDOW_LINES: Final = 50
CHUNK_OVERLAP_LINES: Final = 10

_CONTAINERS: Final = frozenset({CLASS, INTERFACE, TYPE})


def build_chunks(lines: Sequence[str], definitions: Sequence[Definition]) -> tuple[Chunk, ...]:
    """Chunks of a file whose text is `lines` (without their newlines)."""
    chunks: list[Chunk] = []
    first_member: dict[str, int] = {}
    for definition in definitions:
        if definition.parent and definition.kind != CONSTANT:
            known = first_member.get(definition.parent, definition.line_start)
            first_member[definition.parent] = min(known, definition.line_start)
    spans = []
    for definition in definitions:
        if definition.kind == CONSTANT:
            continue
        start, end = definition.line_start, definition.line_end
        spans.append((start, end))
        if definition.kind in _CONTAINERS:
            member = first_member.get(definition.qualified_name, end + 1)
            if start < member <= end:
                end = member - 1
        chunks.extend(_windows(lines, definition.qualified_name, start, end))
    for start, end in _uncovered_runs(len(lines), sorted(spans)):
        for trimmed_start, trimmed_end in _trimmed(lines, start, end):
            chunks.extend(_windows(lines, "", trimmed_start, trimmed_end))
    chunks.sort(key=lambda chunk: (chunk.line_start, chunk.line_end))
    return tuple(chunks)


def _uncovered_runs(count: int, spans: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The runs of lines 1..count outside every (sorted) span."""
    cursor = 1
    for start, end in spans:
        if start > cursor:
            yield cursor, start - 1
        cursor = max(cursor, end + 1)
    if cursor <= count:
        yield cursor, count


def _trimmed(lines: Sequence[str], start: int, end: int) -> Iterator[tuple[int, int]]:
    while start <= end and not lines[start - 1].strip():
        start += 1
    while end >= start and not lines[end - 1].strip():
        end -= 1
    if start <= end:
        yield start, end


def _windows(lines: Sequence[str], symbol: str, start: int, end: int) -> Iterator[Chunk]:
    end = min(end, len(lines))
    if start > end:
        return
    if end - start + 1 <= CHUNK_MAX_LINES:
        yield Chunk("", symbol, start, end, "\n".join(lines[start - 1 : end]))
        return
    step = CHUNK_WINDOW_LINES - CHUNK_OVERLAP_LINES
    window_start = start
    while True:
        window_end = min(window_start + CHUNK_WINDOW_LINES - 1, end)
        text = "\n".join(lines[window_start - 1 : window_end])
        yield Chunk("", symbol, window_start, window_end, text)
        if window_end >= end:
            return
        window_start += step
