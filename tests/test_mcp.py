"""`maguyva-guard mcp` end to end: the real server in a subprocess, the SDK's own stdio client.

Each answer is checked against what the CLI's JSON says for the same question on the same
repository: the server is a view of the same engine, not a second one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from conftest import git
from mcp import ClientSession, StdioServerParameters, stdio_client  # the test extra has it
from mcp.types import TextContent

from maguyva_guard.cli import main

CALLERS_OF_PARSE = 40  # functions in pkg/many.py that call parse_config: a long answer

REPO = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        "def parse_config(text):\n"
        '    """Parse KEY=VALUE lines into a dict."""\n'
        "    pairs = [line.split('=', 1) for line in text.splitlines() if line]\n"
        "    return dict(pairs)\n"
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
        "    settings = load(path)\n"
        "    return settings\n"
    ),
    "pkg/many.py": "from pkg.core import parse_config\n" + "".join(
        f"\n\ndef use_{i}(text):\n    return parse_config(text + '{i}')\n"
        for i in range(CALLERS_OF_PARSE)),
}

Scenario = Callable[[ClientSession], Awaitable[Any]]


def serve(cwd: Path, scenario: Scenario, *args: str, log: Path | None = None) -> Any:
    """Start `maguyva-guard mcp` in `cwd`, run `scenario` with a client session, stop it;
    the server's stderr goes to `log` when given."""
    env = {k: v for k, v in os.environ.items() if k != "GIT_INDEX_FILE"}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "maguyva_guard", "mcp", *args],
                                   cwd=str(cwd), env=env)

    async def run() -> Any:
        with open(log or os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                return await scenario(session)

    return anyio.run(run)


async def call(session: ClientSession, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    """A tool call's is_error and its one text block (the server answers with no other)."""
    result = await session.call_tool(tool, arguments)
    (block,) = result.content
    assert isinstance(block, TextContent), block
    return bool(result.is_error), block.text


async def ask(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's answer as JSON; the test fails on a tool error."""
    is_error, text = await call(session, tool, arguments)
    assert not is_error, text
    answer: dict[str, Any] = json.loads(text)
    return answer


async def fail(session: ClientSession, tool: str, **arguments: Any) -> str:
    """A tool error's message, without the SDK's "Error executing tool X: " (the test fails
    if the call succeeded)."""
    is_error, text = await call(session, tool, arguments)
    assert is_error, text
    prefix = f"Error executing tool {tool}: "
    assert text.startswith(prefix)
    return text.removeprefix(prefix)


def cli_json(repo: Path, *argv: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, [*argv, "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def table(answer: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """A list of the answer as objects: its rows read with the head's column names (a row
    may stop before its empty last columns)."""
    columns = answer["columns"][key]
    for row in answer[key]:
        assert len(row) <= len(columns)
    return [dict(zip(columns, row, strict=False)) for row in answer[key]]


def callers_of(entries: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(a["path"], a["symbol"], a["line"], a["depth"], a["confidence"]) for a in entries]


@pytest.fixture
def repo(make_repo):
    return make_repo(REPO)


def test_lists_the_six_tools_with_their_arguments(repo) -> None:
    async def scenario(s: ClientSession) -> dict[str, Any]:
        return {t.name: t for t in (await s.list_tools()).tools}

    tools = serve(repo, scenario)
    assert sorted(tools) == ["callers", "definition", "explain", "impact", "search", "tests"]
    args = {name: sorted(t.input_schema["properties"]) for name, t in tools.items()}
    assert args == {
        "search": ["cursor", "limit", "max_tokens", "preset", "question"],
        "explain": ["cursor", "limit", "max_tokens", "preset", "question"],
        "definition": ["cursor", "max_tokens", "name"],
        "callers": ["cursor", "depth", "max_tokens", "symbol"],
        "impact": ["base", "cursor", "depth", "head", "max_tokens", "staged", "symbol"],
        "tests": ["base", "cursor", "head", "max_tokens", "staged"],
    }
    assert tools["search"].input_schema["required"] == ["question"]
    assert all(t.annotations.read_only_hint for t in tools.values())


def test_search_explain_and_definition_answer_as_query_json_does(repo) -> None:
    async def scenario(s: ClientSession) -> list[dict[str, Any]]:
        return [await ask(s, "search", question="parse configuration text", limit=5),
                await ask(s, "explain", question="who calls load"),
                await ask(s, "definition", name="core.parse_config")]

    search, explain, definition = serve(repo, scenario)
    cli = cli_json(repo, "query", "parse configuration text", "--limit", "5", "--json")
    assert (search["intent"], search["fusion_strategy"], search["modalities_run"]) == (
        cli["intent"], cli["fusion_strategy"], cli["modalities_run"])
    assert [(r["path"], r["line_start"], r["line_end"], r["symbol"], r["modalities"])
            for r in table(search, "results")] == [
        (r["path"], r["line_start"], r["line_end"], r["symbol"], r["modalities"])
        for r in cli["results"]]
    assert search["index"] == {"view": "staged", "files": 4, "up_to_date": True}
    top = next(r for r in table(search, "results") if r["symbol"] == "pkg.core.parse_config")
    assert top["snippet"] == 'def parse_config(text): ⏎ """Parse KEY=VALUE lines into a dict."""'

    cli = cli_json(repo, "query", "who calls load", "--json")
    assert (explain["rule"], explain["terms"], explain["k"]) == (cli["rule"], cli["terms"],
                                                                 cli["k"])
    assert [(r["symbol"], r["score"], [c["value"] for c in r["contributions"]])
            for r in explain["results"]] == [
        (r["symbol"], round(r["score"], 6), [round(c["value"], 6) for c in r["contributions"]])
        for r in cli["results"]]
    assert [r["symbol"] for r in explain["results"]] == ["pkg.app.start"]

    cli = cli_json(repo, "query", "def parse_config", "--json")["results"][0]
    (found,) = table(definition, "definitions")
    assert (found["path"], found["line_start"], found["line_end"], found["qualified_name"]) == (
        cli["path"], cli["line_start"], cli["line_end"], cli["symbol"])
    assert found["signature"] == "def parse_config(text)"


def test_impact_and_callers_answer_as_check_json_does(repo) -> None:
    async def scenario(s: ClientSession) -> list[dict[str, Any]]:
        return [await ask(s, "impact", symbol="pkg.core.load"),
                await ask(s, "callers", symbol="load", depth=2),
                await ask(s, "callers", symbol="parse_config", depth=2)]

    impact, callers, deeper = serve(repo, scenario)
    # A chain: `through` names what lies between the symbol asked about and the caller.
    assert ["pkg/app.py", 5, "pkg.app.start", 2, "exact", ["pkg.core.load"]] in deeper["callers"]
    assert ["pkg/core.py", 9, "pkg.core.load", 1, "exact"] in deeper["callers"]
    # The same question to the CLI: an edit inside load's body, staged, checked.
    core = repo / "pkg" / "core.py"
    core.write_text(core.read_text().replace("handle.read()", "handle.read() or ''"))
    git(repo, "add", "pkg/core.py")
    cli = cli_json(repo, "check", "--format", "json")
    assert [c["qualified_name"] for c in table(impact, "changed_symbols")] == ["pkg.core.load"]
    assert callers_of(table(impact, "affected")) == callers_of(cli["affected"]) == [
        ("pkg/app.py", "pkg.app.start", 5, 1, "exact"),
        ("pkg/app.py", "<module>", 1, 1, "exact")]
    assert (impact["summary"], impact["complete"], impact["risk"]) == (
        cli["summary"], cli["complete"], cli["risk"])
    assert callers_of(table(callers, "callers")) == callers_of(cli["affected"])
    assert callers["symbol"]["qualified_name"] == "pkg.core.load"

    async def staged(s: ClientSession) -> dict[str, Any]:
        return await ask(s, "impact")

    answer = serve(repo, staged)
    assert answer["head"] == "STAGED"
    assert callers_of(table(answer, "affected")) == callers_of(cli["affected"])
    # The index held the staged edit, which is also what the working tree has.
    assert answer["index"]["up_to_date"] is True


def test_tests_answer_as_the_tests_command_does(make_repo) -> None:
    repo = make_repo({**REPO, "tests/test_app.py": (
        "from pkg.app import start\n\n\ndef test_start(tmp_path):\n"
        "    assert start(tmp_path) is None\n\n\ndef test_other():\n    assert True\n")})
    core = repo / "pkg" / "core.py"
    core.write_text(core.read_text().replace("def load(path):", "def load(path, strict=False):"))
    git(repo, "add", "pkg/core.py")

    async def scenario(s: ClientSession) -> dict[str, Any]:
        return await ask(s, "tests")

    answer = serve(repo, scenario)
    cli = cli_json(repo, "tests", "--format", "json")
    picked = [(t["id"], t["path"], t["symbol"], t["chain"].split(" -> "))
              for t in table(answer, "tests")]
    assert picked == [(t["id"], t["path"], t["symbol"], t["chain"]) for t in cli["tests"]]
    assert [t["id"] for t in cli["tests"]] == ["tests/test_app.py::test_start"]
    assert (answer["run_all"], answer["reasons"]) == (cli["run_all"], cli["reasons"])
    assert answer["index"]["up_to_date"] is True


def test_pages_through_a_large_answer_with_the_cursor(repo) -> None:
    async def scenario(s: ClientSession) -> tuple[list[dict[str, Any]], str, str, dict[str, Any]]:
        pages = [await ask(s, "callers", symbol="parse_config")]
        while pages[-1]["page"]["next_cursor"]:
            pages.append(await ask(s, "callers", symbol="parse_config",
                                   cursor=pages[-1]["page"]["next_cursor"]))
        cursor = pages[0]["page"]["next_cursor"]
        other = await fail(s, "callers", symbol="load", cursor=cursor)
        garbage = await fail(s, "callers", symbol="parse_config", cursor="not-a-cursor")
        # A larger budget for one call: the rest of the answer in one page.
        rest = await ask(s, "callers", symbol="parse_config", cursor=cursor, max_tokens=5000)
        return pages, other, garbage, rest

    pages, other, garbage, rest = serve(repo, scenario, "--max-tokens", "300")
    assert len(pages) > 3
    for page in pages:  # every page within the budget, estimated as characters / 4
        assert len(json.dumps(page, separators=(",", ":"), ensure_ascii=False)) <= 300 * 4
    assert sum(p["page"]["returned"] for p in pages) == pages[0]["page"]["total"]
    paged = [c for p in pages for c in table(p, "callers")]
    assert len(paged) == CALLERS_OF_PARSE + 2  # use_0..use_39, load, many.py's import
    assert rest["page"]["next_cursor"] is None
    assert table(rest, "callers") == paged[pages[0]["page"]["returned"]:]
    # The CLI's list for the same question: an edit inside parse_config, checked to depth 1.
    core = repo / "pkg" / "core.py"
    core.write_text(core.read_text().replace("dict(pairs)", "dict(pairs or [])"))
    git(repo, "add", "pkg/core.py")
    cli = cli_json(repo, "check", "--format", "json", "--depth", "1")
    assert callers_of(paged) == callers_of(cli["affected"])
    assert other.startswith("this cursor belongs to another question")
    assert garbage == "not a cursor of this server: ask again without one"


def test_a_cursor_made_before_the_staged_files_changed_is_refused(repo) -> None:
    async def scenario(s: ClientSession) -> str:
        first = await ask(s, "callers", symbol="parse_config")
        (repo / "pkg" / "extra.py").write_text("def more():\n    pass\n")
        git(repo, "add", "pkg/extra.py")
        return await fail(s, "callers", symbol="parse_config",
                          cursor=first["page"]["next_cursor"])

    message = serve(repo, scenario, "--max-tokens", "300")
    assert message == ("the index changed since this cursor was made (staged files changed): "
                       "ask again without a cursor")


def test_bad_symbol_and_bad_revision_are_tool_errors_and_the_server_goes_on(repo) -> None:
    async def scenario(s: ClientSession) -> list[Any]:
        return [await fail(s, "callers", symbol="no_such_function"),
                await fail(s, "impact", symbol="pkg.core.nothing_here"),
                await fail(s, "impact", base="no-such-branch"),
                await fail(s, "impact", symbol="load", base="HEAD"),
                await fail(s, "impact", head="HEAD"),
                await ask(s, "definition", name="start")]

    *errors, still = serve(repo, scenario)
    assert errors == [
        "no definition of 'no_such_function' in the index (4 files of the staged view)",
        "no definition of 'pkg.core.nothing_here' in the index (4 files of the staged view)",
        "unknown revision: no-such-branch",
        "give a symbol or revisions (base/head, staged), not both",
        "head needs base: give the base revision too (or neither)",
    ]
    assert table(still, "definitions")[0]["qualified_name"] == "pkg.app.start"


def test_a_folder_outside_a_git_work_tree_is_a_tool_error(tmp_path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()

    async def scenario(s: ClientSession) -> list[Any]:
        return [await fail(s, "search", question="anything"),
                await fail(s, "impact"),
                await fail(s, "tests"),
                len((await s.list_tools()).tools)]

    search, impact, tests, tools = serve(plain, scenario, log=tmp_path / "server.log")
    assert search == impact == tests == f"not a git repository: {plain}"
    assert tools == 6
    log = (tmp_path / "server.log").read_text().splitlines()
    assert (f"maguyva-guard mcp: warning: not a git repository: {plain} (every tool will answer"
            " with this error)") in log


def test_unstaged_and_untracked_files_are_named_as_not_indexed(repo) -> None:
    core = repo / "pkg" / "core.py"
    core.write_text(core.read_text() + "\n\ndef added_later():\n    return 1\n")
    (repo / "notes.txt").write_text("todo\n")

    async def scenario(s: ClientSession) -> list[Any]:
        return [await ask(s, "definition", name="load"),
                await fail(s, "definition", name="added_later"),
                await ask(s, "impact")]

    answer, missing, staged = serve(repo, scenario)
    assert answer["index"] == {
        "view": "staged", "files": 4, "up_to_date": False,
        "note": "1 tracked file(s) edited but not staged (answered from their staged content); "
                "1 untracked path(s) not indexed: `git add` them to include them",
        "unstaged": ["pkg/core.py"], "unstaged_count": 1,
        "untracked": ["notes.txt"], "untracked_count": 1,
    }
    assert missing.startswith("no definition of 'added_later' in the index")
    # Nothing is staged: the edit is not the change `impact` looks at, and it says so.
    assert (staged["summary"], staged["note"]) == (
        "No callers affected by 0 changed symbols.",
        "1 file(s) with unstaged edits are not part of the staged changes: `git add` them, "
        "or ask about a symbol")


def test_without_the_mcp_extra_one_line_and_exit_2(tmp_path, repo) -> None:
    # A folder first on the path whose `mcp` raises what Python raises for a missing module.
    blocker = tmp_path / "blocker" / "mcp"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'mcp'\", name='mcp')\n")
    env = {**os.environ, "PYTHONPATH": str(blocker.parent)}
    proc = subprocess.run([sys.executable, "-m", "maguyva_guard", "mcp", "--repo", str(repo)],
                          capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
                          timeout=60)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == ("maguyva-guard: error: maguyva-guard mcp needs the MCP SDK, an "
                           "optional extra: pip install 'maguyva-guard[mcp]'\n")
