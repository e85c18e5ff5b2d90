"""action.yml: its shape (inputs used, bash everywhere, known actions only, no downloads), and
its shell steps run for real against real repositories and the stand-in GitHub API."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import GIT_ENV, committed_signature_change, git
from github_server import FakeGitHub

from maguyva_guard.integrations import action, tests_output

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
ALLOWED_ACTIONS = {"actions/setup-python", "actions/cache", "github/codeql-action",
                   "actions/upload-artifact"}
ZERO = "0" * 40


def step(step_id: str) -> dict[str, Any]:
    [found] = [s for s in STEPS if s.get("id") == step_id]
    return found


def run_step(step_id: str, cwd: Path, tmp_path: Path, **env: str) -> tuple[int, str, dict]:
    """Run a `run:` step as the runner does (bash -eo pipefail); returns code, log, outputs."""
    output, summary = tmp_path / "github_output", tmp_path / "step_summary"
    output.write_text("")
    full_env = {**os.environ, **GIT_ENV, "GITHUB_OUTPUT": str(output),
                "GITHUB_STEP_SUMMARY": str(summary), "RUNNER_TEMP": str(tmp_path), **env}
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                           step(step_id)["run"]], cwd=cwd, env=full_env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return proc.returncode, proc.stdout, outputs


# --- shape --------------------------------------------------------------------------------


def test_the_declared_inputs_match_the_brief():
    assert {name: spec.get("default") for name, spec in ACTION["inputs"].items()} == {
        "python-version": "3.11", "preset": "thorough", "depth": "2", "fail-on": "none",
        "comment": "true", "sarif": "false", "github-token": "${{ github.token }}", "base": "",
        "inline-comments": "false", "artifact-name": "maguyva-guard-report",
        "tests": "none"}
    assert ACTION["runs"]["using"] == "composite"


@pytest.mark.parametrize("name", sorted(ACTION["inputs"]))
def test_every_input_is_used_by_a_step(name):
    used = yaml.safe_dump(STEPS)
    assert re.search(rf"inputs\.{re.escape(name)}(?![\w-])", used), f"input {name} is unused"


def test_every_run_step_sets_shell_bash_and_takes_inputs_through_env():
    runs = [s for s in STEPS if "run" in s]
    assert len(runs) >= 5
    for s in runs:
        assert s.get("shell") == "bash", s["name"]
        assert "${{" not in s["run"], f"{s['name']}: an expression spliced into the script"


def test_only_known_actions_pinned_to_a_major_version():
    uses = [s["uses"] for s in STEPS if "uses" in s]
    assert uses
    for ref in uses:
        name, _, version = ref.partition("@")
        assert "/".join(name.split("/")[:2]) in ALLOWED_ACTIONS, ref
        assert re.fullmatch(r"v\d+", version), ref


def test_no_script_talks_to_a_host_other_than_the_github_api():
    for s in STEPS:
        for url in re.findall(r"https?://[^\s\"')]+", s.get("run", "")):
            assert url.startswith(("${GITHUB_API_URL}", "https://api.github.com")), url
        assert not re.search(r"\b(curl|wget)\b", s.get("run", "")), s["name"]


def test_every_output_is_set_by_the_step_it_names():
    for name, spec in ACTION["outputs"].items():
        match = re.fullmatch(r"\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}", spec["value"])
        assert match, spec["value"]
        script = step(match[1])["run"]
        written = f"{match[2]}=" in script or (
            "-m maguyva_guard.integrations.action" in script and match[2] in action.OUTPUT_NAMES
        ) or ("-m maguyva_guard.integrations.tests_output" in script
              and match[2] in tests_output.OUTPUT_NAMES)
        assert written, f"output {name} is never written"


def test_the_index_is_cached_by_base_commit_inside_git():
    restore, save = step("cache"), step("save-index")
    assert restore["with"]["path"] == save["with"]["path"] == ".git/maguyva-guard"
    assert "steps.history.outputs.base" in restore["with"]["key"]


def test_the_job_fails_last_after_the_comment_and_the_upload():
    ids = [s.get("id") for s in STEPS]
    assert ids[-1] == "fail"
    assert ids.index("check") < ids.index("upload-report") < ids.index("comment") < ids.index(
        "review") < ids.index("upload-sarif") < ids.index("fail")
    assert STEPS[-1]["if"] == (
        "steps.check.outputs.status != '0' && steps.check.outputs.status != ''")
    assert step("upload-report")["continue-on-error"] is True


# --- the shell steps, run for real --------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        # HEAD is not a merge commit here: the base branch (its merge base), not base.sha
        ({"EVENT_NAME": "pull_request", "PR_BASE_REF": "main"}, "main"),
        ({"INPUT_BASE": "release", "EVENT_NAME": "pull_request", "PR_BASE_REF": "main"},
         "release"),
        ({"EVENT_NAME": "push", "PUSH_BEFORE": "def456"}, "def456"),
        ({"EVENT_NAME": "push", "PUSH_BEFORE": ZERO, "DEFAULT_BRANCH": "main"}, "main"),
        ({"EVENT_NAME": "merge_group", "MERGE_GROUP_BASE": "abc123"}, "abc123"),
        ({"EVENT_NAME": "schedule"}, None),  # no payload branch and no origin to ask
    ],
)
def test_the_base_step(make_repo, tmp_path, env, expected):
    repo = make_repo({"a": "1\n"})
    code, log, outputs = run_step("base", repo, tmp_path, **env)
    if expected is None:
        assert (code, outputs) == (0, {"skip": "true"}), log
        assert "::notice title=maguyva-guard::skipped: no base to compare with" in log
    else:
        assert (code, outputs) == (0, {"ref": expected}), log


def test_the_base_step_takes_the_merge_commits_first_parent(make_repo, tmp_path):
    repo = make_repo({"a": "1\n"})
    git(repo, "checkout", "-q", "-b", "pr")
    (repo / "b").write_text("2\n")
    git(repo, "add", "b")
    git(repo, "commit", "-q", "-m", "pr")
    git(repo, "checkout", "-q", "main")
    (repo / "c").write_text("3\n")
    git(repo, "add", "c")
    git(repo, "commit", "-q", "-m", "main moved")
    main = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "merge", "-q", "--no-edit", "pr")
    code, log, outputs = run_step("base", repo, tmp_path, EVENT_NAME="pull_request",
                                  PR_BASE_REF="main")
    assert (code, outputs) == (0, {"ref": main}), log


@pytest.fixture
def shallow_pr(make_repo, tmp_path) -> tuple[Path, str, str]:
    """A depth-1 clone of a pull-request branch whose fork point is 40 commits below main,
    in a history long enough that the first deepening (50) does not reach the root."""
    origin = make_repo({"f0": "0\n"}, name="origin")
    tip = git(origin, "rev-parse", "HEAD").strip()
    # 99 empty commits on main in one process (the tree stays the same, so does the checkout)
    stream = "".join(f"commit refs/heads/main\ncommitter T <t@example.com> {n} +0000\n"
                     f"data {len(str(n))}\n{n}\n" + (f"from {tip}\n" if n == 1 else "")
                     for n in range(1, 100))
    subprocess.run(["git", "-C", str(origin), "fast-import", "--quiet"], input=stream, text=True,
                   check=True)
    fork = git(origin, "rev-parse", "HEAD~40").strip()
    git(origin, "checkout", "-q", "-b", "pr", fork)
    for n in range(3):
        (origin / f"p{n}").write_text(f"{n}\n")
        git(origin, "add", f"p{n}")
        git(origin, "commit", "-q", "-m", f"pr {n}")
    git(origin, "checkout", "-q", "main")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "pr", f"file://{origin}", str(clone))
    return clone, git(origin, "rev-parse", "main").strip(), fork


@pytest.mark.parametrize("base_by", ["commit", "branch name"])
def test_the_history_step_deepens_a_shallow_clone_to_the_merge_base(shallow_pr, tmp_path,
                                                                    base_by):
    clone, base, fork = shallow_pr
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"
    code, log, outputs = run_step("history", clone, tmp_path,
                                  BASE=base if base_by == "commit" else "main")
    assert code == 0, log
    assert outputs == {"base": base}
    assert git(clone, "merge-base", base, "HEAD").strip() == fork
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"  # deepened only


def test_the_history_step_leaves_a_full_clone_alone(make_repo, tmp_path):
    repo = make_repo({"a": "1\n"})
    first = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    code, log, outputs = run_step("history", repo, tmp_path, BASE="HEAD~1")
    assert (code, outputs) == (0, {"base": first}), log


def test_the_history_step_skips_when_head_is_the_base(make_repo, tmp_path):
    repo = make_repo({"a": "1\n"})
    code, log, outputs = run_step("history", repo, tmp_path, BASE="main")
    assert (code, outputs) == (0, {"skip": "true"}), log
    assert "::notice title=maguyva-guard::skipped: HEAD is the base (main)" in log


def test_no_script_uses_the_action_path_expression():
    """${{ github.action_path }} is the host's path inside container: jobs."""
    assert "github.action_path" not in yaml.safe_dump(STEPS)


