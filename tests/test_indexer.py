"""indexer.py on real repositories: incremental updates parse only new blobs."""

from __future__ import annotations

import pytest
from conftest import git, write_files

from maguyva_guard.extract import classify
from maguyva_guard.index import indexer
from maguyva_guard.index import parse as blobparse
from maguyva_guard.index.schema import RECORD_INDEXES
from maguyva_guard.index.store import Store

FILES = {
    "pkg/__init__.py": "from .config import parse_config\n",
    "pkg/config.py": "import os\n\n\ndef parse_config(path):\n    return os.path.join(path)\n",
    "pkg/cli.py": "from pkg.config import parse_config\n\n\ndef main():\n"
                  "    return parse_config('x')\n",
    "tests/test_config.py": "from pkg.config import parse_config\n\n\ndef test_it():\n"
                            "    parse_config('y')\n",
    "vendor/lib.py": "def helper():\n    pass\n",
    "api_pb2.py": "def Message():\n    pass\n",
    "README.md": "# readme\n",
    "logo.png": "\x89PNG\x00\x00binary",
    "data.xyz": "text\x00with a NUL byte",
}


def test_first_update_parses_every_supported_blob(make_repo):
    repo = make_repo(FILES)
    with Store.open(repo) as store:
        stats = indexer.update(store)
        assert stats.files == len(FILES)
        # 4 Python files with distinct content + vendor/lib.py + api_pb2.py: generated
        # code is code (parsed, ranked as generated).
        assert stats.parsed == 6
        assert stats.symbols == len(store.definitions())
        assert stats.references == len(store.references())
        files = store.files()
        assert files["pkg/config.py"].category == classify.SOURCE
        assert files["tests/test_config.py"].category == classify.TEST
        assert files["vendor/lib.py"].category == classify.VENDOR
        assert files["api_pb2.py"].category == classify.GENERATED
        assert files["README.md"].language is None
        [d] = store.definitions(name="parse_config")
        assert (d.path, d.qualified_name, d.line_start) == ("pkg/config.py",
                                                            "pkg.config.parse_config", 4)
        callers = {r.scope for r in store.references(name="parse_config", kinds=["call"])}
        assert callers == {"pkg.cli.main", "tests.test_config.test_it"}
        status = dict(store.conn.execute("SELECT f.path, b.status FROM files f "
                                         "JOIN blobs b ON b.id = f.blob_id"))
        assert status["logo.png"] == classify.SKIPPED_BINARY  # by its name, never read
        assert status["data.xyz"] == classify.SKIPPED_BINARY  # by its content
        assert status["README.md"] == classify.SKIPPED_LANGUAGE
        # The cold build dropped the record indexes while inserting: they are back.
        indexes = {r[0] for r in store.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert set(RECORD_INDEXES) <= indexes


def test_one_changed_file_parses_only_that_blob(make_repo):
    repo = make_repo(FILES)
    with Store.open(repo) as store:
        indexer.update(store)
        assert indexer.update(store).parsed == 0  # nothing changed
        write_files(repo, {"pkg/cli.py": FILES["pkg/cli.py"] + "\n\ndef other():\n    pass\n"})
        git(repo, "add", "pkg/cli.py")
        stats = indexer.update(store)
        assert stats.parsed == 1
        assert [d.path for d in store.definitions(name="other")] == ["pkg/cli.py"]
        # The counts are kept up to date from the changed paths alone.
        assert stats.symbols == len(store.definitions())
        assert stats.references == len(store.references())
        # Unstaging flips back to a blob the index still has (the previous view): no parse.
        git(repo, "reset", "-q", "pkg/cli.py")
        assert indexer.update(store).parsed == 0
        assert store.definitions(name="other") == []
        git(repo, "rm", "-q", "--cached", "pkg/config.py")
        stats = indexer.update(store)
        assert (stats.files, stats.symbols) == (len(FILES) - 1, len(store.definitions()))
        assert stats.references == len(store.references())


def test_the_view_an_update_leaves_is_the_one_the_index_holds(make_repo):
    repo = make_repo(FILES)
    with Store.open(repo) as store:
        indexer.update(store)
        write_files(repo, {"pkg/aaa.py": "def a():\n    pass\n",
                           "pkg/cli.py": FILES["pkg/cli.py"] + "\n# changed\n"})
        git(repo, "add", "pkg/aaa.py", "pkg/cli.py")
        git(repo, "rm", "-q", "--cached", "pkg/config.py")
        indexer.update(store)
        kept = store.files()  # what the update left in memory
    with Store.open(repo) as fresh:
        read = fresh.files()  # what another process reads from the index file
    assert list(kept.items()) == list(read.items())  # same entries, same (path) order
    assert list(read) == sorted(read) and "pkg/aaa.py" in read and "pkg/config.py" not in read


def test_an_update_works_out_what_changed_once_and_exactly(make_repo):
    """The update compares the two views once (indexer.Changes) and every step uses that:
    a change, an addition, a removal and a rename leave the rows, the previous view and
    the counts a fresh index of the same view has."""
    repo = make_repo(FILES)
    with Store.open(repo) as store:
        indexer.update(store)
        before = store.files()
        write_files(repo, {"pkg/aaa.py": "def a():\n    pass\n",
                           "pkg/cli.py": FILES["pkg/cli.py"] + "\n\ndef more():\n    main()\n"})
        git(repo, "add", "pkg/aaa.py", "pkg/cli.py")
        git(repo, "rm", "-q", "--cached", "vendor/lib.py")
        git(repo, "mv", "pkg/config.py", "pkg/settings.py")
        stats = indexer.update(store)
        rows = sorted(store.conn.execute("SELECT path, blob, blob_id, language, category"
                                         " FROM files"))
        previous = dict(store.conn.execute("SELECT path, blob FROM previous"))
        assert (stats.symbols, stats.references) == store.writer().view_counts()
    assert previous == {"pkg/aaa.py": None, "pkg/settings.py": None,
                        "pkg/cli.py": before["pkg/cli.py"].blob,
                        "pkg/config.py": before["pkg/config.py"].blob,
                        "vendor/lib.py": before["vendor/lib.py"].blob}
    with Store.open(repo, rebuild=True) as fresh:
        indexer.update(fresh)
        assert [r[:2] + r[3:] for r in rows] == sorted(fresh.conn.execute(
            "SELECT path, blob, language, category FROM files"))
        assert (stats.symbols, stats.references) == fresh.writer().view_counts()


def test_same_content_at_a_new_path_is_not_parsed_again(make_repo):
    repo = make_repo(FILES)
    with Store.open(repo) as store:
        indexer.update(store)
        git(repo, "mv", "pkg/config.py", "pkg/settings.py")
        assert indexer.update(store).parsed == 0
        [d] = store.definitions(name="parse_config")
        assert d.qualified_name == "pkg.settings.parse_config"


def test_large_files_are_recorded_not_parsed(make_repo):
    repo = make_repo({"big.py": "x = 1\n" * 50, "small.py": "y = 2\n"})
    with Store.open(repo) as store:
        stats = indexer.update(store, max_size=100)
        assert stats.parsed == 1
        status = dict(store.conn.execute("SELECT oid, status FROM blobs"))
        assert sorted(status.values()) == [classify.PARSED, classify.SKIPPED_SIZE]
        assert indexer.update(store, max_size=100).parsed == 0
        stats = indexer.update(store)  # the configured limit (1 MiB): big.py is now wanted
        assert (stats.parsed, stats.files) == (1, 2)
        assert stats.symbols == len(store.definitions())
        assert indexer.update(store, max_size=5).parsed == 0  # both too large now
        assert store.definitions() == []
        assert sorted(store.conn.execute("SELECT status FROM blobs").fetchall()) == [
            (classify.SKIPPED_SIZE,), (classify.SKIPPED_SIZE,)]


def test_the_configured_size_limit_is_the_default(make_repo):
    repo = make_repo({"big.py": "x = 1\n" * 50, "small.py": "y = 2\n",
                      ".maguyva-guard.toml": "max_file_size = 100\n"})
    with Store.open(repo) as store:
        assert indexer.update(store).parsed == 1


def test_generated_marker_and_minified_content(make_repo):
    repo = make_repo({"gen.py": "# Code generated by protoc. DO NOT EDIT.\ndef f():\n    pass\n",
                      "app.js": "var a=1;" * 100 + "\n", "ok.py": "def g():\n    pass\n"})
    with Store.open(repo) as store:
        indexer.update(store)
        files = store.files()
        # Marked generated code is parsed (issue 17: its importers are what a change to it
        # affects); minified code is not.
        assert files["app.js"].category == classify.GENERATED
        assert files["ok.py"].category == classify.SOURCE
        assert sorted(d.name for d in store.definitions()) == ["f", "g"]


def test_tree_view_and_flipping_back(make_repo):
    repo = make_repo(FILES)
    base = git(repo, "rev-parse", "HEAD").strip()
    write_files(repo, {"pkg/config.py": "def parse_config(path, strict):\n    return path\n"})
    git(repo, "commit", "-q", "-am", "change")
    with Store.open(repo) as store:
        assert indexer.update_tree(store, "HEAD").parsed == 6  # api_pb2.py included
        assert store.meta_get("view").startswith("tree:")
        assert indexer.update_tree(store, base).parsed == 1  # only the old config.py
        assert store.definitions(name="parse_config")[0].signature == "def parse_config(path)"
        assert indexer.update_tree(store, "HEAD").parsed == 0  # the previous view is kept
        assert indexer.update(store).parsed == 0  # the staged index equals HEAD
        assert store.meta_get("view") == indexer.STAGED_VIEW


def test_ensure_parsed_and_symbols_for(make_repo):
    repo = make_repo(FILES)
    old_blob = git(repo, "rev-parse", "HEAD:pkg/config.py").strip()
    write_files(repo, {"pkg/config.py": "def renamed(path):\n    return path\n"})
    git(repo, "add", "pkg/config.py")
    with Store.open(repo) as store:
        indexer.update(store)
        git(repo, "commit", "-q", "-m", "rename")
        indexer.update(store)  # two view changes later the old blob is collected
        assert store.symbols_of(old_blob, "pkg/config.py") is None
        symbols = indexer.symbols_for(store, old_blob, "pkg/config.py")
        assert symbols is not None
        assert [d.qualified_name for d in symbols.definitions] == ["pkg.config.parse_config"]
        assert indexer.ensure_parsed(store, {old_blob: "pkg/config.py"}) == 0  # now known


def test_empty_repository_and_detached_head(make_repo):
    repo = make_repo({})
    with Store.open(repo) as store:
        stats = indexer.update(store)
        assert (stats.files, stats.parsed) == (0, 0)
    repo2 = make_repo(FILES)
    git(repo2, "checkout", "-q", "--detach", "HEAD")
    with Store.open(repo2) as store:
        assert indexer.update(store).parsed == 6
        assert indexer.update_tree(store, "HEAD").parsed == 0


def test_worktree_shares_the_index(make_repo, tmp_path):
    repo = make_repo(FILES)
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "--detach", str(wt))
    with Store.open(repo) as store:
        indexer.update(store)
    with Store.open(wt) as store:
        assert store.index_dir == (repo / ".git" / "maguyva-guard").resolve()
        assert indexer.update(store).parsed == 0  # the worktree's index holds the same blobs
        assert store.text("pkg/config.py").startswith("import os")
    assert (wt / ".git").is_file()  # a worktree's .git is a pointer: nothing written there


