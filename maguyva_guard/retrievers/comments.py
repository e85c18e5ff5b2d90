"""Is a match in a comment or a docstring? A cheap, approximate, per-language answer.

Approximate by design (no parser on the text path): a match counts as a comment when
- its line starts with the language's line-comment marker (`#`, `//`, `--`), a block
  opener `/*`, or (C-like languages) a `*` continuation line;
- a line-comment marker precedes it on its line, outside any quote (a small scan that only
  runs when a marker is on the line at all);
- it lies in a block comment whose `/*` opens a line, or (Python) in a triple-quoted
  string whose quotes open a line: the shape of a docstring. `x = \"\"\"...\"\"\"` stays code.
Known misses: block comments opened mid-line, nested comments, `#` inside a JS template
string, HTML comments. A wrong answer only moves a hit within the ranking.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class CommentStyle:
    line: tuple[str, ...]  # line-comment markers
    block: bool = False  # /* ... */ block comments, and " * " continuation lines
    docstrings: bool = False  # Python triple-quoted strings that open a line


HASH: Final = CommentStyle(("#",))
PYTHON: Final = CommentStyle(("#",), docstrings=True)
SLASH: Final = CommentStyle(("//",), block=True)
DASH: Final = CommentStyle(("--",))
CSS: Final = CommentStyle((), block=True)
GENERIC: Final = CommentStyle(("#", "//"), block=True)  # unknown types: the usual suspects

_BY_LANGUAGE: Final = {"python": PYTHON, "javascript": SLASH, "typescript": SLASH,
                       "tsx": SLASH, "go": SLASH, "rust": SLASH, "java": SLASH}
_BY_EXTENSION: Final = {
    **dict.fromkeys(("py", "pyi", "pyx"), PYTHON),
    **dict.fromkeys(("sh", "bash", "zsh", "rb", "pl", "pm", "r", "yaml", "yml", "toml", "cfg",
                     "ini", "conf", "ex", "exs", "cmake", "ps1", "jl", "nim", "mk", "po", "pot"),
                    HASH),
    **dict.fromkeys(("c", "h", "cc", "cpp", "cxx", "hpp", "hh", "m", "mm", "cs", "kt", "kts",
                     "swift", "scala", "php", "dart", "zig", "groovy", "gradle", "proto",
                     "js", "mjs", "cjs", "jsx", "ts", "tsx", "go", "rs", "java"), SLASH),
    **dict.fromkeys(("sql", "lua", "hs", "elm", "adb", "ads"), DASH),
    **dict.fromkeys(("css", "scss", "less"), CSS),
}
_BY_NAME: Final = {"Makefile": HASH, "Dockerfile": HASH, "CMakeLists.txt": HASH}
_TRIPLES: Final = ('"""', "'''")
_INDENT: Final = re.compile(r"[ \t]*")
_STAR_LINE: Final = ("* ", "*\t", "*\n", "*\r", "*/")  # " * text" inside a /* */ block
_STRING_PREFIX: Final = frozenset({"", "r", "u", "b", "f", "br", "rb", "fr", "rf"})


def style_for(path: str, language: str | None) -> CommentStyle:
    if language in _BY_LANGUAGE:
        return _BY_LANGUAGE[language]
    name = path.rsplit("/", 1)[-1]
    if name in _BY_NAME:
        return _BY_NAME[name]
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return _BY_EXTENSION.get(ext, GENERIC)


class CommentMap:
    """Answers `is_comment` for matches in one text; block spans are found on first use."""

    def __init__(self, text: str, style: CommentStyle) -> None:
        self._text = text
        self._style = style
        self._openers = tuple(style.line) + (("/*",) if style.block else ())
        self._spans: tuple[list[int], list[int]] | None = None

    def is_comment(self, start: int, line_offset: int) -> bool:
        text = self._text
        first = _INDENT.match(text, line_offset).end()  # type: ignore[union-attr]
        if text.startswith(self._openers, first) or (
                self._style.block and text.startswith(_STAR_LINE, first)):
            return True
        prefix = text[line_offset:start]
        for marker in self._openers:  # the quote-aware scan only when a marker is there
            if marker in prefix:
                if _marker_outside_quotes(prefix, self._openers):
                    return True
                break
        starts, ends = self._block_spans()
        i = bisect_right(starts, start) - 1
        return i >= 0 and start < ends[i]

    def _block_spans(self) -> tuple[list[int], list[int]]:
        if self._spans is None:
            spans = []
            if self._style.docstrings:
                spans += _docstring_spans(self._text)
            if self._style.block:
                spans += _block_comment_spans(self._text)
            spans.sort()
            self._spans = ([s for s, _ in spans], [e for _, e in spans])
        return self._spans


def _marker_outside_quotes(prefix: str, markers: tuple[str, ...]) -> bool:
    quote = ""
    i = 0
    while i < len(prefix):
        ch = prefix[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif prefix.startswith(markers, i):
            return True
        i += 1
    return False


def _docstring_spans(text: str) -> list[tuple[int, int]]:
    """Triple-quoted strings whose opening quotes start their line (after a prefix like r).

    One left-to-right pass pairs every triple quote with its closer, so the closing
    quotes of an assigned string (often alone on their line) never pass for an opener.
    """
    spans: list[tuple[int, int]] = []
    # str.find per quote kind: a `"""|'''` regex has no literal prefix and crawls.
    ahead = {q: text.find(q) for q in _TRIPLES}
    while True:
        live = [(at, q) for q, at in ahead.items() if at >= 0]
        if not live:
            return spans
        start, quotes = min(live)
        close = text.find(quotes, start + len(quotes))
        end = len(text) if close < 0 else close + len(quotes)
        line_offset = text.rfind("\n", 0, start) + 1
        if text[line_offset:start].strip().lower() in _STRING_PREFIX:
            spans.append((start, end))
        for q, at in ahead.items():
            if 0 <= at < end:
                ahead[q] = text.find(q, end)


def _block_comment_spans(text: str) -> list[tuple[int, int]]:
    """/* ... */ comments whose opener starts its line (str.find: a MULTILINE `^` regex
    tries every line of the text and cost 0.8 ms a file on Django's locale files)."""
    spans: list[tuple[int, int]] = []
    start = text.find("/*")
    while start >= 0:
        line_offset = text.rfind("\n", 0, start) + 1
        if text[line_offset:start].strip(" \t"):
            start = text.find("/*", start + 2)
            continue
        close = text.find("*/", start + 2)
        end = len(text) if close < 0 else close + 2
        spans.append((start, end))
        start = text.find("/*", end)
    return spans
