"""The classifier of SPEC 2: each row with several phrasings, the order between rows, terms."""

from __future__ import annotations

import pytest

from maguyva_guard import spec
from maguyva_guard.search.intent import Intent, classify, is_ordinary

DEF, REF, IMP = "find_definition", "find_references", "impact_analysis"
EXACT, UND, SIM = "exact_match", "understand_code", "find_similar"

TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "app/main.py", line 12, in <module>\n'
    "    run()\n"
    "KeyError: 'user'"
)
JAVA_TRACE = (
    "java.lang.IllegalStateException: closed\n"
    "    at com.acme.Pool.take(Pool.java:41)\n"
    "    at com.acme.Main.main(Main.java:9)"
)
GO_PANIC = "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.main()"

# (query, intent, confidence, terms): at least 60 phrasings over the seven rows.
CASES = [
    # row 1: a code keyword and a name -> find_definition 0.95
    ("def parse_config", DEF, 0.95, ("parse_config",)),
    ("def parse_config(path, strict=False):", DEF, 0.95, ("parse_config",)),
    ("async def fetch_user", DEF, 0.95, ("fetch_user",)),
    ("class Config", DEF, 0.95, ("Config",)),
    ("class Config(BaseSettings):", DEF, 0.95, ("Config",)),
    ("public class UserService extends Base", DEF, 0.95, ("UserService",)),
    ("func NewServer", DEF, 0.95, ("NewServer",)),
    ("func (s *Server) Start()", DEF, 0.95, ("Start",)),
    ("fn main()", DEF, 0.95, ("main",)),
    ("pub fn parse(input: &str)", DEF, 0.95, ("parse",)),
    ("function handleClick", DEF, 0.95, ("handleClick",)),
    ("export function render(props)", DEF, 0.95, ("render",)),
    ("struct Point", DEF, 0.95, ("Point",)),
    ("interface Repository", DEF, 0.95, ("Repository",)),
    ("type Handler func(w http.ResponseWriter)", DEF, 0.95, ("Handler",)),
    ("type Config struct", DEF, 0.95, ("Config",)),
    ("import numpy as np", DEF, 0.95, ("numpy",)),
    ("import os.path", DEF, 0.95, ("os.path",)),
    ("from pkg.config import load", DEF, 0.95, ("pkg.config.load",)),
    ("enum Color", DEF, 0.95, ("Color",)),
    ("trait Iterator", DEF, 0.95, ("Iterator",)),
    # row 2: references phrases -> find_references 0.90
    ("who calls parse_config", REF, 0.90, ("parse_config",)),
    ("Who calls parse_config?", REF, 0.90, ("parse_config",)),
    ("who calls main", REF, 0.90, ("main",)),
    ("usages of Config.load", REF, 0.90, ("Config.load",)),
    ("find usages of parseConfig", REF, 0.90, ("parseConfig",)),
    ("references to `parse_config`", REF, 0.90, ("parse_config",)),
    ("callers of the load_user function", REF, 0.90, ("load_user",)),
    ("what calls Store.open", REF, 0.90, ("Store.open",)),
    ("where is parse_config used", REF, 0.90, ("parse_config",)),
    ("calls to retry_request", REF, 0.90, ("retry_request",)),
    ("who uses this", REF, 0.90, ()),
    # row 3: impact phrases -> impact_analysis 0.90
    ("impact of changing parse_config", IMP, 0.90, ("parse_config",)),
    ("blast radius of Config.load", IMP, 0.90, ("Config.load",)),
    ("what depends on this", IMP, 0.90, ()),
    ("what depends on parse_config", IMP, 0.90, ("parse_config",)),
    ("what breaks if I change load_user", IMP, 0.90, ("load_user",)),
    ("what would break if I rename Store", IMP, 0.90, ("Store",)),
    ("Blast Radius for the session module", IMP, 0.90, ("session",)),
    # row 4: literals and error tokens -> exact_match 0.85..0.90, graded
    ('"ECONNREFUSED"', EXACT, 0.90, ("ECONNREFUSED",)),
    ('"connection reset by peer"', EXACT, 0.90, ("connection reset by peer",)),
    ("find 'invalid token'", EXACT, 0.90, ("invalid token",)),
    ('grep "blast radius"', EXACT, 0.90, ("blast radius",)),
    # a pasted message quoting a word: the whole message is the literal
    ("'for' statements should have at least four words", EXACT, 0.90,
     ("'for' statements should have at least four words",)),
    ('how is "blast radius" computed', EXACT, 0.90, ("blast radius",)),
    ("\u201cpermission denied\u201d", EXACT, 0.90, ("permission denied",)),
    (TRACEBACK, EXACT, 0.90, ("KeyError",)),
    (JAVA_TRACE, EXACT, 0.90, ("IllegalStateException",)),
    (GO_PANIC, EXACT, 0.90, ("panic: runtime error: index out of range",)),
    ("ECONNREFUSED", EXACT, 0.88, ("ECONNREFUSED",)),
    ("ENOENT when opening the cache", EXACT, 0.88, ("ENOENT",)),
    ("EIO", EXACT, 0.88, ("EIO",)),
    ("ConnectionRefusedError", EXACT, 0.85, ("ConnectionRefusedError",)),
    ("NullPointerException", EXACT, 0.85, ("NullPointerException",)),
    ("ErrNotFound", EXACT, 0.85, ("ErrNotFound",)),
    ("where do we raise ValueError", EXACT, 0.85, ("ValueError",)),
    # a pasted error line: the prefix is set aside, the message is the literal
    ("ValueError: level must be 'head'", EXACT, 0.90, ("level must be 'head'",)),
    ("django.core.exceptions.ImproperlyConfigured: The SECRET_KEY setting must not be empty.",
     EXACT, 0.90, ("The SECRET_KEY setting must not be empty.",)),
    ("ERROR:django.request:Internal Server Error: /admin/", EXACT, 0.90,
     ("Internal Server Error: /admin/",)),
    # row 5: a bare identifier -> find_definition 0.60..0.80, graded by parts
    ("Config.load", DEF, 0.80, ("Config.load",)),
    ("os.path.join", DEF, 0.80, ("os.path.join",)),
    ("std::fs::read_to_string", DEF, 0.80, ("std::fs::read_to_string",)),
    ("parse_config_file", DEF, 0.80, ("parse_config_file",)),
    ("parseConfigFile", DEF, 0.80, ("parseConfigFile",)),
    ("parse_config", DEF, 0.70, ("parse_config",)),
    ("parseConfig", DEF, 0.70, ("parseConfig",)),
    ("HTTPServer", DEF, 0.70, ("HTTPServer",)),
    ("MAX_RETRIES", DEF, 0.70, ("MAX_RETRIES",)),
    ("__init__", DEF, 0.70, ("__init__",)),
    ("`parse_config`", DEF, 0.70, ("parse_config",)),
    ("parse_config()", DEF, 0.70, ("parse_config",)),
    ("config", DEF, 0.60, ("config",)),
    ("Config", DEF, 0.60, ("Config",)),
    ("where is parseConfig defined", DEF, 0.70, ("parseConfig",)),
    ("definition of Store.open", DEF, 0.80, ("Store.open",)),
    ("find Config", DEF, 0.60, ("Config",)),
    # row 6: understanding phrases -> understand_code 0.75
    ("how does authentication work", UND, 0.75, ()),
    ("how does parse_config handle missing keys", UND, 0.75, ("parse_config",)),
    ("why is the cache invalidated twice", UND, 0.75, ()),
    ("explain the retry logic", UND, 0.75, ()),
    ("architecture of the indexer", UND, 0.75, ()),
    ("what does Store.open do", UND, 0.75, ("Store.open",)),
    ("How", UND, 0.75, ()),
    # row 7: nothing matched -> understand_code 0.40
    ("authentication middleware", UND, 0.40, ()),
    ("rate limiting for uploads", UND, 0.40, ()),
    ("type checking in the parser", UND, 0.40, ()),
    ("function that parses dates", UND, 0.40, ()),
    ("find bugs", UND, 0.40, ()),
    ("x = parse_config(path)", UND, 0.40, ("parse_config",)),
    ("retry with exponential backoff and jitter", UND, 0.40, ()),
    ("", UND, 0.40, ()),
]