def test_the_comment_step_posts_the_report(tmp_path):
    report = tmp_path / "report.md"
    report.write_text("## maguyva-guard\n")
    server = FakeGitHub().start()
    try:
        code, log, _ = run_step(
            "comment", tmp_path, tmp_path, GUARD_PYTHON=sys.executable, GITHUB_TOKEN="t0k3n",
            REPO_SLUG="o/r", PR_NUMBER="3", REPORT=str(report), GITHUB_API_URL=server.url)
    finally:
        server.stop()
    assert code == 0, log
    assert [c["body"] for c in server.comments.values()] == [
        "<!-- maguyva-guard -->\n## maguyva-guard\n"]


# --- the outputs helper -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("report", "expected"),
    [
        ({"changed_symbols": [], "affected": []}, {"risk": "none", "affected-count": "0"}),
        ({"changed_symbols": [{"risk": "low"}, {"risk": "high"}, {"risk": "medium"}],
          "affected": [{}, {}, {}]}, {"risk": "high", "affected-count": "3"}),
        ({"changed_symbols": [{"name": "f"}], "affected": [{}]},
         {"risk": "none", "affected-count": "1"}),
    ],
)
def test_the_outputs_are_the_highest_risk_and_the_affected_count(report, expected):
    assert action.outputs(report) == expected


