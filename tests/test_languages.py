"""languages: the registry, extensions, module names, and that every language is complete."""

from __future__ import annotations

from importlib import resources

import pytest
from regen_golden import FIXTURES, sample_path

from maguyva_guard.extract.languages import (
    LANGUAGES,
    language_for,
    module_name,
    qualify,
    query_source,
)
from maguyva_guard.extract.symbols import compile_language


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("pkg/mod.py", "python"),
        ("stubs/mod.pyi", "python"),
        ("a.js", "javascript"),
        ("a.mjs", "javascript"),
        ("a.cjs", "javascript"),
        ("App.jsx", "javascript"),
        ("src/a.ts", "typescript"),
        ("a.mts", "typescript"),
        ("a.cts", "typescript"),
        ("types.d.ts", "typescript"),
        ("App.tsx", "tsx"),
        ("cmd/main.go", "go"),
        ("src/lib.rs", "rust"),
        ("src/main/java/A.java", "java"),
        ("src/lapi.c", "c"),
        ("include/lua.h", "c"),
        ("db/db_impl.cc", "cpp"),
        ("src/a.cpp", "cpp"),
        ("src/a.cxx", "cpp"),
        ("include/a.hpp", "cpp"),
        ("a.hh", "cpp"),
        ("a.hxx", "cpp"),
        ("lib/shop/cart.rb", "ruby"),
        ("tasks/db.rake", "ruby"),
        ("shop.gemspec", "ruby"),
        ("Rakefile", "ruby"),
        ("sub/Gemfile", "ruby"),
        ("src/Models/Cart.php", "php"),
        ("src/App/Program.cs", "csharp"),
        ("src/main/kotlin/A.kt", "kotlin"),
        ("build.gradle.kts", "kotlin"),
        ("src/main/scala/A.scala", "scala"),
        ("script.sc", "scala"),
        ("Sources/App/main.swift", "swift"),
        ("UPPER.PY", "python"),
        ("README.md", None),
        ("Makefile", None),
        (".py", None),
        ("dir.py/file", None),
    ],
)
def test_language_for_extension(path: str, language: str | None) -> None:
    assert language_for(path) == language


@pytest.mark.parametrize(
    ("path", "language", "module"),
    [
        ("pkg/sub/mod.py", "python", "pkg.sub.mod"),
        ("pkg/__init__.py", "python", "pkg"),
        ("src/pkg/mod.py", "python", "src.pkg.mod"),
        ("lib/pkg/mod.pyi", "python", "lib.pkg.mod"),
        ("mod.py", "python", "mod"),
        ("__init__.py", "python", "__init__"),
        ("src/utils/config.ts", "typescript", "src.utils.config"),
        ("src/utils/index.ts", "typescript", "src.utils"),
        ("src/types.d.ts", "typescript", "src.types"),
        ("web/App.tsx", "tsx", "web.App"),
        ("web/index.jsx", "javascript", "web"),
        ("pkg/server/handler.go", "go", "pkg.server"),
        ("main.go", "go", ""),
        ("src/net/tcp.rs", "rust", "src.net.tcp"),
        ("src/net/mod.rs", "rust", "src.net"),
        ("src/lib.rs", "rust", "src"),
        ("src/main.rs", "rust", "src"),
        ("src/main/java/com/acme/Task.java", "java", "src.main.java.com.acme.Task"),
        ("src/Acme/Tasks/Scheduler.cs", "csharp", "src.Acme.Tasks.Scheduler"),
        ("src/main/kotlin/acme/Task.kt", "kotlin", "src.main.kotlin.acme.Task"),
        ("src/main/scala/acme/Task.scala", "scala", "src.main.scala.acme.Task"),
        ("Sources/Acme/Task.swift", "swift", "Sources.Acme.Task"),
        ("./pkg\\win\\mod.py", "python", "pkg.win.mod"),
        ("src/lapi.c", "c", ""),
        ("include/geo/shape.hpp", "cpp", ""),
        # Ruby and PHP name classes by their nesting in the code, not by the file.
        ("lib/shop/cart.rb", "ruby", ""),
        ("src/Models/Cart.php", "php", ""),
    ],
)
def test_module_name(path: str, language: str, module: str) -> None:
    assert module_name(path, language) == module


def test_qualify_joins_possibly_empty_parts() -> None:
    assert qualify("pkg.mod", "Class.method") == "pkg.mod.Class.method"
    assert qualify("", "main") == "main"
    assert qualify("pkg", "") == "pkg"


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_language_has_a_query_file_a_fixture_and_a_golden(language: str) -> None:
    """A golden for every resolved language; the generic tier has one per family."""
    spec = LANGUAGES[language]
    queries = resources.files("maguyva_guard.extract").joinpath("queries")
    assert queries.joinpath(spec.query_file).is_file()
    sample = sample_path(language)  # raises if the fixture is missing
    assert language_for(sample.name) == language
    assert (sample.parent / "expected.json").is_file() or spec.generic
    compile_language(language)  # the query compiles against the grammar


def test_no_fixture_folder_without_a_registered_language() -> None:
    folders = {p.name for p in FIXTURES.iterdir() if p.is_dir()}
    assert folders == set(LANGUAGES)


def test_extensions_are_unique_across_languages() -> None:
    extensions = [ext for spec in LANGUAGES.values() for ext in spec.extensions]
    assert len(extensions) == len(set(extensions))


def test_inherited_query_files_are_included() -> None:
    tsx = query_source("tsx")
    assert "jsx_self_closing_element" in tsx  # from _jsx.scm
    assert "interface_declaration" in tsx  # from typescript.scm
    assert "call_expression function: (identifier)" in tsx  # from _ecma.scm
    assert "jsx_self_closing_element" not in query_source("typescript")