def test_enough_phrasings() -> None:
    assert len(CASES) >= 60
    assert {intent for _, intent, _, _ in CASES} == {DEF, REF, IMP, EXACT, UND}


@pytest.mark.parametrize(("query", "intent", "confidence", "terms"), CASES)
def test_classify(query: str, intent: str, confidence: float, terms: tuple[str, ...]) -> None:
    got = classify(query)
    assert (got.intent, got.confidence, got.terms) == (intent, confidence, terms), got.rule


# Where two rows could match, the first in SPEC 2's order wins.
@pytest.mark.parametrize(
    ("query", "intent", "rule"),
    [
        ("class ValueError", DEF, "1"),  # 1 over 4: a keyword, then an error name
        ("def who_calls", DEF, "1"),  # 1 over 5
        ("import impact", DEF, "1"),  # 1 over 3
        ("who calls ValueError", REF, "2"),  # 2 over 4
        ('who calls "parse_config"', REF, "2"),  # 2 over 4 (the phrase is outside quotes)
        ("usages of parse_config and its impact", REF, "2"),  # 2 over 3
        ("impact of ConnectionError handling", IMP, "3"),  # 3 over 4
        ("impact of parse_config", IMP, "3"),  # 3 over 5
        ("explain ConnectionError", EXACT, "4"),  # 4 over 6
        ("why does ECONNREFUSED happen", EXACT, "4"),  # 4 over 6
        ('"who calls"', EXACT, "4"),  # quoted: a literal, not the phrase of row 2
        ('grep "what depends on"', EXACT, "4"),  # quoted: not row 3
        ("how does parse_config work", UND, "6"),  # 6: row 5 wants the identifier alone
        ("why", UND, "6"),  # a question word is not an identifier
        ("explain", UND, "6"),
    ],
)
def test_first_rule_wins(query: str, intent: str, rule: str) -> None:
    got = classify(query)
    assert got.intent == intent
    assert got.rule.split()[0] == rule


