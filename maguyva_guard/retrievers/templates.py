"""Message templates in source text, and how well a pasted message matches one.

    string_groups(text, style) -> [Group]     the string expressions of a file
    coverage(group, message) -> (recall, precision)

A message seen at run time was built from literals and values. We read the literals of a
file with a small scanner (no parser: the same code serves Python, JavaScript, TypeScript,
Go, Java, Rust) and put together the pieces that build one string:
- implicit concatenation, across lines too (`"Invalid URL %r: " "No scheme supplied"`),
  and `+` between literals, with an expression between two `+` as a placeholder;
- placeholders inside a literal: f-string and `.format` fields (`{url!r}`, `{0}`, `{}`),
  `%` conversions (`%s`, `%(name)s`, `%d`, Go's `%v`), JS template fields (`${x}`);
  gettext's `_("...")` is a call around a literal and needs nothing of its own.
A group is then its literal runs in order, the placeholders being the gaps between them.

Matching is on whitespace-collapsed, lower-cased text: each run is looked for in the
message after the previous one (values sit in the gaps, so quoted values and numbers match
placeholders without being named). `recall` is the share of the message the runs cover,
`precision` the share of the group's literal text found in the message (a docstring that
repeats the message among other sentences has high recall, low precision).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

MIN_RUN: Final = 2  # a run shorter than this ("'", ".") covers nothing

_STRINGS: Final = (
    r"(?P<triple>\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?''')"
    r"|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`")
_LITERAL_HASH: Final = re.compile(_STRINGS + r"|(?P<comment>#[^\n]*)")
_LITERAL_SLASH: Final = re.compile(_STRINGS + r"|(?P<comment>//[^\n]*|/\*[\s\S]*?\*/)")
_PLACEHOLDER: Final = re.compile(
    r"\{\{|\}\}|%%|\$\{[^{}]*\}|\{[^{}\s][^{}]*\}|\{\}"
    r"|%(?:\([^)]*\))?[#0+\-]*(?:\d+|\*)?(?:\.\d+)?[hlL]?[sdifrxXoeEgGcvqTtbpwa]")
_ESCAPES: Final = re.compile(r"\\(.)", re.S)
_ESCAPED: Final = {"n": " ", "t": " ", "r": " "}
_JOIN: Final = re.compile(r"\s*(?:\\\n\s*)*(?:#[^\n]*\n\s*)*")  # implicit concatenation
_PLUS: Final = re.compile(r"\s*\+\s*")
_PLUS_VALUE: Final = re.compile(r"\s*\+\s*[^;\"'`\n]{1,80}?\s*\+\s*")
_SPACES: Final = re.compile(r"\s+")
_TRIPLES: Final = ('"""', "'''")
_PREFIX_CHARS: Final = frozenset("rRbBuUfF")


@dataclass(frozen=True)
class Group:
    """One string expression: where it is, and its literal runs in order."""

    start: int  # offset of its first literal
    end: int
    runs: tuple[str, ...]  # normalised literal text between placeholders
    docstring: bool = False  # a lone triple-quoted literal


def string_groups(text: str, hash_comments: bool = True,
                  keep: Callable[[str], bool] | None = None,
                  regions: list[tuple[int, int]] | None = None) -> list[Group]:
    """Every string expression of `text` (see the module doc). `hash_comments`: whether `#`
    starts a comment (Python, shell) or is just a character (C-like languages). `keep`, given
    the lower-cased source of a chain of joined literals, says whether to build its group:
    scanning is cheap, building every group of a file is not. `regions` (from `regions()`)
    limits the scan to parts of the text."""
    scanner = _LITERAL_HASH if hash_comments else _LITERAL_SLASH
    spans = [(m.start(), m.end(), m.group("triple") is not None)
             for start, end in (regions or [(0, len(text))])
             for m in scanner.finditer(text, start, end) if m.group("comment") is None]
    groups: list[Group] = []
    chain: list[tuple[int, int, bool]] = []
    joins: list[bool] = []
    for span in spans:
        joined = _joined(text, chain[-1][1], span[0]) if chain else None
        if joined is not None:
            chain.append(span)
            joins.append(joined)
            continue
        if chain and (keep is None or keep(text[chain[0][0]:chain[-1][1]].lower())):
            groups.append(_group(text, chain, joins))
        chain, joins = [span], []
    if chain and (keep is None or keep(text[chain[0][0]:chain[-1][1]].lower())):
        groups.append(_group(text, chain, joins))
    return groups


