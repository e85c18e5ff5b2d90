"""Text helpers of symbols.py: signatures, docs, receivers, identifiers in strings.

Everything works on the file's bytes and node offsets; text fields are decoded with
errors="replace" so that no input can make extraction raise.
"""

from __future__ import annotations

import re
from typing import Final

from tree_sitter import Node

# Whitespace around member-access operators and inside brackets carries no meaning in a
# receiver; removing it makes "qs\n    .filter(a)" and "qs.filter(a)" the same receiver.
_TIGHT: Final = re.compile(r"\s*(\?\.|\.|::|->)\s*|([(\[])\s+|\s+([)\]])")
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_COMMENT_MARKS: Final = re.compile(r"^\s*(?:/\*+!?|\*+/?|//[/!]?|#+)?\s?")
_STRING_PREFIX: Final = re.compile(rb"^[rRuUbBfF]{0,2}('''|\"\"\"|'|\")")
_BLANK_LINE: Final = re.compile(rb"\n[ \t\r]*\n")
_PUNCT_END: Final = ("{", ":", ";")
# "( a, b, )" -> "(a, b)": the whitespace and trailing commas that reformatting moves
# ("(3,)", a one-element tuple, has no space and stays as it is).
_SIGNATURE_LAYOUT: Final = re.compile(r"([(\[]) |,? ([)\]])")


def text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def normalize(value: str) -> str:
    """Collapse whitespace; drop it around ".", "::", "->" and inside brackets."""
    if " " not in value and "\n" not in value and "\t" not in value and "\r" not in value:
        return value
    return _TIGHT.sub(_tighten, " ".join(value.split()))


def _tighten(match: re.Match[str]) -> str:
    return match.group(1) or match.group(2) or match.group(3) or ""


def prefix_receiver(source: bytes, node: Node, name: Node) -> str:
    """The qualifier written before `name` inside `node` ("mod" in "@mod.deco", "a.b" in a.b.C)."""
    if node.start_byte >= name.start_byte:
        return ""
    raw = source[node.start_byte : name.start_byte].decode("utf-8", "replace")
    raw = normalize(raw).lstrip("@&* ")
    for separator in ("::", "?.", ".", "->"):
        if raw.endswith(separator):
            return raw[: -len(separator)]
    return ""  # not a qualifier ("new " before a constructor)


def signature(
    source: bytes, start: int, node: Node, body: Node | None, comment_types: tuple[str, ...]
) -> str:
    """The header from `start` (decorators included) up to the body, whitespace-normalised.

    Layout does not count: a signature reflowed over several lines, with or without a
    trailing comma, is the same signature. Comments between the header and the body (a
    Python block starts after them) are left out.
    """
    end = body.start_byte if body is not None and body.start_byte > start else node.end_byte
    if body is not None and end == body.start_byte and _has_comment_mark(source, start, end):
        before = body.prev_sibling
        while before is not None and before.type in comment_types and before.start_byte > start:
            end = before.start_byte
            before = before.prev_sibling
    header = " ".join(source[start:end].decode("utf-8", "replace").split())
    header = _SIGNATURE_LAYOUT.sub(_tighten_layout, header)
    if header.endswith(_PUNCT_END) or (header.endswith("=") and not header.endswith("==")):
        header = header[:-1].rstrip()
    return header


def _has_comment_mark(source: bytes, start: int, end: int) -> bool:
    return source.find(b"#", start, end) >= 0 or source.find(b"/", start, end) >= 0


def _tighten_layout(match: re.Match[str]) -> str:
    return match.group(1) or match.group(2) or ""


def docstring(source: bytes, body: Node | None) -> str:
    """A Python docstring: the body's first statement when it is a string literal."""
    if body is None or body.type != "block" or not body.named_child_count:
        return ""
    first = body.named_child(0)
    if first is not None and first.type == "expression_statement" and first.named_child_count:
        first = first.named_child(0)
    if first is None or first.type != "string":
        return ""
    raw = source[first.start_byte : first.end_byte]
    match = _STRING_PREFIX.match(raw)
    if match is None:
        return ""
    quote = match.group(1)
    inner = raw[match.end() :]
    if inner.endswith(quote):
        inner = inner[: -len(quote)]
    # Cut at the first blank line before decoding: docstrings can run for pages.
    paragraph = _BLANK_LINE.split(inner.lstrip(b" \t\r\n"), maxsplit=1)[0]
    return " ".join(paragraph.decode("utf-8", "replace").split())


def leading_comment(source: bytes, node: Node, comment_types: tuple[str, ...]) -> str:
    """The block of comments right above `node` (no blank line between), first paragraph."""
    if not _comment_may_precede(source, node.start_byte):
        return ""  # most definitions have none: skip the (costly) sibling walk
    comments: list[Node] = []
    below = node
    sibling = node.prev_sibling
    while sibling is not None and sibling.type in comment_types:
        if _blank_line_between(source, sibling, below):
            break  # the comment belongs to something else
        comments.append(sibling)
        below = sibling
        sibling = sibling.prev_sibling
    if not comments:
        return ""
    lines: list[str] = []
    for comment in reversed(comments):
        body = text(source, comment)
        if body.endswith("*/"):
            body = body[:-2]
        lines.extend(_COMMENT_MARKS.sub("", line, count=1) for line in body.splitlines())
    return first_paragraph(lines)


def _comment_may_precede(source: bytes, start: int) -> bool:
    """A cheap look at the text above `start`: could a comment end right there?"""
    line_start = source.rfind(b"\n", 0, start) + 1
    if source[line_start:start].strip():
        return True  # something earlier on the same line: let the tree decide
    if line_start == 0:
        return False
    above = source[source.rfind(b"\n", 0, line_start - 1) + 1 : line_start - 1].strip()
    return above[:1] in (b"#", b"/", b"*") or above.endswith(b"*/")


def _blank_line_between(source: bytes, above: Node, below: Node) -> bool:
    # Line comments may or may not include their newline (Rust's do), so count in the bytes.
    newlines = source.count(b"\n", above.end_byte, below.start_byte)
    if above.end_byte > 0 and source[above.end_byte - 1 : above.end_byte] == b"\n":
        newlines += 1
    return newlines >= 2


def first_paragraph(lines: list[str]) -> str:
    """The first run of non-blank lines, joined by single spaces."""
    words: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped:
            words.append(stripped)
        elif words:
            break
    return " ".join(" ".join(words).split())


def identifiers_in(value: str) -> list[tuple[str, str]]:
    """(name, receiver) for each dotted identifier in a string annotation ("Optional[m.Task]")."""
    found = []
    for match in _IDENTIFIER.finditer(value):
        receiver, _, name = match.group(0).rpartition(".")
        found.append((name, receiver))
    return found
