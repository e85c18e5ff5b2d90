"""Weighted RRF (SPEC 5) over hand-built hit lists: the arithmetic is written out by hand."""

from __future__ import annotations

import math

import pytest

from maguyva_guard import spec
from maguyva_guard.extract.classify import path_category
from maguyva_guard.records import Contribution, Hit
from maguyva_guard.search.fusion import dedupe, fuse

REFS = spec.WEIGHTS["find_references"]  # graph 0.5, text 0.2, structural 0.2, semantic 0.1
DEFS = spec.WEIGHTS["find_definition"]  # structural 0.6, semantic 0.2, text 0.1, graph 0.1
EXACT = spec.WEIGHTS["exact_match"]  # text 0.9, structural 0.1, semantic 0, graph 0


def hit(path: str, symbol: str, modality: str, line: int = 1, end: int | None = None,
        **kw: object) -> Hit:
    return Hit(path, line, end or line, symbol, 1.0, modality, **kw)  # type: ignore[arg-type]


def filler(modality: str, n: int) -> list[Hit]:
    """n distinct hits nobody else finds, to push a result down to rank n."""
    return [hit(f"other/{modality}{i}.py", f"f{i}", modality) for i in range(n)]


def test_agreement_at_rank_3_beats_one_modality_at_rank_0() -> None:
    # find_references, k = 40. "a.py:caller" is 4th (rank 3) in both graph and text;
    # "b.py:lonely" is first (rank 0) in graph only.
    a_graph, a_text = hit("a.py", "caller", "graph"), hit("a.py", "caller", "text")
    ranked = {
        "graph": [hit("b.py", "lonely", "graph"), *filler("graph", 2), a_graph],
        "text": [*filler("text", 3), a_text],
    }
    results = {r.path: r for r in fuse(ranked, REFS, 40)}
    # a: 0.5 * 1/(40+3+1) + 0.2 * 1/(40+3+1) = 0.5/44 + 0.2/44 = 0.7/44 = 0.0159090...
    # b: 0.5 * 1/(40+0+1)                    = 0.5/41                    = 0.0121951...
    assert math.isclose(results["a.py"].score, 0.7 / 44)
    assert math.isclose(results["a.py"].score, 0.015909090909)
    assert math.isclose(results["b.py"].score, 0.012195121951)
    order = [r.path for r in fuse(ranked, REFS, 40)]
    assert order.index("a.py") < order.index("b.py")


def test_agreement_loses_when_the_weights_say_so() -> None:
    # find_definition, k = 40: structural's 0.6 at rank 0 beats text 0.1 + semantic 0.2 at 3.
    ranked = {
        "structural": [hit("def.py", "parse", "structural")],
        "text": [*filler("text", 3), hit("two.py", "g", "text")],
        "semantic": [*filler("semantic", 3), hit("two.py", "g", "semantic")],
    }
    results = {r.path: r for r in fuse(ranked, DEFS, 40)}
    # def.py: 0.6/41 = 0.0146341...;  two.py: 0.1/44 + 0.2/44 = 0.3/44 = 0.0068181...
    assert math.isclose(results["def.py"].score, 0.014634146341)
    assert math.isclose(results["two.py"].score, 0.006818181818)
    assert fuse(ranked, DEFS, 40)[0].path == "def.py"


def test_k_changes_the_scale() -> None:
    ranked = {"graph": [hit("a.py", "f", "graph")]}
    assert math.isclose(fuse(ranked, REFS, 60)[0].score, 0.5 / 61)  # thorough
    assert math.isclose(fuse(ranked, REFS, 40)[0].score, 0.5 / 41)  # default


def test_contributions_explain_the_score() -> None:
    ranked = {"graph": [hit("a.py", "f", "graph")], "text": [*filler("text", 1),
                                                             hit("a.py", "f", "text")]}
    (result,) = [r for r in fuse(ranked, REFS, 40) if r.path == "a.py"]
    assert result.contributions == (
        Contribution("graph", 0, 0.5, 1.0, 0.5 / 41),
        Contribution("text", 1, 0.2, 1.0, 0.2 / 42),
    )
    assert math.isclose(result.score, sum(c.value for c in result.contributions))
    assert result.modalities == ("graph", "text")  # strongest evidence first


