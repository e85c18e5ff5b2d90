"""A language's compiled query and parsers, and what each query pattern captures.

The query file of a language (plus the files it inherits) is compiled once per process with
an `(ERROR) @error` pattern appended to count parse errors. Each pattern must carry exactly
one role capture (@definition.<kind>, @scope.<kind>, @reference.<kind>, @local, @skip or
@error); its role is read from the pattern's text once, so the hot loop dispatches on an int.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from tree_sitter import Language, Parser, Query

from maguyva_guard.extract.languages import LANGUAGES, LanguageSpec, query_source
from maguyva_guard.records import ANNOTATION, CALL, DECORATOR, IMPORT, INHERIT, STRING, USE

_ROLE: Final = re.compile(rb"@(definition|scope|reference)\.(\w+)|@(local|skip|error)\b")
# When two patterns claim one identifier the lower rank wins: `@f(x)` is a decorator, not a
# call; `new Foo()` is a call, not a type annotation; a base class is not a mere use.
REF_RANK: Final = {IMPORT: 0, INHERIT: 1, DECORATOR: 2, CALL: 3, ANNOTATION: 4, STRING: 5, USE: 6}

# What a pattern captures, as the int the hot loop dispatches on.
REF, IMPORT_STATEMENT, DEFINITION, SCOPE, LOCAL, SKIP, ERROR = range(7)
_GROUP_CODES: Final = {
    "definition": DEFINITION,
    "scope": SCOPE,
    "local": LOCAL,
    "skip": SKIP,
    "error": ERROR,
}


@dataclass(frozen=True)
class Role:
    code: int  # one of the codes above
    kind: str  # the definition/reference/scope kind; "" for the others
    capture: str  # the capture name that holds the role's node
    rank: int  # references: REF_RANK of the kind


@dataclass(frozen=True)
class Compiled:
    spec: LanguageSpec
    language: Language
    query: Query  # immutable once built: shared by every thread
    roles: tuple[Role, ...]  # by pattern index


_COMPILED: dict[str, Compiled] = {}
# One compilation per language, even when warm() has one under way in another thread.
_COMPILING = threading.Lock()
_LANGUAGE_LOCKS: dict[str, threading.Lock] = {}
# A Parser holds parse state, so each thread gets its own (the engine runs in threads).
_PARSERS = threading.local()


def compiled(language: str) -> Compiled:
    """The compiled query of a registered language (compiled on first use)."""
    found = _COMPILED.get(language)
    if found is not None:
        return found
    with _COMPILING:
        lock = _LANGUAGE_LOCKS.setdefault(language, threading.Lock())
    with lock:  # waits for a warm() thread that is compiling it
        found = _COMPILED.get(language)
        return found if found is not None else _compile(language)


def warm(languages: Iterable[str]) -> None:
    """Start compiling these languages' queries in background threads. Compiling Python's
    takes ~50 ms, and tree-sitter releases the GIL meanwhile: a check that will parse a
    staged file compiles it while it reads git and the index on the other core."""
    for language in dict.fromkeys(languages):
        if language in LANGUAGES and language not in _COMPILED:
            threading.Thread(target=_warm_one, args=(language,), daemon=True,
                             name=f"compile-{language}").start()


def _warm_one(language: str) -> None:
    try:
        compiled(language)
    except Exception:  # noqa: BLE001 - the parse that needs it compiles again and says why
        return


def parser(found: Compiled) -> Parser:
    """This thread's parser for a compiled language."""
    parsers: dict[str, Parser] | None = getattr(_PARSERS, "by_language", None)
    if parsers is None:
        parsers = _PARSERS.by_language = {}
    cached = parsers.get(found.spec.name)
    if cached is None:
        cached = parsers[found.spec.name] = Parser(found.language)
    return cached


def _compile(language: str) -> Compiled:
    # Imported here: the language pack is large and only needed once something is parsed.
    from tree_sitter_language_pack import get_language

    spec = LANGUAGES[language]
    source = query_source(language) + "\n(ERROR) @error\n"
    grammar = get_language(spec.grammar)  # type: ignore[arg-type]  # names are data
    query = Query(grammar, source)
    raw = source.encode("utf-8")
    roles = []
    for index in range(query.pattern_count):
        pattern = raw[query.start_byte_for_pattern(index) : query.end_byte_for_pattern(index)]
        roles.append(_role_of(pattern, language))
    found = Compiled(spec, grammar, query, tuple(roles))
    _COMPILED[language] = found
    return found


def _role_of(pattern: bytes, language: str) -> Role:
    match = _ROLE.search(pattern)
    if match is None:
        raise ValueError(f"queries for {language}: a pattern without a role capture: {pattern!r}")
    if match.group(3):
        group = match.group(3).decode()
        return Role(_GROUP_CODES[group], "", group, 0)
    group, kind = match.group(1).decode(), match.group(2).decode()
    capture = f"{group}.{kind}"
    if group != "reference":
        return Role(_GROUP_CODES[group], kind, capture, 0)
    if kind == IMPORT:
        return Role(IMPORT_STATEMENT, kind, capture, 0)
    # The records' own string objects, so the hot loop can compare kinds with `is`.
    known = next((k for k in REF_RANK if k == kind), None)
    if known is None:
        raise ValueError(f"queries for {language}: unknown reference kind {kind!r}")
    return Role(REF, known, capture, REF_RANK[known])
