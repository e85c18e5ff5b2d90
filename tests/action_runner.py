"""Runs action.yml's steps as a GitHub runner runs a composite action, for the tests.

What the runner does and this does too: evaluates the `${{ }}` expressions of `with:`, `env:`,
`if:` and the action's outputs against the contexts (github with the event payload from a
file, inputs with their defaults, steps' outputs, runner); compares strings the way GitHub's
expressions do (case-insensitively; other types as numbers); gives a step without `if:` the
status check `success()`; runs each `run:` step with `bash --noprofile --norc -eo pipefail`
and fresh GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_ENV files (the `name=value` and
`name<<DELIMITER` forms); honours `continue-on-error`; collects `::error`/`::warning`/
`::notice` annotations. `uses:` steps are stood in for (listed in USES): they do not run code
from the network, but each records what it was given and sets the outputs the real one sets.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)
_TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>-?\d+(?:\.\d+)?)"
                    r"|(?P<op>==|!=|<=|>=|&&|\|\||[!<>().,\[\]*])"
                    r"|(?P<name>[A-Za-z_][\w-]*))")
_ANNOTATION = re.compile(r"^::(error|warning|notice)(?: [^:]*)?::(.*)$", re.M)


# --- expressions ---------------------------------------------------------------------------


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise ValueError(f"cannot parse expression at {text[pos:]!r}")
        kind = match.lastgroup or ""
        out.append((kind, match[kind]))
        pos = match.end()
    return out


def _number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip()) if value.strip() else 0.0
        except ValueError:
            return float("nan")
    return float("nan")


def _equal(a: Any, b: Any) -> bool:
    """GitHub: strings compare ignoring case; different types are compared as numbers."""
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    if type(a) is type(b) and not isinstance(a, str):
        return bool(a == b)
    return _number(a) == _number(b)


def truthy(value: Any) -> bool:
    return value not in (None, False, 0, "") and not (isinstance(value, float) and value != value)


def to_string(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


class _Parser:
    def __init__(self, text: str, contexts: Mapping[str, Any],
                 functions: Mapping[str, Callable[..., Any]]) -> None:
        self.tokens = _tokens(text)
        self.pos = 0
        self.contexts = contexts
        self.functions = functions

    def parse(self) -> Any:
        value = self._or()
        if self.pos != len(self.tokens):
            raise ValueError(f"unexpected {self.tokens[self.pos]}")
        return value

    def _peek(self) -> str:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else ""

    def _take(self, expected: str | None = None) -> tuple[str, str]:
        token = self.tokens[self.pos]
        if expected is not None and token[1] != expected:
            raise ValueError(f"expected {expected}, got {token[1]}")
        self.pos += 1
        return token

    def _or(self) -> Any:
        value = self._and()
        while self._peek() == "||":
            self._take()
            right = self._and()
            value = value if truthy(value) else right
        return value

    def _and(self) -> Any:
        value = self._compare()
        while self._peek() == "&&":
            self._take()
            right = self._compare()
            value = right if truthy(value) else value
        return value

    def _compare(self) -> Any:
        value = self._unary()
        while self._peek() in ("==", "!=", "<", ">", "<=", ">="):
            op = self._take()[1]
            right = self._unary()
            if op in ("==", "!="):
                value = _equal(value, right) == (op == "==")
            else:
                a, b = _number(value), _number(right)
                value = {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
        return value

    def _unary(self) -> Any:
        if self._peek() == "!":
            self._take()
            return not truthy(self._unary())
        return self._primary()

    def _primary(self) -> Any:
        kind, text = self._take()
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if kind == "num":
            return float(text)
        if text == "(":
            value = self._or()
            self._take(")")
            return value
        if kind != "name":
            raise ValueError(f"unexpected {text}")
        if text in ("true", "false"):
            return text == "true"
        if text == "null":
            return None
        if self._peek() == "(":
            return self._call(text)
        value = self.contexts.get(text)
        while self._peek() in (".", "["):
            if self._take()[1] == ".":
                key = self._take()[1]
            else:
                key = to_string(self._or())
                self._take("]")
            value = value.get(key) if isinstance(value, Mapping) else None
        return value

    def _call(self, name: str) -> Any:
        self._take("(")
        args = []
        while self._peek() != ")":
            args.append(self._or())
            if self._peek() == ",":
                self._take()
        self._take(")")
        return self.functions[name.lower()](*args)


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
        contexts["inputs"] = {k: self._expand(to_string(v), contexts) for k, v in inputs.items()}
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
            if not truthy(self._eval(str(condition), contexts, functions)):
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
        outputs = {name: to_string(self._expand(spec["value"], contexts))
                   for name, spec in action.get("outputs", {}).items()}
        return Run(results, outputs, annotations, summary_path.read_text(), state["failed"])

    def _eval(self, text: str, contexts: Mapping[str, Any],
              functions: Mapping[str, Callable[..., Any]] | None = None) -> Any:
        text = text.strip()
        match = _EXPR.fullmatch(text)
        if match:
            text = match[1]
        return _Parser(text, contexts, functions or {}).parse()

    def _expand(self, text: str, contexts: Mapping[str, Any]) -> str:
        return _EXPR.sub(lambda m: to_string(_Parser(m[1], contexts, {}).parse()), text)

    def _run_script(self, step_id: str, spec: dict[str, Any], contexts: dict[str, Any],
                    job_env: dict[str, str], n: int) -> StepResult:
        assert spec.get("shell") == "bash", spec["name"]
        files = {name: self.temp / f"{name.lower()}_{n}" for name in ("GITHUB_OUTPUT",
                                                                       "GITHUB_ENV")}
        for path in files.values():
            path.write_text("")
        step_env = {k: to_string(self._expand(str(v), contexts))
                    for k, v in spec.get("env", {}).items()}
        env = {**job_env, **step_env, **{k: str(v) for k, v in files.items()}}
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                               self._expand(spec["run"], contexts)], cwd=self.workspace,
                              env=env, text=True, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, check=False)
        job_env.update(_read_file_commands(files["GITHUB_ENV"]))
        return StepResult(step_id, "success" if proc.returncode == 0 else "failure",
                          proc.stdout, _read_file_commands(files["GITHUB_OUTPUT"]))

    def _run_uses(self, step_id: str, spec: dict[str, Any],
                  contexts: dict[str, Any]) -> StepResult:
        name = spec["uses"].split("@")[0]
        given = {k: to_string(self._expand(str(v), contexts))
                 for k, v in spec.get("with", {}).items()}
        ok, outputs = self.uses[name](self, given)
        return StepResult(step_id, "success" if ok else "failure", "", outputs, given)
