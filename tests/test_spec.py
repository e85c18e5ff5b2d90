"""Every number of SPEC.md sections 2-5, pinned. Change one only together with SPEC.md."""

from __future__ import annotations

import math

import pytest

from maguyva_guard import spec

S, T, ST, G = spec.SEMANTIC, spec.TEXT, spec.STRUCTURAL, spec.GRAPH

# SPEC 3, the table as printed: intent -> (semantic, text, structural, graph).
SPEC_WEIGHTS = {
    "find_definition": (0.2, 0.1, 0.6, 0.1),
    "find_references": (0.1, 0.2, 0.2, 0.5),
    "understand_code": (0.5, 0.2, 0.2, 0.1),
    "find_similar": (0.4, 0.3, 0.2, 0.1),
    "impact_analysis": (0.1, 0.1, 0.1, 0.7),
    "exact_match": (0.0, 0.9, 0.1, 0.0),
}
WEIGHT_CELLS = [
    (intent, modality, row[i])
    for intent, row in SPEC_WEIGHTS.items()
    for i, modality in enumerate(("semantic", "text", "structural", "graph"))
]


def test_six_intents_four_modalities() -> None:
    assert set(spec.INTENTS) == set(SPEC_WEIGHTS)
    assert set(spec.MODALITIES) == {"semantic", "text", "structural", "graph"}
    assert spec.CHEAPNESS_ORDER == ("text", "structural", "graph", "semantic")  # SPEC 4
    assert len(WEIGHT_CELLS) == 24 and set(spec.WEIGHTS) == set(spec.INTENTS)


@pytest.mark.parametrize(("intent", "modality", "weight"), WEIGHT_CELLS)
def test_weight_table(intent: str, modality: str, weight: float) -> None:
    assert spec.WEIGHTS[intent][modality] == weight


@pytest.mark.parametrize("intent", sorted(SPEC_WEIGHTS))
def test_each_profile_sums_to_one(intent: str) -> None:
    assert math.isclose(sum(spec.WEIGHTS[intent].values()), 1.0)


# SPEC 2: one confidence per row; rows 4 and 5 are ranges, graded inside them.
@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CONF_DEFINITION_KEYWORD", 0.95),
        ("CONF_REFERENCES_PHRASE", 0.90),
        ("CONF_IMPACT_PHRASE", 0.90),
        ("CONF_EXACT_MIN", 0.85),
        ("CONF_EXACT_MAX", 0.90),
        ("CONF_IDENTIFIER_MIN", 0.60),
        ("CONF_IDENTIFIER_MAX", 0.80),
        ("CONF_UNDERSTAND_PHRASE", 0.75),
        ("CONF_FALLBACK", 0.40),
    ],
)
def test_classifier_confidences(name: str, value: float) -> None:
    assert getattr(spec, name) == value


def test_grades_inside_the_ranges() -> None:
    assert spec.CONF_EXACT_MIN < spec.CONF_EXACT_ERRNO < spec.CONF_EXACT_MAX
    assert spec.CONF_EXACT_ERRNO == 0.88
    assert spec.CONF_IDENTIFIER_MIN < spec.CONF_IDENTIFIER_TWO_PART < spec.CONF_IDENTIFIER_MAX
    assert spec.CONF_IDENTIFIER_TWO_PART == 0.70
    # The whole of row 5 stays below the direct path; all of row 4 reaches it.
    assert spec.CONF_IDENTIFIER_MAX < spec.DIRECT_PATH_MIN_CONFIDENCE <= spec.CONF_EXACT_MIN


def test_exception_or_log_prefix_grade() -> None:
    # An exception or log prefix is as strong a sign of pasted output as a traceback.
    assert spec.CONF_EXACT_PREFIX == 0.90 == spec.CONF_EXACT_MAX


def test_probed_message_grade() -> None:
    # A sentence only the index recognised: inside row 4, below every textual signal, and
    # still on the direct path.
    assert spec.CONF_EXACT_PROBED == 0.86
    assert spec.DIRECT_PATH_MIN_CONFIDENCE <= spec.CONF_EXACT_PROBED < spec.CONF_EXACT_ERRNO


def test_direct_path_threshold() -> None:
    assert spec.DIRECT_PATH_MIN_CONFIDENCE == 0.85
    assert not 0.84 >= spec.DIRECT_PATH_MIN_CONFIDENCE
    assert 0.85 >= spec.DIRECT_PATH_MIN_CONFIDENCE


