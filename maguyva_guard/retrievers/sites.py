"""What a string in the source is for: raising an error, logging, or something else.

    site_factor(text, group, comments, error_class) -> factor in (0, 1]

Read from the text around the string, no parser: the innermost call the string is an
argument of (gettext's `_()`, `format`, `str()` and the like are looked through), and the
word before that call (`raise`, `throw`, `new`, `panic`). A string assigned first and
raised on one of the next lines (`msg = "..." % x` / `raise ValueError(msg)`) is a raise
site too. When the paste names a class, a site raising that class (or naming it in the
statement, as `warnings.warn(..., RemovedInDjango60Warning)` does) ranks first.
"""

from __future__ import annotations

import re
from typing import Final

from maguyva_guard.retrievers.comments import CommentMap
from maguyva_guard.retrievers.templates import Group

SITE_NAMED: Final = 1.0  # raises (or names) the class the paste names
SITE_RAISE: Final = 0.9  # a raise, throw, panic or log call (of another class)
SITE_CODE: Final = 0.7  # any other string in code (a dict of messages, a constant)
SITE_COMMENT: Final = 0.45  # a comment or a docstring that repeats the text
LOOK_BACK: Final = 400  # characters read before a string to find its call
LOOK_AHEAD: Final = 300  # ... and after it, for a raise of an assigned message

_LOOKED_THROUGH: Final = frozenset(
    "_ gettext gettext_lazy ngettext ngettext_lazy pgettext pgettext_lazy format_lazy "
    "mark_safe format format_html str repr String.format Sprintf fmt.Sprintf".split())
_CALLEE: Final = re.compile(r"([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*!?)\s*$")
_KEYWORD: Final = re.compile(r"(?:\braise|\bthrow(?:\s+new)?|\bnew|\bpanic)\s*$")
_ERRORISH: Final = re.compile(
    r"(?:Error|Exception|Warning|Failure|Fault|Exit|Interrupt|Panic|Invalid\w*|Errorf|panic"
    r"|bail|anyhow)$")
_LOGGING: Final = re.compile(
    r"(?:^|\.)(?:debug|info|warn|warning|error|exception|critical|fatal|fatalf|errorf"
    r"|warnf|infof|log|trace|severe|panicf|eprintln!|println!)$", re.I)
_RAISE_AFTER: Final = re.compile(r"(?:\braise|\bthrow(?:\s+new)?)\s+([\w.$]+)")


def site_factor(text: str, group: Group, comments: CommentMap, error_class: str) -> float:
    line_start = text.rfind("\n", 0, group.start) + 1
    if group.docstring or comments.is_comment(group.start, line_start):
        return SITE_COMMENT
    cls = error_class.rsplit(".", 1)[-1]
    callee, keyword, statement = _call_of(text, group.start, group.end)
    if callee is None:
        after = text[group.end:group.end + LOOK_AHEAD].split("\n", 4)[:4]
        raised = _RAISE_AFTER.search("\n".join(after))
        if raised is None:
            return SITE_CODE
        callee, keyword, statement = raised.group(1), "raise", raised.group(0)
    name = re.split(r"[.\s]", callee)[-1]
    named = bool(cls) and (name == cls or re.search(rf"\b{re.escape(cls)}\b", statement))
    if keyword or _ERRORISH.search(name) or _LOGGING.search(callee.replace(" ", "")):
        return SITE_NAMED if named or not cls else SITE_RAISE
    return SITE_NAMED if named else SITE_CODE


def _call_of(text: str, start: int, end_of_string: int) -> tuple[str | None, str, str]:
    """(callee, keyword before it, the statement's text around) of the innermost call
    `start` is an argument of, gettext and formatting calls looked through."""
    window_start = max(0, start - LOOK_BACK)
    before = text[window_start:start]
    end = len(before)
    for _ in range(3):
        opened = _unclosed(before, end)
        if opened is None:
            return None, "", ""
        callee = _CALLEE.search(before, 0, opened)
        if callee is None:
            return None, "", ""
        name = re.sub(r"\s+", "", callee.group(1))
        if name.rsplit(".", 1)[-1] in _LOOKED_THROUGH or name in _LOOKED_THROUGH:
            end = callee.start()
            continue
        keyword = _KEYWORD.search(before, 0, callee.start())
        line_end = text.find("\n", end_of_string)
        tail = text[start:line_end if line_end >= 0 else len(text)]
        return name, keyword.group(0).strip() if keyword else "", before[callee.start():] + tail
    return None, "", ""


def _unclosed(text: str, end: int) -> int | None:
    """The offset of the innermost `(` before `end` left open at `end`."""
    depth = 0
    for i in range(end - 1, -1, -1):
        c = text[i]
        if c in ")]}":
            depth += 1
        elif c in "([{":
            if depth == 0:
                return i if c == "(" else None
            depth -= 1
    return None
