"""What leaves the machine, and what never does.

- Without a configured remote backend (or without its key), no command opens a network
  connection or resolves a host name: a guard on the socket module records any attempt.
- With Voyage configured (against tests/voyage_server.py on 127.0.0.1), the key goes only
  in the Authorization header to the configured URL: never to stdout, stderr, a report or
  any file of the index; and the requests carry only code chunks and query text.
- A failing Voyage (500, 429 with Retry-After, a timeout, a bad key) makes `check` warn and
  answer from the other modalities, with exit 0 unless --fail-on asks otherwise.
- Names and code from the repository cannot inject Markdown or HTML into the report that the
  bot posts (hostile file names and string literals, end to end).
"""

from __future__ import annotations

import html
import json
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import git
from voyage_server import VoyageServer

from maguyva_guard.cli import main
from maguyva_guard.embed import backend as embedding
from maguyva_guard.retrievers import semantic

KEY = "vk-never-show-me-4f2a9c"
CORE = 'def parse(text):\n    """Split a line into words."""\n    return text.split()\n'
CLI = "from app.core import parse\n\n\ndef main():\n    return parse('x y')\n"
FILES = {"app/__init__.py": "", "app/core.py": CORE, "app/cli.py": CLI}
VOYAGE_BODY_KEYS = {"input", "model", "input_type", "truncation", "output_dtype",
                    "output_dimension", "encoding_format"}


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch) -> None:
    """Per-process caches and once-only warnings of the semantic modality start empty."""
    embedding._warned.clear()
    for cache in ("_views", "_loaded", "_searchables"):
        getattr(semantic, cache, {}).clear()
    monkeypatch.delenv("VOYAGE_API_KEY", raising=False)


@pytest.fixture
def changed_repo(make_repo) -> Path:
    """parse() gains a parameter (staged); app.cli.main calls it."""
    repo = make_repo(FILES)
    (repo / "app/core.py").write_text(CORE.replace("parse(text)", "parse(text, sep)"))
    git(repo, "add", "app/core.py")
    return repo


def invoke(*argv: str, env: dict[str, str] | None = None):
    result = CliRunner().invoke(main, list(argv), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        repr(result.exception))
    return result


# --- No network unless asked for ----------------------------------------------------------


@pytest.fixture
def network_attempts(monkeypatch) -> list[str]:
    """Every connection or name lookup made in this process (AF_UNIX sockets excepted)."""
    attempts: list[str] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(self: socket.socket, address: Any) -> object:
        if self.family != socket.AF_UNIX:
            attempts.append(f"connect {address!r}")
            raise OSError("network access attempted in a test that forbids it")
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> object:
        if self.family != socket.AF_UNIX:
            attempts.append(f"connect_ex {address!r}")
            return 111
        return real_connect_ex(self, address)

    def lookup(*args: object, **kwargs: object) -> object:
        attempts.append(f"getaddrinfo {args!r}")
        raise socket.gaierror("name lookup attempted in a test that forbids it")

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: connect(
        socket.socket(), a[0] if a else k.get("address")))
    return attempts


@pytest.mark.parametrize("config", [
    "",  # the default: the embedded backend
    "[semantic]\nbackend = 'embedded'\n",
    "[semantic]\nbackend = 'voyage'\n",  # asked for, but no key in this environment
], ids=["default", "embedded", "voyage-without-key"])
def test_no_connection_unless_a_remote_backend_and_its_key_are_there(
        changed_repo, network_attempts, config, monkeypatch):
    if config:
        (changed_repo / ".maguyva-guard.toml").write_text(config)
    env = {"VOYAGE_API_KEY": KEY} if "voyage" not in config else {"VOYAGE_API_KEY": ""}
    where = ["--repo", str(changed_repo)]
    for argv in (["index", *where], ["query", "how are lines split", *where],
                 ["check", "--format", "json", *where], ["check", "--base", "HEAD", *where]):
        result = invoke(*argv, env=env)
        assert result.exit_code == 0, result.output
    assert network_attempts == []
    report = json.loads(invoke("check", "--format", "json", *where, env=env).stdout)
    assert "app.cli.main" in {a["symbol"] for a in report["affected"]}  # it did search


# --- With Voyage configured: where the key and the code go -----------------------------------


def voyage_config(repo: Path, server: VoyageServer, timeout: float = 5.0) -> None:
    (repo / ".maguyva-guard.toml").write_text(
        f"[semantic]\nbackend = 'voyage'\nbase_url = '{server.base_url}'\n"
        f"dimension = 256\ntimeout = {timeout}\n")


