"""The engine's plan and parallel run (SPEC 3-5), with small recording retrievers.

These tests inject retrievers (`retrievers=`) so that what runs, and what does not, can be
asserted exactly; tests over a real indexed repository are at the end.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
import time
from types import SimpleNamespace

import pytest
from samples import ENGINE_REPO as REPO

from maguyva_guard import spec
from maguyva_guard.errors import FatalError
from maguyva_guard.records import Definition, Hit
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.search import engine, modalities
from maguyva_guard.search.intent import Intent


class Recorder:
    """A retriever that records its requests and answers canned hits (or fails, or hangs)."""

    def __init__(self, modality: str, hits: list[Hit] | None = None, *,
                 error: Exception | None = None, hang: threading.Event | None = None,
                 may_block: bool = False) -> None:
        self.modality = modality
        self.may_block = may_block  # a network-bound modality: run in a thread of its own
        self.hits = hits if hits is not None else [
            Hit(f"{modality}.py", 1, 2, f"{modality}_fn", 1.0, modality)]
        self.error, self.hang = error, hang
        self.calls: list[SearchRequest] = []

    def search(self, request: SearchRequest) -> list[Hit]:
        self.calls.append(request)
        if self.hang is not None:
            self.hang.wait(10)
        if self.error is not None:
            raise self.error
        return list(self.hits)


def recorders(**overrides: Recorder) -> dict[str, Recorder]:
    made = {m: Recorder(m) for m in spec.MODALITIES}
    made.update(overrides)
    return made


def called(rs: dict[str, Recorder]) -> set[str]:
    return {m for m, r in rs.items() if r.calls}


# --- zero weights never run --------------------------------------------------------------

EXACT_QUERIES = ['"ECONNREFUSED"', "ConnectionRefusedError", "ENOENT",
                 '"connection refused" in parse_config']


@pytest.mark.parametrize("preset", spec.PRESETS)
@pytest.mark.parametrize("query", EXACT_QUERIES)
@pytest.mark.parametrize("text_finds_nothing", [False, True])
def test_exact_match_never_touches_semantic(preset: str, query: str,
                                            text_finds_nothing: bool) -> None:
    rs = recorders(text=Recorder("text", [] if text_finds_nothing else None))
    response = engine.search(None, query, preset=preset, retrievers=rs)
    assert response.intent == "exact_match"
    assert rs["semantic"].calls == []  # weight 0: never run, not even as a fallback
    assert rs["graph"].calls == []
    assert "semantic" not in response.modalities_run


# --- the direct path ---------------------------------------------------------------------


def test_direct_path_runs_only_the_dominant_modality() -> None:
    rs = recorders()
    response = engine.search(None, "who calls parse_config", retrievers=rs)
    assert called(rs) == {"graph"}
    assert (response.fusion_strategy, response.modalities_run) == ("direct", ("graph",))
    (result,) = response.results
    # Same formula as fusion, the profile's weight, k = 40: 0.5 * 1/(40 + 0 + 1)
    assert math.isclose(result.score, 0.5 / 41)
    assert [(c.modality, c.rank, c.weight) for c in result.contributions] == [("graph", 0, 0.5)]


def test_direct_path_uses_the_presets_k() -> None:
    response = engine.search(None, "def parse_config", preset="thorough", retrievers=recorders())
    assert response.fusion_strategy == "direct"
    assert math.isclose(response.results[0].score, 0.6 / 61)  # structural 0.6, k = 60


@pytest.mark.parametrize(("confidence", "strategy"), [(0.84, "rrf"), (0.85, "direct")])
def test_direct_path_threshold(confidence: float, strategy: str) -> None:
    found = Intent("find_references", confidence, "test", ("parse_config",))
    plan = engine.plan(found, "who calls parse_config", "default", None)
    assert plan.strategy == strategy
    expected = ("graph",) if strategy == "direct" else ("graph", "text", "structural")
    assert plan.modalities == expected


def test_a_confident_query_without_one_target_is_fused() -> None:
    rs = recorders()
    response = engine.search(None, "what depends on this", retrievers=rs)
    assert (response.intent, response.confidence) == ("impact_analysis", 0.90)
    assert response.fusion_strategy == "rrf"
    assert called(rs) == {"graph", "text", "structural"}


def test_a_resolved_target_makes_the_query_ordinary() -> None:
    target = Definition("pkg/a.py", "f", "pkg.a.f", "function", 1, 3)
    rs = recorders()
    response = engine.search(None, "what depends on this", target=target, retrievers=rs)
    assert response.fusion_strategy == "direct"
    assert called(rs) == {"graph"}
    assert rs["graph"].calls[0].target == target


def test_a_direct_path_that_finds_nothing_falls_back_to_fusion() -> None:
    rs = recorders(graph=Recorder("graph", []))
    response = engine.search(None, "who calls parse_config", retrievers=rs)
    assert response.fusion_strategy == "rrf"
    assert response.modalities_run == ("graph", "text", "structural")
    assert {r.path for r in response.results} == {"text.py", "structural.py"}
    assert response.notes and "found nothing" in response.notes[0]


def test_a_direct_path_that_fails_falls_back_and_says_why() -> None:
    rs = recorders(graph=Recorder("graph", error=RuntimeError("graph exploded")))
    response = engine.search(None, "who calls parse_config", retrievers=rs)
    assert response.modalities_failed == {"graph": "RuntimeError: graph exploded"}
    assert response.fusion_strategy == "rrf" and response.results


# --- presets -----------------------------------------------------------------------------


def test_quick_is_semantic_only() -> None:
    rs = recorders()
    response = engine.search(None, "authentication middleware", preset="quick", retrievers=rs)
    assert called(rs) == {"semantic"}
    assert response.fusion_strategy == "direct"
    # quick has no k: it borrows the default preset's, so scores share one scale.
    assert math.isclose(response.results[0].score, 0.5 / 41)


def test_quick_ignores_the_direct_path() -> None:
    rs = recorders()
    engine.search(None, "who calls parse_config", preset="quick", retrievers=rs)
    assert called(rs) == {"semantic"}


@pytest.mark.parametrize(
    ("preset", "expected"),
    [("default", {"semantic", "text", "structural"}), ("thorough", set(spec.MODALITIES))],
)
def test_fused_presets(preset: str, expected: set[str]) -> None:
    rs = recorders()
    response = engine.search(None, "how does authentication work", preset=preset,
                             retrievers=rs)
    assert called(rs) == expected
    assert response.fusion_strategy == "rrf"
    assert response.k == spec.RRF_K[preset]
    assert {r.path for r in response.results} == {f"{m}.py" for m in expected}


# --- failures ----------------------------------------------------------------------------


def test_a_failing_modality_is_reported_and_the_others_answer() -> None:
    rs = recorders(structural=Recorder("structural", error=ValueError("bad index\nmore")))
    response = engine.search(None, "how does authentication work", retrievers=rs)
    assert response.modalities_failed == {"structural": "ValueError: bad index"}
    assert {r.path for r in response.results} == {"semantic.py", "text.py"}
    assert "structural" in response.modalities_run


def test_a_timing_out_modality_is_reported_and_the_others_answer() -> None:
    release = threading.Event()
    rs = recorders(semantic=Recorder("semantic", hang=release, may_block=True))
    started = time.monotonic()
    try:
        response = engine.search(None, "how does authentication work", retrievers=rs,
                                 timeout=0.2)
    finally:
        release.set()
    assert time.monotonic() - started < 5  # it did not wait for the hung modality
    assert response.modalities_failed == {"semantic": "timed out after 0.2s"}
    assert {r.path for r in response.results} == {"text.py", "structural.py"}


class Slow(Recorder):
    """A local retriever that takes `seconds` and notes the thread it ran in."""

    def __init__(self, modality: str, seconds: float) -> None:
        super().__init__(modality)
        self.seconds = seconds
        self.thread: threading.Thread | None = None

    def search(self, request: SearchRequest) -> list[Hit]:
        self.thread = threading.current_thread()
        time.sleep(self.seconds)
        return super().search(request)


def test_local_modalities_run_in_the_calling_thread_and_a_network_one_beside_them() -> None:
    release = threading.Event()
    rs = recorders(structural=Slow("structural", 0), text=Slow("text", 0),
                   semantic=Recorder("semantic", hang=release, may_block=True))
    try:
        response = engine.search(None, "how does authentication work", retrievers=rs,
                                 timeout=0.3)
    finally:
        release.set()
    assert getattr(rs["structural"], "thread") is threading.current_thread()  # noqa: B009
    assert getattr(rs["text"], "thread") is threading.current_thread()  # noqa: B009
    assert rs["semantic"].calls  # it was started, in a thread of its own, and abandoned
    assert response.modalities_failed == {"semantic": "timed out after 0.3s"}


def test_a_local_modality_not_started_by_the_deadline_is_reported_as_timed_out() -> None:
    slow = Slow("slow", 0.3)
    late = Recorder("late")
    factories = {"slow": lambda: slow, "late": lambda: late}
    ranked, failed = modalities.run(("slow", "late"), factories,
                                    SearchRequest("q", "understand_code"), 0.1)
    assert list(ranked) == ["slow"]  # a started local modality finishes
    assert failed == {"late": "timed out after 0.1s"}
    assert late.calls == []


def test_a_modality_missing_from_the_registry_is_not_available() -> None:
    rs = {"text": Recorder("text"), "structural": Recorder("structural")}
    response = engine.search(None, "how does authentication work", retrievers=rs)
    assert response.modalities_failed == {"semantic": "not available"}


def test_a_retriever_module_that_cannot_be_imported_fails_its_modality(monkeypatch) -> None:
    monkeypatch.setitem(modalities._RETRIEVERS, spec.SEMANTIC,
                        ("maguyva_guard.retrievers.no_such_module", "SemanticRetriever"))
    factories = modalities.retriever_factories(store=None)
    request = SearchRequest("q", "understand_code")
    ranked, failed = modalities.run((spec.SEMANTIC,), factories, request, 5.0)
    assert ranked == {}
    assert failed[spec.SEMANTIC].startswith("not available (No module named")


# --- the request, the response -----------------------------------------------------------


def test_the_request_carries_intent_terms_target_limit_depth() -> None:
    rs = recorders()
    engine.search(None, "who calls parse_config in cli", retrievers=rs, limit=7, depth=3)
    (request,) = rs["graph"].calls
    assert (request.intent, request.terms, request.depth) == (
        "find_references", ("parse_config",), 3)
    assert request.limit == spec.MODALITY_CANDIDATES_MIN  # room below the cut for fusion
    engine.search(None, "who calls parse_config", retrievers=rs, limit=500)
    assert rs["graph"].calls[-1].limit == 500


def test_a_named_intent_is_certain_and_always_fused() -> None:
    # SPEC 7: the guard names the intent and passes the resolved target; the direct path is
    # the classifier's decision, so the guard gets every modality's evidence.
    target = Definition("pkg/a.py", "f", "pkg.a.f", "function", 1, 3)
    rs = recorders()
    response = engine.search(None, "who calls f", intent="impact_analysis", target=target,
                             preset="thorough", retrievers=rs)
    assert (response.intent, response.confidence, response.rule) == (
        "impact_analysis", spec.CONF_GIVEN, "given by the caller")
    assert response.fusion_strategy == "rrf"
    assert called(rs) == set(spec.MODALITIES)
    assert rs["graph"].calls[0].terms == ("f",)


def test_no_limit_returns_every_result() -> None:
    hits = [Hit(f"f{i}.py", 1, 1, "g", 1.0, "graph") for i in range(30)]
    for no_limit in (None, 0):
        rs = recorders(graph=Recorder("graph", hits))
        response = engine.search(None, "who calls parse_config", limit=no_limit, retrievers=rs)
        assert len(response.results) == 30
        assert rs["graph"].calls[0].limit == spec.MODALITY_CANDIDATES_MAX


def test_retrievers_for_leaves_out_what_cannot_be_built(monkeypatch) -> None:
    monkeypatch.setitem(modalities._RETRIEVERS, spec.SEMANTIC,
                        ("maguyva_guard.retrievers.no_such_module", "SemanticRetriever"))
    monkeypatch.setitem(modalities._RETRIEVERS, spec.TEXT, ("tests_fake", "TextRetriever"))
    monkeypatch.setitem(modalities._RETRIEVERS, spec.GRAPH,
                        ("maguyva_guard.retrievers.graph", "GraphRetriever"))
    monkeypatch.setitem(modalities._RETRIEVERS, spec.STRUCTURAL,
                        ("maguyva_guard.retrievers.structural", "StructuralRetriever"))
    built = engine.retrievers_for(SimpleNamespace())
    assert set(built) == {"graph", "structural"}
    response = engine.search(None, "how does authentication work", retrievers=built,
                             timeout=1.0)
    assert response.modalities_failed["semantic"] == "not available"
    assert response.modalities_failed["text"] == "not available"


def test_json_follows_the_contract() -> None:
    response = engine.search(None, "how does authentication work", retrievers=recorders())
    data = json.loads(json.dumps(response.to_json()))
    for key in ("query", "intent", "confidence", "fusion_strategy", "preset",
                "modalities_run", "results"):
        assert key in data
    assert data["intent"] == "understand_code" and data["confidence"] == 0.75
    first = data["results"][0]
    for key in ("path", "line_start", "line_end", "symbol", "score", "modalities"):
        assert key in first
    assert first["contributions"][0]["modality"] == first["modalities"][0]
    assert data["modalities_failed"] == {}


def test_dedupe_per_file_is_a_flag() -> None:
    hits = [Hit("cli.py", 10, 10, "main", 1.0, "graph"), Hit("cli.py", 40, 40, "run", 1.0, "graph")]
    rs = recorders(graph=Recorder("graph", hits))
    query = "who calls parse_config"
    assert len(engine.search(None, query, retrievers=rs).results) == 1
    assert len(engine.search(None, query, retrievers=rs, dedupe_per_file=False).results) == 2


def test_store_category_and_centrality_shape_the_scores() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE graph_centrality (path TEXT, qualified_name TEXT, value REAL,"
                 " PRIMARY KEY (path, qualified_name))")
    conn.execute("INSERT INTO graph_centrality VALUES ('hub.py', 'core', 1000.0)")
    categories = {"hub.py": "source", "lib.py": "vendor"}
    store = SimpleNamespace(conn=conn, category=categories.get)
    hits = [Hit("lib.py", 1, 1, "f", 1.0, "graph"), Hit("hub.py", 5, 5, "core", 1.0, "graph")]
    response = engine.search(store, "who calls parse_config",
                             retrievers={"graph": Recorder("graph", hits)})
    hub, lib = response.results
    assert hub.path == "hub.py" and math.isclose(hub.score, 0.5 / 42 * 1.5)  # boost capped
    assert lib.category == "vendor" and math.isclose(lib.score, 0.5 / 41 * 0.25)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"preset": "fast"}, "unknown preset"),
        ({"limit": -1}, "limit"),
        ({"intent": "find_everything"}, "unknown intent"),
        ({"depth": 0}, "--depth"),
    ],
)
def test_bad_input_is_a_fatal_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(FatalError, match=message):
        engine.search(None, "who calls f", retrievers=recorders(), **kwargs)  # type: ignore


def test_an_empty_query_is_a_fatal_error() -> None:
    with pytest.raises(FatalError, match="empty"):
        engine.search(None, "   ", retrievers=recorders())


# --- on a real repository, indexed ---------------------------------------------------------



@pytest.fixture
def indexed(make_repo):
    from maguyva_guard.index import indexer
    from maguyva_guard.index.store import Store

    store = Store.open(make_repo(REPO))
    indexer.update(store)
    yield store
    store.close()


def test_real_repo_who_calls(indexed) -> None:
    response = engine.search(indexed, "who calls parse_config", dedupe_per_file=False)
    assert (response.fusion_strategy, response.modalities_run) == ("direct", ("graph",))
    callers = {(r.path, r.symbol) for r in response.results}
    assert ("pkg/cli.py", "pkg.cli.main") in callers
    assert ("vendor/lib.py", "vendor.lib.vendored") in callers
    # The vendored caller is demoted below every first-party one (the store's category).
    first_party = [r for r in response.results if r.path == "pkg/cli.py"]
    vendored = [r for r in response.results if r.path == "vendor/lib.py"]
    assert min(r.score for r in first_party) > max(r.score for r in vendored)
    assert all(r.category == "vendor" and r.demotion == spec.DEMOTION_FACTOR for r in vendored)


def test_real_repo_definition(indexed) -> None:
    response = engine.search(indexed, "def parse_config")
    assert response.fusion_strategy == "direct"
    top = response.results[0]
    assert (top.path, top.symbol, top.line_start, top.line_end) == (
        "pkg/config.py", "pkg.config.parse_config", 4, 8)
    assert math.isclose(top.score, 0.6 / 41 * top.contributions[0].boost)


def test_real_repo_fused_identifier(indexed) -> None:
    response = engine.search(indexed, "parse_config")  # 0.70: below the direct path
    assert response.fusion_strategy == "rrf"
    assert response.modalities_run == ("structural", "semantic", "text")
    assert response.results[0].symbol == "pkg.config.parse_config"
    assert "structural" in response.results[0].modalities
    # Whatever is not built yet fails on its own, and the others still answer.
    assert set(response.modalities_failed) <= {"semantic", "text"}


# --- the guard's searches: only the graph's keys are fused -------------------------------


def guard_search(rs: dict[str, Recorder], fuse_only: str | None = None) -> engine.SearchResponse:
    return engine.search(None, "who calls caller", retrievers=rs, intent="find_references",
                         preset="thorough", limit=None, dedupe_per_file=False,
                         fuse_only=fuse_only)


def test_fuse_only_runs_the_others_only_when_the_graph_found_something() -> None:
    found = Hit("a.py", 3, 3, "caller", 1.0, "graph", depth=1)
    shared = [Hit("a.py", 3, 3, "caller", 1.0, m) for m in ("text", "structural", "semantic")]
    rs = recorders(graph=Recorder("graph", [found]),
                   **{h.modality: Recorder(h.modality, [h, *Recorder(h.modality).hits])
                      for h in shared})
    everything = guard_search(rs)
    only = guard_search(rs, fuse_only="graph")
    assert [r for r in everything.results if r.path == "a.py"] == list(only.results)
    assert len(everything.results) == 4 and len(only.results) == 1

    nobody = recorders(graph=Recorder("graph", []))
    response = guard_search(nobody, fuse_only="graph")
    assert called(nobody) == {"graph"}  # the others could only rank what it did not find
    assert response.results == () and response.modalities_failed == {}
