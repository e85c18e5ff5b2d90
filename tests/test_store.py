"""store.py: where the index lives, its format, repair, the lock, and the read API."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from maguyva_guard.errors import FatalError
from maguyva_guard.index import dbfile as storefile
from maguyva_guard.index.schema import SCHEMA_VERSION, FileInfo
from maguyva_guard.index.store import Store
from maguyva_guard.index.writer import BlobRecord
from maguyva_guard.records import Chunk, Definition, FileSymbols, Reference

FIXTURES = Path(__file__).parent / "fixtures"

SYMBOLS = FileSymbols(
    language="python",
    definitions=(
        Definition("", "Config", "Config", "class", 1, 5, "class Config(Base):", bases=("Base",)),
        Definition("", "load", "Config.load", "method", 2, 5, "def load(self, path):",
                   parent="Config"),
        Definition("", "parse_config", "parse_config", "function", 7, 8, "def parse_config(p):"),
    ),
    references=(
        Reference("", "open", "call", 3, "Config.load"),
        Reference("", "Config", "call", 8, "parse_config"),
        Reference("", "os", "import", 1, "", target="os"),
    ),
    chunks=(Chunk("", "parse_config", 7, 8, "def parse_config(p):\n    return Config()"),),
)


def _fill(store: Store, view: dict[str, str], blobs: dict[str, FileSymbols | None]) -> None:
    """Write blobs and make {path: blob} the current view, as the indexer does."""
    with store.lock(), store.transaction():
        w = store.writer()
        w.add_blobs(BlobRecord(b, "python", 10, "parsed", s) for b, s in blobs.items()
                    if b not in w.known([b]))
        w.set_view(store.files(), {p: FileInfo(b, "python", "source") for p, b in view.items()})
        w.collect_garbage()


def test_index_lives_in_the_git_common_dir(make_repo):
    repo = make_repo({"a.py": "x = 1\n"})
    with Store.open(repo) as store:
        assert store.index_dir == (repo / ".git" / "maguyva-guard").resolve()
        assert store.path.name == f"index-v{SCHEMA_VERSION}.sqlite"
        assert store.path.exists()
        mode = store.conn.execute("PRAGMA journal_mode").fetchone()[0]
        assert mode == "wal"
    assert [p.name for p in repo.iterdir()] == [".git", "a.py"]


def test_records_get_path_and_module_prefix(make_repo):
    repo = make_repo({"pkg/config.py": "x\n"})
    with Store.open(repo) as store:
        _fill(store, {"pkg/config.py": "b1", "pkg/__init__.py": "b1"}, {"b1": SYMBOLS})
        load = store.definitions(qualified_name="pkg.config.Config.load")
        assert load == [Definition("pkg/config.py", "load", "pkg.config.Config.load", "method", 2,
                                   5, "def load(self, path):", parent="pkg.config.Config")]
        # One blob serves both paths, each with its own module prefix.
        assert sorted(d.qualified_name for d in store.definitions(name="Config")) == [
            "pkg.Config", "pkg.config.Config"]
        assert store.definitions(name="Config", path="pkg/config.py")[0].bases == ("Base",)
        assert [d.name for d in store.definitions(name_prefix="parse")] == ["parse_config"] * 2
        refs = store.references(name="Config", path="pkg/config.py")
        assert [(r.scope, r.line) for r in refs] == [("pkg.config.parse_config", 8)]
        imports = store.references_in("pkg/__init__.py")
        assert [r.scope for r in imports if r.kind == "import"] == [""]  # module level
        assert len(store.references(kinds=["call"])) == 4
        digest, chunk = next(iter(store.chunks()))
        assert digest == hashlib.sha1(chunk.text.encode()).hexdigest()
        assert chunk.symbol in ("pkg.parse_config", "pkg.config.parse_config")
        places = sorted(store.chunk_places())
        assert places == [(digest, "pkg/__init__.py", "pkg.parse_config", 7, 8),
                          (digest, "pkg/config.py", "pkg.config.parse_config", 7, 8)]
        assert store.chunk_texts([digest, "unknown"]) == {digest: chunk.text}
        moved = store.symbols_of("b1", "other/place.py")
        assert moved is not None
        assert moved.definitions[1].qualified_name == "other.place.Config.load"
        assert store.symbols_of("unknown", "x.py") is None
        assert store.category("pkg/config.py") == "source"
        assert store.category("nope.py") is None


def test_meta_and_text(make_repo):
    repo = make_repo({"a.py": "hello = 1\n"})
    with Store.open(repo) as store:
        store.meta_set("k", "v")
        assert store.meta_get("k") == "v"
        assert store.meta_get("missing", "d") == "d"
        blob = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD:a.py"],
                              capture_output=True, text=True, check=True).stdout.strip()
        _fill(store, {"a.py": blob}, {blob: None})
        assert store.text("a.py") == "hello = 1\n"
        assert store.text("missing.py") == ""


def test_garbage_collection_keeps_the_previous_view(make_repo):
    repo = make_repo({"a.py": "x\n"})
    with Store.open(repo) as store:
        for view in ("A", "B", "C"):
            _fill(store, {"a.py": view}, {view: SYMBOLS})
        blobs = dict(store.conn.execute("SELECT id, oid FROM blobs"))
        assert set(blobs.values()) == {"B", "C"}
        in_defs = {row[0] for row in store.conn.execute("SELECT DISTINCT blob FROM defs")}
        assert in_defs == set(blobs)


@pytest.mark.parametrize("name", ["index-v0.sqlite", f"index-v{SCHEMA_VERSION}.sqlite"])
def test_old_format_index_is_rebuilt(make_repo, capfd, name):
    repo = make_repo({"a.py": "x\n"})
    index_dir = repo / ".git" / "maguyva-guard"
    index_dir.mkdir()
    shutil.copy(FIXTURES / "index-v0.sqlite", index_dir / name)
    with Store.open(repo) as store:
        tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
        assert "symbols" not in tables and "defs" in tables
    assert capfd.readouterr().err == "maguyva-guard: index was old format; rebuilding\n"
    assert not (index_dir / "index-v0.sqlite").exists()
    with Store.open(repo):
        pass
    assert capfd.readouterr().err == ""  # once rebuilt, it is simply used


@pytest.mark.parametrize("where", ["header", "middle"])
def test_corrupt_index_is_moved_aside_and_rebuilt(make_repo, capfd, where):
    repo = make_repo({"a.py": "x\n"})
    with Store.open(repo) as store:
        _fill(store, {f"m{i}.py": f"b{i}" for i in range(300)},
              {f"b{i}": SYMBOLS for i in range(300)})
        path = store.path
    time.sleep(0.05)  # a later mtime, as any real writer would leave (timestamps are coarse)
    data = bytearray(path.read_bytes())
    start = 0 if where == "header" else len(data) // 2
    data[start : start + 8192] = b"garbage!" * 1024
    path.write_bytes(bytes(data))
    with Store.open(repo) as store:
        assert store.files() == {}
        assert store.conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    assert capfd.readouterr().err == "maguyva-guard: index was corrupt; rebuilding\n"
    assert path.with_name(path.name + ".corrupt").exists()


def test_rebuild_flag_starts_empty_without_a_message(make_repo, capfd):
    repo = make_repo({"a.py": "x\n"})
    with Store.open(repo) as store:
        _fill(store, {"a.py": "b"}, {"b": SYMBOLS})
        (store.index_dir / "vectors-other-module.npy").write_bytes(b"cache")
    with Store.open(repo, rebuild=True) as store:
        assert store.files() == {}
        left = {p.name for p in store.index_dir.iterdir()}
        assert left - {f"{store.path.name}-wal", f"{store.path.name}-shm"} == {
            store.path.name, "lock"}
    assert capfd.readouterr().err == ""


def test_a_killed_writer_leaves_the_previous_state(make_repo):
    repo = make_repo({"a.py": "x\n"})
    with Store.open(repo) as store:
        _fill(store, {"a.py": "before"}, {"before": SYMBOLS})
    script = textwrap.dedent(f"""
        import os, signal
        from maguyva_guard.index.schema import FileInfo
        from maguyva_guard.index.store import Store
        store = Store.open({str(repo)!r})
        with store.transaction():
            store.writer().set_view(store.files(), {{"a.py": FileInfo("after", None, "source")}})
            store.conn.execute("DELETE FROM defs")
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", script], check=False)
    assert proc.returncode == -9
    with Store.open(repo) as store:
        assert store.files()["a.py"].blob == "before"
        assert len(store.definitions()) == 3


