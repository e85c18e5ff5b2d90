"""Answers that fit an agent's context: a token budget per call, and a cursor to page on.

An MCP answer is one JSON object: a head (what the answer is about, its verdict, how fresh
the index was) and one or more lists (results, callers...). The lists are read as one
sequence and cut where the next item would overrun the budget, estimated as characters / 4
(about what tokenizers give for code and JSON); at least one item is always returned. The
rest is one `next_cursor` away.

A cursor is opaque to the agent and holds no state on the server: the question's digest,
the index's digest, and an offset. The next page recomputes the answer (warm, that is
milliseconds to a second) and refuses when the index changed in between, since the pages
would then not belong to one answer.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

# Defined with the commands (the command line shows them without importing this module).
from maguyva_guard.commands import DEFAULT_MAX_TOKENS as DEFAULT_MAX_TOKENS
from maguyva_guard.commands import MIN_MAX_TOKENS as MIN_MAX_TOKENS
from maguyva_guard.errors import FatalError

CHARS_PER_TOKEN: Final = 4
MAX_MAX_TOKENS: Final = 50_000  # what one call may ask for
CURSOR_RESERVE: Final = 80  # characters kept for the "next_cursor" value itself
KEY_DIGITS: Final = 12


@dataclass(frozen=True)
class Cursor:
    question: str  # digest of the tool and its arguments
    index: str  # the index's digest when the first page was made (shortened)
    offset: int


def question_key(tool: str, args: Mapping[str, Any]) -> str:
    text = json.dumps([tool, dict(args)], sort_keys=True, default=str)
    return _short(text)


def _short(text: str) -> str:
    """12 hex digits of a digest: a cursor stays short, and a collision between two
    questions (or two views of one repository) asked of one server is not a worry."""
    return hashlib.sha1(text.encode()).hexdigest()[:KEY_DIGITS]


def encode(cursor: Cursor) -> str:
    raw = json.dumps([cursor.question, cursor.index, cursor.offset], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode(text: str) -> Cursor:
    """The cursor in `text`; FatalError for anything this module did not make."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        question, index, offset = json.loads(raw)
        if not (isinstance(question, str) and isinstance(index, str) and isinstance(offset, int)
                and offset >= 0):
            raise ValueError
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise FatalError("not a cursor of this server: ask again without one") from None
    return Cursor(question, index, offset)


def start(cursor: str | None, question: str, index: str) -> int:
    """The offset to start at: 0 without a cursor; the cursor's, when it belongs to this
    question and this index (FatalError otherwise)."""
    if not cursor:
        return 0
    c = decode(cursor)
    if c.question != question:
        raise FatalError("this cursor belongs to another question: repeat that question's "
                         "arguments with it, or ask again without a cursor")
    if c.index != _short(index):
        raise FatalError("the index changed since this cursor was made (staged files changed):"
                         " ask again without a cursor")
    return c.offset


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def page(head: Mapping[str, Any], lists: Mapping[str, Sequence[Any]], *, offset: int,
         max_tokens: int, question: str, index: str) -> str:
    """The JSON text of `head` plus the items of `lists` from `offset` that fit the budget,
    with `page`: {offset, returned, total, next_cursor}."""
    items = [(key, item) for key, values in lists.items() for item in values]
    if offset > len(items):
        raise FatalError(f"the cursor is past the end of this answer ({len(items)} items)")
    out: dict[str, Any] = {**head, **{key: [] for key in lists}}
    info: dict[str, Any] = {"offset": offset, "returned": 0, "total": len(items),
                            "next_cursor": None}
    out["page"] = info
    budget = max(max_tokens, MIN_MAX_TOKENS) * CHARS_PER_TOKEN - CURSOR_RESERVE
    used, at = len(dumps(out)), offset
    while at < len(items):
        key, item = items[at]
        size = len(dumps(item)) + 1
        if used + size > budget and at > offset:
            break
        out[key].append(item)
        used, at = used + size, at + 1
    info["returned"] = at - offset
    if at < len(items):
        info["next_cursor"] = encode(Cursor(question, _short(index), at))
    return dumps(out)
