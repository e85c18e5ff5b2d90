"""`maguyva-guard comment` against a stand-in GitHub API on 127.0.0.1 (tests/github_server.py)."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from github_server import BOT, FakeGitHub

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
    # who am I, list, create, list again (a racing run?); who am I, list, update
    assert [s.method for s in api.seen] == ["GET", "GET", "POST", "GET", "GET", "GET", "PATCH"]


def test_a_comment_on_page_two_is_found(api, tmp_path):
    api.page_size = 2
    for n in range(3):
        api.add(f"review {n}")
    ours = api.add(f"{MARKER}\nold report", BOT)
    result = run(api, tmp_path, "new report\n")
    assert result.exit_code == 0, result.output
    assert "updated" in result.output
    assert api.comments[ours]["body"] == f"{MARKER}\nnew report\n"
    assert len(api.marked()) == 1
    assert [s.path.split("&")[-1] for s in api.seen if s.method == "GET"] == [
        "/user", "page=1", "page=2"]


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
    assert [s.method for s in api.seen] == ["GET", "GET", "GET", "GET", "POST", "GET"]
    assert len(api.marked()) == 1


def test_retries_are_bounded(api, tmp_path):
    api.fail_first = 99
    result = run(api, tmp_path, "report\n")
    assert result.exit_code == 2
    assert result.output == ("maguyva-guard: error: GitHub refused to say who the token is:"
                             " HTTP 502: Server Error\n")
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
    assert api.seen[2].path.startswith("/repos/octo/gadgets/")


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
            "/api/v3/user", *["/api/v3/repos/octo/widgets/issues/7/comments"] * 3]
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
    quoted = api.add(f"> quoting the bot:\n> {MARKER}\n", BOT)
    custom = api.add(f"<!-- maguyva-guard:web -->\n{MARKER}\nweb report\n", BOT)
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


# --- whose comment is ours (a planted marker), secrets in messages, the slug ----------------


def test_a_planted_marker_comment_by_someone_else_is_left_alone(api, tmp_path):
    planted = api.add(f"{MARKER}\n## Impact\nno risk, merge away\n")  # by mallory
    result = run(api, tmp_path, "## Impact\nreal report\n")
    assert result.exit_code == 0, result.output
    assert "created comment" in result.output
    assert api.comments[planted]["body"] == f"{MARKER}\n## Impact\nno risk, merge away\n"
    [ours] = [c for c in api.marked() if c["id"] != planted]
    assert (ours["body"], ours["user"]) == (f"{MARKER}\n## Impact\nreal report\n", BOT)


def test_the_workflow_token_updates_the_actions_bot_comment(api, tmp_path):
    api.add(f"{MARKER}\nplanted\n")
    ours = api.add(f"{MARKER}\nold report\n", BOT)
    result = run(api, tmp_path, "new report\n")
    assert result.exit_code == 0, result.output
    assert f"updated comment https://github.test/c/{ours}" in result.output
    assert api.comments[ours]["body"] == f"{MARKER}\nnew report\n"


def test_a_persons_token_updates_only_that_persons_comment(api, tmp_path):
    api.users["ghp_alice-token"] = "alice"
    bot = api.add(f"{MARKER}\nthe workflow's report\n", BOT)
    planted = api.add(f"{MARKER}\nplanted\n")
    alice = api.add(f"{MARKER}\nalice's old report\n", {"login": "alice", "type": "User"})
    result = run(api, tmp_path, "alice's new report\n", token="ghp_alice-token")
    assert result.exit_code == 0, result.output
    assert f"updated comment https://github.test/c/{alice}" in result.output
    assert api.comments[alice]["body"] == f"{MARKER}\nalice's new report\n"
    assert api.comments[bot]["body"] == f"{MARKER}\nthe workflow's report\n"
    assert api.comments[planted]["body"] == f"{MARKER}\nplanted\n"
    assert api.seen[0].path == "/user"


def test_two_runs_at_once_leave_one_comment(api, tmp_path):
    """Both list before either creates (the barrier), both create; the later one folds."""
    api.list_barrier = threading.Barrier(2)
    env = {**os.environ, "GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": api.url}
    runs = []
    for n in range(2):
        report = tmp_path / f"report{n}.md"
        report.write_text(f"report {n}\n")
        runs.append(subprocess.Popen(
            [sys.executable, "-m", "maguyva_guard", "comment", "--repo-slug", "octo/widgets",
             "--pr", "7", "--body-file", str(report), "--no-summary-fallback"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    logs = [proc.communicate(timeout=60)[0] for proc in runs]
    assert [proc.returncode for proc in runs] == [0, 0], logs
    assert sum(s.method == "POST" for s in api.seen) == 2  # the race did happen
    [left] = api.marked()
    assert left["body"] in (f"{MARKER}\nreport 0\n", f"{MARKER}\nreport 1\n")
    assert left["user"] == BOT


def test_duplicates_of_ours_are_removed_on_the_next_update(api, tmp_path):
    first = api.add(f"{MARKER}\nrace 1\n", BOT)
    api.add(f"{MARKER}\nrace 2\n", BOT)
    planted = api.add(f"{MARKER}\nplanted\n")
    assert run(api, tmp_path, "report\n").exit_code == 0
    assert sorted(api.comments) == [first, planted]
    assert api.comments[first]["body"] == f"{MARKER}\nreport\n"


@pytest.mark.parametrize("status", [422, 403])
def test_an_api_error_that_echoes_the_token_is_redacted(api, tmp_path, status):
    """The API answers with the request's headers in its message (a proxy, a debug front end):
    the token must not reach the output, whatever variable it came from."""
    api.echo_headers_on = status
    (tmp_path / "report.md").write_text("report\n")
    result = CliRunner().invoke(main, [
        "comment", "--repo-slug", "octo/widgets", "--pr", "7", "--body-file",
        str(tmp_path / "report.md"), "--token-env", "MY_TOKEN"],
        env={"MY_TOKEN": TOKEN, "GITHUB_API_URL": api.url,
             "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")})
    assert "Bearer" in result.output  # the echo did reach the message
    assert TOKEN not in result.output
    assert "Authorization: Bearer ***" in result.output
    assert result.exit_code == (2 if status == 422 else 0)
    assert result.output.count("\n") == 1


def test_redact_also_hides_a_basic_header_carrying_the_token():
    basic = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
    shown = github.redact(f"Authorization: Basic {basic}", TOKEN)
    assert shown.startswith("Authorization: Basic ***") and basic.rstrip("=") not in shown


@pytest.mark.parametrize("slug", [
    "../..", "octo/..", "octo/.", "../widgets", "-octo/widgets", "octo-/widgets",
    "oc--to/widgets", "oc_to/widgets", "o.cto/widgets", "a" * 40 + "/widgets",
    "octo/" + "w" * 101, "octo/widgets/x", "octo/wid%2Fgets", "octo/wid gets", "octo/",
    "/widgets", "octo", "octo/widgets\n"])
def test_a_slug_github_would_not_accept_is_one_line_exit_2(api, tmp_path, slug):
    (tmp_path / "report.md").write_text("report\n")
    result = CliRunner().invoke(main, ["comment", "--repo-slug", slug, "--pr", "7",
                                       "--body-file", str(tmp_path / "report.md")],
                                env={"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": api.url})
    assert result.exit_code == 2
    assert result.output == (f"maguyva-guard: error: --repo-slug must be OWNER/REPO as GitHub"
                             f" names them: {slug!r}\n")
    assert api.seen == []


@pytest.mark.parametrize("slug", ["a" * 39 + "/" + "w" * 100, "octo-cat/my.repo_x-1",
                                  "o/.github", "O1/..x", "octo/-"])
def test_a_slug_github_accepts_is_accepted(api, tmp_path, slug):
    (tmp_path / "report.md").write_text("report\n")
    result = CliRunner().invoke(main, ["comment", "--repo-slug", slug, "--pr", "7",
                                       "--body-file", str(tmp_path / "report.md")],
                                env={"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": api.url})
    assert result.exit_code == 0, result.output
