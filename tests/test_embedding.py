"""Embedding backends: the embedded SimHash, and Voyage through the real voyageai client
against a local stand-in server (tests/voyage_server.py)."""

from __future__ import annotations

import hashlib
import random
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
from samples import FUNCTIONS, KEY
from voyage_server import VoyageServer, vector_bytes

from maguyva_guard.config import SemanticConfig
from maguyva_guard.embed import backend as embedding
from maguyva_guard.embed import hashed as hashembed
from maguyva_guard.embed import vectors, voyage
from maguyva_guard.embed.backend import SemanticUnavailable

QUERIES = {
    "read the configuration file": "parse_config",
    "hash a password with a salt": "hash_password",
    "render a template with a context": "render_template",
    "resize an image": "resize_image",
}


@pytest.fixture(autouse=True)
def fresh_warnings() -> None:
    embedding._warned.clear()


def voyage_backend(server: VoyageServer, key: str = KEY, sleep=time.sleep, **kw):
    cfg = embedding.settings(SemanticConfig(backend="voyage", base_url=server.base_url,
                                            timeout=kw.pop("timeout", 5.0)))
    if kw:
        cfg = embedding.Settings(**{**cfg.__dict__, **kw})
    return voyage.VoyageEmbedder(key, cfg, sleep=sleep)


# --- the embedded backend ------------------------------------------------------------------

def test_embedded_returns_packed_bits() -> None:
    bits = hashembed.HashEmbedder().embed(["def f(): pass", "", "x"], "document")
    assert bits.dtype == np.uint8 and bits.shape == (3, 1024 // 8)
    assert not bits[1].any()  # no features, no bits
    assert hashembed.HashEmbedder(2048).embed(["a b"]).shape == (1, 256)


@pytest.mark.parametrize(("query", "name"), QUERIES.items())
def test_embedded_finds_the_function_a_question_describes(query: str, name: str) -> None:
    backend = hashembed.HashEmbedder()
    names = list(FUNCTIONS)
    docs = backend.embed(list(FUNCTIONS.values()), "document")
    (best, _), *_ = vectors.top_k(docs, backend.embed([query], "query")[0], 3)
    assert names[best] == name


GOLDEN = "def parse_config(path):\n    return toml.load(open(path))\n"


def test_embedded_vectors_are_identical_across_runs_and_processes() -> None:
    one = hashembed.HashEmbedder().embed([GOLDEN, "readConfigFile"])
    two = hashembed.HashEmbedder().embed(["readConfigFile", GOLDEN])
    assert (one == two[::-1]).all()
    code = ("import sys; from maguyva_guard.embed.hashed import HashEmbedder; "
            f"sys.stdout.write(HashEmbedder().embed([{GOLDEN!r}]).tobytes().hex())")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env={"PYTHONHASHSEED": "123", "PATH": ""}).stdout
    assert out == one[0].tobytes().hex()
    # Pinned: a change of features, weights or hashing must bump hashembed.MODEL.
    digest = hashlib.sha256(one.tobytes()).hexdigest()[:16]
    assert (hashembed.MODEL, digest) == ("subtoken-simhash-v2", "8341b69419911c20")


def test_embedding_file_by_file_grows_the_feature_matrix_in_place() -> None:
    """A parse worker embeds one file at a time, each with new names: the feature rows are
    appended to a buffer that doubles, not copied into a new matrix on every call, and the
    bits stay those of one embedding of all the texts at once."""
    texts = [f"def helper_{i}(value):\n    return compute_{i}(value) * scale_{i}\n"
             for i in range(300)]
    one_by_one = hashembed.HashEmbedder()
    buffers = set()
    rows = []
    for text in texts:
        rows.append(one_by_one.embed([text])[0])
        assert one_by_one._matrix is not None
        buffers.add(one_by_one._matrix.ctypes.data)
    assert len(buffers) == 1  # 300 calls, each with new features, one buffer
    assert np.array_equal(np.array(rows), hashembed.HashEmbedder().embed(texts))


def test_features_split_identifiers_and_weigh_the_header() -> None:
    counts, header = hashembed.features("@cache\ndef readConfigFile(path):\n    return path\n")
    assert {"read", "confi", "file", "path", "read confi"} <= set(counts)
    assert "def" not in counts and "return" not in counts  # stop words
    assert counts["path"] == 2 and "confi file" in header and "cache" not in header


def _words_by_the_regex(text: str) -> list[str]:
    """The definition `words` is a faster form of: the subtoken regex over the whole text."""
    return [w[: hashembed.STEM_CHARS] for w in map(str.lower, hashembed._WORD.findall(text))
            if len(w) > 1 and w not in hashembed._STOP]


