"""Shared fixtures: real git repositories built in temporary folders."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from maguyva_guard.cli import main
from maguyva_guard.index import indexer
from maguyva_guard.index.store import Store
from maguyva_guard.records import Hit
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.retrievers.graph import GraphRetriever

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    env.pop("GIT_INDEX_FILE", None)
    out = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, check=True, capture_output=True, text=True
    )
    return out.stdout


def write_files(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Path]:
    """make_repo({"pkg/mod.py": "..."}) -> a repository with those files committed."""
    counter = {"n": 0}

    def make(files: dict[str, str], commit: bool = True, name: str | None = None) -> Path:
        counter["n"] += 1
        repo = tmp_path / (name or f"repo{counter['n']}")
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        write_files(repo, files)
        if files:
            git(repo, "add", "-A")
        if commit and files:
            git(repo, "commit", "-q", "-m", "initial")
        return repo

    return make


class MemorySource:
    """The index's read surface for resolution (retrievers.resolution_base.SymbolSource),
    built in memory from real extraction of the given files: unit tests of the resolver's
    parts without a repository. Records carry paths and module-qualified names, as the
    store hands them out."""

    def __init__(self, files: dict[str, str]) -> None:
        from dataclasses import replace

        from maguyva_guard.extract.languages import language_for, module_name, qualify
        from maguyva_guard.extract.symbols import extract

        self._texts = dict(files)
        self._defs: dict[str, list] = {}
        self._refs: dict[str, list] = {}
        for path, text in files.items():
            language = language_for(path)
            found = extract(text.encode(), language or "")
            prefix = module_name(path, language) if language else ""
            self._defs[path] = [replace(d, path=path,
                                        qualified_name=qualify(prefix, d.qualified_name),
                                        parent=qualify(prefix, d.parent) if d.parent else "")
                                for d in found.definitions]
            self._refs[path] = [replace(r, path=path,
                                        scope=qualify(prefix, r.scope) if r.scope else "")
                                for r in found.references]

    def files(self) -> dict[str, object]:
        return dict.fromkeys(self._texts)

    def definitions(self, name=None, qualified_name=None) -> list:
        return [d for defs in self._defs.values() for d in defs
                if (name is None or d.name == name)
                and (qualified_name is None or d.qualified_name == qualified_name)]

    def definitions_in(self, path: str) -> list:
        return list(self._defs.get(path, []))

    def references_in(self, path: str) -> list:
        return list(self._refs.get(path, []))

    def text(self, path: str) -> str:
        return self._texts[path]

    def reference(self, path: str, name: str, line: int | None = None):
        """The one reference to `name` in `path` (at `line` when given)."""
        (found,) = [r for r in self._refs[path] if r.name == name
                    and (line is None or r.line == line)]
        return found


# --- the CLI, as the tests of `check` drive it -------------------------------------------


def check(repo: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["check", "--repo", str(repo), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


def check_json(repo: Path, *args: str) -> dict:
    code, out, err = check(repo, "--format", "json", *args)
    assert code == 0, err
    return json.loads(out)


def checked(make_repo: Callable[..., Path], files: dict[str, str], path: str, old: str,
            new: str) -> dict:
    """A repository of `files` with `old` replaced by `new` in `path` and staged: the JSON
    report of `check --depth 1` (the resolution-shape tests' one question)."""
    repo = make_repo(files)
    edit(repo, path, old, new)
    return check_json(repo, "--depth", "1")


def graph_hits(repo: Path, qualified_name: str, path: str | None = None) -> list[Hit]:
    """Index `repo` and ask the graph retriever who refers to the one definition named
    `qualified_name` (in `path`, when given): the resolution tests' question without the
    CLI's fusion and ranking."""
    with Store.open(repo) as store:
        indexer.update(store)
        targets = [d for d in store.definitions(qualified_name=qualified_name)
                   if path in (None, d.path)]
        assert len(targets) == 1, sorted(d.qualified_name for d in store.definitions())
        return list(GraphRetriever(store).search(
            SearchRequest(query="", intent="find_references", target=targets[0], limit=0)))


def direct_confidences(report: dict) -> dict[tuple[str, int], str]:
    """(path, line) -> confidence of each depth-1 affected entry."""
    return {(a["path"], a["line"]): a["confidence"] for a in report["affected"]
            if a["depth"] == 1}


def edit(repo: Path, rel: str, old: str, new: str, stage: bool = True) -> None:
    path = repo / rel
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    if stage:
        git(repo, "add", rel)


def callers(report: dict) -> set[tuple[str, str]]:
    return {(a["path"], a["symbol"]) for a in report["affected"]}


# --- one small change with a caller, for the tests of the hook, the Action and the review --

CALLED_CONFIG = {
    "pkg/__init__.py": "",
    "pkg/config.py": "def parse_config(path):\n    return {}\n",
    "pkg/cli.py": "from pkg.config import parse_config\n\n\ndef main():\n"
                  "    return parse_config('a.toml')\n",
}
STRICT_CONFIG = "def parse_config(path, strict):\n    return {}\n"  # a new required parameter


def committed_signature_change(make_repo: Callable[..., Path]) -> tuple[Path, str]:
    """CALLED_CONFIG committed, then a commit giving parse_config a required parameter:
    the repository and the commit before that change."""
    repo = make_repo(CALLED_CONFIG)
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "pkg/config.py").write_text(STRICT_CONFIG)
    git(repo, "commit", "-q", "-am", "strict")
    return repo, base
