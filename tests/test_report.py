"""The report: summary wording, the four formats, escaping, links, limits, golden files.

Golden files live in tests/golden/; regenerate them with MG_REGEN_GOLDEN=1 and read the diff.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from report_samples import (
    BASE,
    HEAD,
    HOSTILE,
    URL,
    affected,
    check_golden,
    clean_report,
    fixture_report,
    hostile_report,
)

from maguyva_guard.errors import FatalError
from maguyva_guard.guard import risk
from maguyva_guard.guard.model import (
    UNSPECIFIED_REASON,
    ImpactReport,
    ambiguous_reason,
    fallback_reason,
)
from maguyva_guard.records import (
    MODIFIED,
    REMOVED,
    RENAMED,
    ChangedSymbol,
)
from maguyva_guard.report import templated as templating
from maguyva_guard.report.groups import groups
from maguyva_guard.report.render import FORMATS, render

HERE = Path(__file__).parent
SCHEMA = json.loads((HERE / "schema" / "check.schema.json").read_text(encoding="utf-8"))


# --- golden files -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("text", "report.txt"), ("markdown", "report.md"), ("sarif", "report.sarif"),
     ("json", "report.json")],
)
def test_golden(fmt: str, name: str) -> None:
    check_golden(name, render(fixture_report(), fmt))


# --- completeness and the summary line ----------------------------------------------------


def test_ambiguous_edges_and_fallbacks_make_a_lower_bound_even_if_called_complete() -> None:
    report = fixture_report(complete=True, possible=())
    assert report.complete is False
    assert report.incomplete_reasons == (ambiguous_reason(1), fallback_reason(1))


def test_core_reasons_are_kept_and_not_doubled() -> None:
    report = fixture_report(incomplete_reasons=("1 file in an unsupported language",) * 2,
                            possible=())
    assert report.incomplete_reasons == ("1 file in an unsupported language",)
    assert report.complete is False


def test_incomplete_without_a_reason_still_says_why() -> None:
    report = clean_report(complete=False)
    assert report.incomplete_reasons == (UNSPECIFIED_REASON,)
    assert "lower bound: resolution was partial" in report.summary


@pytest.mark.parametrize(
    ("n_callers", "complete", "expected"),
    [
        (3, True, "3 affected callers of 1 changed symbol (complete)"),
        (1, True, "1 affected caller of 1 changed symbol (complete)"),
        (2, False, "2 affected callers of 1 changed symbol (lower bound: depth cap hit)"),
        (0, True, "No callers affected by 1 changed symbol."),
        (0, False, "No affected callers found, but this is a lower bound: depth cap hit"),
    ],
)
def test_summary_wording(n_callers: int, complete: bool, expected: str) -> None:
    reasons = () if complete else ("depth cap hit",)
    report = clean_report(n_callers, incomplete_reasons=reasons)
    assert report.summary == expected


def test_summary_counts_symbols_in_plural() -> None:
    assert fixture_report().summary.startswith("3 affected callers of 2 changed symbols (lower")
    none = clean_report(0, changed_symbols=())
    assert none.summary == "No callers affected by 0 changed symbols."


@pytest.mark.parametrize("n_callers", [0, 2])
def test_every_format_says_lower_bound(n_callers: int) -> None:
    report = clean_report(n_callers, incomplete_reasons=("unsupported language: Elm",))
    assert "lower bound" in render(report, "text")
    assert "lower bound" in render(report, "markdown")
    data = json.loads(render(report, "json"))
    assert data["complete"] is False
    assert data["incomplete_reasons"] == ["unsupported language: Elm"]
    assert "lower bound" in data["summary"]
    run = json.loads(render(report, "sarif"))["runs"][0]
    assert run["properties"]["complete"] is False
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert any("lower bound" in n["message"]["text"] for n in notes)
    for fmt in FORMATS:  # never "no impact" when resolution failed
        assert "No callers affected" not in render(report, fmt)


def test_complete_report_says_complete_and_no_lower_bound() -> None:
    report = clean_report(2)
    for fmt in FORMATS:
        assert "lower bound" not in render(report, fmt)
    assert "(complete)" in render(report, "text")
    assert json.loads(render(report, "json"))["complete"] is True
    assert json.loads(render(report, "sarif"))["runs"][0]["properties"]["complete"] is True
    empty = clean_report(0)
    assert "No callers affected by 1 changed symbol." in render(empty, "markdown")


# --- JSON: the contract -------------------------------------------------------------------


CONTRACT_AFFECTED = ["path", "symbol", "line", "kind", "score", "centrality", "depth",
                     "because_of", "modalities", "fusion_strategy"]


def test_json_matches_the_contract_and_the_schema() -> None:
    data = json.loads(render(fixture_report(), "json"))
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert list(data)[:8] == ["version", "repo", "base", "head", "changed_symbols", "affected",
                              "fallbacks", "stats"]
    assert data["version"] == 1 and data["base"] == BASE and data["head"] == HEAD
    first = data["affected"][0]
    assert list(first)[: len(CONTRACT_AFFECTED)] == CONTRACT_AFFECTED
    assert [a["symbol"] for a in data["affected"]] == [
        "pkg.cli.main", "pkg.server.Server.load", "pkg.app.run"]  # ranked by score
    assert first["contributions"][0] == {
        "modality": "graph", "rank": 0, "weight": 0.7, "boost": 1.5, "value": 0.017213}
    assert data["changed_symbols"][0]["risk"] == "high" and data["risk"] == "high"
    assert data["fallbacks"] == [{"path": "config/defaults.yaml",
                                  "reason": "no symbol support for YAML",
                                  "queries": ["parse_config", "timeout: 30"]}]
    assert data["stats"] == {"files_indexed": 12, "index_seconds": 0.5, "query_seconds": 0.25,
                             "edges_resolved": 0, "edges_reused": 0}


def test_json_staged_and_renamed_fields() -> None:
    sym = ChangedSymbol("pkg/new.py", "g", "pkg.new.g", "function", RENAMED, 1, 3,
                        old_name="f", old_path="pkg/old.py")
    report = ImpactReport(".", None, "STAGED", (sym,), ())
    data = json.loads(render(report, "json"))
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert data["base"] is None and data["head"] == "STAGED"
    assert data["changed_symbols"][0]["old_name"] == "f"
    assert data["changed_symbols"][0]["old_path"] == "pkg/old.py"
    assert "old_name" not in json.loads(render(clean_report(), "json"))["changed_symbols"][0]


def test_json_rounds_scores() -> None:
    report = clean_report(1)
    report = replace(report, affected=(replace(report.affected[0], score=1 / 3,
                                               centrality=2 / 3),))
    a = json.loads(render(report, "json"))["affected"][0]
    assert (a["score"], a["centrality"]) == (0.333333, 0.6667)


def test_schema_rejects_a_broken_contract() -> None:
    data = json.loads(render(fixture_report(), "json"))
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for key in ("version", "affected", "stats"):
        broken = {k: v for k, v in data.items() if k != key}
        assert not validator.is_valid(broken)
    assert not validator.is_valid(data | {"version": 2})
    bad = json.loads(json.dumps(data))
    bad["changed_symbols"][0]["change"] = "exploded"
    assert not validator.is_valid(bad)


# --- text -------------------------------------------------------------------------------


def test_text_groups_ranks_and_explains_as_a_tree() -> None:
    text = render(fixture_report(), "text")
    lines = text.splitlines()
    head = lines.index("pkg.config.parse_config  signature changed  risk high  pkg/config.py:10")
    assert lines[head + 1 : head + 4] == [
        "  |-- pkg/cli.py:88 pkg.cli.main [depth 1, exact, found by: graph+text]",
        "  |   `-- pkg/app.py:12 pkg.app.run [depth 2, exact, found by: graph]",
        "  `-- pkg/server.py:40 pkg.server.Server.load [depth 1, ambiguous, found by: graph]",
    ]
    assert "\x1b" not in text


def test_text_colour_only_when_asked() -> None:
    coloured = render(fixture_report(), "text", color=True)
    assert "\x1b[1;31mhigh\x1b[0m" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == render(fixture_report(), "text")


def test_text_neutralises_terminal_escapes_in_names() -> None:
    evil = "pkg.\x1b]0;pwned\x07\x1b[2J\nfake line \u202e"
    report = clean_report(1)
    report = replace(report, affected=(replace(report.affected[0], symbol=evil),))
    for color in (False, True):
        text = render(report, "text", color=color)
        assert "\x1b]" not in text and "\x07" not in text and "\u202e" not in text
        assert "\\x1b]0;pwned\\x07\\x1b[2J\\nfake line \\u202e" in text


def test_max_callers_per_symbol() -> None:
    report = clean_report(5)
    text = render(report, "text", max_callers=2)
    assert text.count("-- pkg/m") == 2 and "  ... and 3 more\n" in text
    assert "&hellip; and 3 more" in render(report, "markdown", max_callers=2)
    assert "and 3 more" not in render(report, "text", max_callers=0)
    assert len(json.loads(render(report, "json"))["affected"]) == 5
    assert len(json.loads(render(report, "sarif"))["runs"][0]["results"]) == 5


# --- grouping -----------------------------------------------------------------------------


def test_groups_riskiest_first_and_shared_callers_under_each() -> None:
    low = ChangedSymbol("pkg/a.py", "a", "pkg.a.a", "function", MODIFIED, 1, 2)
    high = ChangedSymbol("pkg/b.py", "b", "pkg.b.b", "function", REMOVED, 1, 2)
    both = affected("pkg/c.py", "pkg.c.c", 3, because_of=("pkg.a.a", "pkg.b.b"))
    orphan = affected("pkg/d.py", "pkg.d.d", 4, because_of=("cfg.yaml:<module>",))
    changed = risk.assess([low, high], [both])
    report = ImpactReport(".", None, "STAGED", changed, (both, orphan))
    out = groups(report)
    assert [g.label for g in out] == ["pkg.b.b", "pkg.a.a", "cfg.yaml:<module>"]
    assert [len(g.callers) for g in out] == [1, 1, 1] and out[2].changed is None
    assert "cfg.yaml:&lt;module&gt;</code>: 1 affected caller found by fallback" in render(
        report, "markdown")


def test_renamed_callers_found_under_the_old_name_are_grouped() -> None:
    sym = ChangedSymbol("pkg/m.py", "new", "pkg.m.new", "function", RENAMED, 1, 2, old_name="old")
    caller = affected("pkg/c.py", "pkg.c.c", 3, because_of=("pkg.m.old",), via=("pkg.m.old",))
    report = ImpactReport(".", None, "STAGED", risk.assess([sym], [caller]), (caller,))
    (group,) = groups(report)
    assert group.changed == report.changed_symbols[0] and group.callers == (caller,)
    assert "renamed from old" in render(report, "text")
    assert json.loads(render(report, "sarif"))["runs"][0]["results"][0]["ruleId"] == "MG003"


# --- Markdown: escaping and links ---------------------------------------------------------

ALLOWED_TAGS = {"details", "summary", "code", "sub"}


def without_mermaid(md: str) -> str:
    """The comment without its ```mermaid block (tests/test_picture.py checks that one)."""
    block = re.search(r"(?ms)^```mermaid\n.*?^```\n", md)
    assert block is not None
    assert md.count("```") == 2, "a name opened or closed a fence"
    return md[: block.start()] + md[block.end():]