def test_rule_names_the_row() -> None:
    assert classify("def f").rule == "1 keyword 'def'"
    assert classify("who calls f").rule == "2 references phrase"
    assert classify("impact of f").rule == "3 impact phrase"
    assert classify('"x y"').rule == "4 quoted string"
    assert classify(TRACEBACK).rule == "4 traceback"
    assert classify("EPERM").rule == "4 errno token"
    assert classify("KeyError").rule == "4 error type name"
    assert classify("parse_config").rule == "5 bare identifier"
    assert classify("how so").rule == "6 understand phrase"
    assert classify("rate limiting").rule == "7 fallback"


CODE = "def load(path):\n    with open(path) as f:\n        return json.load(f)\n"


def test_find_similar_when_told_code() -> None:
    got = classify("parse_config", is_code=True)
    assert (got.intent, got.confidence) == (SIM, spec.CONF_SIMILAR)


def test_find_similar_when_it_looks_like_code() -> None:
    got = classify(CODE)
    assert (got.intent, got.confidence, got.terms) == (SIM, 0.90, ("load",))
    # Row 1 would match its first line; code wins because the caller passed a body.
    assert classify(CODE.splitlines()[0]).intent == DEF


@pytest.mark.parametrize(
    "query",
    [
        "function add(a, b) {\n  return a + b;\n}",
        "for i in range(10):\n    total += i",
        "if err != nil {\n\treturn err\n}",
    ],
)
def test_code_shapes(query: str) -> None:
    assert classify(query).intent == SIM


def test_multiline_words_are_not_code() -> None:
    assert classify("how does the cache work\nand why is it slow").intent == UND
    assert classify(TRACEBACK).intent == EXACT  # a traceback has punctuation but is an error


@pytest.mark.parametrize(
    ("query", "ordinary"),
    [
        ("who calls parse_config", True),
        ('"ECONNREFUSED"', True),
        ("ConnectionRefusedError", True),
        ("def parse_config", True),
        ("Config.load", True),
        ("what depends on this", False),  # no target
        ("who calls main in cli", False),  # two candidate targets
        ("from pkg import a, b", False),
        ('"connection refused" in parse_config', False),  # a literal and a name
        (TRACEBACK, False),  # one error name, but a pasted block carries more
        (CODE, False),  # code is never one target
    ],
)
def test_is_ordinary(query: str, ordinary: bool) -> None:
    assert is_ordinary(classify(query), query) is ordinary


@pytest.mark.parametrize(("query", "rule", "kind"), [
    ("ValueError: level must be 'head'", "4 exception prefix", "message"),
    ("2026-12-04 09:30:00,123 ERROR [app] disk full", "4 log prefix", "log line"),
    (TRACEBACK, "4 traceback", "python traceback"),
    (JAVA_TRACE, "4 traceback", "java stack"),
    (GO_PANIC, "4 traceback", "go panic"),
    ("'for' statements should have at least four words", "4 quoted string", "message"),
])
def test_pasted_errors_are_recognised(query: str, rule: str, kind: str) -> None:
    found = classify(query)
    assert (found.rule, found.pasted.kind if found.pasted else None) == (rule, kind)


def test_a_capitalised_word_and_a_colon_is_not_an_exception() -> None:
    found = classify("Note: caching is off")
    assert found.pasted is None and found.rule == "7 fallback"


def test_intent_is_frozen() -> None:
    got = classify("who calls f")
    assert isinstance(got, Intent)
    with pytest.raises(AttributeError):
        got.confidence = 1.0  # type: ignore[misc]


def test_confidences_come_from_spec() -> None:
    allowed = {
        spec.CONF_DEFINITION_KEYWORD, spec.CONF_REFERENCES_PHRASE, spec.CONF_IMPACT_PHRASE,
        spec.CONF_EXACT_MIN, spec.CONF_EXACT_ERRNO, spec.CONF_EXACT_MAX,
        spec.CONF_IDENTIFIER_MIN, spec.CONF_IDENTIFIER_TWO_PART, spec.CONF_IDENTIFIER_MAX,
        spec.CONF_UNDERSTAND_PHRASE, spec.CONF_FALLBACK,
    }
    assert {classify(q).confidence for q, *_ in CASES} == allowed


def test_given_intent() -> None:
    from maguyva_guard.errors import FatalError
    from maguyva_guard.search.intent import given

    got = given("impact_analysis", "who calls parse_config")
    assert got == Intent("impact_analysis", spec.CONF_GIVEN, "given by the caller",
                         ("parse_config",), given=True)
    assert classify("who calls parse_config").given is False
    with pytest.raises(FatalError, match="unknown intent"):
        given("find_everything", "x")
