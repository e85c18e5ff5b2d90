"""What people paste: an error message with its exception or log prefix, or a whole trace.

    recognise(text) -> Pasted | None

A prefix is read and set aside, so that the message alone is searched and the prefix is
used as evidence: `ValueError: ` and `django.core.exceptions.ImproperlyConfigured: ` name
the class a `raise`/`throw` site should construct; log prefixes (`ERROR:root:`,
`2026-12-04 09:30:00,123 ERROR [django.request] `, `[ERROR] `, glog's `E1204 09:30:00.1 1
x.go:12] `, Go's `2026/12/04 09:30:00 `) carry nothing to search for and are dropped.
A trace (stacks.py) gives its final message, its class and its frames.

An exception prefix needs a class that looks like one: dotted (`pkg.mod.Class`), or with
an error-ish suffix (`...Error`, `...Exception`, `...Warning`), or CamelCase with two humps
(`ImproperlyConfigured`, `Http404`): `Note: the cache...` is a sentence, not an error.

`fragments` and `distinctive_words` serve the fallback chain (search/fallback.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from maguyva_guard.records import Frame
from maguyva_guard.retrievers.templates import anchor_words
from maguyva_guard.search.stacks import parse_trace

MESSAGE, LOG = "message", "log line"


@dataclass(frozen=True)
class Pasted:
    kind: str  # MESSAGE, LOG, or a trace kind of stacks.py
    message: str  # what the code produced, prefixes removed
    error_class: str = ""  # as pasted ("ValueError", "django.core.exceptions.X"), or ""
    prefix: str = ""  # what was set aside
    frames: tuple[Frame, ...] = ()  # innermost first

    @property
    def class_name(self) -> str:
        """The class's own name, as a raise site spells it: "ImproperlyConfigured"."""
        return re.split(r"[.$]", self.error_class)[-1] if self.error_class else ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "error_class": self.error_class,
                "prefix": self.prefix,
                "frames": [{"file": f.file, "line": f.line, "function": f.function}
                           for f in self.frames]}


_TIMESTAMP = re.compile(
    r"^\[?(?:\d{4}[-/]\d{2}[-/]\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)\]?\s*")
_LEVELS = r"TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|SEVERE|CRITICAL|CRIT|FATAL"
_PY_LOGGING = re.compile(rf"^(?:{_LEVELS}):(?P<logger>[\w.]*):")  # logging.basicConfig
_LEVEL = re.compile(rf"^\[?(?:{_LEVELS})\]?(?:\s*[:\-|]\s*|\s+)")
_THREAD = re.compile(rf"^\[[^\]]{{1,40}}\]\s+(?=\[?(?:{_LEVELS})\b)")  # logback
_GLOG = re.compile(r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [\w.-]+:\d+\] ")
_AFTER_LEVEL = (  # logger or thread names that follow a level
    re.compile(r"^\[[^\]]{1,60}\]\s*(?:[:\-]\s*)?"),  # [main], [django.request]
    re.compile(r"^in [\w.]+:\s+"),  # Flask: "ERROR in app: "
    re.compile(r"^[\w$]+(?:\.[\w$]+)+(?:\s+-\s+|:\s+)"),  # com.acme.Foo - / django.request:
)
_EXCEPTION = re.compile(
    r"^(?:Uncaught\s+|Exception in thread \"[^\"]*\"\s+|panic:\s+)?"
    r"(?P<cls>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:\s*\[[\w-]+\])?:\s+(?P<msg>\S.*)$",
    re.S)
_ERRORISH = re.compile(r"(?:Error|Exception|Warning|Failure|Fault|Exit|Interrupt|Panic)$")
_TWO_HUMPS = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z0-9][a-z0-9]*)+$")
_QUOTED_VALUE = re.compile(
    r"(?<!\w)'[^'\n]*'(?!\w)|\"[^\"\n]*\"|`[^`\n]*`|\u201c[^\u201d\n]*\u201d")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?![\w])")
MAX_FRAGMENTS = 3
FRAGMENT_MIN = 8  # characters: a shorter fragment ("times") is a word, found everywhere


def recognise(text: str) -> Pasted | None:
    """The pasted error in `text`: a trace, or one message line with a prefix."""
    stripped = text.strip()
    trace = parse_trace(stripped)
    if trace is not None:
        return Pasted(trace.kind, trace.message, trace.error_class, "", trace.frames)
    if "\n" in stripped:
        return None
    return _message_line(stripped)


def _message_line(line: str) -> Pasted | None:
    rest, log = _strip_log(line)
    m = _EXCEPTION.match(rest)
    if m and _is_exception(m["cls"]):
        prefix = line[: len(line) - len(rest)] + rest[: m.start("msg")]
        return Pasted(LOG if log else MESSAGE, m["msg"].strip(), m["cls"], prefix)
    if log and rest:
        return Pasted(LOG, rest, "", line[: len(line) - len(rest)])
    return None


def _strip_log(line: str) -> tuple[str, bool]:
    """The line without its log prefix, and whether it had one (a timestamp or a level)."""
    rest = line
    glog = _GLOG.match(rest)
    if glog:
        return rest[glog.end():], True
    stamp = _TIMESTAMP.match(rest)
    if stamp:
        rest = rest[stamp.end():]
    py = _PY_LOGGING.match(rest)
    if py:
        return rest[py.end():], True
    thread = _THREAD.match(rest)
    level = _LEVEL.match(rest[thread.end():] if thread else rest)
    if level:
        rest = rest[thread.end():] if thread else rest
        rest = rest[level.end():]
        for after in _AFTER_LEVEL:
            m = after.match(rest)
            if m:
                rest = rest[m.end():]
                break
    return rest, bool(stamp or level)


def _is_exception(name: str) -> bool:
    last = re.split(r"[.$]", name)[-1]
    if not last or not last[0].isupper():
        return False
    return ("." in name and not name.replace(".", "").isdigit()) or bool(
        _ERRORISH.search(last) or _TWO_HUMPS.match(last) or last == "Error")


def fragments(message: str) -> tuple[str, ...]:
    """The message's literal fragments, longest first: the runs between quoted values and
    numbers (what a run-time value most likely filled), FRAGMENT_MIN characters or more."""
    pieces = _NUMBER.split(_QUOTED_VALUE.sub("\0", message).replace("\0", "\n"))
    runs = [p.strip(" \t:;,.()[]{}=-") for piece in pieces for p in piece.split("\n")]
    ordered = sorted(dict.fromkeys(runs), key=lambda r: -len(r))
    ordered = [r for r in ordered if len(r) >= FRAGMENT_MIN]
    return tuple(ordered[:MAX_FRAGMENTS])


def longest_fragment(message: str) -> str:
    found = fragments(message)
    return found[0] if found else message.strip()


def distinctive_words(message: str) -> tuple[str, ...]:
    """Words of 4+ letters outside quoted values, common English words dropped, in order."""
    anchors = set(anchor_words(message))
    return tuple(w for w in dict.fromkeys(re.findall(r"[A-Za-z_]{4,}", message))
                 if w in anchors)