def test_lock_waits_then_gives_up(tmp_path, capfd):
    path = tmp_path / "lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import fcntl,time; f=open({str(path)!r},'w'); "
         "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(FatalError, match="kept the index locked"):
            with storefile.IndexLock(path, wait_seconds=0.3):
                pass
        err = capfd.readouterr().err
        assert err == "maguyva-guard: waiting for another maguyva-guard run...\n"
    finally:
        holder.kill()
        holder.wait()
    with storefile.IndexLock(path, wait_seconds=0.3):  # freed when its holder died
        pass


def test_a_new_index_waits_for_another_connection_instead_of_failing(tmp_path):
    # Switching a new file to WAL needs an exclusive lock, and SQLite refuses it at once
    # (no busy handler) while another connection holds a write lock: two runs starting
    # together on a fresh repository hit exactly this.
    path = tmp_path / "index.sqlite"
    sqlite3.connect(path).close()  # an empty file, as a run killed before its schema leaves
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import sqlite3,time; c=sqlite3.connect({str(path)!r}, "
         "isolation_level=None); c.execute('BEGIN IMMEDIATE'); print('held', flush=True); "
         "time.sleep(0.5); c.execute('ROLLBACK')"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        conn = storefile.open_checked(path, SCHEMA_VERSION, "CREATE TABLE t (x)", False)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        conn.close()
    finally:
        holder.wait(timeout=10)


def test_transaction_rolls_back_on_error(make_repo):
    repo = make_repo({"a.py": "x\n"})
    with Store.open(repo) as store:
        with pytest.raises(RuntimeError), store.transaction():
            store.meta_set("k", "v")
            raise RuntimeError("boom")
        assert store.meta_get("k") is None


def test_unreadable_schema_version_file_is_not_sqlite(make_repo, capfd):
    """A zero-length file (a run killed right after creating it) is taken as new, silently."""
    repo = make_repo({"a.py": "x\n"})
    index_dir = repo / ".git" / "maguyva-guard"
    index_dir.mkdir()
    (index_dir / f"index-v{SCHEMA_VERSION}.sqlite").write_bytes(b"")
    with Store.open(repo) as store:
        assert store.files() == {}
    assert capfd.readouterr().err == ""
    conn = sqlite3.connect(index_dir / f"index-v{SCHEMA_VERSION}.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