def test_the_outputs_module_prints_github_output_lines(tmp_path, capsys):
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"changed_symbols": [{"risk": "medium"}], "affected": [{}]}))
    assert action.main([str(report)]) == 0
    assert capsys.readouterr().out == "risk=medium\naffected-count=1\n"
    report.write_text(json.dumps({"changed_symbols": [{"risk": "severe"}]}))
    assert action.main([str(report)]) == 2
    assert "unknown risk level 'severe'" in capsys.readouterr().err


# --- with the real check -------------------------------------------------------------------


@pytest.mark.parametrize(("fail_on", "status"), [("medium", "1"), ("none", "0")])
def test_the_check_step_writes_the_report_the_summary_and_the_outputs(make_repo, tmp_path,
                                                                      fail_on, status):
    repo, base = committed_signature_change(make_repo)
    code, log, outputs = run_step("check", repo, tmp_path, GUARD_PYTHON=sys.executable,
                                  BASE=base, PRESET="default", DEPTH="2", FAIL_ON=fail_on,
                                  SARIF="true", REPO_URL="https://github.com/octo/widgets")
    assert code == 0, log
    assert outputs["status"] == status
    assert outputs["risk"] in ("medium", "high") and int(outputs["affected-count"]) >= 1
    report = Path(outputs["report-path"]).read_text()
    assert "pkg/cli.py" in report
    assert "https://github.com/octo/widgets/blob/" in report
    assert report in (tmp_path / "step_summary").read_text()
    assert json.loads(Path(outputs["sarif-path"]).read_text())["version"] == "2.1.0"


def test_the_check_step_writes_every_format_from_one_run(make_repo, tmp_path):
    repo, base = committed_signature_change(make_repo)
    code, log, outputs = run_step("check", repo, tmp_path, GUARD_PYTHON=sys.executable,
                                  BASE=base, PRESET="default", DEPTH="2", FAIL_ON="none",
                                  SARIF="false", REPO_URL="https://github.com/octo/widgets")
    assert code == 0, log
    folder = Path(outputs["report-dir"])
    assert sorted(p.name for p in folder.iterdir()) == [
        "check.err", "maguyva-guard.sarif", "report.html", "report.json", "report.md",
        "summary.md"]
    assert outputs["html-path"] == str(folder / "report.html")
    assert "sarif-path" not in outputs and "failed-log" not in outputs
    assert "```mermaid" in (tmp_path / "step_summary").read_text()