def test_parallel_parsing_gives_the_same_records(make_repo, monkeypatch):
    files = {f"pkg/m{i}.py": f"def f{i}(x):\n    return g{i}(x)\n" for i in range(40)}
    serial_repo, parallel_repo = make_repo(files), make_repo(files)
    with Store.open(serial_repo) as store:
        indexer.update(store)
        serial = sorted(store.definitions(), key=repr), sorted(store.references(), key=repr)
    monkeypatch.setattr(blobparse, "PARALLEL_MIN_BLOBS", 10)
    monkeypatch.setattr(blobparse, "PARALLEL_BATCH", 3)
    seen: list[tuple[int, int]] = []
    with Store.open(parallel_repo) as store:
        stats = indexer.update(store, progress=lambda done, total: seen.append((done, total)))
        assert stats.parsed == 40
        parallel = sorted(store.definitions(), key=repr), sorted(store.references(), key=repr)
    assert parallel == serial
    assert seen[-1] == (40, 40)


def test_parse_workers_results_are_freed_once_yielded(monkeypatch):
    """A finished batch's rows must not stay alive until the last batch is parsed: on a
    100,000-file repository that held every record of the repository in the parent."""
    import gc
    import weakref

    monkeypatch.setattr(blobparse, "PARALLEL_MIN_BLOBS", 10)
    monkeypatch.setattr(blobparse, "PARALLEL_BATCH", 3)
    jobs = [(i, f"def f{i}(x):\n    return g{i}(x)\n".encode(), "python") for i in range(30)]
    parsed = blobparse.parse_all(jobs, None)
    seen = []
    for _ in range(29):  # all but the last: the pool is still open
        blob_id, rows = next(parsed)
        assert rows is not None
        seen.append((blob_id, weakref.ref(rows)))
    del rows
    gc.collect()
    alive = [blob_id for blob_id, ref in seen if ref() is not None]
    assert len(alive) <= 3  # at most the batch being yielded
    assert len(list(parsed)) == 1
    assert jobs == []  # the contents went with their batches