def test_words_are_the_subtoken_regex_over_the_whole_text() -> None:
    """`words` cuts the text into runs of ASCII letters and digits and memoises each run's
    stems: the same subtokens as the regex over the text, at runs' edges, around non-ASCII
    letters, lone surrogates and digits, and after its memo is dropped."""
    alphabet = ["HTTPServer", "parseURL2Html", "été", "naïveSet", "\udcff", "_", " ", "\n",
                "x", "ABCdef", "42", "self", "the", "Ω", "getX", "a1b2", ".", "ß", "İ", "K"]
    rng = random.Random(7)
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30)))
             for _ in range(2000)]
    for text in texts:
        assert hashembed.words(text) == _words_by_the_regex(text), text
    hashembed._STEMS.clear()
    assert [hashembed.words(t) for t in texts[:50]] == [_words_by_the_regex(t)
                                                         for t in texts[:50]]


# --- choosing a backend --------------------------------------------------------------------

def test_default_is_embedded_and_says_nothing(capsys) -> None:
    backend = embedding.select(None, env={"VOYAGE_API_KEY": KEY})
    assert embedding.tag(backend) == ("embedded", "subtoken-simhash-v2", 1024)
    assert capsys.readouterr().err == ""


def test_voyage_without_key_falls_back_once(capsys) -> None:
    cfg = SemanticConfig(backend="voyage")
    for _ in range(3):
        assert embedding.select(cfg, env={}).name == "embedded"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "VOYAGE_API_KEY is not set" in err


def test_voyage_with_key_makes_no_request_until_used() -> None:
    with VoyageServer(KEY) as server:
        cfg = SemanticConfig(backend="voyage", base_url=server.base_url, dimension=512)
        backend = embedding.select(cfg, env={"VOYAGE_API_KEY": KEY})
        assert embedding.tag(backend) == ("voyage", "voyage-code-3", 512)
        assert server.requests == []


# --- Voyage --------------------------------------------------------------------------------

@pytest.mark.parametrize("input_type", ["document", "query"])
def test_voyage_request_shape(input_type: str) -> None:
    with VoyageServer(KEY) as server:
        bits = voyage_backend(server, dimension=512).embed(["def f(): pass", "g"], input_type)
    (req,) = server.requests
    assert req.path == "/v1/embeddings"
    assert req.headers["Authorization"] == f"Bearer {KEY}"
    assert {k: req.body[k] for k in ("input", "model", "input_type", "output_dtype",
                                     "output_dimension")} == {
        "input": ["def f(): pass", "g"], "model": "voyage-code-3", "input_type": input_type,
        "output_dtype": "ubinary", "output_dimension": 512}
    assert bits.shape == (2, 64) and bits[1].tobytes() == vector_bytes("g", input_type, 512)


def test_voyage_batches_by_count_and_by_tokens() -> None:
    with VoyageServer(KEY) as server:
        bits = voyage_backend(server).embed([f"t{i}" for i in range(2500)])
        assert [len(r.body["input"]) for r in server.requests] == [1000, 1000, 500]
        assert bits.shape == (2500, 128) and bits[2499].tobytes() == vector_bytes(
            "t2499", "document", 1024)
    big = ["x" * 40_000] * 20  # 10,000 estimated tokens each
    per_batch = voyage.TOKEN_BUDGET // 10_001  # 8: a margin under the API's 120,000
    assert [len(b) for b in voyage.batches(big)] == [per_batch, per_batch, 20 - 2 * per_batch]
    assert voyage.TOKEN_BUDGET < voyage.MAX_BATCH_TOKENS


def test_voyage_429_honours_retry_after_then_succeeds() -> None:
    waits: list[float] = []
    with VoyageServer(KEY) as server:
        server.script(429, "rate limited", headers={"Retry-After": "7"})
        server.script(503)
        bits = voyage_backend(server, sleep=waits.append).embed(["a"])
    assert len(server.requests) == 3 and waits == [7.0, voyage.BACKOFF_FIRST * 2]
    assert bits.tobytes() == vector_bytes("a", "document", 1024)


def test_voyage_retry_after_really_waits() -> None:
    with VoyageServer(KEY) as server:
        server.script(429, headers={"Retry-After": "1"})
        started = time.monotonic()
        voyage_backend(server).embed(["a"])
    assert time.monotonic() - started >= 1.0 and len(server.requests) == 2


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_voyage_gives_up_after_max_retries(status: int) -> None:
    waits: list[float] = []
    with VoyageServer(KEY) as server:
        for _ in range(5):
            server.script(status)
        with pytest.raises(SemanticUnavailable, match=f"HTTP {status}"):
            voyage_backend(server, sleep=waits.append, max_retries=2).embed(["a"])
    assert len(server.requests) == 3 and len(waits) == 2


