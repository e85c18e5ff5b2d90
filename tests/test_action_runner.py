"""action.yml run whole, step by step, as a GitHub runner runs it (tests/action_runner.py).

Each scenario has a local origin (a pull request's merge ref built as GitHub builds it), a
depth-1 checkout as actions/checkout makes it, an event payload file, and the stand-in GitHub
API (tests/github_server.py). The install step runs for real against a stand-in Python whose
pip only records what it was asked (tests talk to no registry).
"""

from __future__ import annotations

import html
import json
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from action_runner import ROOT, Run, Runner
from conftest import GIT_ENV, git, write_files
from github_server import BOT, FakeGitHub

from maguyva_guard.integrations import github_api

ZERO = "0" * 40
MARKER = "<!-- maguyva-guard -->"
FILES = {
    "pkg/__init__.py": "",
    "pkg/config.py": "def parse_config(path):\n    return {}\n",
    "pkg/cli.py": "from pkg.config import parse_config\n\n\ndef main():\n"
                  "    return parse_config('a.toml')\n",
    "pkg/util.py": "def helper(x):\n    return x\n",
    "pkg/jobs.py": "from pkg.util import helper\n\n\ndef run():\n    return helper(1)\n",
}
STRICT = {"pkg/config.py": "def parse_config(path, strict):\n    return {}\n"}
HELPER_Y = {"pkg/util.py": "def helper(x, y=0):\n    return x + y\n"}
# The stand-in for actions/setup-python's interpreter: `-m venv` makes a venv whose python is
# this script again; `-m pip` records its arguments (and answers `pip cache dir`); anything
# else runs the test's own Python, where maguyva_guard is installed.
FAKE_PYTHON = """#!/bin/bash
if [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; exit 0; fi
if [ "$1 $2" = "-m pip" ]; then
  echo "$*" >> "$PIP_LOG"
  [ "$3" = cache ] && echo "$PIP_CACHE_FOLDER"
  exit 0
fi
exec {python} "$@"
"""


class World:
    """The origin on GitHub's side, checkouts of it, and the API."""

    def __init__(self, tmp_path: Path, api: FakeGitHub) -> None:
        self.tmp = tmp_path
        self.api = api
        self.origin = tmp_path / "origin"
        self.origin.mkdir()
        git(self.origin, "init", "-q", "-b", "main")
        self.commit("main", FILES, "initial")
        self.uses: dict[str, list[dict[str, str]]] = {}
        self._n = 0

    def commit(self, branch: str, files: dict[str, str], message: str,
               start: str | None = None) -> str:
        if start is not None:
            git(self.origin, "checkout", "-q", "-b", branch, start)
        else:
            git(self.origin, "checkout", "-q", branch) if self.sha(branch) else None
        write_files(self.origin, files)
        git(self.origin, "add", "-A")
        git(self.origin, "commit", "-q", "-m", message)
        git(self.origin, "checkout", "-q", "main")
        return self.sha(branch)

    def sha(self, ref: str) -> str:
        try:
            return git(self.origin, "rev-parse", "--verify", "-q", ref).strip()
        except Exception:
            return ""

    def merge_ref(self, pr: int, head: str, base: str = "main") -> str:
        """refs/pull/N/merge: the head merged into the base's current tip, as GitHub does."""
        tree = git(self.origin, "merge-tree", "--write-tree", base, head).split()[0]
        merge = git(self.origin, "commit-tree", tree, "-p", self.sha(base), "-p",
                    self.sha(head), "-m", f"Merge {head} into {base}").strip()
        git(self.origin, "update-ref", f"refs/pull/{pr}/merge", merge)
        return merge

    def checkout(self, ref: str) -> Path:
        """What actions/checkout does by default: one commit, detached, origin set."""
        self._n += 1
        ws = self.tmp / f"workspace{self._n}"
        ws.mkdir()
        git(ws, "init", "-q")
        git(ws, "remote", "add", "origin", f"file://{self.origin}")
        git(ws, "fetch", "-q", "--no-tags", "--depth=1", "origin", f"+{ref}:refs/remotes/x")
        git(ws, "checkout", "-q", "--detach", "refs/remotes/x")
        git(ws, "update-ref", "-d", "refs/remotes/x")
        return ws

    def run(self, ws: Path, event_name: str, event: dict[str, Any], **inputs: str) -> Run:
        self._n += 1
        temp = self.tmp / f"runner_temp{self._n}"
        temp.mkdir()
        fake_python = temp / "setup-python"
        fake_python.write_text(FAKE_PYTHON.format(python=sys.executable))
        fake_python.chmod(fake_python.stat().st_mode | stat.S_IXUSR)
        env = {**GIT_ENV, "GITHUB_API_URL": self.api.url, "PIP_LOG": str(temp / "pip.log"),
               "PIP_CACHE_FOLDER": str(temp / "pip-cache")}
        for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
            env[name] = ""

        def record(name: str, outputs: dict[str, str] | None = None):
            def stand_in(runner: Runner, given: dict[str, str]) -> tuple[bool, dict[str, str]]:
                self.uses.setdefault(name, []).append(given)
                if name == "github/codeql-action/upload-sarif":  # fails on a missing file
                    return Path(given.get("sarif_file") or "/nonexistent").is_file(), {}
                if name == "actions/cache/restore":
                    return True, {"cache-hit": "", "cache-primary-key": given["key"]}
                return True, dict(outputs or {})
            return stand_in

        runner = Runner(ws, temp, event_name, event, inputs=dict(inputs), env=env, uses={
            "actions/setup-python": record("actions/setup-python",
                                           {"python-path": str(fake_python)}),
            "actions/cache": record("actions/cache", {"cache-hit": "false"}),
            "actions/cache/restore": record("actions/cache/restore"),
            "actions/cache/save": record("actions/cache/save"),
            "actions/upload-artifact": record("actions/upload-artifact",
                                              {"artifact-url": "https://github.test/artifact/1"}),
            "github/codeql-action/upload-sarif": record("github/codeql-action/upload-sarif"),
        })
        return runner.run()


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    monkeypatch.setattr(github_api, "BACKOFF_SECONDS", 0.01)
    api = FakeGitHub().start()
    yield World(tmp_path, api)
    api.stop()