def _rows_and_vectors(repo):
    """Every record of the index by blob content (not by row id, which follows the order
    workers finish in), and the semantic vectors by chunk key."""
    from maguyva_guard.embed import vectors

    with Store.open(repo) as store:
        rows = {table: sorted(store.conn.execute(
            f"SELECT b.oid, t.* FROM {table} t JOIN blobs b ON b.id = t.blob").fetchall(),
            key=lambda r: (r[0], repr(r[2:])))
            for table in ("defs", "refs", "chunks")}
        files = sorted(store.conn.execute("SELECT path, blob, language, category FROM files"))
        (path,) = store.index_dir.glob("vectors-*.npy")
    found = vectors.load(path, 1024)
    assert found is not None
    bits = {k: found.bits[i].tobytes() for i, k in enumerate(found.keys)}
    return {t: [(r[0], *r[2:]) for r in rs] for t, rs in rows.items()}, files, bits


def test_a_parallel_index_gives_the_same_rows_and_vectors_as_a_serial_one(make_repo,
                                                                          monkeypatch):
    from maguyva_guard.embed.hashed import HashEmbedder

    files = {f"pkg/m{i}.py": f'def f{i}(x):\n    """Scale {i}."""\n    return g{i}(x)\n\n\n'
             f"class C{i}:\n    def run(self):\n        return f{i}({i})\n" for i in range(40)}
    serial_repo, parallel_repo = make_repo(files), make_repo(files)
    indexer.index_repo(str(serial_repo))
    embedded_here: list[int] = []  # what this process embeds (workers have their own copy)
    real = HashEmbedder.embed
    monkeypatch.setattr(HashEmbedder, "embed",
                        lambda self, texts, *a: embedded_here.append(len(texts))
                        or real(self, texts, *a))
    monkeypatch.setattr(blobparse, "PARALLEL_MIN_BLOBS", 10)
    monkeypatch.setattr(blobparse, "PARALLEL_BATCH", 3)
    assert indexer.index_repo(str(parallel_repo)).parsed == 40
    serial, parallel = _rows_and_vectors(serial_repo), _rows_and_vectors(parallel_repo)
    assert parallel == serial
    assert len(parallel[2]) == 120  # a vector per chunk (two chunks and a method per file)
    assert embedded_here == []  # the workers embedded every chunk


