"""maguyva_guard.api: typed frozen answers, the same ones the CLI prints."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner
from conftest import git

from maguyva_guard import api
from maguyva_guard.cli import main
from maguyva_guard.errors import FatalError
from maguyva_guard.records import Affected

REPO = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        "def parse_config(text):\n"
        "    return dict(line.split('=', 1) for line in text.splitlines() if line)\n"
        "\n"
        "\n"
        "def load(path):\n"
        "    with open(path) as handle:\n"
        "        return parse_config(handle.read())\n"
    ),
    "pkg/app.py": (
        "from pkg.core import load\n"
        "\n"
        "\n"
        "def start(path):\n"
        "    return load(path)\n"
    ),
    "pkg/a.py": "def helper():\n    return 1\n",
    "pkg/b.py": "def helper():\n    return 2\n",
    "pkg/models.py": 'class Settings:\n    """\n    Read from a file.\n    """\n',
}


@pytest.fixture
def repo(make_repo):
    return make_repo(REPO)


def cli(repo, *argv: str) -> str:
    result = CliRunner().invoke(main, [*argv, "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    return result.output


def test_search_answer_is_the_query_json_byte_for_byte(repo) -> None:
    answer = api.search(str(repo), "who calls parse_config")
    printed = cli(repo, "query", "who calls parse_config", "--json")
    assert json.dumps(answer.to_json(), indent=2) + "\n" == printed
    assert [(h.path, h.symbol) for h in answer.results] == [("pkg/core.py", "pkg.core.load")]
    assert answer.version == api.API_VERSION == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        answer.results[0].path = "elsewhere"  # type: ignore[misc]


def test_impact_of_the_staged_changes_is_the_check_json(repo) -> None:
    core = repo / "pkg" / "core.py"
    core.write_text(core.read_text().replace("handle.read()", "handle.read() or ''"))
    git(repo, "add", "pkg/core.py")
    answer = api.impact(str(repo))
    printed = json.loads(cli(repo, "check", "--format", "json"))
    mine = answer.to_json()
    # `tests` (the tests to run) is check's own addition: api.impact does not select tests yet.
    assert {k: v for k, v in mine.items() if k != "stats"} == {
        k: v for k, v in printed.items() if k not in ("stats", "tests")}
    assert [c.qualified_name for c in answer.changed_symbols] == ["pkg.core.load"]
    assert all(isinstance(a, Affected) for a in answer.affected)
    assert (answer.index.view, answer.index.up_to_date) == ("staged", True)


def test_impact_of_a_revision_range_answers_from_the_heads_tree(repo) -> None:
    git(repo, "checkout", "-q", "-b", "topic")
    (repo / "pkg" / "core.py").write_text(REPO["pkg/core.py"].replace("'='", "':'"))
    git(repo, "commit", "-qam", "colon")
    (repo / "notes.txt").write_text("not about the revisions\n")
    answer = api.impact(str(repo), base="main", head="topic")
    head = git(repo, "rev-parse", "topic").strip()
    assert answer.index.view == f"tree:{head}"
    assert answer.index.up_to_date is True  # the question was about the tree, not the folder
    assert [c.qualified_name for c in answer.changed_symbols] == ["pkg.core.parse_config"]


def test_callers_to_depth_two_carry_their_chain(repo) -> None:
    answer = api.callers(str(repo), "parse_config", depth=2)
    assert answer.symbol.qualified_name == "pkg.core.parse_config"
    chains = {(a.symbol, a.depth, a.via) for a in answer.callers}
    assert ("pkg.app.start", 2, ("pkg.core.parse_config", "pkg.core.load")) in chains
    assert answer.complete


def test_a_name_with_several_definitions_asks_for_a_qualified_one(repo) -> None:
    with pytest.raises(FatalError) as caught:
        api.callers(str(repo), "helper")
    assert str(caught.value) == (
        "'helper' names 2 definitions: pkg.a.helper (pkg/a.py:1), pkg.b.helper (pkg/b.py:1);"
        " give a qualified name")
    assert [d.path for d in api.definition(str(repo), "helper").definitions] == [
        "pkg/a.py", "pkg/b.py"]
    assert api.callers(str(repo), "b.helper").symbol.path == "pkg/b.py"


def test_the_cli_does_not_pay_for_the_working_tree_comparison(repo) -> None:
    (repo / "untracked.py").write_text("x = 1\n")
    assert api.search(str(repo), "load", worktree=False).index.up_to_date is None
    state = api.search(str(repo), "load").index
    assert (state.up_to_date, state.untracked, state.untracked_count) == (
        False, ("untracked.py",), 1)


def test_a_snippet_skips_a_docstrings_bare_opening_quotes(repo) -> None:
    answer = api.search(str(repo), "class Settings", snippets=True)
    top = answer.results[0]
    assert (top.symbol, top.snippet) == ("pkg.models.Settings",
                                         "class Settings: ⏎ Read from a file.")
    assert api.search(str(repo), "class Settings").results[0].snippet == ""