def test_centrality_boost_multiplies_each_contribution() -> None:
    ranked = {"graph": [hit("hub.py", "core", "graph")], "text": [hit("hub.py", "core", "text")]}
    centrality = {("hub.py", "core"): 1000.0}
    (result,) = fuse(ranked, REFS, 40, centrality=lambda p, s: centrality.get((p, s), 0.0))
    # boost = min(1 + 0.3 ln 1001, 1.5) = 1.5; (0.5/41 + 0.2/41) * 1.5 = 1.05/41 = 0.0256097...
    assert math.isclose(result.score, 0.025609756098)
    assert all(c.boost == 1.5 for c in result.contributions)
    assert result.centrality == 1000.0


def test_a_hub_outranks_an_equal_leaf_but_not_a_better_one() -> None:
    ranked = {"graph": [hit("leaf.py", "f", "graph"), hit("hub.py", "g", "graph")]}
    cent = {"hub.py": 1.0}  # boost 1 + 0.3 ln 2 = 1.2079
    results = fuse(ranked, REFS, 40, centrality=lambda p, s: cent.get(p, 0.0))
    # leaf: 0.5/41 = 0.012195; hub: 0.5/42 * 1.2079 = 0.014380
    assert [r.path for r in results] == ["hub.py", "leaf.py"]
    assert math.isclose(results[0].score, 0.5 / 42 * (1 + 0.3 * math.log(2)))


def test_rank_counts_distinct_results_of_a_modality() -> None:
    # Three lines of one function, then another function: the latter is rank 1, not 3.
    ranked = {"text": [hit("a.py", "f", "text", 3), hit("a.py", "f", "text", 5),
                       hit("a.py", "f", "text", 9), hit("b.py", "g", "text", 2)]}
    results = {r.path: r for r in fuse(ranked, EXACT, 40)}
    assert results["b.py"].contributions[0].rank == 1
    assert results["a.py"].line_start == 3  # the first (best) hit of the key
    assert len(results["a.py"].contributions) == 1  # one key counts once per modality


def test_zero_weight_modality_contributes_nothing() -> None:
    ranked = {"semantic": [hit("s.py", "f", "semantic")], "text": [hit("t.py", "g", "text")]}
    results = fuse(ranked, EXACT, 40)
    assert [r.path for r in results] == ["t.py"]


def test_line_span_and_kind_from_the_best_hit() -> None:
    ranked = {
        "structural": [hit("c.py", "pkg.c.parse", "structural", 10, 42, kind="function")],
        "text": [hit("c.py", "pkg.c.parse", "text", 15)],
    }
    (result,) = fuse(ranked, DEFS, 40)
    assert (result.line_start, result.line_end, result.kind) == (10, 42, "function")
    # 0.6/41 + 0.1/41 = 0.7/41
    assert math.isclose(result.score, 0.7 / 41)


def test_graph_depth_and_chain_are_kept() -> None:
    ranked = {"graph": [hit("m.py", "main", "graph", 88, depth=2, confidence="probable",
                            via=("pkg.f", "pkg.g"))],
              "text": [hit("m.py", "main", "text", 88)]}
    (result,) = fuse(ranked, REFS, 40)
    assert (result.depth, result.confidence, result.via) == (2, "probable", ("pkg.f", "pkg.g"))


def test_module_level_hits_share_one_key() -> None:
    ranked = {"text": [hit("a.py", "", "text", 1)], "structural": [hit("a.py", "<module>",
                                                                        "structural", 1)]}
    (result,) = fuse(ranked, EXACT, 40)
    assert result.symbol == "<module>"
    assert result.modalities == ("text", "structural")


# --- demotion ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "category"),
    [
        ("vendor/lib/x.py", "vendor"),
        ("src/third_party/y.c", "vendor"),
        ("web/node_modules/react/index.js", "vendor"),
        ("build/lib/pkg/mod.py", "build"),
        ("dist/app.js", "build"),
        ("docs/archive/old_api.py", "archive"),
        ("static/app.min.js", "generated"),
        ("proto/user_pb2.py", "generated"),
        ("pkg/config.py", "source"),
        ("src/builder.py", "source"),  # a file named like a folder is not that folder
        ("tests/test_x.py", "test"),  # not demoted (below)
    ],
)
def test_path_category_fallback(path: str, category: str) -> None:
    # A path the store does not know is classified by its path alone, and demoted by it.
    assert path_category(path) == category
    (result,) = fuse({"text": [hit(path, "f", "text")]}, EXACT, 40)
    assert result.category == category
    assert result.demotion == (1.0 if category in ("source", "test") else spec.DEMOTION_FACTOR)