def test_a_parser_failure_skips_the_blob(make_repo, monkeypatch):
    repo = make_repo({"a.py": "def a():\n    pass\n", "b.py": "def b():\n    pass\n"})

    def broken(job):
        if b"def b" in job[1]:
            return job[0], None
        return real(job)

    real = blobparse.parse_one
    monkeypatch.setattr(blobparse, "parse_one", broken)
    with Store.open(repo) as store:
        assert indexer.update(store).parsed == 1
        assert [d.name for d in store.definitions()] == ["a"]


def test_extractor_change_drops_every_record(make_repo, monkeypatch):
    repo = make_repo(FILES)
    with Store.open(repo) as store:
        indexer.update(store)
        monkeypatch.setattr(indexer, "extractor_fingerprint", lambda: "another version")
        assert indexer.update(store).parsed == 6


@pytest.mark.parametrize("hook", ["index_contents", "drop_blobs"])
def test_text_hooks_receive_blobs(make_repo, monkeypatch, hook):
    from maguyva_guard.index import fulltext

    calls: list[list] = []
    monkeypatch.setattr(fulltext, hook, lambda conn, items: calls.append(list(items)))
    repo = make_repo({"a.py": "one\n"})
    with Store.open(repo) as store:
        indexer.update(store)
        for n in range(3):
            write_files(repo, {"a.py": f"v{n}\n"})
            git(repo, "add", "a.py")
            indexer.update(store)
    if hook == "index_contents":
        assert [[t for _, t in c] for c in calls] == [["one\n"], ["v0\n"], ["v1\n"], ["v2\n"]]
    else:
        assert len(calls) == 2 and all(len(c) == 1 for c in calls)


def test_a_path_that_is_not_utf8_is_indexed(make_repo):
    repo = make_repo({"ok.py": "def ok():\n    pass\n"})
    with open(bytes(repo) + b"/caf\xe9.py", "wb") as f:
        f.write(b"def odd():\n    pass\n")
    git(repo, "add", "-A")
    with Store.open(repo) as store:
        assert indexer.update(store).parsed == 2
        assert [d.path for d in store.definitions(name="odd")] == ["caf\\xe9.py"]


def test_semantic_refresh_is_time_boxed_except_for_the_index_command(make_repo, monkeypatch):
    from maguyva_guard.index import embeddings

    calls: list[str] = []

    made: set[str] = set()  # the repositories whose vectors file a refresh has written

    def refresh(store, progress=None, **kw):
        calls.append("all" if "budget" in kw and kw["budget"] is None else "boxed")
        made.add(str(store.root))
        return 0

    monkeypatch.setattr(embeddings, "refresh", refresh)
    monkeypatch.setattr(embeddings, "vectors_missing", lambda store: str(store.root) not in made)
    repo = make_repo(FILES)
    with Store.open(repo) as store:
        indexer.update(store)  # a new view: the module's own budget
        indexer.update(store)  # nothing changed: nothing to embed
    indexer.index_repo(str(repo))  # the index command: everything still missing
    indexer.index_repo(str(repo))  # ... once per view
    assert calls == ["boxed", "all"]