def test_markdown_neutralises_hostile_names() -> None:
    md = without_mermaid(render(hostile_report(), "markdown"))
    shown = html.unescape(md)  # what GitHub's text filters see, after references decode
    assert md.startswith("<!-- maguyva-guard -->\n") and md.count("<!--") == 1
    assert "<script" not in md.lower() and "<img" not in md.lower()
    assert {t.lower() for t in re.findall(r"</?([A-Za-z][\w-]*)", md)} <= ALLOWED_TAGS
    assert "`" not in md  # no code span can open, so none can be broken out of
    assert "](javascript:" not in md
    assert all(t.startswith(f"{URL}/blob/") for t in re.findall(r"\]\(([^)]*)\)", md))
    assert not re.search(r"@[A-Za-z0-9]", shown), "an @mention GitHub would link"
    assert not re.search(r"#[0-9]", shown), "an issue reference GitHub would link"
    text = re.sub(r"\]\(https://[^)\s]*\)", "]", md)  # link targets are percent-encoded
    for syntax in ("**bold**", "_it_", "~~s~~", "$x$", "[click]", "a|b", "\\`"):
        assert syntax not in text
    for evil in HOSTILE:  # every name is still there for a human to read
        assert evil.replace("\n", "\\n").replace("\r", "\\r").replace("@", "@\u200d").replace(
            "#", "#\u200d") in shown


