"""`review` (inline comments per changed definition) and `comment --check-failed /
--artifact-url`, against the stand-in GitHub API on 127.0.0.1 (tests/github_server.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import committed_signature_change, git
from github_server import ACTIONS_BOT, BOT, FakeGitHub
from report_samples import HOSTILE, fixture_report, hostile_report

from maguyva_guard.cli import main
from maguyva_guard.integrations import github_api, review
from maguyva_guard.report.render import render

TOKEN = "ghs_s3cr3t-t0ken-value"
HEAD = "abcdef0123456789abcdef0123456789abcdef01"
CONFIG = ("pkg/config.py", "RIGHT", 10)  # the fixture's signature change: parse_config


@pytest.fixture(autouse=True)
def _quiet_network(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(github_api, "BACKOFF_SECONDS", 0.01)


@pytest.fixture
def api() -> Iterator[FakeGitHub]:
    server = FakeGitHub().start()
    yield server
    server.stop()


def run_review(api: FakeGitHub, tmp_path: Path, report_json: str, commit: str = HEAD) -> Result:
    report = tmp_path / "report.json"
    report.write_text(report_json)
    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": api.url}
    return CliRunner().invoke(main, ["review", "--repo-slug", "octo/widgets", "--pr", "7",
                                     "--report", str(report), "--commit", commit], env=env)


def test_one_inline_comment_per_changed_definition_with_callers(api, tmp_path):
    api.diff_lines.add(CONFIG)
    result = run_review(api, tmp_path, render(fixture_report(), "json"))
    assert result.exit_code == 0, result.output
    assert result.output == "maguyva-guard: created an inline comment on pkg/config.py:10\n"
    [posted] = api.review_comments.values()
    assert (posted["path"], posted["line"], posted["side"], posted["commit_id"]) == (
        "pkg/config.py", 10, "RIGHT", HEAD)
    body = posted["body"]
    assert body.startswith(review.marker("pkg/config.py", "pkg.config.parse_config") + "\n")
    assert "risk **high**, 3 affected callers:" in body
    assert "- <code>pkg.cli.main</code> in <code>pkg/cli.py:88</code> (depth 1, exact)" in body


def test_a_later_push_updates_instead_of_adding(api, tmp_path):
    api.diff_lines.add(CONFIG)
    assert run_review(api, tmp_path, render(fixture_report(), "json")).exit_code == 0
    again = run_review(api, tmp_path, render(fixture_report(), "json"))
    assert again.output == "maguyva-guard: the inline comment on pkg/config.py:10 is up to date\n"
    fewer = fixture_report()
    from dataclasses import replace
    fewer = replace(fewer, affected=fewer.affected[:1])
    third = run_review(api, tmp_path, render(fewer, "json"))
    assert third.output == "maguyva-guard: updated the inline comment on pkg/config.py:10\n"
    [posted] = api.review_comments.values()
    assert "1 affected caller:" in posted["body"]


def test_a_moved_definition_gets_its_comment_moved(api, tmp_path):
    api.diff_lines.update({CONFIG, ("pkg/config.py", "RIGHT", 30)})
    assert run_review(api, tmp_path, render(fixture_report(), "json")).exit_code == 0
    from dataclasses import replace
    report = fixture_report()
    moved = replace(report, changed_symbols=(replace(report.changed_symbols[0], line_start=30),
                                             *report.changed_symbols[1:]))
    assert run_review(api, tmp_path, render(moved, "json")).exit_code == 0
    assert [(c["path"], c["line"]) for c in api.review_comments.values()] == [
        ("pkg/config.py", 30)]


def test_a_line_outside_the_diff_falls_back_to_the_report_comment(api, tmp_path):
    result = run_review(api, tmp_path, render(fixture_report(), "json"))
    assert result.exit_code == 0, result.output
    assert result.output == ("maguyva-guard: pkg/config.py:10 is not part of the diff: the"
                             " report comment lists it\n")
    assert api.review_comments == {}


def test_a_planted_comment_with_our_marker_is_never_edited(api, tmp_path):
    api.diff_lines.add(CONFIG)
    mark = review.marker("pkg/config.py", "pkg.config.parse_config")
    planted = api.add_review(f"{mark}\nall clear, merge it", "pkg/config.py", 10,
                             login="mallory")
    assert run_review(api, tmp_path, render(fixture_report(), "json")).exit_code == 0
    assert api.review_comments[planted]["body"] == f"{mark}\nall clear, merge it"
    ours = [c for c in api.review_comments.values() if c["user"]["login"] == ACTIONS_BOT]
    assert len(ours) == 1 and "risk **high**" in ours[0]["body"]


def test_a_personal_token_finds_its_own_comments_by_login(api, tmp_path):
    api.login = "octo-bot"
    api.diff_lines.add(CONFIG)
    assert run_review(api, tmp_path, render(fixture_report(), "json")).exit_code == 0
    assert run_review(api, tmp_path, render(fixture_report(), "json")).exit_code == 0
    assert [c["user"]["login"] for c in api.review_comments.values()] == ["octo-bot"]


def test_hostile_names_are_escaped_in_inline_comments(api, tmp_path):
    report = json.loads(render(hostile_report(), "json"))
    for c in report["changed_symbols"]:
        api.diff_lines.add((c["path"], "RIGHT", c["line_start"]))
    result = run_review(api, tmp_path, json.dumps(report))
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\n\n" not in result.output
    bodies = [c["body"] for c in api.review_comments.values()]
    assert len(bodies) == len(HOSTILE)
    for body in bodies:
        marker_line, rest = body.split("\n", 1)
        assert marker_line.startswith("<!-- maguyva-guard inline ") and "<!--" not in rest
        assert "<script" not in body and "<img" not in body and "`" not in body


def test_a_fork_token_is_not_a_failure(api, tmp_path):
    api.deny_writes = True
    api.diff_lines.add(CONFIG)
    result = run_review(api, tmp_path, render(fixture_report(), "json"))
    assert result.exit_code == 0, result.output
    assert "may not write review comments on octo/widgets#7 (HTTP 403" in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["--commit", "HEAD"], "--commit must be the pull request's head commit id"),
    (["--repo-slug", "no-slash"], "--repo-slug must be OWNER/REPO as GitHub names them"),
])
def test_review_usage_errors(api, tmp_path, args, message):
    report = tmp_path / "r.json"
    report.write_text(render(fixture_report(), "json"))
    base = {"--repo-slug": "o/r", "--pr": "7", "--report": str(report), "--commit": HEAD}
    base.update(dict(zip(args[::2], args[1::2], strict=True)))
    result = CliRunner().invoke(main, ["review", *[x for kv in base.items() for x in kv]],
                                env={"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": api.url})
    assert result.exit_code == 2 and message in result.output


def test_review_of_a_real_check(api, make_repo, tmp_path):
    repo, base = committed_signature_change(make_repo)
    head = git(repo, "rev-parse", "HEAD").strip()
    out = tmp_path / "report.json"
    done = CliRunner().invoke(main, ["check", "--repo", str(repo), "--base", base,
                                     "--format", "json", "--output", str(out)])
    assert done.exit_code == 0, done.output
    api.diff_lines.add(("pkg/config.py", "RIGHT", 1))
    result = run_review(api, tmp_path, out.read_text(), commit=head)
    assert result.output == "maguyva-guard: created an inline comment on pkg/config.py:1\n"
    [posted] = api.review_comments.values()
    assert "<code>pkg.cli.main</code> in <code>pkg/cli.py:5</code>" in posted["body"]


# --- comment: a failed check, the artifact link -------------------------------------------


def run_comment(api: FakeGitHub, *args: str, **env: str) -> Result:
    full = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": api.url, "GITHUB_STEP_SUMMARY": None,
            **env}
    return CliRunner().invoke(main, ["comment", "--repo-slug", "octo/widgets", "--pr", "7",
                                     *args], env=full)


def test_a_failed_check_replaces_the_report_and_says_so(api, tmp_path):
    earlier = api.add("<!-- maguyva-guard -->\n## maguyva-guard: 3 affected callers\n",
                      BOT)  # our earlier report: the workflow token writes as the Actions bot
    log = tmp_path / "check.err"
    log.write_text(f"Traceback...\nmaguyva-guard: error: cannot write the index <b>{TOKEN}</b>\n")
    result = run_comment(api, "--check-failed", str(log), GITHUB_SERVER_URL="https://github.com",
                         GITHUB_REPOSITORY="octo/widgets", GITHUB_RUN_ID="42")
    assert result.exit_code == 0, result.output
    body = api.comments[earlier]["body"]
    assert body.startswith("<!-- maguyva-guard -->\n## maguyva-guard: the check failed\n")
    assert "nothing here means it is safe" in body and "3 affected callers" not in body
    assert "cannot write the index &lt;b&gt;&#42;&#42;&#42;&lt;/b&gt;" in body
    assert TOKEN not in body
    assert "[the job log](https://github.com/octo/widgets/actions/runs/42)" in body


def test_the_artifact_link_follows_the_report_even_when_cut(api, tmp_path):
    report = tmp_path / "report.md"
    report.write_text("## report\n" + "".join(f"| row {n} |\n" for n in range(9000)))
    url = "https://github.com/octo/widgets/actions/runs/42/artifacts/7"
    assert run_comment(api, "--body-file", str(report), "--artifact-url", url).exit_code == 0
    [posted] = api.comments.values()
    assert len(posted["body"]) <= 65536
    assert posted["body"].endswith(
        f"[JSON, SARIF and HTML]({url}), uploaded with this run.</sub>\n")


def test_an_unsafe_artifact_url_is_not_linked(api, tmp_path):
    report = tmp_path / "report.md"
    report.write_text("## report\n")
    assert run_comment(api, "--body-file", str(report),
                       "--artifact-url", "javascript:alert(1)").exit_code == 0
    [posted] = api.comments.values()
    assert posted["body"] == "<!-- maguyva-guard -->\n## report\n"


def test_comment_needs_a_body_or_a_failure(api):
    result = run_comment(api)
    assert result.exit_code == 2 and "comment needs --body-file, or --check-failed LOG" in (
        result.output)
