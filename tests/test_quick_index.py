"""A no-change `maguyva-guard index` answered from its stamp (index/quick.py) without the
engine, and never when anything the full path reads has changed.

Each run goes through the real command (entry.main, what the console script runs) in a
subprocess, which also says whether the CLI module was imported: "quick" when the stamp
answered, "engine" when the full path ran.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GIT_ENV, git, write_files

from maguyva_guard.index import quick

FILES = {
    "pkg/__init__.py": "",
    "pkg/config.py": "def parse_config(path):\n    return path\n",
    "pkg/cli.py": "from pkg.config import parse_config\n\n\ndef main():\n"
                  "    return parse_config('x')\n",
}
PROBE = (
    "import sys\n"
    "from maguyva_guard import entry\n"
    "sys.argv = ['maguyva-guard', *sys.argv[1:]]\n"
    "try:\n"
    "    entry.main()\n"
    "except SystemExit as exc:\n"
    "    code = exc.code\n"
    "else:\n"
    "    code = 0\n"
    "print('engine' if 'maguyva_guard.cli' in sys.modules else 'quick', code)\n"
)
SUMMARY = re.compile(r"^indexed ([\d,]+) files \(([\d,]+) parsed\) · ([\d,]+) symbols · "
                     r"([\d,]+) references · \d+\.\d\d s\n$")


def run_index(repo: Path, *args: str, env: dict[str, str] | None = None
              ) -> tuple[str, tuple[str, ...]]:
    """('quick' | 'engine', (files, parsed, symbols, references)) of one `index` run."""
    environ = {**os.environ, **GIT_ENV, **(env or {})}
    if not env or "GIT_INDEX_FILE" not in env:
        environ.pop("GIT_INDEX_FILE", None)
    proc = subprocess.run([sys.executable, "-c", PROBE, "index", *args], cwd=repo, env=environ,
                          capture_output=True, text=True, check=True)
    path, code = proc.stdout.split()
    assert code in ("0", "None"), proc.stderr
    m = SUMMARY.match(proc.stderr)
    assert m, proc.stderr
    return path, m.groups()


@pytest.fixture
def indexed(make_repo) -> Path:
    """A repository indexed once (full path), then again (answered from the stamp)."""
    repo = make_repo(FILES)
    assert run_index(repo) == ("engine", ("3", "3", "2", "2"))
    assert run_index(repo) == ("quick", ("3", "0", "2", "2"))
    return repo


def test_a_staged_edit_is_parsed_by_the_engine(indexed):
    (indexed / "pkg/config.py").write_text("def parse_config(path, strict):\n    return path\n")
    git(indexed, "add", "pkg/config.py")
    assert run_index(indexed) == ("engine", ("3", "1", "2", "2"))
    assert run_index(indexed) == ("quick", ("3", "0", "2", "2"))


def test_a_new_staged_file_is_parsed_by_the_engine(indexed):
    write_files(indexed, {"pkg/extra.py": "def helper():\n    return 1\n"})
    git(indexed, "add", "pkg/extra.py")
    assert run_index(indexed) == ("engine", ("4", "1", "3", "2"))


def test_a_staged_deletion_goes_to_the_engine(indexed):
    git(indexed, "rm", "-q", "pkg/cli.py")
    assert run_index(indexed) == ("engine", ("2", "0", "1", "0"))


def test_working_tree_changes_outside_the_staged_view_get_the_engines_answer(indexed):
    """The index holds the staged view: an unstaged edit and an untracked file are not in
    it (check's freshness note names them), so the full path parses nothing either. The
    stamp's answer is the engine's answer, compared here run for run."""
    (indexed / "pkg/config.py").write_text("def parse_config(path, strict):\n    return path\n")
    write_files(indexed, {"pkg/untracked.py": "def loose():\n    return 2\n"})
    path, answer = run_index(indexed)
    (indexed / ".git" / "maguyva-guard" / quick.STAMP_NAME).unlink()
    assert run_index(indexed) == ("engine", answer)
    assert answer == ("3", "0", "2", "2")


def test_a_changed_config_goes_to_the_engine(indexed):
    """max_file_size decides which blobs are parsed: the config's bytes are in the stamp."""
    write_files(indexed, {".maguyva-guard.toml": "max_file_size = 40\n"})
    path, answer = run_index(indexed)
    assert path == "engine"
    assert answer[2] == "1"  # pkg/cli.py (over 40 bytes) no longer parsed


def test_a_check_that_moved_the_view_goes_to_the_engine(indexed):
    """A check of a revision range switches the index to a tree: the database changed."""
    from maguyva_guard.index import indexer
    from maguyva_guard.index.store import Store

    (indexed / "pkg/config.py").write_text("def parse_config(path, strict):\n    return path\n")
    git(indexed, "commit", "-qam", "second")
    with Store.open(str(indexed)) as store:
        indexer.update_tree(store, "HEAD~1")
    assert run_index(indexed)[0] == "engine"
    assert run_index(indexed)[0] == "quick"


def test_removed_vectors_go_to_the_engine_which_makes_them_again(indexed):
    """The stamp vouches for the vectors file too: without it, no quick answer; the full
    path embeds the unchanged view again, and the next run is quick."""
    vectors = list((indexed / ".git" / "maguyva-guard").glob("vectors-*.npy"))
    assert len(vectors) == 1
    vectors[0].unlink()
    assert run_index(indexed)[0] == "engine"
    assert vectors[0].is_file()
    assert run_index(indexed)[0] == "quick"


def test_another_worktree_of_the_repository_is_not_answered_from_this_ones_stamp(indexed,
                                                                                   tmp_path):
    """Worktrees share the index folder but not the staged index."""
    other = tmp_path / "other"
    git(indexed, "worktree", "add", "-q", "-b", "other", str(other))
    (other / "pkg/config.py").write_text("def parse_config(path, strict):\n    return path\n")
    git(other, "add", "pkg/config.py")
    assert run_index(other) == ("engine", ("3", "1", "2", "2"))
    assert run_index(other)[0] == "quick"
    assert run_index(indexed) == ("engine", ("3", "0", "2", "2"))


def test_another_git_index_file_goes_to_the_engine(indexed):
    alternate = indexed / ".git" / "other-index"
    env = {**os.environ, **GIT_ENV, "GIT_INDEX_FILE": str(alternate)}
    subprocess.run(["git", "read-tree", "HEAD"], cwd=indexed, env=env, check=True)
    write_files(indexed, {"pkg/extra.py": "def helper():\n    return 1\n"})
    subprocess.run(["git", "add", "pkg/extra.py"], cwd=indexed, env=env, check=True)
    assert run_index(indexed, env={"GIT_INDEX_FILE": str(alternate)}) \
        == ("engine", ("4", "1", "3", "2"))


def test_options_and_other_folders_go_to_the_engine(indexed):
    assert run_index(indexed, "--repo", str(indexed / "pkg"))[0] == "quick"
    assert run_index(indexed, f"--repo={indexed}")[0] == "quick"
    assert run_index(indexed, "--defer-embeddings")[0] == "engine"
    missing = subprocess.run([sys.executable, "-m", "maguyva_guard", "index", "--repo",
                              str(indexed / "nowhere")], cwd=indexed, capture_output=True,
                             text=True)
    assert missing.returncode == 2
    assert missing.stderr.count("\n") == 1 and "nowhere" in missing.stderr


def test_another_extractor_goes_to_the_engine(indexed, monkeypatch):
    place = quick.locate(str(indexed))
    assert place is not None and quick.answer(str(indexed)) == quick.Counts(3, 2, 2)
    monkeypatch.setattr(quick, "fingerprint", lambda package, version: "another version")
    assert quick.answer(str(indexed)) is None