def test_markdown_tables_keep_their_shape() -> None:
    md = render(hostile_report(), "markdown")
    tables = [t.splitlines() for t in re.findall(r"(?m)(?:^\|.*\n)+", md)]
    # A "|" or a newline in a name can add neither a cell nor a row.
    summary, *callers = tables
    assert {row.count("|") for row in summary} == {5}
    assert len(summary) == 2 + len(HOSTILE)
    assert len(callers) == len(HOSTILE)
    assert all({row.count("|") for row in t} == {7} and len(t) == 3 for t in callers)


def test_finalize_escapes_every_variable() -> None:
    env = templating._environment("markdown", False)
    assert env.from_string("{{ x }}|{{ x|md }}").render(x="<b>@a") == (
        "&lt;b&gt;@\u200da|&lt;b&gt;@\u200da")
    assert env.from_string("{{ n }}").render(n=3) == "3"
    text_env = templating._environment("text", False)
    assert text_env.from_string("{{ x }}").render(x="a\x1b[2Jb") == "a\\x1b[2Jb"
    for name in ("text.j2", "markdown.j2"):  # nothing is let through by hand
        source = resources.files("maguyva_guard.templates").joinpath(name).read_text()
        assert "|safe" not in source.replace(" ", "") and "Markup" not in source


