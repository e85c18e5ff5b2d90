"""`maguyva-guard check` on C#, Kotlin, Scala and Swift repositories: a method's signature
changed, renamed or removed is reported with the same kind as in the other languages, and
with its callers in other files and packages (the repositories of test_graph_managed)."""

from __future__ import annotations

import pytest
from conftest import callers, check_json, edit
from test_graph_managed import CASES

# language -> (file, the target's header, it with a new parameter, it renamed, its body)
EDITS = {
    "csharp": ("src/Storage/Store.Flush.cs", "public void Flush() {",
               "public void Flush(bool sync) {", "public void Sync() {",
               "    public void Flush() {\n      int done = 1;\n    }\n"),
    "kotlin": ("src/main/kotlin/store/Store.kt", "fun close() {",
               "fun close(force: Boolean) {", "fun shut() {",
               "    fun close() {\n        val done = 1\n    }\n"),
    "scala": ("src/main/scala/store/Store.scala", "def close(): Unit = {",
              "def close(force: Boolean): Unit = {", "def shut(): Unit = {",
              "  def close(): Unit = {\n    val done = 1\n  }\n"),
    "swift": ("Sources/Store/Store.swift", "public func close() {",
              "public func close(force: Bool) {", "public func shut() {",
              "    public func close() {\n        let done = 1\n    }\n"),
}


def _paths(language: str) -> set[tuple[str, str]]:
    files, _, expected, _ = CASES[language]
    by_module = {path.rsplit(".", 1)[0].replace("/", "."): path for path in files}
    return {(by_module[".".join(s.split(".")[:-2])], s) for s in expected}


@pytest.mark.parametrize("language", sorted(EDITS))
def test_signature_change_reports_the_callers(make_repo, language):
    files, target, _, not_expected = CASES[language]
    path, line, changed, _, _ = EDITS[language]
    repo = make_repo(files)
    edit(repo, path, line, changed)
    report = check_json(repo)
    changes = {s["qualified_name"]: s["change"] for s in report["changed_symbols"]}
    assert changes[target] == "signature_changed"
    assert _paths(language) <= callers(report)
    assert not {s for _, s in callers(report)} & not_expected


@pytest.mark.parametrize("language", sorted(EDITS))
def test_rename_is_looked_up_on_the_old_side(make_repo, language):
    files, target, _, _ = CASES[language]
    path, line, _, renamed, _ = EDITS[language]
    repo = make_repo(files)
    edit(repo, path, line, renamed)
    report = check_json(repo)
    (sym,) = [s for s in report["changed_symbols"] if s["change"] == "renamed"]
    assert sym["old_name"] == target.rsplit(".", 1)[-1]
    assert _paths(language) <= callers(report)


@pytest.mark.parametrize("language", sorted(EDITS))
def test_removed_method_keeps_its_callers(make_repo, language):
    files, target, _, _ = CASES[language]
    path, _, _, _, whole = EDITS[language]
    repo = make_repo(files)
    edit(repo, path, whole, "")
    report = check_json(repo)
    changes = {s["qualified_name"]: s["change"] for s in report["changed_symbols"]}
    assert changes[target] == "removed"
    # The class around it changed too (a line of its body went); nothing else did.
    assert set(changes) <= {target, target.rsplit(".", 1)[0]}
    assert _paths(language) <= callers(report)


CONSTRUCTED = {
    "src/Store.cs": "namespace N {\n  public class Store {\n    public Store() {}\n  }\n}\n",
    "src/App.cs": (
        "namespace N {\n  public class App {\n    Store field;\n"
        "    public void Run() { var s = new Store(); }\n  }\n}\n"
    ),
}


@pytest.mark.parametrize(("files", "path", "old", "new", "caller"), [
    (CASES["swift"][0], "Sources/Store/Store.swift", "public init() {}",
     "public init(path: String) {}", ("Sources/App/App.swift", "Sources.App.App.App.run")),
    (CONSTRUCTED, "src/Store.cs", "public Store() {}", "public Store(string path) {}",
     ("src/App.cs", "src.App.App.Run")),
], ids=["swift-init", "csharp-constructor"])
def test_a_constructor_change_reaches_the_type_calls_only(make_repo, files, path, old, new,
                                                          caller):
    repo = make_repo(files)
    edit(repo, path, old, new)
    report = check_json(repo)
    assert callers(report) == {caller}  # not a field or parameter typed by the class
