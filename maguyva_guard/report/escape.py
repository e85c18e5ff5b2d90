"""Escaping of user-controlled text (paths, symbol names, code) for the reports.

Anyone who can open a pull request controls file names and symbol names, and the Markdown
report is posted as a comment by a bot with write access. So every such string goes
through `markdown()` before it reaches the comment, and through `terminal()` before it
reaches a terminal.

Markdown: syntax characters become numeric character references. CommonMark (and GitHub)
never read a reference as syntax, yet show it as the character, in Markdown text and in raw
HTML (`<summary>`, `<code>`) alike; so one escaping serves both contexts, with no link,
emphasis, code span, table cell or tag that the name did not ask for. GitHub links
`@user` and `#123` AFTER decoding references, so those get a zero-width joiner instead,
which breaks the link and shows nothing. Control and format characters (newlines, ANSI
escapes, bidirectional overrides, zero-width characters) are shown as `\\n`, `\\u202e`, ...
"""

from __future__ import annotations

from typing import Final
from urllib.parse import quote, urlsplit

ZWJ: Final = "\u200d"

_NAMED_CONTROLS: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

# Characters that are syntax in GitHub Markdown or in HTML. `!` and `:` are harmless once
# `[` is escaped and no URL scheme can form a link; the others are listed on purpose.
_MARKDOWN_SYNTAX: Final = "&<>\"'\\`*_~[]()|#$"
_MARKDOWN_TABLE: Final = {ord(c): f"&#{ord(c)};" for c in _MARKDOWN_SYNTAX} | {
    ord("&"): "&amp;",
    ord("<"): "&lt;",
    ord(">"): "&gt;",
    ord('"'): "&quot;",
    # A mention or an issue reference needs "@" or "#" right before the name or number.
    ord("@"): "@" + ZWJ,
    ord("#"): "&#35;" + ZWJ,
}


def visible(text: str) -> str:
    """The text with every non-printable character written out as an escape sequence."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape_char(ch) for ch in text)


def _escape_char(ch: str) -> str:
    if ch in _NAMED_CONTROLS:
        return _NAMED_CONTROLS[ch]
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def markdown(text: str) -> str:
    """Safe inside GitHub Markdown text, table cells and raw HTML elements or attributes."""
    return visible(text).translate(_MARKDOWN_TABLE)


def terminal(text: str) -> str:
    """Safe on a terminal: no escape sequence, no line break, no bidirectional trick."""
    return visible(text)


def http_url(url: str | None) -> str | None:
    """A plain http(s) URL without query, percent-encoded where needed; None for anything
    else (a `javascript:` URL, a relative one), so that only such URLs become links."""
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query:
        return None
    return quote(url.rstrip("/"), safe=":/%@-._~")