def test_voyage_long_retry_after_gives_up_at_once() -> None:
    with VoyageServer(KEY) as server:
        server.script(429, headers={"Retry-After": "3600"})
        with pytest.raises(SemanticUnavailable, match="HTTP 429"):
            voyage_backend(server, sleep=pytest.fail).embed(["a"])
    assert len(server.requests) == 1


def test_voyage_500_is_not_retried() -> None:
    with VoyageServer(KEY) as server:
        server.script(500, "boom")
        with pytest.raises(SemanticUnavailable) as caught:
            voyage_backend(server, sleep=pytest.fail).embed(["a"])
    assert len(server.requests) == 1
    assert str(caught.value).startswith("Voyage request failed (HTTP 500)")
    assert "\n" not in str(caught.value)


def test_voyage_refused_connection_degrades_quickly() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        cfg = embedding.settings(SemanticConfig(backend="voyage",
                                                base_url=f"http://127.0.0.1:{port}/v1"))
        started = time.monotonic()
        with pytest.raises(SemanticUnavailable, match="Voyage request failed"):
            voyage.VoyageEmbedder(KEY, cfg, sleep=pytest.fail).embed(["a"])  # type: ignore[arg-type]
    assert time.monotonic() - started < 5


def test_voyage_timeout_is_bounded() -> None:
    with VoyageServer(KEY) as server:
        server.script(200, delay=3.0)
        started = time.monotonic()
        with pytest.raises(SemanticUnavailable, match="timed out"):
            voyage_backend(server, timeout=0.5, sleep=pytest.fail).embed(["a"])
    assert time.monotonic() - started < 2.5


def test_voyage_bad_key_is_one_line_naming_the_variable_not_the_key() -> None:
    with VoyageServer("the-right-key") as server:
        with pytest.raises(SemanticUnavailable) as caught:
            voyage_backend(server, key=KEY, sleep=pytest.fail).embed(["a"])
    assert str(caught.value) == "Voyage rejected the API key (HTTP 401): check VOYAGE_API_KEY"


def test_voyage_error_text_never_shows_the_key() -> None:
    with VoyageServer(KEY) as server:
        server.script(400, f"bad request for key {KEY}")
        with pytest.raises(SemanticUnavailable) as caught:
            voyage_backend(server).embed(["a"])
    assert KEY not in str(caught.value) and "***" in str(caught.value)


def test_numpy_and_plain_python_give_the_same_bits_even_at_ties() -> None:
    # Short texts of few, repeated words put many bit sums right at half the total: with
    # float sums (v1) a dozen of these 3,000 came out differently on the two paths.
    rng = random.Random(7)
    vocab = [f"{a}{b}" for a in ("load", "parse", "read", "save", "user", "conf", "file",
                                 "path", "token", "cache") for b in ("", "er", "ing", "Map")]
    texts = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 12)))
             for _ in range(3000)]
    embedder = hashembed.HashEmbedder()
    matrix = embedder.embed(texts)
    assert [embedder.embed_one(t) for t in texts] == [row.tobytes() for row in matrix]


def test_voyage_configured_without_its_extra_is_one_line_naming_the_extra(make_repo, tmp_path):
    """A real interpreter whose site folder lacks voyageai (the default install since voyageai
    became the `voyage` extra): the same site-packages, minus voyageai, with -S so that no
    .pth file adds it back."""
    import os
    from pathlib import Path

    import voyageai

    site = Path(voyageai.__file__).resolve().parent.parent
    shadow = tmp_path / "site-packages"
    shadow.mkdir()
    for entry in site.iterdir():
        if not entry.name.lower().startswith("voyageai"):
            (shadow / entry.name).symlink_to(entry)
    repo = make_repo({"app/core.py": "def parse(text):\n    return text.split()\n"})
    (repo / ".maguyva-guard.toml").write_text(
        "[semantic]\nbackend = 'voyage'\nbase_url = 'http://127.0.0.1:9/v1'\n")
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{shadow}", "VOYAGE_API_KEY": "vk-x"}
    proc = subprocess.run([sys.executable, "-S", "-m", "maguyva_guard", "query", "split words",
                           "--repo", str(repo)], env=env, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == ("maguyva-guard: error: semantic backend 'voyage' needs the voyageai"
                           " package: pip install 'maguyva-guard[voyage]'\n")
