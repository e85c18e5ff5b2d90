"""The numbers of the search engine's design (docs/design.md), in one place.

They are part of the product: every constant here cites its section ("design §N" is section
N of docs/design.md) and is pinned by tests/test_spec.py. Change one only together with
docs/design.md and its test.
"""

from __future__ import annotations

import math
from typing import Final

# Modalities (design §1), in the order that breaks ties for the default preset (design §4):
# cheapest first.
TEXT: Final = "text"
STRUCTURAL: Final = "structural"
GRAPH: Final = "graph"
SEMANTIC: Final = "semantic"
MODALITIES: Final = (TEXT, STRUCTURAL, GRAPH, SEMANTIC)
CHEAPNESS_ORDER: Final = MODALITIES

# Intents (design §2).
FIND_DEFINITION: Final = "find_definition"
FIND_REFERENCES: Final = "find_references"
UNDERSTAND_CODE: Final = "understand_code"
FIND_SIMILAR: Final = "find_similar"
IMPACT_ANALYSIS: Final = "impact_analysis"
EXACT_MATCH: Final = "exact_match"
INTENTS: Final = (
    FIND_DEFINITION,
    FIND_REFERENCES,
    UNDERSTAND_CODE,
    FIND_SIMILAR,
    IMPACT_ANALYSIS,
    EXACT_MATCH,
)

# Classifier confidences (design §2), one per rule row.
CONF_DEFINITION_KEYWORD: Final = 0.95  # row 1: "def ", "class ", "func ", ...
CONF_REFERENCES_PHRASE: Final = 0.90  # row 2: "who calls", "usages of", ...
CONF_IMPACT_PHRASE: Final = 0.90  # row 3: "impact", "blast radius", ...
CONF_EXACT_MIN: Final = 0.85  # row 4, weakest signal (a bare error-type name)
CONF_EXACT_MAX: Final = 0.90  # row 4, strongest signal (a quoted string, a traceback)
CONF_IDENTIFIER_MIN: Final = 0.60  # row 5, weakest (a short single word)
CONF_IDENTIFIER_MAX: Final = 0.80  # row 5, strongest (a dotted or multi-part identifier)
CONF_UNDERSTAND_PHRASE: Final = 0.75  # row 6: "how", "why", "explain", "architecture"
CONF_FALLBACK: Final = 0.40  # row 7: nothing matched
CONF_SIMILAR: Final = 0.90  # find_similar: the caller passed code, not words
# Grades inside the ranges of rows 4 and 5 (design §2), by strength of signal (intent.py).
CONF_EXACT_ERRNO: Final = 0.88  # row 4: an E[A-Z]+ errno token (quoted/traceback: MAX)
CONF_IDENTIFIER_TWO_PART: Final = 0.70  # row 5: two parts (parse_config, parseConfig)
# Row 4 for pasted errors (search/pasted.py): an exception or log prefix ("ValueError: ",
# "ERROR:root:") says the user pasted what a program printed, as surely as a traceback.
CONF_EXACT_PREFIX: Final = 0.90
# Row 4 after a look at the index (search/fallback.py): a sentence no row caught (row 7)
# that a string in the source builds. Above the direct path's threshold, below any
# signal the text itself carries.
CONF_EXACT_PROBED: Final = 0.86
# design §7: the guard names the intent itself (impact_analysis, find_references); no classifier
# decided it, so it is certain, and the direct path (a classifier decision) does not apply.
CONF_GIVEN: Final = 1.0

# Weight profiles (design §3): intent -> modality -> weight.
WEIGHTS: Final[dict[str, dict[str, float]]] = {
    FIND_DEFINITION: {SEMANTIC: 0.2, TEXT: 0.1, STRUCTURAL: 0.6, GRAPH: 0.1},
    FIND_REFERENCES: {SEMANTIC: 0.1, TEXT: 0.2, STRUCTURAL: 0.2, GRAPH: 0.5},
    UNDERSTAND_CODE: {SEMANTIC: 0.5, TEXT: 0.2, STRUCTURAL: 0.2, GRAPH: 0.1},
    FIND_SIMILAR: {SEMANTIC: 0.4, TEXT: 0.3, STRUCTURAL: 0.2, GRAPH: 0.1},
    IMPACT_ANALYSIS: {SEMANTIC: 0.1, TEXT: 0.1, STRUCTURAL: 0.1, GRAPH: 0.7},
    EXACT_MATCH: {SEMANTIC: 0.0, TEXT: 0.9, STRUCTURAL: 0.1, GRAPH: 0.0},
}

