"""`maguyva-guard comment` against a stand-in GitHub API on 127.0.0.1 (tests/github_server.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from github_server import FakeGitHub

from maguyva_guard.cli import main
from maguyva_guard.integrations import github
from maguyva_guard.integrations import github_api as githubapi

TOKEN = "ghs_s3cr3t-t0ken-value"
MARKER = "<!-- maguyva-guard -->"


@pytest.fixture(autouse=True)
def _quiet_network(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(githubapi, "BACKOFF_SECONDS", 0.01)  # the retries, not the waiting


@pytest.fixture
def api() -> Iterator[FakeGitHub]:
    server = FakeGitHub().start()
    yield server
    server.stop()


@pytest.fixture
def elsewhere() -> Iterator[FakeGitHub]:
    """Another host (127.0.0.2) that must never see the token."""
    server = FakeGitHub(host="127.0.0.2").start()
    yield server
    server.stop()


def run(api: FakeGitHub, tmp_path: Path, body: str, *extra: str, summary: bool = True,
        token: str = TOKEN) -> Result:
    report = tmp_path / "report.md"
    report.write_text(body)
    env = {"GITHUB_TOKEN": token, "GITHUB_API_URL": api.url,
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md") if summary else None}
    args = ["comment", "--repo-slug", "octo/widgets", "--pr", "7", "--body-file", str(report)]
    return CliRunner().invoke(main, [*args, *extra], env=env)


def test_first_run_creates_and_second_run_updates_the_same_comment(api, tmp_path):
    other = api.add("LGTM")
    first = run(api, tmp_path, "## Impact\n1 caller\n")
    assert first.exit_code == 0, first.output
    assert first.output.startswith("maguyva-guard: created comment https://github.test/c/")
    [created] = api.marked()
    assert created["body"] == f"{MARKER}\n## Impact\n1 caller\n"

    second = run(api, tmp_path, "## Impact\n3 callers\n")
    assert second.exit_code == 0, second.output
    assert f"updated comment https://github.test/c/{created['id']}" in second.output
    assert api.marked() == [{**created, "body": f"{MARKER}\n## Impact\n3 callers\n"}]
    assert api.comments[other]["body"] == "LGTM"
    assert [s.method for s in api.seen] == ["GET", "POST", "GET", "PATCH"]


def test_a_comment_on_page_two_is_found(api, tmp_path):
    api.page_size = 2
    for n in range(3):
        api.add(f"review {n}")
    ours = api.add(f"{MARKER}\nold report")
    result = run(api, tmp_path, "new report\n")
    assert result.exit_code == 0, result.output
    assert "updated" in result.output
    assert api.comments[ours]["body"] == f"{MARKER}\nnew report\n"
    assert len(api.marked()) == 1
    assert [s.path.split("&")[-1] for s in api.seen if s.method == "GET"] == ["page=1", "page=2"]


def test_a_fork_token_falls_back_to_the_job_summary(api, tmp_path):
    api.deny_writes = True
    result = run(api, tmp_path, "## Impact\nsummary please\n")
    assert result.exit_code == 0
    assert result.output.count("\n") == 1
    assert result.output == (
        "maguyva-guard: the token may not comment on octo/widgets#7 (HTTP 403: Resource not"
        " accessible by integration; a fork's cannot); wrote the report to the job summary"
        " instead\n")
    assert (tmp_path / "summary.md").read_text() == "## Impact\nsummary please\n"
    assert api.comments == {}


def test_a_fork_without_a_job_summary_still_exits_0(api, tmp_path):
    api.deny_writes = True
    result = run(api, tmp_path, "report\n", summary=False)
    assert result.exit_code == 0
    assert result.output.endswith("a fork's cannot); no comment posted\n")


def test_no_summary_fallback_leaves_the_summary_alone(api, tmp_path):
    api.deny_writes = True
    result = run(api, tmp_path, "report\n", "--no-summary-fallback")
    assert result.exit_code == 0
    assert not (tmp_path / "summary.md").exists()


def test_a_5xx_is_retried(api, tmp_path):
    api.fail_first = 2
    result = run(api, tmp_path, "report\n")
    assert result.exit_code == 0, result.output
    assert [s.method for s in api.seen] == ["GET", "GET", "GET", "POST"]
    assert len(api.marked()) == 1


def test_retries_are_bounded(api, tmp_path):
    api.fail_first = 99
    result = run(api, tmp_path, "report\n")
    assert result.exit_code == 2
    assert result.output == ("maguyva-guard: error: GitHub refused to list the pull request's"
                             " comments: HTTP 502: Server Error\n")
    assert len(api.seen) == githubapi.ATTEMPTS


@pytest.mark.parametrize("where", ["another host", "another port"])
def test_a_redirect_elsewhere_is_refused_and_gets_no_token(api, elsewhere, tmp_path, where):
    if where == "another port":
        elsewhere.stop()
        elsewhere = FakeGitHub().start()
    api.redirect_list_to = f"{elsewhere.url}/repos/octo/widgets/issues/7/comments"
    result = run(api, tmp_path, "report\n")
    elsewhere.stop()
    assert result.exit_code == 2
    assert "refusing to send the token to 127.0.0." in result.output
    assert elsewhere.seen == []
    assert api.comments == {}
    assert TOKEN not in result.output


def test_a_next_page_link_elsewhere_is_refused(api, elsewhere, tmp_path):
    api.add("someone else's comment")
    api.next_link_to = f"{elsewhere.url}/repos/octo/widgets/issues/7/comments?page=2"
    result = run(api, tmp_path, "report\n")
    assert result.exit_code == 2
    assert "refusing to send the token to 127.0.0.2" in result.output
    assert elsewhere.seen == []


def test_a_redirect_within_the_api_is_followed_with_the_token(api, tmp_path):
    # GitHub answers a renamed repository with a redirect to its new name on the same host.
    api.redirect_list_to = f"{api.url}/repos/octo/gadgets/issues/7/comments?per_page=100&page=1"
    result = run(api, tmp_path, "report\n")
    assert result.exit_code == 0, result.output
    assert api.seen[1].path.startswith("/repos/octo/gadgets/")


def test_the_token_goes_only_to_the_api_and_is_never_printed(api, tmp_path):
    api.deny_writes = True
    result = run(api, tmp_path, "report\n")
    assert {s.headers["Authorization"] for s in api.seen} == {f"Bearer {TOKEN}"}
    assert TOKEN not in result.output
    assert TOKEN not in (tmp_path / "summary.md").read_text()


def test_an_enterprise_base_path_is_kept_and_enforced(tmp_path):
    server = FakeGitHub(prefix="/api/v3").start()
    try:
        assert run(server, tmp_path, "report\n").exit_code == 0
        assert [s.path.split("?")[0] for s in server.seen] == [
            "/api/v3/repos/octo/widgets/issues/7/comments"] * 2
        # Same host and port, but outside /api/v3: not under the base URL.
        server.redirect_list_to = server.url.removesuffix("/api/v3") + "/uploads/x"
        result = run(server, tmp_path, "report\n")
        assert result.exit_code == 2
        assert "outside http://127.0.0.1" in result.output
    finally:
        server.stop()


def test_a_long_body_is_truncated_with_a_note(api, tmp_path):
    body = "".join(f"| caller_{n} | pkg/mod.py |\n" for n in range(5000))
    assert len(body) > github.MAX_BODY_CHARS
    assert run(api, tmp_path, body).exit_code == 0
    [posted] = api.marked()
    assert len(posted["body"]) <= github.MAX_BODY_CHARS
    assert posted["body"].startswith(MARKER + "\n| caller_0 |")
    assert f"it has {len(body)} characters" in posted["body"]
    kept = posted["body"].split("\n\n---\n")[0]
    assert kept.endswith("|") and body.startswith(kept.removeprefix(MARKER + "\n"))


def test_a_body_cut_inside_details_or_a_fence_closes_them_before_the_note(api, tmp_path):
    """Issue 25, item 13: a cut inside <details> hid the note in a collapsed section."""
    rows = "".join(f"| caller_{n} | pkg/mod.py |\n" for n in range(2500))
    body = ("## Report\n\n```mermaid\nflowchart LR\n  n0 --> n1\n```\n\n"
            f"<details>\n<summary>a</summary>\n\n{rows}\n</details>\n\n"
            f"<details>\n<summary>b</summary>\n\n{rows}\n</details>\n")
    assert len(body) > github.MAX_BODY_CHARS
    assert run(api, tmp_path, body).exit_code == 0
    [posted] = api.marked()
    text = posted["body"]
    assert len(text) <= github.MAX_BODY_CHARS
    note = text.index("the report was cut here")
    assert text.count("<details>") == text.count("</details>") >= 1
    assert text.rindex("</details>") < note  # the note is outside every collapsed section
    assert text.count("```") % 2 == 0


def test_a_body_cut_inside_a_mermaid_fence_closes_it(api, tmp_path):
    lines = "".join(f"  n{n} --> n{n + 1}\n" for n in range(6000))
    body = f"## Report\n\n```mermaid\nflowchart LR\n{lines}```\n"
    assert run(api, tmp_path, body).exit_code == 0
    [posted] = api.marked()
    text = posted["body"]
    assert len(text) <= github.MAX_BODY_CHARS and text.count("```") == 2
    assert text.index("the report was cut here") > text.rindex("```")


def test_custom_markers_keep_separate_comments(api, tmp_path):
    assert run(api, tmp_path, "backend\n", "--marker", "maguyva-guard:backend").exit_code == 0
    assert run(api, tmp_path, "frontend\n", "--marker", "<!-- guard:web -->").exit_code == 0
    assert run(api, tmp_path, "backend 2\n", "--marker", "maguyva-guard:backend").exit_code == 0
    bodies = sorted(c["body"] for c in api.comments.values())
    assert bodies == ["<!-- guard:web -->\nfrontend\n",
                      "<!-- maguyva-guard:backend -->\nbackend 2\n"]


def test_a_report_that_carries_the_marker_gets_it_once(api, tmp_path):
    assert run(api, tmp_path, f"{MARKER}\n## report\n").exit_code == 0
    assert [c["body"] for c in api.comments.values()] == [f"{MARKER}\n## report\n"]


def test_only_the_first_line_marks_our_comment(api, tmp_path):
    quoted = api.add(f"> quoting the bot:\n> {MARKER}\n")
    custom = api.add(f"<!-- maguyva-guard:web -->\n{MARKER}\nweb report\n")
    assert "created" in run(api, tmp_path, "report\n").output
    assert api.comments[quoted]["body"] == f"> quoting the bot:\n> {MARKER}\n"
    assert api.comments[custom]["body"].endswith("web report\n")
    assert len(api.comments) == 3


@pytest.mark.parametrize(
    ("extra", "token", "message"),
    [
        ((), "", "GITHUB_TOKEN is not set"),
        (("--token-env", "MY_TOKEN"), TOKEN, "MY_TOKEN is not set"),
        (("--marker", "a -- b"), TOKEN, "--marker must be plain text"),
        ((), "two words", "the token contains spaces"),
    ],
)
def test_usage_errors_exit_2_with_one_line(api, tmp_path, extra, token, message):
    result = run(api, tmp_path, "report\n", *extra, token=token)
    assert result.exit_code == 2
    assert result.output.startswith(f"maguyva-guard: error: {message}")
    assert result.output.count("\n") == 1
    assert api.seen == []
    assert "two words" not in result.output


def test_a_bad_slug_and_a_missing_body_file_are_usage_errors(api, tmp_path):
    runner = CliRunner()
    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": api.url}
    bad = runner.invoke(main, ["comment", "--repo-slug", "widgets", "--pr", "1",
                               "--body-file", "x.md"], env=env)
    assert bad.exit_code == 2 and "OWNER/REPO" in bad.output
    missing = runner.invoke(main, ["comment", "--repo-slug", "o/r", "--pr", "1",
                                   "--body-file", str(tmp_path / "nope.md")], env=env)
    assert missing.exit_code == 2 and "cannot read --body-file" in missing.output
