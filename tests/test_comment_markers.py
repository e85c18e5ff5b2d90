"""comments.py: whether a comment marker starts outside quotes before a text match. The scan
jumps between quotes and markers with patterns (a match on a 100,000-character minified
line cost 50 ms walked character by character); it answers as the character walk did."""

from __future__ import annotations

import random

import pytest

from maguyva_guard.retrievers.comments import CommentMap, _marker_outside_quotes, style_for


def walked(prefix: str, markers: tuple[str, ...]) -> bool:
    """The character-by-character scan the patterns replace: the reference."""
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


MARKERS = [("#",), ("//", "/*"), ("--",), ("//", "#", "/*"), (";",), ("%", "--")]


@pytest.mark.parametrize("markers", MARKERS)
def test_the_pattern_scan_answers_as_the_character_walk(markers):
    rng = random.Random(18)
    alphabet = "ab \"'`\\#/*-;%x"
    for _ in range(20_000):
        prefix = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        assert _marker_outside_quotes(prefix, markers) == walked(prefix, markers), prefix


def test_markers_inside_quotes_and_escapes_are_not_comments():
    js = ("",)
    assert _marker_outside_quotes('var u = "http://x"; ', ("//", "/*")) is False
    assert _marker_outside_quotes('var u = "a\\"//"; ', ("//", "/*")) is False
    assert _marker_outside_quotes('var u = "a\\\\"; // ', ("//", "/*")) is True
    assert _marker_outside_quotes("s = 'it''s' # ", ("#",)) is True
    assert _marker_outside_quotes("s = 'never closed # ", ("#",)) is False
    assert _marker_outside_quotes("x", js) is True  # an empty marker starts everywhere


def test_a_match_on_a_long_minified_line_is_code_or_comment_as_written():
    line = "var a=" + '"//",' * 20_000 + "headers(1);//headers\n"
    comments = CommentMap(line, style_for("static/app.min.js", "javascript"))
    code_at = line.index("headers(")
    comment_at = line.index("//headers") + 2
    assert comments.is_comment(code_at, 0) is False
    assert comments.is_comment(comment_at, 0) is True
