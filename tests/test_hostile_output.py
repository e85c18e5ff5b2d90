"""Hostile names in every human-readable output, odd repository paths, odd output encodings.

A file name is chosen by whoever wrote the change: it may hold an OSC sequence that sets the
terminal's title (or worse), a bidirectional override that reorders what is shown, tabs and
newlines that forge lines. Every text a person reads (check, query, query --explain,
errors) shows such characters written out (`\\x1b`, `\\u202e`, `\\n`), never raw. Each test
runs the real CLI in a child process, as a terminal would receive its output.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GIT_ENV, git, write_files

OSC_TITLE = "\x1b]0;owned\x07"
BIDI = "\u202e"
HOSTILE = f"app/{OSC_TITLE}{BIDI}evil\tname\nline.py"
RAW = ("\x1b", "\x07", BIDI, "\t")  # none of these may reach the terminal
CALLER = "from app.core import parse\n\n\ndef main():\n    return parse(1)\n"


def run(repo: Path, *args: str, env: dict[str, str] | None = None,
        ) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **GIT_ENV, **(env or {})}
    full.pop("VOYAGE_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "maguyva_guard", *args, "--repo", str(repo)],
                          capture_output=True, text=True, encoding="utf-8", errors="replace",
                          env=full, timeout=120, check=False)


@pytest.fixture
def hostile(make_repo) -> Path:
    """A repository whose only caller of parse lives in a file with a hostile name."""
    repo = make_repo({"app/__init__.py": "", "app/core.py": "def parse(x):\n    return x\n"})
    write_files(repo, {HOSTILE: CALLER})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hostile")
    return repo


def assert_neutralised(text: str) -> None:
    for raw in RAW:
        assert raw not in text, repr(text)
    assert "\\x1b]0;owned\\x07\\u202eevil\\tname\\nline.py" in text, text


@pytest.mark.parametrize("args", [["query", "who calls parse"],
                                  ["query", "--explain", "who calls parse"]],
                         ids=["query", "query --explain"])
def test_query_neutralises_control_characters_in_names(hostile, args):
    proc = run(hostile, *args)
    assert proc.returncode == 0, proc.stderr
    assert_neutralised(proc.stdout)
    # Each result is one line: a newline in a name cannot forge another result line.
    assert not [line for line in proc.stdout.splitlines() if line.startswith("line")]


def test_check_neutralises_control_characters_in_names(hostile):
    (hostile / "app/core.py").write_text("def parse(x, y):\n    return x\n")
    git(hostile, "add", "app/core.py")
    proc = run(hostile, "check")
    assert proc.returncode == 0, proc.stderr
    assert_neutralised(proc.stdout)


def test_errors_neutralise_control_characters(hostile):
    proc = run(hostile, "check", "--base", f"{OSC_TITLE}{BIDI}\tx\ny")
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    for raw in RAW:
        assert raw not in line, repr(line)
    assert "unknown revision: \\x1b]0;owned\\x07\\u202e\\tx\\ny" in line, line


# --- item 9: a newline in the repository's path, an output encoding that is not UTF-8 ---


def test_a_newline_in_the_repository_path_works(make_repo):
    repo = make_repo({"app/__init__.py": "", "app/core.py": "def parse(x):\n    return x\n",
                      "app/cli.py": CALLER}, name="repo\nwith a newline")
    (repo / "app/core.py").write_text("def parse(x, y):\n    return x\n")
    git(repo, "add", "app/core.py")
    proc = run(repo, "check", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert '"app.cli.main"' in proc.stdout
    assert (repo / ".git" / "maguyva-guard").is_dir()


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "ascii"])
@pytest.mark.parametrize("args", [["check"], ["query", "--explain", "who calls parse"]],
                         ids=["check", "query"])
def test_a_non_utf8_output_encoding_works(make_repo, encoding, args):
    repo = make_repo({"app/__init__.py": "", "app/core.py": "def parse(x):\n    return x\n",
                      "app/日本.py": CALLER, "app/café.py": CALLER})
    (repo / "app/core.py").write_text("def parse(x, y):\n    return x\n")
    git(repo, "add", "app/core.py")
    proc = run(repo, *args, env={"PYTHONIOENCODING": encoding})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" or "Error" not in proc.stderr, proc.stderr
    assert "app/" in proc.stdout and ".py" in proc.stdout