def test_links_point_at_the_head_commit_with_encoded_paths() -> None:
    report = clean_report(1)
    report = replace(report, affected=(replace(report.affected[0], path="a dir/x(1).py"),))
    md = render(report, "markdown")
    assert f"]({URL}/blob/{HEAD}/a%20dir/x%281%29.py#L1)" in md
    assert f"]({URL}/blob/{HEAD}/pkg/config.py#L10)" in md


def test_removed_symbols_link_to_the_base() -> None:
    sym = ChangedSymbol("pkg/m.py", "f", "pkg.m.f", "function", REMOVED, 7, 9)
    report = ImpactReport(".", BASE, HEAD, (sym,), (), repo_url=URL)
    assert f"]({URL}/blob/{BASE}/pkg/m.py#L7)" in render(report, "markdown")


@pytest.mark.parametrize(
    ("repo_url", "head"),
    [(None, HEAD), (URL, "STAGED"), ("javascript:alert(1)//", HEAD), ("ftp://x/y", HEAD)],
)
def test_no_links_without_a_safe_url_and_a_commit(repo_url: str | None, head: str) -> None:
    md = render(clean_report(1, repo_url=repo_url, head=head), "markdown")
    assert "](" not in md and "javascript" not in md


def test_markdown_stays_under_the_comment_limit() -> None:
    long = "x" * 200
    callers = tuple(affected(f"pkg/{long}{i}.py", f"pkg.{long}{i}", i + 1) for i in range(2000))
    report = clean_report(0, affected=callers)
    md = render(report, "markdown", max_callers=0)
    assert len(md) <= templating.MAX_COMMENT_CHARS
    assert "more (see the job summary / the JSON artifact)" in md


# --- SARIF ------------------------------------------------------------------------------


def sarif(report: ImpactReport) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(render(report, "sarif"))
    return data


