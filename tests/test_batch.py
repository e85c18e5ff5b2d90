"""Batched impact (guard/batch.py) answers exactly what asking each changed symbol on its
own answers: the same JSON report, in every supported language, for edited symbols (looked
up at the new revision) and removed ones (at the old); and it reads each file's records
once however many symbols lead to it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import git
from test_graph_languages import CASES

from maguyva_guard.cli import main
from maguyva_guard.guard import impact
from maguyva_guard.index.store import Store

LANGS = Path(__file__).parent / "fixtures" / "langs"
SAMPLES = {"python": "sample.py", "javascript": "sample.js", "typescript": "sample.ts",
           "tsx": "sample.tsx", "go": "sample.go", "java": "sample.java", "rust": "sample.rs"}
PYTHON_CASE = {
    "pkg/__init__.py": "",
    "pkg/config.py": ("def parse_config(path):\n    return {}\n\n\n"
                      "class Loader:\n    def load(self):\n        return parse_config('x')\n"),
    "pkg/cli.py": ("from pkg.config import Loader, parse_config as pc\n\n\n"
                   "def main():\n    return pc('a')\n\n\n"
                   "def run():\n    return Loader().load()\n"),
}


def files_of(language: str) -> dict[str, str]:
    case = "typescript" if language == "tsx" else language  # a .tsx imports .ts modules
    files = dict(PYTHON_CASE) if language == "python" else dict(CASES[case][0])
    sample = SAMPLES[language]
    files[f"sample/{sample}"] = (LANGS / language / sample).read_text()
    return files


def mark_every_definition(repo: Path) -> None:
    """An empty statement at the top of the body of every function and method of every
    file: each of them changes, whatever the language (the batch's many-symbol case)."""
    with Store.open(repo) as store:
        defs = [d for d in store.definitions() if d.kind in ("function", "method")]
    starts: dict[str, set[int]] = {}
    for d in defs:
        starts.setdefault(d.path, set()).add(d.line_start)
    for path, lines in starts.items():
        text = (repo / path).read_text().split("\n")
        for n in sorted(lines):
            _add_statement(text, n - 1, path.endswith(".py"))
        (repo / path).write_text("\n".join(text))


def _add_statement(text: list[str], at: int, python: bool) -> None:
    """Python: `_ = 0; ` before the first body line after the `def ...:` line; braces: a
    `;` after the body's opening brace."""
    for i in range(at, min(at + 8, len(text))):
        line = text[i].split("#")[0].rstrip() if python else text[i]
        if python and line.endswith(":") and i + 1 < len(text):
            body = text[i + 1]
            indent = len(body) - len(body.lstrip())
            text[i + 1] = body[:indent] + "_ = 0; " + body[indent:]
            return
        if not python and "{" in line:
            text[i] = line.replace("{", "{ ;", 1)
            return


def check_json(repo: Path, *args: str) -> dict:
    result = CliRunner().invoke(main, ["check", "--repo", str(repo), "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    payload = json.loads(result.stdout)
    payload.pop("stats")  # timings
    return payload


def both_ways(monkeypatch: pytest.MonkeyPatch, repo: Path, *args: str) -> tuple[dict, dict]:
    monkeypatch.setenv(impact.PER_SYMBOL_ENV, "1")
    alone = check_json(repo, *args)
    monkeypatch.delenv(impact.PER_SYMBOL_ENV)
    return alone, check_json(repo, *args)


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_batched_report_equals_per_symbol_for_edited_symbols(make_repo, monkeypatch, language):
    repo = make_repo(files_of(language))
    assert check_json(repo)["changed_symbols"] == []  # indexes the repository
    mark_every_definition(repo)
    git(repo, "add", "-A")
    alone, batched = both_ways(monkeypatch, repo)
    assert len(batched["changed_symbols"]) >= 4  # enough for the semantic sweep
    assert batched["affected"], "no caller found: the comparison would prove nothing"
    assert batched == alone


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_batched_report_equals_per_symbol_for_removed_symbols(make_repo, monkeypatch, language):
    files = files_of(language)
    repo = make_repo(files)
    removed = next(p for p in files if p.startswith("sample/"))
    git(repo, "rm", "-q", removed)
    git(repo, "commit", "-q", "-m", "remove the sample")
    alone, batched = both_ways(monkeypatch, repo, "--base", "HEAD~1", "--head", "HEAD")
    assert any(c["change"] == "removed" for c in batched["changed_symbols"])
    assert batched == alone


def test_batched_check_reads_each_file_once(make_repo, monkeypatch):
    """Many changed symbols whose callers share files: each file's imports and definitions
    are read from the index once in the whole check."""
    files = dict(PYTHON_CASE)
    for i in range(6):
        files[f"pkg/use{i}.py"] = ("from pkg.config import Loader, parse_config\n\n\n"
                                   f"def use{i}():\n    return parse_config(Loader().load())\n")
    repo = make_repo(files)
    check_json(repo)
    mark_every_definition(repo)
    git(repo, "add", "-A")
    reads: Counter[tuple[str, str]] = Counter()
    for method in ("imports_in", "definitions_in", "references_in"):
        original = getattr(Store, method)

        def counted(self, path, _original=original, _method=method):
            reads[(_method, path)] += 1
            return _original(self, path)

        monkeypatch.setattr(Store, method, counted)
    payload = check_json(repo)
    assert len(payload["changed_symbols"]) >= 8
    assert {("imports_in", f"pkg/use{i}.py") for i in range(6)} <= set(reads)
    assert max(reads.values()) == 1, reads.most_common(3)
