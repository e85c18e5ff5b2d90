"""`maguyva-guard index` (and `query`'s first answer) end to end, through the real CLI."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import git, write_files

from maguyva_guard.cli import main
from maguyva_guard.index.schema import SCHEMA_VERSION

FILES = {
    "pkg/__init__.py": "",
    "pkg/config.py": "def parse_config(path):\n    return path\n",
    "pkg/cli.py": "from pkg.config import parse_config\n\n\ndef main():\n"
                  "    return parse_config('x')\n",
    "docs/notes.md": "parse_config is documented here\n",
}
SUMMARY = re.compile(
    r"^indexed (\d+) files \((\d+) parsed\) · ([\d,]+) symbols · ([\d,]+) references · "
    r"\d+\.\d\d s\n$"
)


def index(repo: Path | str, *args: str):
    return CliRunner().invoke(main, ["index", "--repo", str(repo), *args])


def test_index_prints_one_summary_line(make_repo):
    repo = make_repo(FILES)
    result = index(repo)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    m = SUMMARY.match(result.stderr)
    assert m, result.stderr
    assert (m.group(1), m.group(2), m.group(3)) == ("4", "3", "2")
    again = SUMMARY.match(index(repo).stderr)
    assert again and (again.group(1), again.group(2)) == ("4", "0")
    rebuilt = SUMMARY.match(index(repo, "--rebuild").stderr)
    assert rebuilt and rebuilt.group(2) == "3"


def test_deferred_embeddings_are_said_then_filled_by_the_next_index(make_repo, monkeypatch):
    """`index --defer-embeddings` leaves the vectors to an update's time box (here: one
    batch of two chunks), says so, a search meanwhile says its semantic results are
    partial, and the next `index` embeds the rest."""
    from maguyva_guard.embed import backend as embedding
    from maguyva_guard.index import embeddings
    from maguyva_guard.retrievers import semantic

    files = {f"pkg/m{i}.py": f"def scale_{i}(value):\n    return value * {i}\n"
             for i in range(6)}
    repo = make_repo(files)
    monkeypatch.setattr(embeddings, "BATCH", 2)
    monkeypatch.setattr(embeddings, "EAGER_SECONDS", 0.0)
    monkeypatch.setattr(semantic, "SEARCH_SECONDS", 0.0)
    embedding._warned.clear()
    deferred = index(repo, "--defer-embeddings")
    assert deferred.exit_code == 0, deferred.output
    summary, note = deferred.stderr.splitlines()
    assert SUMMARY.match(summary + "\n")
    assert note == ("semantic vectors deferred: run `maguyva-guard index` again to embed the "
                    "rest (until then semantic results say they are partial)")
    asked = CliRunner().invoke(main, ["query", "how is a value scaled", "--repo", str(repo)])
    assert asked.exit_code == 0, asked.output
    assert "semantic index incomplete: 4 of 6 chunks embedded so far" in asked.stderr
    full = index(repo)
    assert full.exit_code == 0 and SUMMARY.match(full.stderr), full.stderr
    assert index(repo).stderr.count("\n") == 1  # complete now: no note


def _snapshot(repo: Path) -> dict[str, str]:
    """Hashes of every file of the working tree and of git's index, HEAD and refs."""
    out = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if path.is_file() and (not rel.startswith(".git/") or rel == ".git/index"
                               or rel == ".git/HEAD" or rel.startswith(".git/refs/")
                               or rel == ".git/packed-refs"):
            stat = path.stat()
            out[rel] = f"{hashlib.sha256(path.read_bytes()).hexdigest()} {stat.st_mtime_ns}"
    return out


def test_index_writes_nothing_but_the_index(make_repo):
    repo = make_repo(FILES)
    time.sleep(0.05)
    write_files(repo, {"pkg/cli.py": FILES["pkg/cli.py"] + "# edited, not staged\n",
                       "untracked.py": "x = 1\n"})
    write_files(repo, {"pkg/config.py": FILES["pkg/config.py"] + "# staged\n"})
    git(repo, "add", "pkg/config.py")
    # Same content, new mtime: any git command that refreshes the index would rewrite it.
    os.utime(repo / "pkg" / "__init__.py", (1_600_000_000, 1_600_000_000))
    before = _snapshot(repo)
    assert index(repo).exit_code == 0
    query = CliRunner().invoke(main, ["query", "--repo", str(repo), "parse_config"])
    assert query.exit_code == 0
    assert _snapshot(repo) == before
    assert not (repo / ".git" / "index.lock").exists()
    status = git(repo, "status", "--porcelain")
    assert status.splitlines() == [" M pkg/cli.py", "M  pkg/config.py", "?? untracked.py"]