# The direct path (design §4): skip fusion at or above this confidence for an ordinary query.
DIRECT_PATH_MIN_CONFIDENCE: Final = 0.85

# Presets (design §4): RRF k per preset; quick runs semantic alone and has no k.
QUICK: Final = "quick"
DEFAULT: Final = "default"
THOROUGH: Final = "thorough"
PRESETS: Final = (QUICK, DEFAULT, THOROUGH)
RRF_K: Final[dict[str, int]] = {DEFAULT: 40, THOROUGH: 60}
DEFAULT_PRESET_MODALITY_COUNT: Final = 3  # "the three strongest modalities for the intent"

# Centrality boost (design §5): boost = min(1 + BOOST_SLOPE * ln(1 + centrality), BOOST_CAP).
BOOST_SLOPE: Final = 0.3
BOOST_CAP: Final = 1.5

# Demotion of vendor, build, archive, minified and generated paths (design §5): their fused
# score is multiplied by this factor, which puts them below any first-party result of
# comparable rank without hiding them.
DEMOTION_FACTOR: Final = 0.25

# Running the plan (design §4: the selected modalities run in parallel). Product defaults:
# a modality still running after this many seconds is reported as failed and the others
# answer; each modality is asked for at least this many hits (or the caller's limit if
# larger), so fusion has agreement to find below the final cut.
MODALITY_TIMEOUT_SECONDS: Final = 5.0
MODALITY_CANDIDATES_MIN: Final = 50
# When the caller wants every result (the guard: every caller), each modality is still
# bounded, so that one hub cannot make a hook run unbounded.
MODALITY_CANDIDATES_MAX: Final = 5000


def rrf_contribution(weight: float, rank: int, k: int, centrality: float) -> float:
    """One modality's contribution to a result's fused score (design §5).

    `rank` is 0-based. Contributions of all modalities that found the result are summed.
    """
    return weight * (1.0 / (k + rank + 1)) * centrality_boost(centrality)


def centrality_boost(centrality: float) -> float:
    """The graph-importance boost (design §5), clamped at BOOST_CAP.

    `centrality` is scaled so that the average symbol has centrality 1: PageRank times the
    number of nodes in the graph (see retrievers/graph.py), or 0 for a symbol off the graph.
    """
    return min(1.0 + BOOST_SLOPE * math.log1p(max(centrality, 0.0)), BOOST_CAP)


def strongest_modalities(
    intent: str, count: int = DEFAULT_PRESET_MODALITY_COUNT
) -> tuple[str, ...]:
    """The `count` modalities with the largest weights for `intent` (design §4, default preset).

    Ties go to the cheaper modality (text, structural, graph, semantic); zero weights never run.
    """
    weights = WEIGHTS[intent]
    ranked = sorted(
        (m for m in CHEAPNESS_ORDER if weights[m] > 0),
        key=lambda m: (-weights[m], CHEAPNESS_ORDER.index(m)),
    )
    return tuple(ranked[:count])


def preset_modalities(preset: str, intent: str) -> tuple[str, ...]:
    """The modalities a preset runs for an intent (design §4), zero weights excluded."""
    if preset == QUICK:
        # Semantic only; but a zero weight never runs (design §3), so an exact-match query
        # under quick goes to its dominant modality instead of the embedding model.
        return (SEMANTIC,) if WEIGHTS[intent][SEMANTIC] > 0 else (dominant_modality(intent),)
    if preset == DEFAULT:
        return strongest_modalities(intent)
    weights = WEIGHTS[intent]
    return tuple(m for m in CHEAPNESS_ORDER if weights[m] > 0)


def dominant_modality(intent: str) -> str:
    """The single modality of the direct path: the largest weight, ties to the cheaper."""
    return strongest_modalities(intent, 1)[0]