def test_vendor_results_are_demoted() -> None:
    ranked = {"text": [hit("vendor/x.py", "f", "text"), hit("pkg/y.py", "g", "text")]}
    results = fuse(ranked, EXACT, 40)
    # vendor/x.py: 0.9/41 * 0.25 = 0.005488; pkg/y.py: 0.9/42 = 0.021429
    assert [r.path for r in results] == ["pkg/y.py", "vendor/x.py"]
    assert math.isclose(results[1].score, 0.9 / 41 * spec.DEMOTION_FACTOR)
    assert (results[1].category, results[1].demotion) == ("vendor", 0.25)
    # The contribution keeps its undemoted value: the demotion is a separate, visible factor.
    assert math.isclose(results[1].contributions[0].value, 0.9 / 41)


def test_store_category_comes_first() -> None:
    ranked = {"text": [hit("lib/gen.py", "f", "text"), hit("vendor/ours.py", "g", "text")]}
    categories = {"lib/gen.py": "generated", "vendor/ours.py": "source"}
    results = {r.path: r for r in fuse(ranked, EXACT, 40, category=categories.get)}
    assert results["lib/gen.py"].demotion == spec.DEMOTION_FACTOR
    assert results["vendor/ours.py"].demotion == 1.0  # the store knows better than the path


@pytest.mark.parametrize("category", ["source", "test"])
def test_source_and_tests_are_not_demoted(category: str) -> None:
    ranked = {"text": [hit("x.py", "f", "text")]}
    (result,) = fuse(ranked, EXACT, 40, category=lambda p: category)
    assert result.demotion == 1.0


# --- dedupe ------------------------------------------------------------------------------


def two_chunks_one_file() -> dict[str, list[Hit]]:
    return {
        "graph": [hit("cli.py", "main", "graph", 88), hit("cli.py", "run", "graph", 120)],
        "text": [hit("other.py", "h", "text"), hit("cli.py", "run", "text", 121)],
    }


def test_dedupe_keeps_the_best_chunk_per_file_and_its_evidence() -> None:
    results = fuse(two_chunks_one_file(), REFS, 40)
    assert [r.path for r in results] == ["cli.py", "other.py"]
    best = results[0]
    # run: 0.5/42 + 0.2/42 = 0.7/42 = 0.016667 beats main: 0.5/41 = 0.012195
    assert (best.symbol, best.line_start) == ("run", 120)
    assert math.isclose(best.score, 0.7 / 42)
    assert best.also_found == (Contribution("graph", 0, 0.5, 1.0, 0.5 / 41),)
    assert best.modalities == ("graph", "text")


def test_dedupe_off_keeps_every_caller() -> None:
    results = fuse(two_chunks_one_file(), REFS, 40, dedupe_per_file=False)
    assert [(r.path, r.symbol) for r in results] == [
        ("cli.py", "run"), ("cli.py", "main"), ("other.py", "h")]
    assert all(r.also_found == () for r in results)


def test_dedupe_comes_after_demotion_and_limit_after_dedupe() -> None:
    results = fuse(two_chunks_one_file(), REFS, 40, limit=1)
    assert [r.path for r in results] == ["cli.py"]
    assert dedupe(fuse(two_chunks_one_file(), REFS, 40, dedupe_per_file=False)) == \
        fuse(two_chunks_one_file(), REFS, 40)


def test_ties_are_ordered_by_path() -> None:
    ranked = {"text": [hit("b.py", "f", "text")], "structural": [hit("a.py", "f", "structural")]}
    equal = {"text": 0.5, "structural": 0.5}
    assert [r.path for r in fuse(ranked, equal, 40)] == ["a.py", "b.py"]


def test_fusing_only_some_keys_gives_them_the_scores_and_ranks_of_fusing_all() -> None:
    # The guard fuses only the graph's keys: each keeps the ranks it has among every hit
    # of every modality, so its score, contributions and order are those of a full fusion.
    ranked = {
        "graph": [hit("a.py", "caller", "graph"), *filler("graph", 2),
                  hit("b.py", "other", "graph")],
        "text": [*filler("text", 3), hit("b.py", "other", "text"), hit("a.py", "caller", "text")],
        "semantic": [hit("a.py", "caller", "semantic"), *filler("semantic", 4)],
    }
    keys = {("a.py", "caller"), ("b.py", "other")}
    everything = fuse(ranked, REFS, 40, dedupe_per_file=False)
    some = fuse(ranked, REFS, 40, dedupe_per_file=False, keys=keys)
    assert some == [r for r in everything if (r.path, r.symbol) in keys]
    assert [r.path for r in some] == ["a.py", "b.py"]
    assert {c.rank for c in some[1].contributions} == {3}  # its rank among all the hits