def test_an_unchanged_view_loads_neither_the_parser_nor_the_text_index(make_repo):
    """The no-change `index` (every hook run on an unchanged view) reads one git listing:
    the parse and text-index modules, the Voyage client and tempfile stay unimported."""
    repo = make_repo(FILES)
    assert index(repo).exit_code == 0
    code = ("import sys\nfrom maguyva_guard.cli import main\ntry:\n"
            f"    main(['index', '--repo', {str(repo)!r}])\nexcept SystemExit:\n    pass\n"
            "wanted = ['maguyva_guard.index.parse', 'maguyva_guard.index.fulltext',"
            " 'maguyva_guard.embed.voyage', 'tempfile']\n"
            "print(sorted(m for m in wanted if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert SUMMARY.match(done.stderr) and "(0 parsed)" in done.stderr
    assert done.stdout == "[]\n"


def test_empty_repository(make_repo):
    repo = make_repo({})
    result = index(repo)
    assert result.exit_code == 0
    assert result.stderr.startswith("indexed 0 files (0 parsed)")


def test_staged_files_before_the_first_commit(make_repo):
    repo = make_repo(FILES, commit=False)
    result = index(repo)
    assert SUMMARY.match(result.stderr).group(2) == "3"


def test_detached_head_and_worktree(make_repo, tmp_path):
    repo = make_repo(FILES)
    git(repo, "checkout", "-q", "--detach")
    assert index(repo).exit_code == 0
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "--detach", str(wt))
    result = index(wt)
    assert result.exit_code == 0
    assert SUMMARY.match(result.stderr).group(2) == "0"  # the common dir's index is shared
    names = [p.name for p in (repo / ".git" / "maguyva-guard").glob("index-v*.sqlite")]
    assert names == [f"index-v{SCHEMA_VERSION}.sqlite"]


@pytest.mark.parametrize("kind", ["plain", "bare"])
def test_not_a_working_tree_exits_2_with_one_line(tmp_path, kind):
    path = tmp_path / kind
    if kind == "bare":
        subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    else:
        path.mkdir()
    result = index(path)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("maguyva-guard: error: ")
    assert ("bare repository" if kind == "bare" else "not a git repository") in result.stderr


def test_corrupt_index_is_rebuilt_with_one_line(make_repo):
    repo = make_repo(FILES)
    assert index(repo).exit_code == 0
    db = next((repo / ".git" / "maguyva-guard").glob("index-v*.sqlite"))
    time.sleep(0.05)
    db.write_bytes(b"this is not a database" * 500)
    result = index(repo)
    assert result.exit_code == 0
    lines = result.stderr.splitlines()
    assert lines[0] == "maguyva-guard: index was corrupt; rebuilding"
    assert len(lines) == 2 and SUMMARY.match(lines[1] + "\n").group(2) == "3"


def test_query_json_puts_the_definition_first(make_repo):
    repo = make_repo(FILES)
    result = CliRunner().invoke(main, ["query", "--repo", str(repo), "--json",
                                       "def parse_config"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert {"query", "intent", "confidence", "fusion_strategy", "preset", "modalities_run",
            "results"} <= set(payload)
    assert payload["results"][0]["path"] == "pkg/config.py"
    assert payload["results"][0]["symbol"] == "pkg.config.parse_config"
    assert payload["results"][0]["line_start"] == 1


def _stderr_on_a_terminal(repo: Path, *args: str) -> str:
    """What a command draws on a terminal's stderr (a real pseudo-terminal)."""
    import pty
    import sys

    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("VOYAGE_API_KEY", None)
    proc = subprocess.Popen([sys.executable, "-m", "maguyva_guard", *args, "--repo", str(repo)],
                            stdout=subprocess.DEVNULL, stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize("command", [["index"], ["check"]])
def test_each_progress_bar_is_labelled_with_its_own_step(make_repo, command):
    files = {**FILES, **{f"gen/m{i}.py": f"def f{i}(x):\n    return x + {i}\n"
                         for i in range(60)}}
    repo = make_repo(files)
    if command == ["check"]:
        (repo / "pkg/config.py").write_text("def parse_config(path, strict):\n    return path\n")
        git(repo, "add", "pkg/config.py")
    drawn = _stderr_on_a_terminal(repo, *command)
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)  # cursor and colour codes
    labels = set(re.findall(r"([a-z]+)\s+\[[#-]*\]", plain))
    assert labels == {"parsing", "embedding"}, drawn
