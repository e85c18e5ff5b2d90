"""Intent classification (design §2): ordered rules, the first match wins.

The classifier sits on the hot path (design §2: well under 2 ms a query), so it is a stack of
precompiled regular expressions and set look-ups, no model. The rows, in order:

  0. find_similar: the caller said it passes code (`is_code=True`), or the query looks like
     code: two or more lines, at least one with code punctuation, and not a traceback (a
     pasted traceback is an error to look up, row 4). design §2 puts find_similar outside the
     table ("chosen when the caller passes code"), so it is checked before row 1: a pasted
     function starts with `def ` but wants similar code, not that one definition.
  1. a code keyword (`def`, `class`, `func`, `fn`, `function`, `struct`, `interface`,
     `type`, `import`, ... with modifiers such as `async`/`pub`/`export`) then a name:
     find_definition at 0.95. English also starts with "type" or "function", so the name
     must look like code, or be followed by code punctuation or a declaration word (`as`,
     `extends`, `struct`...): "type checking in the parser" is not a declaration.
  2. "who calls", "usages of", "references to" and the like: find_references, 0.90.
  3. "impact", "blast radius", "what depends on" and the like: impact_analysis, 0.90.
  4. a literal or an error token: exact_match, graded by the strongest signal present:
     a quoted string or a traceback 0.90 (the user pasted the exact text), an `E[A-Z]+`
     errno token 0.88 (a fixed vocabulary, but could be an acronym), a bare
     `SomethingError`/`SomethingException` (or Go's `ErrSomething`) name 0.85 (it is also
     an identifier, so the weakest reason to search literally). A quote inside a longer
     message ("'for' statements should have at least four words") makes the whole
     message the literal.
  5. a bare identifier: find_definition, graded by how surely it is code: dotted or
     `::`-qualified, or three or more snake/camel parts 0.80 (`Config.load`,
     `parse_config_file`); two parts or any underscore 0.70 (`parse_config`, `parseConfig`,
     `__init__`); a single word 0.60 (`config`, `Config`). A definition cue around it
     ("where is X defined", "definition of X", "find X") keeps the row and the grade:
     design §1 cites "where is parseConfig defined" as the find_definition question.
  6. "how", "why", "explain", "architecture" and the like: understand_code, 0.75.
  7. nothing matched: understand_code, 0.40, the honest fallback of design §6.

A caller that knows the intent (the guard, design §7) names it with `given()` instead.

The phrases of rows 2, 3 and 6 are looked for outside quotes only: `grep "blast radius"`
asks for the literal, not for an impact analysis.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from maguyva_guard import spec
from maguyva_guard.errors import FatalError
from maguyva_guard.search.pasted import MESSAGE, Pasted, recognise


@dataclass(frozen=True)
class Intent:
    """The classifier's answer. `rule` names the row that matched (for --explain); `terms`
    are the identifiers and literals pulled out of the query, in order of appearance."""

    intent: str
    confidence: float
    rule: str
    terms: tuple[str, ...] = ()
    given: bool = False  # named by the caller (the guard), not classified
    pasted: Pasted | None = None  # a pasted error: message, class, frames (search/pasted.py)


def given(intent: str, query: str) -> Intent:
    """The intent a caller names (design §7: the guard's impact_analysis and find_references
    queries), with the terms the classifier would pull out of the query."""
    if intent not in spec.INTENTS:
        raise FatalError(f"unknown intent {intent!r} (choose {', '.join(spec.INTENTS)})")
    terms = classify(query).terms
    return Intent(intent, spec.CONF_GIVEN, "given by the caller", terms, given=True)


_ID = r"[A-Za-z_$][\w$]*"
_QUALIFIED = rf"{_ID}(?:(?:\.|::|#){_ID})*"
_TOKEN = re.compile(rf"{_QUALIFIED}(?:\(\))?")
_BARE = re.compile(rf"{_QUALIFIED}")
_QUOTED = re.compile(r'"([^"\n]+)"|\u201c([^\u201d\n]+)\u201d|(?<![\w])\'([^\'\n]+)\'(?![\w])')

_MODIFIERS = r"(?:(?:export|pub|public|private|protected|static|async|abstract|final)\s+)*"
_KEYWORDS = (
    "def|class|func|fn|function|struct|interface|type|import|from|enum|trait|impl|const|var|let"
)
_DEFINITION = re.compile(
    rf"^{_MODIFIERS}(?P<kw>{_KEYWORDS})\s+(?:\([^)]*\)\s*)?(?P<name>{_QUALIFIED})(?P<rest>.*)$"
)
_DECLARATION_WORDS = frozenset(
    {"as", "extends", "implements", "struct", "interface", "import", "for", "where", "enum"}
)
_CODE_PUNCTUATION = frozenset("([<{:=,;")

_REFERENCES = re.compile(
    r"\b(?:who|what)\s+(?:calls|call|uses|references|imports|invokes)\b"
    r"|\bcall(?:er)?s\s+(?:of|to|for)\b|\bcall\s+sites?\s+(?:of|for)\b"
    r"|\busages?\s+(?:of|for)\b|\buses\s+of\b|\breferences?\s+(?:to|of|for)\b"
    r"|\brefs\s+(?:to|of)\b|\bfind\s+(?:all\s+)?(?:usages|references|callers)\b"
    r"|\bwhere\s+(?:is|are)\s+(?P<t>\S+)\s+(?:used|called|referenced)\b",
    re.I,
)
_IMPACT = re.compile(
    r"\bimpact(?:s|ed)?\b|\bblast\s+radius\b|\b(?:what|who)\s+depends\s+on\b"
    r"|\bdepend(?:s|encies)?\s+on\b|\bdependents\s+of\b|\bwhat\s+(?:\w+\s+)?breaks?\b"
    r"|\b(?:would|will|could|might|can)\s+break\b|\baffected\s+by\b",
    re.I,
)
_UNDERSTAND = re.compile(
    r"\b(?:how|why|explain(?:s|ed)?|architecture|overview|describe|walk\s+(?:me\s+)?through"
    r"|what\s+(?:does|is|are)|purpose\s+of|understand)\b",
    re.I,
)
_DEFINITION_CUE = re.compile(
    rf"^(?:where\s+is\s+(?P<a>{_QUALIFIED})\s+(?:defined|declared|implemented)"
    rf"|(?:find\s+|show\s+|go\s*to\s+)?(?:the\s+)?(?:definition|declaration)\s+of\s+"
    rf"(?P<b>{_QUALIFIED})|(?:find|locate|go\s*to)\s+(?P<c>{_QUALIFIED}))$",
    re.I,
)

_TRACEBACK = re.compile(
    r"Traceback \(most recent call last\)|^\s*File \"[^\"]+\", line \d+"
    r"|^\s*at .+:\d+\)?\s*$|^panic: |^goroutine \d+ \[|panicked at ",
    re.M,
)
_ERRNO = re.compile(r"(?<![\w$])E[A-Z]{2,}(?![\w$])")
_ERROR_NAME = re.compile(r"(?<![\w$])(?:[A-Z]\w*(?:Error|Exception)|Err[A-Z]\w*)(?![\w$])")
_CAMEL = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2}")
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_CODE_LINE = re.compile(r"[(){}\[\];=]|:\s*$")
_WORD = re.compile(r"[A-Za-z]+")
MESSAGE_MIN_WORDS = 3  # words besides the quoted part (and filler) that make it a message

# Words that carry the question, not the target ("who calls THE parse_config FUNCTION").
_FILLER = frozenset(
    """a an the of to on in for from by at is are was be been this that these those it its
    my our your me i we all any every function functions method methods class classes symbol
    symbols variable constant module modules file files code find show list get give what who
    where which does do did would will could can might if change changes changing changed
    modify modifying rename renaming delete remove removing call calls called calling use uses
    used using usage usages reference references referenced callers caller break breaks
    depends depend dependents dependencies impact impacts impacted blast radius affected and
    or with please there here when so then about sites site import imports invokes""".split()
)
# Question words are not identifiers, even alone (row 6's cues, and their company).
_NOT_IDENTIFIERS = frozenset(
    "how why what where when who explain architecture overview describe help".split()
)


def classify(query: str, *, is_code: bool = False) -> Intent:
    """Put `query` into one of the six intents of design §2, with a confidence."""
    text = query.strip()
    if is_code or _looks_like_code(text):
        return Intent(spec.FIND_SIMILAR, spec.CONF_SIMILAR, "0 code", _declared_names(text))
    pasted = recognise(text)
    if pasted is not None:
        return _pasted(text, pasted)
    plain = text.replace("`", " ").strip()
    quoted = _quoted(plain)
    outside = _QUOTED.sub(" ", plain) if quoted else plain
    return (
        _definition_keyword(plain)
        or _phrase(outside, quoted, _REFERENCES, spec.FIND_REFERENCES,
                   spec.CONF_REFERENCES_PHRASE, "2 references phrase")
        or _phrase(outside, quoted, _IMPACT, spec.IMPACT_ANALYSIS,
                   spec.CONF_IMPACT_PHRASE, "3 impact phrase")
        or _exact(plain, outside, quoted)
        or _identifier(plain)
        or _understand(outside, quoted)
    )


def is_ordinary(intent: Intent, query: str) -> bool:
    """Whether the query names one target: one identifier or one literal (design §4).

    Code (find_similar) and multi-line text such as a traceback are never ordinary: they
    carry more than one thing to look for, which is what fusion is for.
    """
    if intent.intent == spec.FIND_SIMILAR or "\n" in query.strip():
        return False
    return len(intent.terms) == 1


def _looks_like_code(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2 or _TRACEBACK.search(text):
        return False
    return any(_CODE_LINE.search(line) for line in lines)


def _declared_names(code: str) -> tuple[str, ...]:
    names = (m.group("name") for line in code.splitlines()
             if (m := _DEFINITION.match(line.strip())))
    return _unique(names)


def _definition_keyword(text: str) -> Intent | None:
    match = _DEFINITION.match(text)
    if not match:
        return None
    kw, name, rest = match.group("kw", "name", "rest")
    rest = rest.strip()
    first_word = rest.split(None, 1)[0] if rest else ""
    if rest and not _is_code_token(name) and not name[0].isupper() \
            and rest[0] not in _CODE_PUNCTUATION and first_word not in _DECLARATION_WORDS:
        return None  # "type checking in the parser": English, not a declaration
    terms: tuple[str, ...] = (name,)
    if kw == "from" and first_word == "import":
        imported = [n.strip() for n in rest[len("import"):].split(",")]
        terms = _unique(f"{name}.{n.split()[0]}" for n in imported if n and n != "*") or terms
    return Intent(spec.FIND_DEFINITION, spec.CONF_DEFINITION_KEYWORD, f"1 keyword '{kw}'", terms)


def _phrase(outside: str, quoted: tuple[str, ...], pattern: re.Pattern[str], intent: str,
            confidence: float, rule: str) -> Intent | None:
    match = pattern.search(outside)
    if not match:
        return None
    inside = match.groupdict().get("t") or ""  # "where is X used": the target is inside
    rest = f"{outside[: match.start()]} {inside} {outside[match.end():]}"
    return Intent(intent, confidence, rule, _target_terms(rest, quoted))


def _exact(text: str, outside: str, quoted: tuple[str, ...]) -> Intent | None:
    errnos = _ERRNO.findall(outside)
    errors = _ERROR_NAME.findall(outside)
    traceback = _TRACEBACK.search(text) is not None
    if quoted or traceback:
        confidence, rule = spec.CONF_EXACT_MAX, "4 traceback" if traceback else "4 quoted string"
    elif errnos:
        confidence, rule = spec.CONF_EXACT_ERRNO, "4 errno token"
    elif errors:
        confidence, rule = spec.CONF_EXACT_MIN, "4 error type name"
    else:
        return None
    if traceback:
        # A traceback is long: its error names are the literal to find, or else its panic
        # line (Go, Rust) or its last line.
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        message = next((line for line in lines if "panic" in line), lines[-1])
        found = _unique([*errors, *errnos]) or (message,)
        return Intent(spec.EXACT_MATCH, confidence, rule, found)
    if quoted and _is_message(outside):
        # A pasted message that quotes a word ("'for' statements should have at least four
        # words"): the message is the literal, one target (design §4's direct path), not the
        # quoted word, which is everywhere; its quoted values may fill placeholders.
        return Intent(spec.EXACT_MATCH, confidence, rule, (text,), pasted=Pasted(MESSAGE, text))
    return Intent(spec.EXACT_MATCH, confidence, rule,
                  _unique([*quoted, *errnos, *errors, *_code_tokens(outside)]))


def _pasted(text: str, pasted: Pasted) -> Intent:
    """Row 4 for what a program printed: a trace (its terms as before: the error names, or
    the panic line), or a message line behind an exception or log prefix (the message)."""
    if pasted.frames or _TRACEBACK.search(text):
        outside = _QUOTED.sub(" ", text)
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        panic = next((line for line in lines if "panic" in line), lines[-1])
        names = _unique([*_ERROR_NAME.findall(outside), *_ERRNO.findall(outside)])
        return Intent(spec.EXACT_MATCH, spec.CONF_EXACT_MAX, "4 traceback", names or (panic,),
                      pasted=pasted)
    rule = "4 exception prefix" if pasted.error_class else "4 log prefix"
    return Intent(spec.EXACT_MATCH, spec.CONF_EXACT_PREFIX, rule, (pasted.message,),
                  pasted=pasted)


def _is_message(outside: str) -> bool:
    """Whether the words around the quotes read as a sentence of their own (a message),
    not as an instruction about the quoted text ("find 'x' in the parser")."""
    words = [w for w in _WORD.findall(outside) if w.lower() not in _FILLER | _NOT_IDENTIFIERS]
    return len(words) >= MESSAGE_MIN_WORDS


def _identifier(text: str) -> Intent | None:
    text = text.rstrip("?").strip()
    bare = text.removesuffix("()")
    rule = "5 bare identifier"
    if not _BARE.fullmatch(bare):
        cue = _DEFINITION_CUE.match(text)
        if not cue:
            return None
        bare, rule = next(g for g in cue.group("a", "b", "c") if g), "5 identifier, definition cue"
        if cue.group("c") and not (_is_code_token(bare) or bare[0].isupper()):
            return None  # "find bugs": a verb and a word, not a name to look up
    if bare.lower() in _NOT_IDENTIFIERS:
        return None
    return Intent(spec.FIND_DEFINITION, _identifier_confidence(bare), rule, (bare,))


def _identifier_confidence(name: str) -> float:
    """Row 5's grade: how surely the words are a code identifier (see the module doc)."""
    parts = [p for segment in re.split(r"[^A-Za-z0-9]+", name) for p in _PARTS.findall(segment)]
    if any(sep in name for sep in (".", "::", "#")) or len(parts) >= 3:
        return spec.CONF_IDENTIFIER_MAX
    if len(parts) == 2 or "_" in name:
        return spec.CONF_IDENTIFIER_TWO_PART
    return spec.CONF_IDENTIFIER_MIN


