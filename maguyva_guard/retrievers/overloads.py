"""Overloads in C++, C#, Swift and Java: one qualified name, several parameter lists.

A call resolves by name to every overload at once (they share the qualified name), so a
changed overload would collect the calls of its siblings. Where the call's argument count
shows on its line and fits a sibling's parameter list but not the changed one's, the call
is the sibling's (measured on pythonnet and Capacitor: `SetArgv(args)` is not a call of
`SetArgv()`, `getServerUrl(domain)` not of `getServerUrl()`; commons-cli's release diff:
`getOptionValue(opt)` is not a call of `getOptionValue(Option, Supplier)`). Of two
overloads of one arity, only a string argument tells them apart (pythonnet:
`PyObject_GetAttrString(o, "warn")` and `GetAttr(string name) { ..
PyObject_GetAttrString(obj, name) }` call the `string` overload, not the `StrPtr` one; a
string is a literal or a name the caller declares as one):
the call is the sibling's when that sibling takes a string there and the target takes a
named type that is no string, object or type parameter (C# and Swift). Other types are not
compared: such calls stay the target's.
"""

from __future__ import annotations

import re
from typing import Final

from maguyva_guard.extract.languages import language_for
from maguyva_guard.records import Definition

OVERLOAD_LANGUAGES: Final = frozenset({"cpp", "csharp", "swift", "java"})
_OPEN: Final = "([{"
_CLOSE: Final = ")]}"
MANY: Final = 1 << 16  # `params T[]`, `T...`, C varargs


def other_overload(target: Definition, siblings: list[Definition], line: str,
                   before: list[str] | None = None) -> bool:
    """Whether the call of `target.name` on `line` fits a sibling overload and not it
    (`before`: the lines of the calling definition up to the call, where its parameters
    and locals are declared)."""
    if language_for(target.path) not in OVERLOAD_LANGUAGES or not siblings:
        return False
    count = call_arguments(line, target.name)
    if count is None:
        return False
    low, high = arity(target.signature, target.name)
    if low <= count <= high:
        return _literal_fits_sibling_only(target, siblings, line, count, before or [])
    # A variadic sibling fits any count: after a change of the target's parameters its
    # old calls may fit it too, and they are still the target's callers.
    return any(lo <= count <= hi < MANY for lo, hi in (arity(s.signature, s.name)
                                                        for s in siblings))


# Parameter types a string literal converts to; a one-letter or T-named type is generic.
_STRING_TYPES: Final = frozenset({"string", "String", "string?", "String?", "Substring",
                                  "StringProtocol", "ReadOnlySpan<char>"})
_ANY_TYPES: Final = frozenset({"object", "object?", "Object", "Any", "Any?", "AnyObject",
                               "dynamic", "var"})
_LITERAL_LANGUAGES: Final = frozenset({"csharp", "swift"})
_GENERIC: Final = re.compile(r"^T?[A-Z]?\w{0,1}\??$|^T[A-Z]\w*\??$")


def _literal_fits_sibling_only(target: Definition, siblings: list[Definition], line: str,
                               count: int, before: list[str]) -> bool:
    if language_for(target.path) not in _LITERAL_LANGUAGES:
        return False  # C++: a literal is a `const char*` first, a std::string by conversion
    args = _parenthesised(line, target.name)
    if args is None:
        return False
    literal = [i for i, a in enumerate(_split(args)) if _is_string(a.strip(), before)]
    if not literal:
        return False
    mine = parameter_types(target.signature, target.name)
    if len(mine) != count:
        return False
    if not any(_not_string(mine[i]) for i in literal):
        return False
    for s in siblings:
        theirs = parameter_types(s.signature, s.name)
        if len(theirs) == count and all(theirs[i] in _STRING_TYPES for i in literal):
            return True
    return False


def _is_string(arg: str, before: list[str]) -> bool:
    """A string literal (`"a"`, C# `$"{x}"` and `@"a"`), or a name the calling definition
    declares as a string: a parameter or local `string name` / `name: String`, or
    `var name = "..."` / `let name = "..."`."""
    if arg.startswith(('"', '$"', '@"')):
        return True
    if not re.fullmatch(r"[A-Za-z_]\w*", arg):
        return False
    name = re.escape(arg)
    declared = re.compile(
        rf"(?:\b(?:string|String)\??\s+{name}\b)|(?:\b{name}\s*:\s*String\b)"
        rf"|(?:\b(?:var|let)\s+{name}\s*=\s*[$@]?\")")
    return any(declared.search(line) for line in before)


def _not_string(kind: str) -> bool:
    return bool(kind) and kind not in _STRING_TYPES and kind not in _ANY_TYPES \
        and not _GENERIC.match(kind)


def parameter_types(signature: str, name: str) -> list[str]:
    """Each parameter's declared type, as written (C# `string name` -> "string", Swift
    `_ d: String` -> "String"; "" where none shows)."""
    params = _parenthesised(signature, name)
    if params is None:
        return []
    out = []
    for p in _split(params, generics=True):
        p = p.split("=", 1)[0].strip()
        if not p:
            continue
        if ":" in p:  # Swift, Kotlin, Scala: `label name: Type`
            out.append(p.split(":", 1)[1].strip())
        else:  # C#, C++, Java: `[ref|out|in|this] Type name`
            words = [w for w in p.split() if w not in ("ref", "out", "in", "this", "params")]
            out.append(words[-2] if len(words) >= 2 else "")
    return out


def arity(signature: str, name: str) -> tuple[int, int]:
    """How many arguments a definition takes: (required, at most)."""
    params = _parenthesised(signature, name)
    if params is None:
        return 0, MANY
    parts = [p.strip() for p in _split(params, generics=True) if p.strip()]
    if parts in (["void"], []):
        return 0, 0
    required = sum(1 for p in parts if "=" not in p)
    variadic = any(p.startswith("params ") or "..." in p for p in parts)
    return required - (1 if variadic else 0), MANY if variadic else len(parts)


def call_arguments(line: str, name: str) -> int | None:
    """The argument count of the call of `name` on `line` (None: not closed there, or
    `name(` twice on the line: `String value(String o) { return value(o, null); }` holds a
    definition and a call, and which one is the reference is not known here)."""
    if len(_opening(name).findall(line)) > 1:
        return None
    args = _parenthesised(line, name)
    if args is None:
        return None
    parts = _split(args)
    return 0 if parts == [""] or not args.strip() else len(parts)


def _opening(name: str) -> re.Pattern[str]:
    """`name(` or `name<T>(`, not inside a longer identifier."""
    return re.compile(rf"(?<![\w$]){re.escape(name)}\s*(?:<[^<>()]*>)?\s*\(")


def _parenthesised(text: str, name: str) -> str | None:
    m = _opening(name).search(text)
    if m is None:
        return None
    depth, start = 0, m.end()
    quote = ""
    for i in range(start, len(text)):
        c = text[i]
        if quote:
            if c == quote and text[i - 1] != "\\":
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            if depth == 0:
                return text[start:i]
            depth -= 1
    return None


def _split(args: str, generics: bool = False) -> list[str]:
    """Top-level comma-separated pieces of an argument or parameter list (`generics`: a
    parameter list, whose `<...>` are type arguments; in a call they may be comparisons)."""
    parts: list[str] = []
    current: list[str] = []
    depth, quote, angle = 0, "", 0
    for c in args:
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif c == "<" and generics:
            angle += 1
        elif c == ">" and angle:
            angle -= 1
        elif c == "," and depth == 0 and angle == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(c)
    parts.append("".join(current))
    return parts
