"""git.py on real repositories: read-only access to trees, the index, blobs and diffs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import git, write_files

from maguyva_guard import git as g
from maguyva_guard.errors import FatalError


def test_repo_info_from_a_subfolder(make_repo):
    repo = make_repo({"pkg/a.py": "x = 1\n"})
    info = g.repo_info(repo / "pkg")
    assert info.root == repo.resolve()
    assert info.common_dir == (repo / ".git").resolve()
    assert info.git_dir == info.common_dir
    assert info.shallow is False


@pytest.mark.parametrize(
    "kind, message",
    [("plain", "not a git repository"), ("bare", "bare repository"),
     ("missing", "not a directory"), ("gitdir", "not inside a working tree")],
)
def test_repo_info_refuses(tmp_path, make_repo, kind, message):
    if kind == "plain":
        path = tmp_path / "plain"
        path.mkdir()
    elif kind == "bare":
        path = tmp_path / "bare.git"
        subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    elif kind == "missing":
        path = tmp_path / "nope"
    else:
        path = make_repo({"a.py": "x\n"}) / ".git"
    with pytest.raises(FatalError, match=message):
        g.repo_info(path)


def test_resolve_and_head(make_repo):
    repo = make_repo({"a.py": "x\n"})
    head = git(repo, "rev-parse", "HEAD").strip()
    assert g.resolve(repo, "main") == head
    assert g.head_commit(repo) == head
    with pytest.raises(FatalError, match="unknown revision: nope"):
        g.resolve(repo, "nope")
    with pytest.raises(FatalError, match="unknown revision: --all"):
        g.resolve(repo, "--all")


def test_unborn_head_and_staged_files(make_repo):
    repo = make_repo({"a.py": "x = 1\n"}, commit=False)
    assert g.head_commit(repo) is None
    assert list(g.ls_index(repo)) == ["a.py"]
    changes = g.diff_files(repo, None)
    assert [(c.status, c.new_path) for c in changes] == [("A", "a.py")]
    assert g.diff_hunks(repo, None) == {"a.py": [g.Hunk(0, 0, 1, 1)]}


def test_ls_tree_skips_symlinks_and_submodules(make_repo):
    repo = make_repo({"a.py": "x = 1\n", "odd name ü.py": "y\n"}, commit=False)
    (repo / "link.py").symlink_to("a.py")
    sub = make_repo({"s.py": "s\n"})
    sub_head = git(sub, "rev-parse", "HEAD").strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sub_head},vendored")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "c")
    tree = g.ls_tree(repo, "HEAD")
    assert sorted(tree) == ["a.py", "odd name ü.py"]
    assert tree["a.py"].size == 6
    index = g.ls_index(repo)
    assert sorted(index) == ["a.py", "odd name ü.py"]
    assert index["a.py"] == tree["a.py"]
    assert g.ls_index(repo, sizes=False)["a.py"].size == -1


def test_blobs_read_in_one_process(make_repo):
    repo = make_repo({"a.py": "alpha\n", "b.py": "beta\n"})
    tree = g.ls_tree(repo, "HEAD")
    ids = [tree["a.py"].blob, tree["b.py"].blob, "0" * 40]
    assert g.read_blobs(repo, ids) == {ids[0]: b"alpha\n", ids[1]: b"beta\n"}
    with g.BlobReader(repo) as reader:
        assert reader.read("HEAD:b.py") == b"beta\n"
        assert reader.read("HEAD:missing.py") is None
        assert [d for _, d in reader.read_many(ids)] == [b"alpha\n", b"beta\n", None]
    assert g.blob_sizes(repo, ids) == {ids[0]: 6, ids[1]: 5}


def test_diff_files_and_hunks_between_commits(make_repo):
    repo = make_repo({"pkg/a.py": "def f():\n    return 1\n", "old name.py": "z = 1\n" * 5,
                      "gone.py": "g\n"})
    base = g.head_commit(repo)
    write_files(repo, {"pkg/a.py": "def f():\n    return 2\n\ndef g():\n    pass\n"})
    git(repo, "mv", "old name.py", "new name.py")
    git(repo, "rm", "-q", "gone.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "2")
    head = g.head_commit(repo)
    changes = {c.status: c for c in g.diff_files(repo, base, head)}
    assert set(changes) == {"M", "R", "D"}
    assert (changes["R"].old_path, changes["R"].new_path) == ("old name.py", "new name.py")
    assert changes["D"].new_path == "" and changes["D"].new_blob == "0" * 40
    hunks = g.diff_hunks(repo, base, head)
    assert hunks["pkg/a.py"] == [g.Hunk(2, 1, 2, 4)]
    assert hunks["gone.py"] == [g.Hunk(1, 1, 0, 0)]
    assert "new name.py" not in hunks  # a pure rename has no text hunk


def test_diff_hunks_ignore_noprefix_and_external_diff(make_repo):
    repo = make_repo({"a.py": "one\n"})
    git(repo, "config", "diff.noprefix", "true")
    git(repo, "config", "diff.external", "/bin/false")
    write_files(repo, {"a.py": "one\ntwo\n"})
    git(repo, "add", "a.py")
    assert g.diff_hunks(repo, g.head_commit(repo)) == {"a.py": [g.Hunk(1, 0, 2, 1)]}


def test_quoted_paths_in_hunks(make_repo):
    repo = make_repo({'we"ird\tname.py': "a\n"}, commit=False)
    assert g.diff_hunks(repo, None) == {'we"ird\tname.py': [g.Hunk(0, 0, 1, 1)]}


def test_staged_diff_honours_git_index_file(make_repo, monkeypatch):
    repo = make_repo({"a.py": "one\n"})
    write_files(repo, {"a.py": "one\ntwo\n"})
    other = repo / ".git" / "other-index"
    env = {"GIT_INDEX_FILE": str(other), "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "-C", str(repo), "read-tree", "HEAD"], env=env, check=True)
    subprocess.run(["git", "-C", str(repo), "add", "a.py"], env=env, check=True)
    assert g.diff_files(repo, "HEAD") == []  # the real index has nothing staged
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    assert [c.new_path for c in g.diff_files(repo, "HEAD")] == ["a.py"]


def test_merge_base(make_repo):
    repo = make_repo({"a.py": "1\n"})
    root = g.head_commit(repo)
    git(repo, "checkout", "-q", "-b", "side")
    write_files(repo, {"b.py": "2\n"})
    git(repo, "add", "b.py")
    git(repo, "commit", "-q", "-m", "side")
    assert g.merge_base(repo, "main", "side") == root
    git(repo, "checkout", "-q", "--orphan", "lonely")
    git(repo, "commit", "-q", "--allow-empty", "-m", "lonely")
    assert g.merge_base(repo, "lonely", "main") is None


def test_worktree_shares_the_common_dir(make_repo, tmp_path):
    repo = make_repo({"a.py": "1\n"})
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "--detach", str(wt))
    info = g.repo_info(wt)
    assert info.root == wt.resolve()
    assert info.common_dir == (repo / ".git").resolve()
    assert info.git_dir != info.common_dir
    assert list(g.ls_index(wt)) == ["a.py"]


def test_shallow_clone_is_reported(make_repo, tmp_path):
    repo = make_repo({"a.py": "1\n"})
    write_files(repo, {"a.py": "2\n"})
    git(repo, "commit", "-q", "-am", "2")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(clone)],
                   check=True)
    info = g.repo_info(clone)
    assert info.shallow is True
    assert g.ls_tree(clone, "HEAD")["a.py"].size == 2


def test_nothing_is_written(make_repo):
    repo = make_repo({"a.py": "1\n"})
    write_files(repo, {"a.py": "2\n"})  # dirty: a refreshing git would rewrite the index
    index = repo / ".git" / "index"
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    g.ls_index(repo)
    g.diff_files(repo, "HEAD")
    g.diff_hunks(repo, "HEAD")
    g.repo_info(repo)
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    assert not Path(f"{index}.lock").exists()


def test_paths_that_are_not_utf8(make_repo):
    repo = make_repo({"ok.py": "x\n"}, commit=False)
    odd = bytes(repo) + b"/caf\xe9.py"
    with open(odd, "wb") as f:
        f.write(b"def f():\n    pass\n")
    git(repo, "add", "-A")
    assert sorted(g.ls_index(repo)) == ["caf\\xe9.py", "ok.py"]
    assert {c.new_path for c in g.diff_files(repo, None)} == {"caf\\xe9.py", "ok.py"}
    assert "caf\\xe9.py" in g.diff_hunks(repo, None)


def test_git_missing_is_one_clear_error(make_repo, monkeypatch):
    repo = make_repo({"a.py": "x\n"})
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(FatalError, match="git is not installed"):
        g.repo_info(repo)


def test_ls_index_parses_a_listing_once_and_a_changed_index_again(make_repo):
    """The staged listing is parsed once per content (a check reads it twice): the same
    listing gives the same answer, a staged change (a new blob, a new path, a rename) a
    new one."""
    repo = make_repo({"a.py": "x = 1\n"})
    first = g.ls_index(repo, sizes=False)
    assert g.ls_index(repo, sizes=False) is first
    (repo / "a.py").write_text("x = 2\n")
    git(repo, "add", "a.py")
    changed = g.ls_index(repo, sizes=False)
    assert list(changed) == ["a.py"] and changed["a.py"].blob != first["a.py"].blob
    git(repo, "mv", "a.py", "b.py")
    assert list(g.ls_index(repo, sizes=False)) == ["b.py"]
    assert g.ls_index(repo)["b.py"].size == 6  # sizes are never taken from the shared parse