def test_the_key_goes_only_to_the_configured_url_and_is_never_written(changed_repo, tmp_path):
    with VoyageServer(KEY) as server:
        voyage_config(changed_repo, server)
        env = {"VOYAGE_API_KEY": KEY}
        where = ["--repo", str(changed_repo)]
        outputs = []
        for argv in (["index", *where], ["query", "how are lines split", *where],
                     ["check", *where], ["check", "--format", "json", *where],
                     ["check", "--format", "markdown", "--output", str(tmp_path / "r.md"),
                      *where],
                     ["check", "--format", "sarif", "--output", str(tmp_path / "r.sarif"),
                      *where]):
            result = invoke(*argv, env=env)
            assert result.exit_code == 0, result.output
            outputs.append(result.output)
        requests = list(server.requests)
    assert requests, "Voyage was configured, yet never asked"
    assert {r.headers["Authorization"] for r in requests} == {f"Bearer {KEY}"}
    assert {r.path for r in requests} == {"/v1/embeddings"}
    for request in requests:  # only code chunks and the query: no paths, no other file
        assert set(request.body) <= VOYAGE_BODY_KEYS
        assert not any("app/core.py" in text for text in request.body["input"])
    sent = {text for r in requests for text in r.body["input"]}
    assert any("def parse(text, sep)" in text for text in sent)
    assert KEY not in "".join(outputs)
    for path in [*(changed_repo / ".git").rglob("*"), tmp_path / "r.md", tmp_path / "r.sarif"]:
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("failure", ["500", "429 with Retry-After", "timeout", "bad key"])
def test_a_failing_voyage_never_fails_the_commit(changed_repo, failure):
    with VoyageServer(KEY if failure != "bad key" else "another-key") as server:
        voyage_config(changed_repo, server, timeout=0.5)
        for _ in range(50):
            if failure == "500":
                server.script(500)
            elif failure == "429 with Retry-After":
                server.script(429, headers={"Retry-After": "0"})
            elif failure == "timeout":
                server.script(200, delay=1.0)
        env = {"VOYAGE_API_KEY": KEY}
        result = invoke("check", "--format", "json", "--repo", str(changed_repo), env=env)
        strict = invoke("check", "--fail-on", "low", "--repo", str(changed_repo), env=env)
        assert server.requests, "the failure was never met"
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warnings and all(w.startswith("maguyva-guard: warning: semantic") for w in warnings)
    assert "Traceback" not in result.stderr and KEY not in result.output
    report = json.loads(result.stdout)
    assert "app.cli.main" in {a["symbol"] for a in report["affected"]}  # the others answered
    assert strict.exit_code == 1  # ... and the user's own --fail-on still applies


# --- Hostile names in the posted report ------------------------------------------------------

HOSTILE_NAMES = [
    "app/<script>alert(1)<\\script>.py",
    "app/`tick`.py",
    "app/@octocat mention.py",
    "app/](javascript:alert(1)).py",
    "app/<img src=x onerror=alert(1)>.py",
]


def test_hostile_names_and_code_cannot_inject_markdown_or_html(make_repo):
    files = dict(FILES)
    for i, name in enumerate(HOSTILE_NAMES):
        files[name] = (
            f"from app.core import parse\n\nBANNER = '<script>x</script> ` @team ](javascript:y)'"
            f"\n\n\ndef use{i}():\n    return parse('a')\n")
    repo = make_repo(files)
    (repo / "app/core.py").write_text(CORE.replace("parse(text)", "parse(text, sep)"))
    for name in HOSTILE_NAMES:  # a module-level change: its string literal becomes a query
        path = repo / name
        path.write_text(path.read_text().replace("BANNER =", "BANNER2 ="))
    git(repo, "add", "-A")
    result = invoke("check", "--format", "markdown", "--repo", str(repo),
                    "--repo-url", "https://github.com/o/r")
    assert result.exit_code == 0, result.output
    md = result.stdout
    # The picture is a ```mermaid block: the fence is ours, the labels are entity-coded.
    block = re.search(r"(?ms)^```mermaid\n(.*?)^```\n", md)
    assert block is not None and md.count("```") == 2
    assert "<br/>app/#60;img src#61;x onerror#61;alert#40;1#41;#62;.py:" in block.group(1)
    md = md[: block.start()] + md[block.end():]
    callers = {f"use{i}" for i in range(len(HOSTILE_NAMES))}
    assert all(c in md for c in callers), md  # every hostile file is in the report
    shown = html.unescape(md)
    assert "<script" not in md.lower() and "<img" not in md.lower()
    assert "`" not in md
    assert "](javascript:" not in md
    assert not re.search(r"@[A-Za-z0-9]", shown), "an @mention GitHub would link"
    assert {t.lower() for t in re.findall(r"</?([A-Za-z][\w-]*)", md)} <= {
        "details", "summary", "code", "sub", "br"}
    links = re.findall(r"\]\(([^)]*)\)", md)
    assert all(t.startswith("https://github.com/o/r/blob/") for t in links), links