def regions(text: str, positions: list[int], radius: int) -> list[tuple[int, int]]:
    """Whole-line windows of `radius` characters around `positions`, merged. A window never
    starts inside a triple-quoted string (the scanner would read it inside out): an odd
    count of triple quotes before the start means inside, and the start moves back to the
    last of them."""
    windows: list[tuple[int, int]] = []
    counted = {quotes: (0, 0) for quotes in _TRIPLES}  # (offset, count before it)
    for pos in sorted(positions):
        start = text.rfind("\n", 0, max(pos - radius, 0)) + 1
        end = text.find("\n", min(pos + radius, len(text)))
        end = len(text) if end < 0 else end
        for quotes in _TRIPLES:
            at, before = counted[quotes]
            if start >= at:  # count on from the last window's start, not from 0
                before += text.count(quotes, at, start)
                counted[quotes] = (start, before)
            else:
                before = text.count(quotes, 0, start)
            if before % 2:
                start = text.rfind(quotes, 0, start)
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(end, windows[-1][1]))
        else:
            windows.append((start, end))
    return windows


def coverage(group: Group, message: str) -> tuple[float, float]:
    """(recall, precision) of the group's runs in `message` (already normalise()d)."""
    pos, covered, total = 0, 0, 0
    for run in group.runs:
        if len(run) < MIN_RUN:
            continue
        total += len(run)
        found = message.find(run, pos)
        if found < 0:
            continue
        covered += len(run)
        pos = found + len(run)
    if not covered or not message:
        return 0.0, 0.0
    return covered / len(message), covered / total


def normalise(text: str) -> str:
    return _SPACES.sub(" ", text).strip().lower()


def _prefix(text: str, start: int) -> str:
    i = start
    while i > 0 and start - i < 2 and text[i - 1] in _PREFIX_CHARS:
        i -= 1
    if i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
        return ""  # an identifier ending in r/b/f, not a string prefix
    return text[i:start]


def _tokens(body: str, raw: bool) -> list[str | None]:
    """A literal's body as text runs and placeholders (None)."""
    out: list[str | None] = []
    last = 0
    for m in _PLACEHOLDER.finditer(body):
        out.append(body[last:m.start()])
        token = m.group(0)
        out.append(token[0] if token in ("{{", "}}", "%%") else None)
        last = m.end()
    out.append(body[last:])
    if not raw:
        out = [_ESCAPES.sub(lambda e: _ESCAPED.get(e.group(1), e.group(1)), t)
               if t is not None else None for t in out]
    return out


def _joined(text: str, end: int, start: int) -> bool | None:
    """How two literals join: False (directly), True (a value between them), None (not)."""
    gap = text[end:start]
    if len(gap) > 200:
        return None
    if _JOIN.fullmatch(gap) or _PLUS.fullmatch(gap):
        return False
    if _PLUS_VALUE.fullmatch(gap):
        return True
    return None


def _group(text: str, chain: list[tuple[int, int, bool]], joins: list[bool]) -> Group:
    runs: list[str] = []
    current = ""
    for i, (start, end, triple) in enumerate(chain):
        if i and joins[i - 1]:  # a value between two `+`
            runs.append(current)
            current = ""
        raw = "r" in _prefix(text, start).lower()
        body = text[start + 3:end - 3] if triple else text[start + 1:end - 1]
        for token in _tokens(body, raw):
            if token is None:
                runs.append(current)
                current = ""
            else:
                current += token
    runs.append(current)
    normal = tuple(n for r in runs if (n := normalise(r)))
    docstring = len(chain) == 1 and chain[0][2]
    return Group(chain[0][0], chain[-1][1], normal, docstring)


_QUOTED_VALUE: Final = re.compile(
    r"(?<!\w)'[^'\n]*'(?!\w)|\"[^\"\n]*\"|`[^`\n]*`|\u201c[^\u201d\n]*\u201d")
_WORDS: Final = re.compile(r"[A-Za-z_][A-Za-z_]{3,}")
_COMMON: Final = frozenset("""that this with from have must should could would will been
    were into than then there their they them when where which while your what does more
    most only other some such also each just like very being after before again""".split())


def anchor_words(message: str) -> tuple[str, ...]:
    """The message's distinctive words, longest first: 4+ letters, outside quoted values
    (a quoted value is most likely what filled a placeholder), common English dropped."""
    words = _WORDS.findall(_QUOTED_VALUE.sub(" ", message)) or _WORDS.findall(message)
    unique = dict.fromkeys(w for w in words if w.lower() not in _COMMON)
    return tuple(sorted(unique, key=lambda w: -len(w)))


def anchor_pairs(message: str, limit: int) -> tuple[str, ...]:
    """Adjacent word pairs of the message outside quoted values ("cannot be", "be blank."):
    far rarer than single words, so they find the file that builds the message among many
    that share its words. A pair that spans a value or a line break of the source is simply
    not found."""
    tokens = _QUOTED_VALUE.sub("\n", message).split(" ")
    pairs = [f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False)
             if "\n" not in a + b and len(a) + len(b) >= 5 and any(c.isalpha() for c in a + b)]
    return tuple(sorted(dict.fromkeys(pairs), key=lambda p: -len(p))[:limit])
