"""Runs action.yml's steps as a GitHub runner runs a composite action, for the tests.

What the runner does and this does too: evaluates the `${{ }}` expressions of `with:`, `env:`,
`if:` and the action's outputs against the contexts (github with the event payload from a
file, inputs with their defaults, steps' outputs, runner); compares strings the way GitHub's
expressions do (case-insensitively; other types as numbers); gives a step without `if:` the
status check `success()`; runs each `run:` step with `bash --noprofile --norc -eo pipefail`,
fresh GITHUB_OUTPUT and GITHUB_ENV files per step (read in the `name=value` and
`name<<DELIMITER` forms) and one GITHUB_STEP_SUMMARY; honours `continue-on-error`;
collects `::error`/`::warning`/`::notice` annotations. `uses:` steps are stood in for (the
`uses` mapping): they run no code from the network, but each records what it was given and
sets the outputs the real one sets.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from gh_expressions import evaluate, expand, to_string, truthy

ROOT = Path(__file__).resolve().parent.parent
_ANNOTATION = re.compile(r"^::(error|warning|notice)(?: [^:]*)?::(.*)$", re.M)


# --- the runner ----------------------------------------------------------------------------


@dataclass
class StepResult:
    id: str
    outcome: str  # success, failure or skipped
    log: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    given: dict[str, str] = field(default_factory=dict)  # a `uses:` step's evaluated `with:`


@dataclass
class Run:
    steps: list[StepResult]
    outputs: dict[str, str]
    annotations: list[tuple[str, str]]
    summary: str
    failed: bool  # the job's conclusion

    def step(self, step_id: str) -> StepResult:
        [found] = [s for s in self.steps if s.id == step_id]
        return found

    def ran(self) -> list[str]:
        return [s.id for s in self.steps if s.outcome != "skipped"]

    def notes(self, level: str) -> list[str]:
        return [text for kind, text in self.annotations if kind == level]


def _read_file_commands(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT / GITHUB_ENV: `name=value` lines and `name<<DELIM` ... `DELIM` blocks."""
    values: dict[str, str] = {}
    lines = path.read_text().splitlines() if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            values[name] = "\n".join(lines[i + 1:end])
            i = end + 1
            continue
        if line:
            name, value = line.split("=", 1)
            values[name] = value
        i += 1
    return values


@dataclass
class Runner:
    workspace: Path  # the checkout, the job's working directory
    temp: Path  # RUNNER_TEMP
    event_name: str
    event: dict[str, Any]
    inputs: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)  # the job's env (GITHUB_TOKEN, API URL...)
    repository: str = "octo/widgets"
    uses: dict[str, Callable[[Runner, dict[str, str]], tuple[bool, dict[str, str]]]] = field(
        default_factory=dict)
    action_path: Path = ROOT

    def run(self) -> Run:
        action = yaml.safe_load((self.action_path / "action.yml").read_text())
        inputs = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
        event_path = self.temp / "event.json"
        event_path.write_text(json.dumps(self.event))
        summary_path = self.temp / "step_summary"
        summary_path.write_text("")
        contexts: dict[str, Any] = {
            "github": {"event_name": self.event_name, "event": self.event, "token": "ghs_t",
                       "repository": self.repository, "server_url": "https://github.com",
                       "action_path": "/host/path/that/is/not/in/the/container",
                       "action_ref": "v1", "workspace": str(self.workspace)},
            "runner": {"os": "Linux", "temp": str(self.temp)},
            "steps": {}, "env": {},
        }
        contexts["inputs"] = {k: expand(to_string(v), contexts) for k, v in inputs.items()}
        contexts["inputs"].update(self.inputs)
        job_env = {**os.environ, **self.env, "GITHUB_EVENT_NAME": self.event_name,
                   "GITHUB_EVENT_PATH": str(event_path), "GITHUB_REPOSITORY": self.repository,
                   "GITHUB_WORKSPACE": str(self.workspace), "RUNNER_TEMP": str(self.temp),
                   "GITHUB_ACTION_PATH": str(self.action_path), "RUNNER_OS": "Linux",
                   "GITHUB_STEP_SUMMARY": str(summary_path), "GITHUB_ACTIONS": "true"}
        results: list[StepResult] = []
        annotations: list[tuple[str, str]] = []
        state = {"failed": False}
        functions = {"success": lambda: not state["failed"], "failure": lambda: state["failed"],
                     "always": lambda: True, "cancelled": lambda: False}
        for n, spec in enumerate(action["runs"]["steps"]):
            step_id = spec.get("id", f"__{n}")
            condition = spec.get("if", "success()")
            if not truthy(evaluate(str(condition), contexts, functions)):
                results.append(StepResult(step_id, "skipped"))
                contexts["steps"][step_id] = {"outputs": {}, "outcome": "skipped",
                                              "conclusion": "skipped"}
                continue
            result = (self._run_script(step_id, spec, contexts, job_env, n) if "run" in spec
                      else self._run_uses(step_id, spec, contexts))
            annotations += _ANNOTATION.findall(result.log)
            results.append(result)
            conclusion = result.outcome
            if result.outcome == "failure" and spec.get("continue-on-error"):
                conclusion = "success"
            elif result.outcome == "failure":
                state["failed"] = True
            contexts["steps"][step_id] = {"outputs": result.outputs, "outcome": result.outcome,
                                          "conclusion": conclusion}
        outputs = {name: to_string(expand(spec["value"], contexts))
                   for name, spec in action.get("outputs", {}).items()}
        return Run(results, outputs, annotations, summary_path.read_text(), state["failed"])

    def _run_script(self, step_id: str, spec: dict[str, Any], contexts: dict[str, Any],
                    job_env: dict[str, str], n: int) -> StepResult:
        assert spec.get("shell") == "bash", spec["name"]
        files = {name: self.temp / f"{name.lower()}_{n}" for name in ("GITHUB_OUTPUT",
                                                                       "GITHUB_ENV")}
        for path in files.values():
            path.write_text("")
        step_env = {k: to_string(expand(str(v), contexts))
                    for k, v in spec.get("env", {}).items()}
        env = {**job_env, **step_env, **{k: str(v) for k, v in files.items()}}
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                               expand(spec["run"], contexts)], cwd=self.workspace,
                              env=env, text=True, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, check=False)
        job_env.update(_read_file_commands(files["GITHUB_ENV"]))
        return StepResult(step_id, "success" if proc.returncode == 0 else "failure",
                          proc.stdout, _read_file_commands(files["GITHUB_OUTPUT"]))

    def _run_uses(self, step_id: str, spec: dict[str, Any],
                  contexts: dict[str, Any]) -> StepResult:
        name = spec["uses"].split("@")[0]
        given = {k: to_string(expand(str(v), contexts))
                 for k, v in spec.get("with", {}).items()}
        ok, outputs = self.uses[name](self, given)
        return StepResult(step_id, "success" if ok else "failure", "", outputs, given)