def pr_event(world: World, base_sha: str, number: int = 7, fork: bool = False) -> dict:
    return {"number": number, "repository": {"default_branch": "main"},
            "pull_request": {"number": number, "base": {"ref": "main", "sha": base_sha},
                             "head": {"ref": "feature", "sha": world.sha("feature"),
                                      "repo": {"fork": fork}}}}


def report(run: Run) -> str:
    """The Markdown report as a reader sees it (names are HTML-escaped in the source)."""
    return html.unescape(Path(run.outputs["report-path"]).read_text())


def body(comment: dict[str, Any]) -> str:
    return html.unescape(comment["body"])


def open_pr(world: World) -> tuple[str, Path]:
    base = world.sha("main")
    world.commit("feature", STRICT, "strict parsing", start="main")
    world.merge_ref(7, "feature")
    return base, world.checkout("refs/pull/7/merge")


# --- pull requests -------------------------------------------------------------------------


def test_a_pull_request_gets_a_comment_the_summary_and_the_outputs(world):
    base, ws = open_pr(world)
    run = world.run(ws, "pull_request", pr_event(world, base))
    assert not run.failed, [(s.id, s.log) for s in run.steps if s.outcome == "failure"]
    assert run.ran() == ["python", "pip-cache", "pip-downloads", "install", "base", "history",
                         "cache", "check", "save-index", "upload-report", "comment"]
    assert run.outputs["risk"] in ("medium", "high")
    assert int(run.outputs["affected-count"]) >= 1
    text = report(run)
    assert "parse_config" in text and "pkg/cli.py" in text
    assert Path(run.outputs["report-path"]).read_text() in run.summary
    [posted] = world.api.marked()
    assert posted["user"] == BOT and "parse_config" in body(posted)
    assert run.step("history").outputs["base"] == base


def test_the_install_step_uses_the_action_path_variable_and_caches_pip(world):
    base, ws = open_pr(world)
    run = world.run(ws, "pull_request", pr_event(world, base))
    assert run.step("install").outcome == "success"
    log = (ws.parent / f"runner_temp{world._n}" / "pip.log").read_text().splitlines()
    # GITHUB_ACTION_PATH (the repository here); the stand-in's github.action_path is a host
    # path that does not exist, as inside a container: job.
    assert log == ["-m pip cache dir",
                   f"-m pip install --quiet --disable-pip-version-check {ROOT}"]
    [cache] = world.uses["actions/cache"]
    assert cache["path"] == str(ws.parent / f"runner_temp{world._n}" / "pip-cache")
    assert cache["key"] == "maguyva-guard-pip-Linux-py3.11-v1"


def test_a_second_push_updates_the_comment(world):
    base, ws = open_pr(world)
    assert not world.run(ws, "pull_request", pr_event(world, base)).failed
    world.commit("feature", {"pkg/util.py": "def helper(x, z):\n    return x\n"}, "helper too")
    world.merge_ref(7, "feature")
    run = world.run(world.checkout("refs/pull/7/merge"), "pull_request",
                    pr_event(world, base))
    assert not run.failed
    [posted] = world.api.marked()
    assert "helper" in body(posted) and "parse_config" in body(posted)
    assert sum(s.method == "PATCH" for s in world.api.seen) == 1


