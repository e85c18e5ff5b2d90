"""`maguyva-guard query` end to end: a real repository, the real CLI, exact output."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from samples import ENGINE_REPO

from maguyva_guard.cli import main

# The engine tests' repository, without its vendored copy: one fixture, two suites.
REPO = {path: text for path, text in ENGINE_REPO.items() if not path.startswith("vendor/")}


def query(repo, *args: str):
    return CliRunner().invoke(main, ["query", *args, "--repo", str(repo)])


@pytest.fixture
def repo(make_repo):
    return make_repo(REPO)


def test_json_contract(repo) -> None:
    result = query(repo, "def parse_config", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {k: data[k] for k in ("query", "intent", "confidence", "fusion_strategy", "preset",
                                 "modalities_run")} == {
        "query": "def parse_config", "intent": "find_definition", "confidence": 0.95,
        "fusion_strategy": "direct", "preset": "default", "modalities_run": ["structural"]}
    top = data["results"][0]
    assert (top["path"], top["line_start"], top["line_end"], top["symbol"]) == (
        "pkg/config.py", 4, 8, "pkg.config.parse_config")
    assert top["modalities"] == ["structural"]
    assert top["contributions"][0]["weight"] == 0.6


def test_human_output_is_one_line_per_result(repo) -> None:
    result = query(repo, '"ECONNREFUSED"')
    assert result.exit_code == 0, result.output
    assert result.output == "pkg/config.py:7  pkg.config.parse_config  0.0220  [text]\n"


def test_explain_shows_the_plan_and_the_arithmetic(repo) -> None:
    result = query(repo, '"ECONNREFUSED"', "--explain")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "intent exact_match (confidence 0.90, rule 4 quoted string; terms: ECONNREFUSED)",
        "direct · preset default · k 40 · ran text",
        "",
        "pkg/config.py:7  pkg.config.parse_config  0.0220  [text]",
        "    text       rank 0   0.9 x 1/(40+0+1) x boost 1.000 = 0.021951",
    ]


def test_a_preset_that_does_not_exist_is_a_usage_error(repo) -> None:
    result = query(repo, "x", "--preset", "fast")
    assert result.exit_code == 2
