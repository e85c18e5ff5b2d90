"""The tests' view kept in the index (guard/testviewstore.py): `index` stores it file by
file, a check reads again only the files whose entry changed, and whatever cannot be
trusted (another key, a damaged row, no row) is read from the records as before, never
answered from."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import git, write_files
from test_tests_to_run import FILES

from maguyva_guard.cli import main
from maguyva_guard.guard import testview, testviewstore
from maguyva_guard.index import indexer
from maguyva_guard.index.schema import INDEX_DIRNAME, index_filename
from maguyva_guard.index.store import Store
from maguyva_guard.retrievers.resolve import Resolver

HALF_TESTED = ("from app.core import half\nfrom app.other import unrelated\n\n\n"
               "def test_unrelated():\n    assert unrelated() == 1\n\n\n"
               "def test_half():\n    assert half(4) == 2\n")


@pytest.fixture
def repo(make_repo) -> Path:
    repo = make_repo(FILES)
    result = CliRunner().invoke(main, ["index", "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    return repo


def db(repo: Path) -> sqlite3.Connection:
    return sqlite3.connect(repo / ".git" / INDEX_DIRNAME / index_filename())


def stage(repo: Path, files: dict[str, str]) -> None:
    write_files(repo, files)
    git(repo, "add", "-A")


def section(repo: Path) -> dict:
    result = CliRunner().invoke(main, ["check", "--repo", str(repo), "--staged", "--format",
                                       "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["tests"]


def forget(repo: Path) -> None:
    with db(repo) as conn:
        conn.execute(f"DELETE FROM {testviewstore.TABLE}")


def fields(view: testview.TestView) -> tuple:
    """Everything a view holds; its importers as kept and as worked out from its imports."""
    worked_out = replace(view, kept_importers=None).importers_by_name
    assert view.importers_by_name == worked_out
    return (view.files, list(view.files), view.import_names, view.imports, view.import_lines,
            view.shared_methods, view.by_string, view.dynamic, worked_out)


def views(repo: Path) -> tuple[tuple, tuple]:
    """The staged view as a run reads it (stored parts, the changed files read again) and
    as read from the records alone."""
    with Store.open(repo) as store:
        indexer.update(store)
        kept = fields(testview.load(store, keep=False))
        resolver = Resolver(store)
        modules = dict(resolver.module_of_path.items())
        fresh = testview.assemble(testviewstore.counted(
            testview.read_parts(store, resolver, store.files(), modules)))
    return kept, fields(fresh)


@pytest.fixture
def reads(monkeypatch) -> list:
    """The `only` argument of every read of parts from the records (None: all files)."""
    seen: list = []
    real = testview.read_parts

    def spy(store, resolver, files, modules, only=None):  # noqa: ANN001, ANN202
        seen.append(None if only is None else sorted(only))
        return real(store, resolver, files, modules, only)

    monkeypatch.setattr(testview, "read_parts", spy)
    return seen


def test_index_keeps_the_view_and_a_check_reads_again_only_the_changed_file(repo, reads):
    with db(repo) as conn:  # the parts and the importers
        assert conn.execute(f"SELECT COUNT(*) FROM {testviewstore.TABLE}").fetchone() == (2,)
    stage(repo, {"app/core.py": FILES["app/core.py"].replace("a + b", "b + a")})
    kept = section(repo)
    assert reads == [["app/core.py"]]
    forget(repo)
    assert section(repo) == kept
    assert reads[-1] is None
    assert [t["id"] for t in kept["tests"]][:2] == ["tests/test_add.py::test_add",
                                                    "tests/test_add.py::test_add_param"]


def test_a_changed_test_file_is_read_again_never_answered_from_its_stored_part(repo):
    stage(repo, {"tests/test_other.py": HALF_TESTED})  # committed after `index` kept it
    git(repo, "commit", "-q", "-m", "test half")
    stage(repo, {"app/core.py": FILES["app/core.py"].replace("n // 2", "n >> 1")})
    kept = section(repo)
    assert [t["id"] for t in kept["tests"]] == ["tests/test_other.py::test_half"]
    forget(repo)
    assert section(repo) == kept
    stage(repo, {"tests/test_other.py": HALF_TESTED.replace("half(4)", "4 // 2")})
    kept, fresh = views(repo)
    assert kept == fresh


def test_a_changed_source_file_and_a_new_one_are_read_again(repo, reads):
    stage(repo, {"app/other.py": "from app.core import half\n\n\ndef unrelated():\n"
                                 "    return half(2)\n",
                 "app/extra.py": "import app.other\n", "tests/test_extra.py": HALF_TESTED})
    git(repo, "rm", "-q", "tests/test_total.py")
    kept, fresh = views(repo)
    assert reads == [["app/extra.py", "app/other.py", "tests/test_extra.py"], None]
    assert kept == fresh
    assert kept[3]["app/other.py"] == frozenset({"app.core.half"})
    assert "tests/test_extra.py" in kept[0] and "tests/test_total.py" not in kept[0]


def test_a_row_of_another_generation_is_never_read(repo, reads):
    with db(repo) as conn:
        conn.execute(f"UPDATE {testviewstore.TABLE} SET key = 'another version' || key")
    stage(repo, {"tests/test_other.py": HALF_TESTED})
    section(repo)
    assert reads == [None]  # everything read from the records, then kept under this key
    with Store.open(repo) as store:
        assert testviewstore.stored(store) is not None
        other_extractor = testviewstore.key(store)
        store.meta_set("extractor", "another extractor")
        assert testviewstore.key(store) != other_extractor
        assert testviewstore.stored(store) is None


@pytest.mark.parametrize("damage", [
    f"UPDATE {testviewstore.TABLE} SET data = x'80059501'",  # a truncated pickle
    f"UPDATE {testviewstore.TABLE} SET data = x'8004950d000000000000005d948c0161946122'"
    "",  # a readable pickle of the wrong shape (a list)
    f"DROP TABLE {testviewstore.TABLE}",
])
def test_a_damaged_or_missing_row_is_read_from_the_records(repo, reads, damage):
    stage(repo, {"app/core.py": FILES["app/core.py"].replace("n // 2", "n >> 1"),
                 "tests/test_other.py": HALF_TESTED})
    expected = section(repo)
    with db(repo) as conn:
        conn.execute(damage)
    reads.clear()
    assert section(repo) == expected
    assert reads == [None]


@pytest.mark.parametrize("damage", [
    "UPDATE {table} SET data = x'80059501' WHERE key = ?",  # a truncated pickle
    "UPDATE {table} SET data = x'8004950d000000000000005d948c0161946122' WHERE key = ?",
    "DELETE FROM {table} WHERE key = ?",
])
def test_importers_are_read_when_first_asked_and_worked_out_when_their_row_is_damaged(
        repo, reads, damage):
    """The importers' row is unpickled at the first look-up, with the changed files moved
    (a new importer, a removed one); a row that cannot be read is worked out from the
    view's parts, which are still read as stored."""
    stage(repo, {"app/other.py": "from app.core import half\n\n\ndef unrelated():\n"
                                 "    return half(2)\n", "app/extra.py": "import app.other\n"})
    git(repo, "rm", "-q", "tests/test_total.py")
    kept, fresh = views(repo)
    assert kept == fresh and reads == [["app/extra.py", "app/other.py"], None]
    assert "app/extra.py" in fresh[-1]["app.other"]
    with db(repo) as conn:
        [importers] = [k for (k,) in conn.execute(f"SELECT key FROM {testviewstore.TABLE}")
                       if k.endswith("\0importers")]
        conn.execute(damage.format(table=testviewstore.TABLE), (importers,))
    reads.clear()
    stage(repo, {"app/extra.py": "import app.core\n"})
    kept, fresh = views(repo)
    assert kept == fresh and reads == [["app/extra.py", "app/other.py"], None]
    assert "app/extra.py" not in fresh[-1].get("app.other", set())
