"""The edge cache (retrievers/edgecache.py): a check answers references from the index
while everything their answer read is unchanged, and gives the report it would give
without the cache; an edit re-resolves exactly what depends on it (the import target
changes, a definition moves, a file is renamed), counted in the JSON stats."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import git, write_files
from test_batch import files_of, mark_every_definition

from maguyva_guard.cli import main
from maguyva_guard.guard import batch
from maguyva_guard.index.edgestore import EdgeRow, EdgeRows
from maguyva_guard.index.store import Store


def run_check(repo: Path, *args: str) -> tuple[dict, dict]:
    """(the report without its stats, the stats)."""
    result = CliRunner().invoke(main, ["check", "--repo", str(repo), "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    payload = json.loads(result.stdout)
    return payload, payload.pop("stats")


def uncached(monkeypatch: pytest.MonkeyPatch, repo: Path, *args: str) -> dict:
    monkeypatch.setenv(batch.EDGE_CACHE_ENV, "0")
    payload, stats = run_check(repo, *args)
    monkeypatch.delenv(batch.EDGE_CACHE_ENV)
    assert stats["edges_reused"] == 0
    return payload


def callers(payload: dict) -> set[tuple[str, str, tuple[str, ...]]]:
    return {(a["path"], a["symbol"], tuple(a["because_of"])) for a in payload["affected"]}


@pytest.mark.parametrize("language", ["python", "typescript", "go", "java", "rust"])
def test_cached_and_uncached_reports_are_identical(make_repo, monkeypatch, language):
    repo = make_repo(files_of(language))
    run_check(repo)  # indexes the repository
    mark_every_definition(repo)
    git(repo, "add", "-A")
    plain = uncached(monkeypatch, repo)
    assert plain["affected"], "no caller found: the comparison would prove nothing"
    first, stats = run_check(repo)  # resolves, and keeps the answers
    assert stats["edges_resolved"] > 0 and stats["edges_reused"] == 0
    again, stats = run_check(repo)  # answers them from the index
    assert stats["edges_reused"] > 0 and stats["edges_resolved"] == 0, stats
    assert first == plain and again == plain


HELPER = "def helper(x):\n    return x\n"
MID_A = "from pkg.a import helper\n"
USE = "from pkg.mid import helper\n\n\ndef run():\n    return helper(1)\n"
DIRECT = "from pkg.a import helper\n\n\ndef direct():\n    return helper(2)\n"  # not via mid


def change_signatures(repo: Path, *paths: str) -> None:
    for path in paths:
        text = (repo / path).read_text()
        (repo / path).write_text(text.replace("(x)", "(x, y=0)").replace(", x)", ", x, y=0)"))
        git(repo, "add", path)


def test_the_edge_moves_when_an_imported_module_changes_its_import(make_repo, monkeypatch):
    repo = make_repo({"pkg/__init__.py": "", "pkg/a.py": HELPER, "pkg/b.py": HELPER,
                      "pkg/mid.py": MID_A, "pkg/use.py": USE, "pkg/direct.py": DIRECT})
    change_signatures(repo, "pkg/a.py", "pkg/b.py")
    before, _ = run_check(repo)
    assert ("pkg/use.py", "pkg.use.run", ("pkg.a.helper",)) in callers(before)
    git(repo, "reset", "-q", "--hard")
    (repo / "pkg/mid.py").write_text("from pkg.b import helper\n")  # use.py is unchanged
    git(repo, "commit", "-qam", "mid re-exports b's helper")
    change_signatures(repo, "pkg/a.py", "pkg/b.py")
    after, stats = run_check(repo)
    # direct.py's import and call are answered from the cache; mid.py's import and
    # use.py's (import, call) read mid.py, which changed: resolved again.
    assert (stats["edges_reused"], stats["edges_resolved"]) == (2, 3), stats
    assert ("pkg/use.py", "pkg.use.run", ("pkg.b.helper",)) in callers(after)
    assert ("pkg/use.py", "pkg.use.run", ("pkg.a.helper",)) not in callers(after)
    assert after == uncached(monkeypatch, repo)


def test_the_edge_moves_with_a_definition_moved_to_another_file(make_repo, monkeypatch):
    store = "class Store:\n    def save(self, x):\n        return x\n"
    use = "from pkg.lib import Store\n\n\ndef run():\n    return Store().save(1)\n"
    # Another class's save, called in its own file: nothing it read changes below.
    disk = store.replace("Store", "Disk") + "\n\ndef put():\n    return Disk().save(2)\n"
    repo = make_repo({"pkg/__init__.py": "", "pkg/lib.py": store, "pkg/use.py": use,
                      "pkg/disk.py": disk})
    change_signatures(repo, "pkg/lib.py")
    before, _ = run_check(repo)
    assert callers(before) == {("pkg/use.py", "pkg.use.run", ("pkg.lib.Store.save",))}
    git(repo, "reset", "-q", "--hard")
    write_files(repo, {"pkg/store.py": store, "pkg/lib.py": "from pkg.store import Store\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Store moves to pkg/store.py")
    change_signatures(repo, "pkg/store.py")
    after, stats = run_check(repo)
    assert stats["edges_reused"] == 1, stats  # disk.py's `Disk().save(2)`
    assert callers(after) == {("pkg/use.py", "pkg.use.run", ("pkg.store.Store.save",))}
    assert after == uncached(monkeypatch, repo)


@pytest.mark.parametrize("language", ["python", "typescript"])
def test_the_edge_moves_when_the_imported_file_is_renamed(make_repo, monkeypatch, language):
    """The module keeps its import name, its file changes: `pkg/util.py` becomes
    `pkg/util/__init__.py` (`./util.ts`, `./util/index.ts`); the importer is unchanged."""
    if language == "python":
        old, new, use = "pkg/util.py", "pkg/util/__init__.py", "pkg/use.py"
        files = {"pkg/__init__.py": "", old: HELPER, "pkg/other.py": HELPER,
                 use: "from pkg.util import helper\n\n\ndef run():\n    return helper(1)\n",
                 "pkg/also.py": "from pkg.other import helper\n\n\ndef also():\n"
                                "    return helper(3)\n"}
    else:
        old, new, use = "src/util.ts", "src/util/index.ts", "src/use.ts"
        helper = "export function helper(x) {\n  return x;\n}\n"
        files = {old: helper, "src/other.ts": helper,
                 use: 'import { helper } from "./util";\n\n'
                      "export function run() {\n  return helper(1);\n}\n",
                 "src/also.ts": 'import { helper } from "./other";\n\n'
                                "export function also() {\n  return helper(3);\n}\n"}
    repo = make_repo(files)
    change_signatures(repo, old)
    before, _ = run_check(repo)
    assert {a["path"] for a in before["affected"]} == {use}
    git(repo, "reset", "-q", "--hard")
    (repo / new).parent.mkdir()
    git(repo, "mv", old, new)
    git(repo, "commit", "-qm", "util becomes a package")
    change_signatures(repo, new)
    after, stats = run_check(repo)
    # Python: also.py's import and call asked for the module pkg.other, unchanged; the
    # TypeScript import paths are one question (the set of paths), which a rename changes.
    assert stats["edges_reused"] == (2 if language == "python" else 0), stats
    assert {(a["path"], a["because_of"][0].rsplit(".", 1)[-1]) for a in after["affected"]} \
        == {(use, "helper")}
    assert after == uncached(monkeypatch, repo)


def test_a_one_file_edit_re_resolves_only_that_file_and_its_dependants(make_repo):
    config = "def parse_config(path):\n    return {}\n"
    files = {"pkg/__init__.py": "", "pkg/config.py": config}
    for i in range(6):
        files[f"pkg/use{i}.py"] = ("from pkg.config import parse_config\n\n\n"
                                   f"def use{i}():\n    return parse_config('{i}')\n")
    # Reaches parse_config through use3's import: depends on use3.py too.
    files["pkg/via3.py"] = ("from pkg.use3 import parse_config as pc\n\n\n"
                            "def via():\n    return pc('v')\n")
    repo = make_repo(files)
    (repo / "pkg/config.py").write_text(config.replace("(path)", "(path, strict=False)"))
    git(repo, "add", "-A")
    first, stats = run_check(repo)
    total = stats["edges_resolved"]
    assert total > 0 and stats["edges_reused"] == 0
    write_files(repo, {"pkg/use3.py": files["pkg/use3.py"] + "\n\nEXTRA = 1\n"})
    git(repo, "add", "-A")
    again, stats = run_check(repo)
    assert callers(again) == callers(first)
    # use3.py: its import and its call; via3.py: its import of use3's name, the call
    # `pc('v')` and the same name read in the text (`pc` as a value); the other five
    # files' imports and calls come from the cache.
    assert (stats["edges_resolved"], stats["edges_reused"]) == (5, 10) and total == 15, stats


def test_a_read_only_index_keeps_no_edges_and_raises_nothing(make_repo, tmp_path):
    repo = make_repo({"pkg/__init__.py": "", "pkg/m.py": HELPER})
    with Store.open(repo) as store:
        path = store.path
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    rows = EdgeRows(conn, "code")
    assert rows.save([EdgeRow("file", "site", "[]", '["exact",[]]')]) is False
    assert rows.candidates("file", "site") == []
    conn.close()