def _understand(outside: str, quoted: tuple[str, ...]) -> Intent:
    terms = _unique([*quoted, *_code_tokens(outside)])
    if _UNDERSTAND.search(outside):
        return Intent(spec.UNDERSTAND_CODE, spec.CONF_UNDERSTAND_PHRASE, "6 understand phrase",
                      terms)
    return Intent(spec.UNDERSTAND_CODE, spec.CONF_FALLBACK, "7 fallback", terms)


def _target_terms(rest: str, quoted: tuple[str, ...]) -> tuple[str, ...]:
    """The target of "who calls X" / "impact of X": the words left once the phrase and the
    filler are gone; if some of them look like code, only those."""
    words = [t.removesuffix("()") for t in _TOKEN.findall(rest) if t.lower() not in _FILLER]
    code = [w for w in words if _is_code_token(w)]
    return _unique([*quoted, *(code or words)])


def _code_tokens(text: str) -> list[str]:
    return [t.removesuffix("()") for t in _TOKEN.findall(text) if _is_code_token(t)]


def _is_code_token(token: str) -> bool:
    """snake_case, camelCase, ACRONYM, dotted, `::`-qualified or called(): not an English word."""
    return (
        "_" in token
        or token.endswith("()")
        or any(sep in token for sep in (".", "::", "#"))
        or _CAMEL.search(token) is not None
    )


def _quoted(text: str) -> tuple[str, ...]:
    return _unique(next(g for g in m.groups() if g) for m in _QUOTED.finditer(text))


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))