def test_a_stale_base_sha_does_not_add_other_merged_changes(world):
    """The payload's base.sha is from when the PR was opened; main moved since (helper's
    signature changed by another pull request), and the merge ref was rebuilt on it."""
    stale, _ = open_pr(world)
    world.commit("main", HELPER_Y, "another pull request: helper takes y")
    world.merge_ref(7, "feature")
    run = world.run(world.checkout("refs/pull/7/merge"), "pull_request",
                    pr_event(world, stale))
    assert not run.failed
    assert run.step("history").outputs["base"] == world.sha("main")
    text = report(run)
    assert "parse_config" in text
    assert "helper" not in text and "pkg/jobs.py" not in text


def test_a_head_checkout_compares_with_the_merge_base_of_the_base_branch(world):
    stale, _ = open_pr(world)
    world.commit("main", HELPER_Y, "another pull request")
    run = world.run(world.checkout("refs/heads/feature"), "pull_request",
                    pr_event(world, stale))
    assert not run.failed
    assert run.step("history").outputs["base"] == world.sha("main")
    assert "helper" not in report(run) and "parse_config" in report(run)


def test_a_fork_token_leaves_the_report_in_the_summary_and_the_job_green(world):
    world.api.deny_writes = True
    base, ws = open_pr(world)
    run = world.run(ws, "pull_request", pr_event(world, base, fork=True))
    assert not run.failed
    assert "may not comment on octo/widgets#7 (HTTP 403" in run.step("comment").log
    assert "parse_config" in html.unescape(run.summary)
    assert world.api.comments == {}


def test_a_transient_api_failure_does_not_fail_the_job(world):
    world.api.fail_first = 99
    base, ws = open_pr(world)
    run = world.run(ws, "pull_request", pr_event(world, base))
    assert not run.failed
    assert run.step("comment").outcome == "success"
    assert "HTTP 502: Server Error" in run.step("comment").log
    assert any("comment was not updated" in n for n in run.notes("warning"))
    assert "parse_config" in html.unescape(run.summary)


def test_fail_on_fails_the_job_last_after_the_comment(world):
    base, ws = open_pr(world)
    run = world.run(ws, "pull_request", pr_event(world, base), **{"fail-on": "medium"})
    assert run.failed
    assert run.ran()[-2:] == ["comment", "fail"]
    assert run.step("fail").outcome == "failure"
    assert any("at or above fail-on: medium" in n for n in run.notes("error"))
    assert len(world.api.marked()) == 1


