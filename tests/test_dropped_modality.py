"""A search modality dropped by the engine's deadline is said in the report, never silent.

The modalities of each changed symbol's searches share one deadline
(`spec.MODALITY_TIMEOUT_SECONDS`). A modality that misses it (a remote embedding backend
that answers late, a local one not started in time on a loaded machine) is left out of the
ranking: the callers stay whole (only the graph decides them, and it is asked again), but
their order lacks its evidence. Reproduced here with the Voyage backend against a local
stand-in server (tests/voyage_server.py) that answers the check's query embeddings after
the deadline.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import git
from voyage_server import VoyageServer

from maguyva_guard import spec
from maguyva_guard.cli import main
from maguyva_guard.embed import backend as embedding
from maguyva_guard.retrievers import semantic

KEY = "vk-test-deadline"
CORE = 'def parse(text):\n    """Split a line into words."""\n    return text.split()\n'
CLI = "from app.core import parse\n\n\ndef main():\n    return parse('x y')\n"
FILES = {"app/__init__.py": "", "app/core.py": CORE, "app/cli.py": CLI}
LATE = spec.MODALITY_TIMEOUT_SECONDS + 1.5  # the server's delay: past the deadline
DROPPED = ("ranking partial: the semantic search timed out after 5s for 1 changed symbol"
           " (callers complete, ranked without its evidence)")


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch) -> None:
    embedding._warned.clear()
    for cache in ("_views", "_loaded", "_searchables"):
        getattr(semantic, cache, {}).clear()
    monkeypatch.delenv("VOYAGE_API_KEY", raising=False)


def invoke(*argv: str) -> object:
    result = CliRunner().invoke(main, list(argv), env={"VOYAGE_API_KEY": KEY})
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        repr(result.exception))
    return result


def test_a_modality_past_the_deadline_makes_the_report_say_its_ranking_is_partial(make_repo):
    repo = make_repo(FILES)
    with VoyageServer(KEY) as server:
        (repo / ".maguyva-guard.toml").write_text(
            f"[semantic]\nbackend = 'voyage'\nbase_url = '{server.base_url}'\n"
            f"dimension = 256\ntimeout = {LATE + 10}\n")
        git(repo, "add", ".maguyva-guard.toml")
        git(repo, "commit", "-q", "-m", "voyage")
        assert invoke("index", "--repo", str(repo)).exit_code == 0  # answered at once
        (repo / "app/core.py").write_text(CORE.replace("parse(text)", "parse(text, sep)"))
        git(repo, "add", "app/core.py")
        server.delay = LATE  # the check's query embedding comes after the deadline
        late = invoke("check", "--repo", str(repo), "--format", "json")
        server.delay = 0.0
        on_time = json.loads(invoke("check", "--format", "json", "--repo", str(repo)).stdout)
    assert late.exit_code == 0, late.output
    report = json.loads(late.stdout)
    assert on_time["complete"] is True
    assert [a["symbol"] for a in report["affected"]] == ["app.cli.main", "<module>"]
    assert [a["symbol"] for a in on_time["affected"]] == ["app.cli.main", "<module>"]
    assert report["complete"] is False
    assert report["incomplete_reasons"] == [DROPPED]
    assert report["summary"].endswith(f"(lower bound: {DROPPED})")


def test_no_dropped_modality_no_partial_ranking(make_repo):
    repo = make_repo(FILES)
    (repo / "app/core.py").write_text(CORE.replace("parse(text)", "parse(text, sep)"))
    git(repo, "add", "app/core.py")
    report = json.loads(invoke("check", "--format", "json", "--repo", str(repo)).stdout)
    assert [a["symbol"] for a in report["affected"]] == ["app.cli.main", "<module>"]
    assert report["complete"] is True
    assert report["incomplete_reasons"] == []
