"""Where an import points (retrievers/importpaths.py), for the languages whose imports name
files and folders; None when the import leaves the repository."""

from __future__ import annotations

import pytest

from maguyva_guard.retrievers.importpaths import ImportPaths, Target

PATHS = ["web/src/api.ts", "web/src/lib/index.ts", "web/src/util/format.js",
         "go/store/store.go", "go/main.go", "java/src/com/acme/store/Store.java",
         "rs/src/lib.rs", "rs/src/store.rs", "rs/src/net/mod.rs", "rs/src/net/http.rs"]


@pytest.mark.parametrize(("language", "importer", "target", "expected"), [
    ("typescript", "web/src/app.ts", "./api", Target("web/src/api.ts")),
    ("typescript", "web/src/app.ts", "./lib", Target("web/src/lib/index.ts")),  # a folder
    ("javascript", "web/src/x/y.js", "../util/format", Target("web/src/util/format.js")),
    ("typescript", "web/src/app.ts", "react", None),  # a package outside
    ("go", "go/main.go", "github.com/acme/tasks/go/store", Target("go/store/")),
    ("go", "go/main.go", "fmt", None),
    ("java", "java/src/com/acme/App.java", "com.acme.store.Store",
     Target("java/src/com/acme/store/Store.java", ("Store",))),
    ("java", "java/src/com/acme/App.java", "com.acme.store.*", Target("java/src/com/acme/store/")),
    ("java", "java/src/com/acme/App.java", "java.util.List", None),
    ("rust", "rs/src/main.rs", "crate::store::Store", Target("rs/src/store.rs", ("Store",))),
    ("rust", "rs/src/net/http.rs", "super::Thing", Target("rs/src/net/mod.rs", ("Thing",))),
    ("rust", "rs/src/net/mod.rs", "self::http::get", Target("rs/src/net/http.rs", ("get",))),
])
def test_an_import_points_at_a_file_or_folder_of_the_repository(
        language: str, importer: str, target: str, expected: Target | None) -> None:
    assert ImportPaths(PATHS).resolve(language, importer, target) == expected


def test_a_folder_lists_its_files() -> None:
    paths = ImportPaths(PATHS)
    assert sorted(paths.folders["go/store/"]) == ["go/store/store.go"]
    assert paths.go_folders[0].count("/") >= paths.go_folders[-1].count("/")  # deepest first