@pytest.mark.parametrize(("preset", "k"), [("default", 40), ("thorough", 60)])
def test_rrf_k_per_preset(preset: str, k: int) -> None:
    assert spec.RRF_K[preset] == k


def test_quick_has_no_k_and_presets_are_three() -> None:
    assert "quick" not in spec.RRF_K
    assert spec.PRESETS == ("quick", "default", "thorough")
    assert spec.DEFAULT_PRESET_MODALITY_COUNT == 3


# SPEC 4: the three strongest, ties to the cheaper (text, structural, graph, semantic).
@pytest.mark.parametrize(
    ("intent", "expected"),
    [
        ("find_definition", (ST, S, T)),  # 0.6, 0.2, then text beats graph at 0.1
        ("find_references", (G, T, ST)),  # 0.5, then text before structural at 0.2
        ("understand_code", (S, T, ST)),  # 0.5, then text before structural at 0.2
        ("find_similar", (S, T, ST)),  # 0.4, 0.3, 0.2; graph dropped
        ("impact_analysis", (G, T, ST)),  # 0.7, then the cheapest two of three at 0.1
        ("exact_match", (T, ST)),  # zero weights never run: only two
    ],
)
def test_default_preset_three_strongest(intent: str, expected: tuple[str, ...]) -> None:
    assert spec.preset_modalities("default", intent) == expected
    assert spec.strongest_modalities(intent) == expected


@pytest.mark.parametrize("intent", sorted(SPEC_WEIGHTS))
def test_quick_is_semantic_only(intent: str) -> None:
    got = spec.preset_modalities("quick", intent)
    # exact_match weighs semantic 0, and a zero weight never runs (SPEC 3).
    assert got == ((T,) if intent == "exact_match" else (S,))


@pytest.mark.parametrize("intent", sorted(SPEC_WEIGHTS))
def test_thorough_runs_all_nonzero(intent: str) -> None:
    expected = {m for m, w in spec.WEIGHTS[intent].items() if w > 0}
    assert set(spec.preset_modalities("thorough", intent)) == expected
    assert len(expected) == (2 if intent == "exact_match" else 4)


@pytest.mark.parametrize(
    ("intent", "dominant"),
    [
        ("find_definition", ST),
        ("find_references", G),
        ("understand_code", S),
        ("find_similar", S),
        ("impact_analysis", G),
        ("exact_match", T),
    ],
)
def test_dominant_modality(intent: str, dominant: str) -> None:
    assert spec.dominant_modality(intent) == dominant


# SPEC 5: boost = min(1 + 0.3 * ln(1 + centrality), 1.5)
@pytest.mark.parametrize(
    ("centrality", "boost"),
    [
        (0, 1.0),
        (1, 1 + 0.3 * math.log(2)),  # 1.2079: the average symbol
        (4, 1 + 0.3 * math.log(5)),  # 1.4828: still under the cap (the cap starts at ~4.29)
        (10, 1.5),  # 1 + 0.3 * ln 11 = 1.719, clamped
        (1000, 1.5),  # clamped
        (-3, 1.0),  # a negative centrality is treated as none
    ],
)
def test_centrality_boost(centrality: float, boost: float) -> None:
    assert math.isclose(spec.centrality_boost(centrality), boost)


def test_boost_constants() -> None:
    assert spec.BOOST_SLOPE == 0.3
    assert spec.BOOST_CAP == 1.5


@pytest.mark.parametrize(
    ("weight", "rank", "k", "centrality", "expected"),
    [
        (0.6, 0, 40, 0, 0.6 / 41),
        (0.2, 3, 40, 0, 0.2 / 44),
        (0.5, 9, 60, 0, 0.5 / 70),
        (0.7, 0, 40, 1000, 0.7 / 41 * 1.5),
    ],
)
def test_rrf_contribution(weight: float, rank: int, k: int, centrality: float,
                          expected: float) -> None:
    assert math.isclose(spec.rrf_contribution(weight, rank, k, centrality), expected)


def test_demotion_factor() -> None:
    assert spec.DEMOTION_FACTOR == 0.25
    assert 0 < spec.DEMOTION_FACTOR < 1


def test_runtime_defaults() -> None:
    assert spec.MODALITY_TIMEOUT_SECONDS > 0
    assert 1 <= spec.MODALITY_CANDIDATES_MIN < spec.MODALITY_CANDIDATES_MAX
    assert spec.CONF_GIVEN == 1.0
