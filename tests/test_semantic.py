"""The semantic modality on real repositories: refresh by the indexer, search, caching by
content hash, backend switches, Voyage only when opted in (tests/voyage_server.py)."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest
from conftest import git, write_files
from samples import FUNCTIONS, KEY
from voyage_server import VoyageServer

from maguyva_guard.config import SemanticConfig
from maguyva_guard.embed import backend as embedding
from maguyva_guard.embed import hashed as hashembed
from maguyva_guard.embed import vectors
from maguyva_guard.embed.backend import SemanticUnavailable
from maguyva_guard.index import embeddings, indexer
from maguyva_guard.index.store import Store
from maguyva_guard.retrievers import semantic
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.search import engine

FILES = {f"app/{name}.py": body for name, body in FUNCTIONS.items()}


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch) -> None:
    embedding._warned.clear()
    semantic._views.clear()
    embeddings._loaded.clear()
    semantic._searchables.clear()
    monkeypatch.delenv("VOYAGE_API_KEY", raising=False)


def ask(store: Store, query: str, config=None, intent: str = "understand_code", **kw):
    request = SearchRequest(query=query, intent=intent, **kw)
    return semantic.SemanticRetriever(store, config).search(request)


def stored(store: Store, backend=None) -> vectors.Vectors:
    """The vectors file of `backend` (default: the embedded one); fails when there is none."""
    backend = backend or hashembed.HashEmbedder()
    found = vectors.load(vectors.file_for(store.index_dir, *embedding.tag(backend)),
                         backend.dimension)
    assert found is not None, "no vectors file"
    return found


def test_the_indexer_embeds_and_search_finds_by_meaning(make_repo) -> None:
    store = Store.open(make_repo(FILES))
    indexer.update(store)
    assert len(stored(store).keys) == len(FUNCTIONS)  # one chunk per function
    assert (store.index_dir / "vectors-v2-embedded-subtoken-simhash-v2-1024.npy").is_file()
    best, *rest = ask(store, "read the configuration file", limit=3)
    assert (best.path, best.symbol, best.line_start, best.line_end, best.modality) == (
        "app/parse_config.py", "app.parse_config.parse_config", 1, 3, "semantic")
    assert len(rest) == 2 and best.score > rest[0].score >= rest[1].score
    assert semantic.SemanticRetriever.modality == "semantic"


def test_find_similar_embeds_the_query_as_code(make_repo) -> None:
    store = Store.open(make_repo(FILES))
    indexer.update(store)
    code = "def load_settings(config_file):\n    with open(config_file) as f:\n" \
           "        return toml.load(f)\n"
    (best,) = ask(store, code, intent="find_similar", limit=1)
    assert best.path == "app/parse_config.py"


def test_exclude_paths_and_limit(make_repo) -> None:
    store = Store.open(make_repo(FILES))
    indexer.update(store)
    hits = ask(store, "read the configuration file", limit=4,
               exclude_paths=frozenset({"app/parse_config.py"}))
    assert len(hits) == 4 and "app/parse_config.py" not in {h.path for h in hits}


def test_an_update_embeds_only_new_chunks(make_repo, monkeypatch) -> None:
    repo = make_repo(FILES)
    store = Store.open(repo)
    indexer.update(store)
    embedded: list[str] = []
    real, real_one = hashembed.HashEmbedder.embed, hashembed.HashEmbedder.embed_one

    def embed(self, texts, t="document"):
        embedded.extend(texts)
        return real(self, texts, t)

    def embed_one(self, text):
        embedded.append(text)
        return real_one(self, text)

    monkeypatch.setattr(hashembed.HashEmbedder, "embed", embed)
    monkeypatch.setattr(hashembed.HashEmbedder, "embed_one", embed_one)
    write_files(repo, {"app/log_error.py": "def log_error(message):\n    logger.warning(message)\n",
                       "copy/parse_config.py": FILES["app/parse_config.py"]})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "change one, copy one")
    indexer.update(store)
    assert embedded == ["def log_error(message):\n    logger.warning(message)"]
    assert embeddings.refresh(store) == 0  # nothing left to embed
    paths = {h.path for h in ask(store, "read the configuration file", limit=2)}
    assert paths == {"app/parse_config.py", "copy/parse_config.py"}  # one vector, two places


def test_no_request_when_voyage_is_not_configured(make_repo, monkeypatch) -> None:
    with VoyageServer(KEY) as server:
        monkeypatch.setenv("VOYAGE_API_KEY", KEY)
        store = Store.open(make_repo({**FILES, ".maguyva-guard.toml":
                                      f'[semantic]\nbase_url = "{server.base_url}"\n'}))
        indexer.update(store)
        ask(store, "read the configuration file")
        assert server.requests == []


def test_no_request_when_voyage_has_no_key(make_repo, capsys) -> None:
    with VoyageServer(KEY) as server:
        store = Store.open(make_repo({**FILES, ".maguyva-guard.toml":
                                      f'[semantic]\nbackend = "voyage"\n'
                                      f'base_url = "{server.base_url}"\n'}))
        indexer.update(store)
        assert ask(store, "read the configuration file")[0].path == "app/parse_config.py"
        assert server.requests == []
    err = capsys.readouterr().err
    assert err.count("VOYAGE_API_KEY is not set") == 1 and err.count("\n") == 1


def test_voyage_documents_then_queries_and_caches(make_repo, monkeypatch) -> None:
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    with VoyageServer(KEY) as server:
        store = Store.open(make_repo({**FILES, ".maguyva-guard.toml":
                                      f'[semantic]\nbackend = "voyage"\ndimension = 512\n'
                                      f'base_url = "{server.base_url}"\n'}))
        progress: list[tuple[int, int]] = []
        indexer.update(store, progress=lambda done, total: progress.append((done, total)))
        (first,) = server.requests
        assert first.body["input_type"] == "document" and len(first.body["input"]) == 12
        assert first.body["output_dimension"] == 512 and first.body["output_dtype"] == "ubinary"
        assert (12, 12) in progress
        ask(store, "read the configuration file")  # no config given: the repository's
        config = SemanticConfig(backend="voyage", dimension=512, base_url=server.base_url)
        ask(store, "def f(x): return x", config, intent="find_similar")
        assert [(r.body["input_type"], len(r.body["input"])) for r in server.requests[1:]] == [
            ("query", 1), ("document", 1)]  # cached chunks: no request for them


def test_voyage_failure_degrades_to_the_other_modalities(make_repo, monkeypatch, capsys):
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    with VoyageServer(KEY) as server:
        store = Store.open(make_repo(FILES))
        indexer.update(store)
        config = SemanticConfig(backend="voyage", base_url=server.base_url)
        server.script(500)
        assert embeddings.refresh(store, config=config) == 0  # the index stays usable
        for _ in range(3):
            server.script(500)
        with pytest.raises(SemanticUnavailable, match="HTTP 500"):
            ask(store, "read the configuration file", config)
        response = engine.search(store, "how does parse_config read the file",
                                 config=config, preset="thorough")
    assert response.modalities_failed["semantic"].startswith("SemanticUnavailable: Voyage")
    assert "app/parse_config.py" in {r.path for r in response.results}  # the others answered
    err = capsys.readouterr().err
    assert err == "maguyva-guard: warning: semantic search unavailable: Voyage request failed " \
                  "(HTTP 500): The server failed to process the request.\n"


def test_bad_key_is_one_line_without_the_key(make_repo, monkeypatch, capsys) -> None:
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    with VoyageServer("another-key") as server:
        store = Store.open(make_repo(FILES))
        indexer.update(store)
        config = SemanticConfig(backend="voyage", base_url=server.base_url)
        for _ in range(2):
            with pytest.raises(SemanticUnavailable):
                ask(store, "read the configuration file", config)
    err = capsys.readouterr().err
    assert err == ("maguyva-guard: warning: semantic search unavailable: Voyage rejected the "
                   "API key (HTTP 401): check VOYAGE_API_KEY\n")
    assert KEY not in err


def test_switching_backend_re_embeds_into_its_own_file(make_repo, monkeypatch) -> None:
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    store = Store.open(make_repo(FILES))
    indexer.update(store)
    with VoyageServer(KEY) as server:
        config = SemanticConfig(backend="voyage", base_url=server.base_url)
        seen: list[tuple[int, int]] = []
        assert embeddings.refresh(store, lambda d, t: seen.append((d, t)), config=config) == 12
        assert seen == [(12, 12)]
    voyage_file = store.index_dir / "vectors-v2-voyage-voyage-code-3-1024.npy"
    assert voyage_file.is_file() and len(stored(store).keys) == 12  # embedded file untouched
    assert embeddings.refresh(store) == 0  # back to embedded: its vectors are still there


def test_a_bounded_refresh_leaves_the_rest_to_the_next_runs(make_repo, monkeypatch, capsys):
    monkeypatch.setattr(embeddings, "BATCH", 5)
    store = Store.open(make_repo(FILES))
    indexer.update(store)  # budget 1 s: all three batches of 5 fit
    assert len(stored(store).keys) == 12
    store.index_dir.joinpath("vectors-v2-embedded-subtoken-simhash-v2-1024.npy").unlink()
    assert embeddings.refresh(store, budget=0.0) == 5  # the first batch always runs
    monkeypatch.setattr(semantic, "SEARCH_SECONDS", 0.0)
    assert len(ask(store, "read the configuration file", limit=20)) == 10
    assert "semantic index incomplete: 10 of 12 chunks" in capsys.readouterr().err
    assert len(ask(store, "read the configuration file", limit=20)) == 12


@pytest.mark.parametrize(("save_seconds", "saves"), [(3600.0, 1), (0.0, 3)])
def test_a_refresh_rewrites_the_vectors_file_at_the_end_or_when_time_has_passed(
        make_repo, monkeypatch, save_seconds, saves):
    """Three batches: one write at the end (a cold index of 500,000 chunks must not rewrite
    the whole file after each batch), or one per batch once SAVE_SECONDS has passed."""
    from maguyva_guard.embed import vectors

    monkeypatch.setattr(embeddings, "BATCH", 5)
    monkeypatch.setattr(embeddings, "SAVE_SECONDS", save_seconds)
    store = Store.open(make_repo(FILES))
    indexer.update(store)
    store.index_dir.joinpath("vectors-v2-embedded-subtoken-simhash-v2-1024.npy").unlink()
    written: list[int] = []
    real = vectors.save
    monkeypatch.setattr(vectors, "save", lambda path, keys, bits: written.append(len(keys))
                        or real(path, keys, bits))
    assert embeddings.refresh(store, budget=None) == 12
    assert written == [12] if saves == 1 else written == [5, 10, 12]
    assert len(stored(store).keys) == 12


def test_a_damaged_vectors_file_is_rebuilt(make_repo) -> None:
    store = Store.open(make_repo(FILES))
    indexer.update(store)
    path = store.index_dir / "vectors-v2-embedded-subtoken-simhash-v2-1024.npy"
    path.write_bytes(b"not a numpy file")
    assert embeddings.refresh(store) == 12
    assert [p.name for p in store.index_dir.glob("vectors-*")] == [path.name]  # no temp left


# --- Hamming top-k ---------------------------------------------------------------------------

def brute_force(matrix: np.ndarray, query: np.ndarray, k: int, rows=None):
    bits = [bin(int.from_bytes(r.tobytes(), "big") ^ int.from_bytes(query.tobytes(), "big"))
            .count("1") for r in matrix]
    rows = range(len(matrix)) if rows is None else rows
    return sorted(((r, bits[r]) for r in rows), key=lambda rd: (rd[1], rd[0]))[:k]


@pytest.mark.parametrize("seed", range(5))
def test_top_k_matches_a_brute_force_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, nbytes = int(rng.integers(1, 400)), [8, 32, 128, 256][seed % 4]
    matrix = rng.integers(0, 256, (n, nbytes), dtype=np.uint8)
    matrix[n // 2 :] &= 0x0F  # many equal distances: ties must go by row
    query = rng.integers(0, 256, nbytes, dtype=np.uint8)
    for k in (1, 10, n, n + 5):
        assert vectors.top_k(matrix, query, k) == brute_force(matrix, query, k)
    subset = sorted(random.Random(seed).sample(range(n), max(n // 3, 1)))
    assert vectors.top_k(matrix, query, 7, np.array(subset)) == brute_force(
        matrix, query, 7, subset)


def test_top_k_over_a_stored_memory_mapped_file(tmp_path) -> None:
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 256, (300, 128), dtype=np.uint8)
    keys = [vectors.key_of(f"h{i}") for i in range(300)]
    path = tmp_path / "v.npy"
    vectors.save(path, keys, bits)
    loaded = vectors.load(path, 1024)
    assert loaded is not None and loaded.keys == keys
    assert vectors.top_k(loaded.bits, bits[42], 5) == brute_force(bits, bits[42], 5)
    assert vectors.load(path, 2048) is None  # another dimension: not this file's format


def test_a_search_sends_no_big_backlog_through_the_network(make_repo, monkeypatch, capsys):
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    monkeypatch.setattr(semantic, "SEARCH_REMOTE_MAX", 5)
    with VoyageServer(KEY) as server:
        store = Store.open(make_repo(FILES))
        indexer.update(store)
        config = SemanticConfig(backend="voyage", base_url=server.base_url)
        assert ask(store, "read the configuration file", config) == []
        assert server.requests == []  # nothing to search: not even the query is sent
        assert "semantic index incomplete: 0 of 12 chunks" in capsys.readouterr().err
        assert embeddings.refresh(store, config=config) == 12  # the next index update does it
        assert ask(store, "read the configuration file", config)


def test_an_update_that_parsed_nothing_does_not_read_the_view(make_repo, monkeypatch) -> None:
    repo = make_repo(FILES)
    store = Store.open(repo)
    indexer.update(store)
    git(repo, "mv", "app/log_error.py", "app/errors.py")  # a rename: no new blob
    git(repo, "commit", "-q", "-m", "rename")
    monkeypatch.setattr(embeddings, "current_view", pytest.fail)
    assert indexer.update(store).parsed == 0
    monkeypatch.undo()
    (best,) = ask(store, "log an error message", limit=1)
    assert best.path == "app/errors.py"


def test_a_fully_embedded_view_is_searched_without_reading_every_chunk(make_repo, monkeypatch):
    store = Store.open(make_repo(FILES))
    indexer.update(store)
    path = vectors.file_for(store.index_dir, *embedding.tag(hashembed.HashEmbedder()))
    store.meta_set(embeddings.complete_key(path), "")  # forget: the next search reads the view
    slow = [(h.path, h.symbol, h.line_start) for h in ask(store, "read the configuration file")]
    assert embeddings.is_complete(store, path)  # ... and notes that every chunk has a vector

    def no_view(*args, **kwargs):
        raise AssertionError("the fast path must not read the whole view")

    monkeypatch.setattr(embeddings, "current_view", no_view)
    monkeypatch.setattr(semantic, "_views", {})
    fast = [(h.path, h.symbol, h.line_start) for h in ask(store, "read the configuration file")]
    assert fast == slow and fast[0][1] == "app.parse_config.parse_config"


@pytest.mark.parametrize("text", [
    "read the configuration file",
    "who calls get_random_string",
    "def parse_config(path):\n    return open(path).read()\n",
    "",
])
def test_the_numpy_free_query_path_gives_the_same_bits(text):
    embedder = hashembed.HashEmbedder()
    assert embedder.embed_one(text) == embedder.embed([text])[0].tobytes()


def test_the_numpy_free_top_k_reads_the_file_like_numpy(make_repo):
    store = Store.open(make_repo(FILES))
    indexer.update(store)
    backend = hashembed.HashEmbedder()
    path = vectors.file_for(store.index_dir, *embedding.tag(backend))
    loaded = stored(store)
    query = backend.embed(["read the configuration file"])[0]
    keys, nearest = vectors.top_k_file(path, query.tobytes(), 5)
    assert nearest == vectors.top_k(loaded.bits, query, 5)
    assert keys == [loaded.keys[row] for row, _ in nearest]
    assert vectors.top_k_file(path, bytes(64), 5) == ([], [])  # another width: not read


@pytest.mark.parametrize("seed", range(3))
def test_a_ranking_answers_every_top_k_like_the_file_scan(tmp_path, seed):
    """The guard's batched rankings (one numpy sweep for all queries) select each top k
    from the distances; every k, ties at the boundary included, is what top_k_file reads."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 400))
    bits = rng.integers(0, 256, (n, 128), dtype=np.uint8)
    bits[n // 3 :] &= 0x01  # many equal distances
    keys = [bytes(rng.integers(0, 256, 16, dtype=np.uint8)) for _ in range(n)]
    path = tmp_path / "vectors.npy"
    vectors.save(path, keys, bits)
    queries = [bits[7].tobytes(), bytes(128), bits[-1].tobytes()]
    rankings = vectors.rank_file(path, queries)
    for query in queries:
        for k in (5, 1, 40, n, n + 3, 0):  # a smaller k after a larger one reuses it
            assert rankings[query].top_k(k) == vectors.top_k_file(path, query, k)


@pytest.mark.parametrize("rows", [0, 1, vectors.BLOCK_ROWS, vectors.BLOCK_ROWS + 5])
@pytest.mark.parametrize("nbytes", [32, 128])
def test_the_sweep_of_many_queries_gives_each_query_its_own_distances(rows, nbytes):
    rng = np.random.default_rng(rows + nbytes)
    matrix = rng.integers(0, 256, (rows, nbytes), dtype=np.uint8)
    queries = [rng.integers(0, 256, nbytes, dtype=np.uint8) for _ in range(3)]
    queries.append(matrix[-1] if rows else np.zeros(nbytes, np.uint8))  # distance 0
    swept = vectors.hamming_many(matrix, queries)
    for query, dist in zip(queries, swept, strict=True):
        one = vectors.hamming(matrix, query)
        assert dist.dtype == one.dtype and dist.tolist() == one.tolist()
    if rows:
        assert swept[-1][-1] == 0


def test_a_one_file_update_embeds_its_chunks_without_reading_the_view(make_repo, monkeypatch):
    repo = make_repo(FILES)
    store = Store.open(repo)
    indexer.update(store)
    path = vectors.file_for(store.index_dir, *embedding.tag(hashembed.HashEmbedder()))
    assert embeddings.is_complete(store, path)

    def no_view(*args, **kwargs):
        raise AssertionError("an incremental refresh must not read the whole view")

    monkeypatch.setattr(embeddings, "current_view", no_view)
    (repo / "app" / "extra.py").write_text("def brand_new_helper(x):\n    return x * 2\n")
    git(repo, "add", "app/extra.py")
    indexer.update(store)
    assert embeddings.is_complete(store, path)  # the new chunk has its vector
    assert len(stored(store).keys) == len(FUNCTIONS) + 1


def test_index_after_a_one_file_change_embeds_it_without_reading_the_view(make_repo,
                                                                           monkeypatch):
    # `maguyva-guard index` embeds everything still missing: after a complete view, that is
    # the changed file's chunks only (it read all 45k of Django's chunks: 0.4 s).
    repo = make_repo(FILES)
    indexer.index_repo(str(repo))
    (repo / "app" / "extra.py").write_text("def brand_new_helper(x):\n    return x * 2\n")
    git(repo, "add", "app/extra.py")

    def no_view(*args, **kwargs):
        raise AssertionError("index after a one-file change must not read the whole view")

    monkeypatch.setattr(embeddings, "current_view", no_view)
    stats = indexer.index_repo(str(repo))
    assert stats.parsed == 1
    with Store.open(repo) as store:
        path = vectors.file_for(store.index_dir, *embedding.tag(hashembed.HashEmbedder()))
        assert embeddings.is_complete(store, path)
        assert len(stored(store).keys) == len(FUNCTIONS) + 1


def test_source_ranks_before_a_slightly_nearer_test(make_repo):
    # The test's copy carries the query's words, so it is nearer in Hamming distance; the
    # source still comes first unless the test is nearer by more than the factor.
    test_copy = ('def test_parse_config(config_file):\n    """Read the configuration file."""\n'
                 "    with open(config_file) as fh:\n        return toml.load(fh)\n")
    repo = make_repo({**FILES, "tests/test_parse.py": test_copy})
    with Store.open(repo) as store:
        indexer.update(store)
        retriever = semantic.SemanticRetriever(store)
        request = SearchRequest(query="read the configuration file", intent="understand_code",
                                limit=2)
        raw = retriever._search(embedding.select(retriever.config), request)
        hits = retriever.search(request)
    assert [h.path for h in raw] == ["tests/test_parse.py", "app/parse_config.py"]
    assert raw[0].score * semantic.SEMANTIC_CATEGORY_FACTOR["test"] < raw[1].score
    assert [h.path for h in hits] == ["app/parse_config.py", "tests/test_parse.py"]


def test_a_hook_run_after_a_one_file_change_never_imports_numpy(make_repo) -> None:
    # numpy costs ~0.2 s to import: a commit's few new chunks are embedded and appended in
    # plain Python, and the query is searched the same way.
    # The changed file holds 30 functions, already embedded: one is edited.
    big = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(30))
    repo = make_repo({**FILES, "app/helpers.py": big})
    indexer.index_repo(str(repo))
    write_files(repo, {"app/helpers.py": big.replace("def helper_7(x):", "def helper_7(x, y):")})
    git(repo, "add", "-A")
    code = ("import sys; from maguyva_guard.guard import impact; "
            f"r = impact.check({str(repo)!r}, preset='thorough'); "
            "print(len(r.changed_symbols), 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    assert out == ["1", "False"]
    with Store.open(repo) as store:
        path = vectors.file_for(store.index_dir, *embedding.tag(hashembed.HashEmbedder()))
        assert embeddings.is_complete(store, path)  # the new chunk got its vector
        keys = stored(store).keys
        assert len(keys) == len(set(keys)) == len(FUNCTIONS) + 30 + 1


def test_appended_vectors_read_back_as_numpy_wrote_them(tmp_path) -> None:
    rng = np.random.default_rng(3)
    path = tmp_path / "v.npy"
    keys = [bytes(rng.integers(0, 256, 16, dtype=np.uint8)) for _ in range(7)]
    bits = rng.integers(0, 256, (7, 128), dtype=np.uint8)
    vectors.save(path, keys[:4], bits[:4])
    assert vectors.append(path, keys[4:], [row.tobytes() for row in bits[4:]])
    loaded = vectors.load(path, 1024)
    assert loaded is not None and loaded.keys == keys
    assert (np.asarray(loaded.bits) == bits).all()
    assert vectors.read_keys(path, 128) == set(keys)
    vectors.save(tmp_path / "whole.npy", keys, bits)
    assert path.read_bytes() == (tmp_path / "whole.npy").read_bytes()  # byte for byte
    assert not vectors.append(tmp_path / "missing.npy", keys[:1], [bits[0].tobytes()])
    assert not vectors.append(path, keys[:1], [b"short"])  # another shape: refused


def test_a_vectors_file_is_read_once_until_another_writer_replaces_it(tmp_path) -> None:
    rng = np.random.default_rng(4)
    path = tmp_path / "v.npy"
    keys = [bytes(rng.integers(0, 256, 16, dtype=np.uint8)) for _ in range(6)]
    bits = rng.integers(0, 256, (6, 128), dtype=np.uint8)
    vectors.save(path, keys[:2], bits[:2])
    first = vectors.read_keys(path, 128)
    assert first == set(keys[:2])
    assert vectors.read_keys(path, 128) is first  # unchanged file: the kept answer
    assert vectors.append(path, keys[2:3], [bits[2].tobytes()])  # this process appends
    assert vectors.read_keys(path, 128) == set(keys[:3])
    # Another process saves a new version (a new file through os.replace): read again.
    other = tmp_path / "other.npy"
    vectors.save(other, keys[3:6], bits[3:6])
    os.replace(other, path)
    assert vectors.read_keys(path, 128) == set(keys[3:6])
    nearest, _ = vectors.top_k_file(path, bits[4].tobytes(), 1)
    assert nearest == [keys[4]]
    path.unlink()
    assert vectors.read_keys(path, 128) is None
    assert vectors.top_k_file(path, bits[4].tobytes(), 1) == ([], [])


def test_only_a_voyage_backed_semantic_modality_may_block(make_repo) -> None:
    store = Store.open(make_repo(FILES))
    try:
        assert semantic.SemanticRetriever(store, SemanticConfig()).may_block is False
        voyage = SemanticConfig(backend="voyage")
        assert semantic.SemanticRetriever(store, voyage).may_block is True
    finally:
        store.close()


def test_the_refresh_view_lists_the_chunks_of_the_full_view_in_its_order(make_repo) -> None:
    """The refresh reads only the chunks' hashes (store.chunk_hashes): the same chunks, in
    the same order (the vectors file's row order follows it), as the view with places."""
    files = {**FILES, "app/copy.py": FUNCTIONS["parse_config"], "app/more.py": "x = 1\n"}
    store = Store.open(make_repo(files))
    indexer.update(store)
    full, bare = embeddings.current_view(store), embeddings.current_view(store, places=False)
    assert list(bare.places) == list(full.places) and bare.digests == full.digests
    assert all(places == [] for places in bare.places.values())
    assert any(len(places) == 2 for places in full.places.values())  # one text, two files


def test_the_file_scan_reads_new_rows_after_an_append_or_a_new_version(tmp_path):
    """top_k_file keeps the rows it decoded while the file's bytes are the same: a row this
    process appends, or a new version saved by another, is searched at the next query."""
    rng = np.random.default_rng(5)
    keys = [bytes(rng.integers(0, 256, 16, dtype=np.uint8)) for _ in range(4)]
    bits = rng.integers(0, 256, (4, 128), dtype=np.uint8)
    path = tmp_path / "vectors.npy"
    vectors.save(path, keys[:2], bits[:2])
    assert vectors.top_k_file(path, bits[1].tobytes(), 1)[0] == [keys[1]]
    assert vectors.top_k_file(path, bits[2].tobytes(), 3)[0] != [keys[2]]
    assert vectors.append(path, keys[2:3], [bits[2].tobytes()])
    assert vectors.top_k_file(path, bits[2].tobytes(), 1)[0] == [keys[2]]
    other = tmp_path / "other.npy"
    vectors.save(other, keys[3:], bits[3:])
    os.replace(other, path)
    assert vectors.top_k_file(path, bits[3].tobytes(), 5) == ([keys[3]], [(0, 0)])


def test_the_keys_a_large_file_holds_are_found_without_its_key_set(tmp_path) -> None:
    """vectors.held on a file of LARGE_FILE_ROWS rows and more (numpy over the keys'
    column): the same answer as the whole key set, keys sharing a present key's first
    8 bytes included, and again after an append; the set of every key is never built."""
    rng = np.random.default_rng(5)
    rows = vectors.LARGE_FILE_ROWS + 10
    keys = [bytes(k) for k in rng.integers(0, 256, (rows, 16), dtype=np.uint8)]
    path = tmp_path / "v.npy"
    vectors.save(path, keys, rng.integers(0, 256, (rows, 4), dtype=np.uint8))
    absent = [bytes(k) for k in rng.integers(0, 256, (20, 16), dtype=np.uint8)]
    twins = [k[:8] + bytes(8) for k in keys[:5]]  # a present key's head, another tail
    asked = keys[:30] + keys[-3:] + absent + twins
    assert vectors.held(path, 4, asked) == set(keys[:30] + keys[-3:])
    cached = vectors._files[path]
    assert cached.keys is None  # no key set was built
    new = absent[:2]
    assert vectors.append(path, new, [bytes(4), bytes(4)])
    assert vectors.held(path, 4, asked) == set(keys[:30] + keys[-3:] + new)
    assert vectors.held(path, 4, asked) == set(vectors.read_keys(path, 4) or ()) & set(asked)
    assert vectors.held(tmp_path / "missing.npy", 4, asked) is None