def test_sarif_shape() -> None:
    data = sarif(fixture_report())
    assert data["version"] == "2.1.0"
    (run,) = data["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "maguyva-guard"
    assert [r["id"] for r in driver["rules"]] == ["MG001", "MG002", "MG003", "MG004", "MG005",
                                                  "MG006"]
    assert driver["rules"][0]["name"] == "signature-changed-caller"
    results = run["results"]
    assert len(results) == 3
    first = results[0]
    assert first["ruleId"] == "MG001" and first["level"] == "error"
    loc = first["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "pkg/cli.py" and loc["region"] == {"startLine": 88}
    assert "pkg.config.parse_config" in first["message"]["text"]
    assert "pkg.cli.main" in first["message"]["text"]
    # The ambiguous caller is one level weaker than its changed symbol's risk.
    assert [r["level"] for r in results] == ["error", "warning", "error"]


@pytest.mark.parametrize(
    ("n_callers", "level"),
    [(risk.MANY_DIRECT_CALLERS, "error"), (1, "warning")],
)
def test_sarif_level_follows_risk(n_callers: int, level: str) -> None:
    results = sarif(clean_report(n_callers))["runs"][0]["results"]
    assert {r["level"] for r in results} == {level}


def test_sarif_low_risk_is_a_note() -> None:
    body = ChangedSymbol("pkg/a.py", "a", "pkg.a.a", "function", MODIFIED, 1, 2)
    caller = affected("pkg/b.py", "pkg.b.b", 3, because_of=("pkg.a.a",))
    report = ImpactReport(".", None, "STAGED", risk.assess([body], [caller]), (caller,))
    (result,) = sarif(report)["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("MG004", "note")


def test_sarif_fingerprints_survive_line_moves_and_tell_call_sites_apart() -> None:
    one = clean_report(1)
    moved = replace(one, affected=(replace(one.affected[0], line=500),))
    fp = "maguyvaGuard/v1"
    a = sarif(one)["runs"][0]["results"][0]["partialFingerprints"][fp]
    b = sarif(moved)["runs"][0]["results"][0]["partialFingerprints"][fp]
    assert a == b
    twice = replace(one, affected=(one.affected[0], replace(one.affected[0], line=9)))
    prints = [r["partialFingerprints"][fp] for r in sarif(twice)["runs"][0]["results"]]
    assert len(set(prints)) == 2


def test_sarif_uris_are_encoded_and_relative() -> None:
    report = clean_report(1)
    report = replace(report, affected=(replace(report.affected[0], path="a b/%x.py"),))
    loc = sarif(report)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "a%20b/%25x.py", "uriBaseId": "%SRCROOT%"}


# --- the rest ----------------------------------------------------------------------------


def test_unknown_format_is_a_user_error() -> None:
    with pytest.raises(FatalError, match="unknown report format 'pdf'"):
        render(fixture_report(), "pdf")


def test_templates_ship_in_the_package() -> None:
    files = {p.name for p in resources.files("maguyva_guard.templates").iterdir()}
    assert {"text.j2", "markdown.j2", "report.html.j2"} <= files


def test_every_format_ends_with_one_newline() -> None:
    for fmt in FORMATS:
        out = render(fixture_report(), fmt)
        assert out.endswith("\n") and not out.endswith("\n\n")


def test_sarif_provenance_only_for_a_safe_url_and_a_commit() -> None:
    run = sarif(fixture_report())["runs"][0]
    assert run["versionControlProvenance"] == [{"repositoryUri": URL, "revisionId": HEAD}]
    for changes in ({"repo_url": "javascript:alert(1)//"}, {"head": "STAGED"}):
        assert "versionControlProvenance" not in sarif(fixture_report(**changes))["runs"][0]


def test_markdown_starts_with_the_marker_github_looks_for() -> None:
    from maguyva_guard.integrations import github

    assert render(fixture_report(), "markdown").startswith(github.DEFAULT_MARKER + "\n")


def test_possible_callers_are_listed_apart_and_make_the_list_a_lower_bound():
    report = fixture_report()
    assert not report.complete
    assert any("name only" in r for r in report.incomplete_reasons)
    data = json.loads(render(report, "json"))
    assert [a["symbol"] for a in data["possible"]] == ["pkg.jobs.<b>Job</b>.parse_config"]
    assert "pkg.jobs.<b>Job</b>.parse_config" not in {a["symbol"] for a in data["affected"]}
    text = render(report, "text")
    assert "Possible callers (1; name match only" in text
    markdown = render(report, "markdown")
    assert "possible caller" in markdown and "<b>Job</b>" not in markdown