def test_a_failed_check_is_commented_then_fails_the_job(make_repo, tmp_path):
    repo = make_repo({"a.py": "x = 1\n"})
    code, log, outputs = run_step("check", repo, tmp_path, GUARD_PYTHON=sys.executable,
                                  BASE="no-such-commit", PRESET="default", DEPTH="2",
                                  FAIL_ON="none", SARIF="false", REPO_URL="")
    assert code == 0, log  # the job fails last, after the comment
    assert outputs["status"] == "2" and "report-path" not in outputs
    assert "the check failed" in (tmp_path / "step_summary").read_text()
    server = FakeGitHub().start()
    try:
        # our earlier report: written by the token's identity (a person's token: octocat)
        server.add("<!-- maguyva-guard -->\n## an earlier report: all clear\n",
                   {"login": "octocat", "type": "User"})
        code, log, _ = run_step(
            "comment", repo, tmp_path, GUARD_PYTHON=sys.executable, GITHUB_TOKEN="t0k3n",
            REPO_SLUG="o/r", PR_NUMBER="3", REPORT="", FAILED_LOG=outputs["failed-log"],
            ARTIFACT_URL="", GITHUB_API_URL=server.url)
    finally:
        server.stop()
    assert code == 0, log
    [body] = [c["body"] for c in server.comments.values()]
    assert body.startswith("<!-- maguyva-guard -->\n## maguyva-guard: the check failed\n")
    assert "no-such-commit" in body and "all clear" not in body
    code, log, _ = run_step("fail", repo, tmp_path, STATUS="2", RISK="", FAIL_ON="none")
    assert code == 2 and "the check itself failed (exit 2)" in log


def test_the_comment_step_links_the_artifact(tmp_path):
    report = tmp_path / "report.md"
    report.write_text("## maguyva-guard\n")
    url = "https://github.com/o/r/actions/runs/1/artifacts/2"
    server = FakeGitHub().start()
    try:
        code, log, _ = run_step(
            "comment", tmp_path, tmp_path, GUARD_PYTHON=sys.executable, GITHUB_TOKEN="t0k3n",
            REPO_SLUG="o/r", PR_NUMBER="3", REPORT=str(report), FAILED_LOG="",
            ARTIFACT_URL=url, GITHUB_API_URL=server.url)
    finally:
        server.stop()
    assert code == 0, log
    [body] = [c["body"] for c in server.comments.values()]
    assert f"[JSON, SARIF and HTML]({url})" in body


def test_the_review_step_posts_inline_comments(make_repo, tmp_path):
    from test_report import fixture_report

    from maguyva_guard.report.render import render

    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "report.json").write_text(render(fixture_report(), "json"))
    server = FakeGitHub().start()
    server.diff_lines.add(("pkg/config.py", "RIGHT", 10))
    try:
        code, log, _ = run_step(
            "review", tmp_path, tmp_path, GUARD_PYTHON=sys.executable, GITHUB_TOKEN="t0k3n",
            REPO_SLUG="o/r", PR_NUMBER="3", REPORT_DIR=str(folder), HEAD_SHA="a" * 40,
            GITHUB_API_URL=server.url)
    finally:
        server.stop()
    assert code == 0, log
    assert "created an inline comment on pkg/config.py:10" in log
    assert len(server.review_comments) == 1
def test_the_tests_step_writes_the_selection_to_its_outputs(make_repo, tmp_path):
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/config.py": "def parse_config(path):\n    return {}\n",
        "tests/test_config.py": "from pkg import config\n\n\ndef test_parse():\n"
                                "    assert config.parse_config('a') == {}\n",
    })
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "pkg/config.py").write_text("def parse_config(path):\n    return {'a': 1}\n")
    git(repo, "commit", "-q", "-am", "values")
    code, log, outputs = run_step("tests", repo, tmp_path, GUARD_PYTHON=sys.executable,
                                  BASE=base, PRESET="default", TESTS_FORMAT="pytest")
    assert code == 0, log
    # the call graph reaches test_parse through config.parse_config: that test runs
    assert outputs == {"tests": "tests/test_config.py::test_parse", "tests-run-all": "false"}
