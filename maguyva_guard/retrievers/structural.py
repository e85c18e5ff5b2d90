"""The structural modality (design §1): the tree-sitter symbol table, searched by name.

Ranking, best first: the exact qualified name, a qualified suffix ("Config.load",
"mod.func"), the exact name, the same name in another case, then names that start with
the term. A kind named in the query ("def X", "class X", "func X") favours that kind;
parameters in the query ("def parse_config(path)") favour signatures that contain them.
First-party source ranks before tests, and both before vendored, built, archived and
generated code. Scores are in [0, 1] and mean nothing outside this modality.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from maguyva_guard.extract import classify
from maguyva_guard.records import CLASS, FUNCTION, INTERFACE, METHOD, TYPE, Definition, Hit
from maguyva_guard.retrievers.base import SearchRequest

MODALITY: Final = "structural"

# Tiers of a name match (the score before the adjustments below).
SCORE_QUALIFIED: Final = 1.0
SCORE_SUFFIX: Final = 0.95
SCORE_NAME: Final = 0.9
SCORE_CASELESS: Final = 0.7
SCORE_PREFIX_BASE: Final = 0.4  # plus up to SCORE_PREFIX_SPAN for the share of the name typed
SCORE_PREFIX_SPAN: Final = 0.2
# Adjustments.
KIND_BONUS: Final = 0.05  # the query named this kind
KIND_PENALTY: Final = 0.15  # the query named another kind
SIGNATURE_BONUS: Final = 0.04  # the query's parameters appear in the signature
STRUCTURAL_CATEGORY_FACTOR: Final = {classify.SOURCE: 1.0, classify.TEST: 0.85}
STRUCTURAL_OTHER_CATEGORY_FACTOR: Final = 0.7  # vendor, build, archive, generated
MIN_PREFIX_LEN: Final = 3  # shorter terms match too much to be worth a prefix search

_KIND_WORDS: Final = {
    "def": (FUNCTION, METHOD), "func": (FUNCTION, METHOD), "fn": (FUNCTION, METHOD),
    "function": (FUNCTION, METHOD), "method": (METHOD,), "class": (CLASS,),
    "struct": (TYPE, CLASS), "type": (TYPE, CLASS, INTERFACE), "enum": (TYPE,),
    "interface": (INTERFACE,), "trait": (INTERFACE,),
}
_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*")
# "def name(params" ; Go's "func (recv *T) Name(params" is read past its receiver.
_HEAD = re.compile(r"^\s*(\w+)\s+(?:\([^)]*\)\s*)?([\w$.:]+)\s*(\(([^)]*)\)?)?")
_CODE_LIKE = re.compile(r"[_.:$]|[a-z][A-Z]|^[A-Z]")
_STOPWORDS: Final = frozenset(
    "a an the of in on to for and or is are was be by with from how why what where which who "
    "does do did this that it its explain find show me all usages calls uses called references "
    "impact import def class func fn function method struct type interface trait enum".split()
)


@dataclass(frozen=True)
class Query:
    terms: tuple[str, ...]  # identifiers, possibly dotted ("Config.load")
    kinds: tuple[str, ...] = ()  # kinds the query asked for, () = any
    params: str = ""  # the text between parentheses, normalised


def parse_query(text: str, terms: tuple[str, ...] = ()) -> Query:
    """Read a kind keyword, a name and parameters out of "def parse_config(path)"."""
    kinds: tuple[str, ...] = ()
    params = ""
    head = _HEAD.match(text)
    if head and head.group(1).lower() in _KIND_WORDS:
        kinds = _KIND_WORDS[head.group(1).lower()]
        terms = terms or (head.group(2),)
        params = _normalise(head.group(4) or "")
    if not terms:
        found = [t for t in _IDENT.findall(text) if t.lower() not in _STOPWORDS]
        # In a sentence, the words that look like code are the ones meant ("how does
        # Config.load work" asks about Config.load, not about a function named work).
        code = [t for t in found if _CODE_LIKE.search(t)]
        terms = tuple(dict.fromkeys(code or found))
    return Query(tuple(t.replace("::", ".") for t in terms), kinds, params)


def _normalise(text: str) -> str:
    return re.sub(r"\s+", "", text)


class StructuralRetriever:
    modality = MODALITY

    def __init__(self, store: Any) -> None:
        self.store = store

    def search(self, request: SearchRequest) -> list[Hit]:
        query = parse_query(request.query, request.terms)
        categories: dict[str, str] = {}  # path -> category, for this search (thread-safe)
        scored: dict[tuple[str, str, int], tuple[float, Definition]] = {}
        if request.target is not None:
            target = request.target
            scored[(target.path, target.qualified_name, target.line_start)] = (1.0, target)
        for term in query.terms:
            for score, d in self._matches(term):
                final = self._adjust(score, d, query, categories)
                key = (d.path, d.qualified_name, d.line_start)
                if key not in scored or scored[key][0] < final:
                    scored[key] = (final, d)
        ranked = sorted(scored.values(), key=lambda sd: (-sd[0], sd[1].path, sd[1].line_start))
        hits = [_hit(score, d) for score, d in ranked if d.path not in request.exclude_paths]
        return hits[: request.limit] if request.limit > 0 else hits

    def _matches(self, term: str) -> list[tuple[float, Definition]]:
        name = term.rsplit(".", 1)[-1]
        if not name:
            return []
        found = [(_name_score(term, d), d) for d in self.store.definitions(name=name)]
        if len(name) >= MIN_PREFIX_LEN:
            found += [(_prefix_score(name, d), d)
                      for d in self.store.definitions(name_prefix=name) if d.name != name]
        if not found:
            found = [(SCORE_CASELESS, d) for d in self.store.definitions(name_caseless=name)]
        return found

    def _adjust(self, score: float, d: Definition, query: Query,
                categories: dict[str, str]) -> float:
        if query.kinds:
            score += KIND_BONUS if d.kind in query.kinds else -KIND_PENALTY
        if query.params and query.params in _normalise(d.signature):
            score += SIGNATURE_BONUS
        category = categories.get(d.path)
        if category is None:
            category = categories[d.path] = self.store.category(d.path) or classify.SOURCE
        score *= STRUCTURAL_CATEGORY_FACTOR.get(category, STRUCTURAL_OTHER_CATEGORY_FACTOR)
        return max(0.0, min(1.0, score))


def _name_score(term: str, d: Definition) -> float:
    if "." not in term:
        return SCORE_NAME
    if d.qualified_name == term:
        return SCORE_QUALIFIED
    if d.qualified_name.endswith("." + term):
        return SCORE_SUFFIX
    return SCORE_NAME - KIND_PENALTY  # the name matches but the qualifier does not


def _prefix_score(prefix: str, d: Definition) -> float:
    return SCORE_PREFIX_BASE + SCORE_PREFIX_SPAN * len(prefix) / max(len(d.name), 1)


def _hit(score: float, d: Definition) -> Hit:
    return Hit(path=d.path, line_start=d.line_start, line_end=d.line_end,
               symbol=d.qualified_name, score=round(score, 6), modality=MODALITY, kind=d.kind)