def test_two_runs_at_once_leave_one_comment(world):
    base, ws = open_pr(world)
    world.api.list_barrier = threading.Barrier(2)  # both list before either creates
    runs: list[Run] = []
    other = world.checkout("refs/pull/7/merge")
    threads = [threading.Thread(target=lambda w=w: runs.append(
        world.run(w, "pull_request", pr_event(world, base)))) for w in (ws, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert len(runs) == 2 and not any(r.failed for r in runs)
    assert sum(s.method == "POST" for s in world.api.seen) == 2
    assert len(world.api.marked()) == 1


# --- other events --------------------------------------------------------------------------


def test_a_push_compares_with_the_commit_before_it(world):
    before = world.sha("main")
    world.commit("main", STRICT, "strict")
    run = world.run(world.checkout("refs/heads/main"), "push",
                    {"before": before, "after": world.sha("main"),
                     "repository": {"default_branch": "main"}})
    assert not run.failed
    assert run.step("history").outputs["base"] == before
    assert "parse_config" in report(run)
    assert "comment" not in run.ran()


def test_a_push_that_creates_a_branch_compares_with_the_default_branch(world):
    world.commit("feature", STRICT, "strict", start="main")
    run = world.run(world.checkout("refs/heads/feature"), "push",
                    {"before": ZERO, "after": world.sha("feature"), "created": True,
                     "repository": {"default_branch": "main"}})
    assert not run.failed, [s.log for s in run.steps]
    assert run.step("history").outputs["base"] == world.sha("main")
    assert "parse_config" in report(run)


def test_a_new_branch_at_the_default_branch_tip_is_skipped_with_a_notice(world):
    git(world.origin, "branch", "same", "main")
    run = world.run(world.checkout("refs/heads/same"), "push",
                    {"before": ZERO, "after": world.sha("main"),
                     "repository": {"default_branch": "main"}})
    assert not run.failed
    assert any("skipped: HEAD is the base (main)" in n for n in run.notes("notice"))
    assert "check" not in run.ran() and run.outputs["risk"] == ""


def test_a_merge_group_compares_with_its_base_sha(world):
    base = world.sha("main")
    world.commit("main", HELPER_Y, "merged meanwhile")  # main moved: base_sha is what counts
    queue = world.commit("gh-readonly-queue/main/pr-7", STRICT, "queue", start=base)
    run = world.run(world.checkout("refs/heads/gh-readonly-queue/main/pr-7"), "merge_group",
                    {"merge_group": {"base_sha": base, "head_sha": queue,
                                     "base_ref": "refs/heads/main"},
                     "repository": {"default_branch": "main"}})
    assert not run.failed
    assert run.step("history").outputs["base"] == base
    assert "parse_config" in report(run) and "helper" not in report(run)


@pytest.mark.parametrize("event_name", ["workflow_dispatch", "schedule"])
def test_a_run_on_the_default_branch_without_a_base_is_skipped(world, event_name):
    event = {"schedule": "0 0 * * *"} if event_name == "schedule" else {
        "ref": "refs/heads/main", "repository": {"default_branch": "main"}, "inputs": {}}
    run = world.run(world.checkout("refs/heads/main"), event_name, event)
    assert not run.failed, [s.log for s in run.steps]
    assert any("skipped: HEAD is the base (main)" in n for n in run.notes("notice"))
    assert "check" not in run.ran()


def test_a_dispatch_on_a_branch_compares_with_the_default_branch(world):
    world.commit("feature", STRICT, "strict", start="main")
    run = world.run(world.checkout("refs/heads/feature"), "workflow_dispatch",
                    {"ref": "refs/heads/feature", "inputs": {}})  # default branch from origin
    assert not run.failed
    assert run.step("history").outputs["base"] == world.sha("main")
    assert "parse_config" in report(run)


# --- inputs and hostile content ------------------------------------------------------------


@pytest.mark.parametrize("value", ["true", "True"])
def test_sarif_true_in_any_case_writes_and_uploads_sarif(world, value):
    base, ws = open_pr(world)
    run = world.run(ws, "pull_request", pr_event(world, base), sarif=value)
    assert not run.failed
    assert run.step("upload-sarif").outcome == "success"
    [upload] = world.uses["github/codeql-action/upload-sarif"]
    assert json.loads(Path(upload["sarif_file"]).read_text())["version"] == "2.1.0"


@pytest.mark.parametrize("value", ["False", ""])
def test_sarif_false_skips_the_upload(world, value):
    base, ws = open_pr(world)
    run = world.run(ws, "pull_request", pr_event(world, base), sarif=value)
    assert "upload-sarif" not in run.ran()
    assert "github/codeql-action/upload-sarif" not in world.uses


def test_hostile_names_reach_no_script_and_are_escaped_in_the_comment(world, tmp_path):
    base = world.sha("main")
    pwned = tmp_path / "pwned"
    world.commit("feature", {
        **STRICT,
        "pkg/<img src=x onerror=alert(1)>.py": "from pkg.config import parse_config\n\n\n"
                                              "def go():\n    return parse_config('x')\n",
    }, "hostile", start="main")
    world.merge_ref(7, "feature")
    event = pr_event(world, base)
    event["pull_request"]["head"]["ref"] = f"x$(touch {pwned})`touch {pwned}`"
    event["pull_request"]["title"] = f"'; touch {pwned}; echo '"
    run = world.run(world.checkout("refs/pull/7/merge"), "pull_request", event,
                    preset=f"default$(touch {pwned})")
    assert not pwned.exists()
    assert run.failed  # the preset is refused: one line, exit 2, no report
    assert any("--preset" in line for line in run.step("check").log.splitlines())
    run = world.run(world.checkout("refs/pull/7/merge"), "pull_request", event)
    assert not run.failed and not pwned.exists()
    [posted] = world.api.marked()
    assert "<img" not in posted["body"] and "onerror" in posted["body"]
    assert "<img" not in run.summary


@pytest.mark.parametrize(("expression", "expected"), [
    ("inputs.sarif == 'true'", True),  # "True": GitHub compares strings ignoring case
    ("inputs.sarif != 'true'", False),
    ("steps.none.outputs.skip != 'true'", True),  # a missing value is null, not 'true'
    ("github.event.pull_request.base.ref", "main"),
    ("inputs.comment == 'true' && (github.event_name == 'push' || 'x')", "x"),
    ("!github.event.nothing", True),
    ("github.event.number == '7'", True),  # a number and a string compare as numbers
])
def test_the_runner_evaluates_expressions_as_github_does(tmp_path, expression, expected):
    from gh_expressions import Parser

    contexts = {"inputs": {"sarif": "True", "comment": "true"}, "steps": {},
                "github": {"event_name": "pull_request",
                           "event": {"number": 7, "pull_request": {"base": {"ref": "main"}}}}}
    assert Parser(expression, contexts, {}).parse() == expected


def test_the_runner_reads_file_commands_in_both_forms(tmp_path):
    from action_runner import _read_file_commands

    path = tmp_path / "env"
    path.write_text("A=1\nB<<EOF\nline 1\nline 2\nEOF\nC=x=y\n")
    assert _read_file_commands(path) == {"A": "1", "B": "line 1\nline 2", "C": "x=y"}
