"""The language registry: which files are which language, and how their modules are named.

Languages are data (STYLE 8): a row here, a query file `queries/<name>.scm` and a fixture
`tests/fixtures/langs/<name>/` are all it takes to add one; symbols.py has a single code path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from maguyva_guard.extract.generic import GENERIC


@dataclass(frozen=True)
class LanguageSpec:
    """One row of the registry.

    `wrappers`: node types that wrap a single definition and belong to its span (Python's
    decorated_definition, JS `export`, Go's `type`/`const` around a lone spec).
    `leading`: sibling node types just before a definition that belong to it (TS method
    decorators, Rust `#[attributes]`).
    `import_style`: which flattener of imports.py reads this language's import nodes.
    `package_scope`: names of the same package are visible in other files without an import
    (Go). Then a plain identifier use is kept unless it is a local (@local captures);
    elsewhere it is kept only when the file binds the name (a definition or an import) or
    the name is capitalised, which drops locals, parameters and most builtins without
    capturing them.
    """

    name: str
    grammar: str  # the name tree_sitter_language_pack knows it by
    extensions: tuple[str, ...]
    query_file: str  # inside maguyva_guard/queries/
    import_style: str
    comment_types: tuple[str, ...] = ("comment",)
    wrappers: tuple[str, ...] = ()
    leading: tuple[str, ...] = ()
    docstrings: bool = False  # a leading string in the body is the doc (Python)
    package_scope: bool = False
    filenames: tuple[str, ...] = ()  # whole file names without a telling extension (Rakefile)
    generic: bool = False  # the generic tier (generic.py): definitions, calls by name only
    # A type name that a @local of an enclosing definition binds is that type parameter,
    # not a reference (Scala: `def f[A](a: A)`); symbols.py drops it.
    local_types: bool = False


_ECMA_WRAPPERS: Final = ("export_statement", "lexical_declaration", "variable_declaration")

LANGUAGES: Final[dict[str, LanguageSpec]] = {
    spec.name: spec
    for spec in (
        LanguageSpec(
            "python", "python", (".py", ".pyi"), "python.scm", "python",
            wrappers=("decorated_definition",), docstrings=True,
        ),
        LanguageSpec(
            "javascript", "javascript", (".js", ".mjs", ".cjs", ".jsx"), "javascript.scm", "js",
            wrappers=_ECMA_WRAPPERS, leading=("decorator",),
        ),
        LanguageSpec(
            "typescript", "typescript", (".ts", ".mts", ".cts"), "typescript.scm", "js",
            wrappers=_ECMA_WRAPPERS + ("ambient_declaration",), leading=("decorator",),
        ),
        LanguageSpec(
            "tsx", "tsx", (".tsx",), "tsx.scm", "js",
            wrappers=_ECMA_WRAPPERS + ("ambient_declaration",), leading=("decorator",),
        ),
        LanguageSpec(
            "go", "go", (".go",), "go.scm", "go",
            wrappers=("type_declaration", "const_declaration"), package_scope=True,
        ),
        LanguageSpec(
            "rust", "rust", (".rs",), "rust.scm", "rust",
            comment_types=("line_comment", "block_comment"), leading=("attribute_item",),
        ),
        LanguageSpec(
            "java", "java", (".java",), "java.scm", "java",
            comment_types=("line_comment", "block_comment"),
        ),
        # `.h` is C by name; extract/detect.py reads a header's bytes to tell C++ apart.
        LanguageSpec("c", "c", (".c", ".h"), "c.scm", "c", package_scope=True),
        LanguageSpec(
            "cpp", "cpp", (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++"),
            "cpp.scm", "c", wrappers=("template_declaration",), package_scope=True,
        ),
        LanguageSpec(
            "ruby", "ruby", (".rb", ".rake", ".gemspec"), "ruby.scm", "ruby",
                    filenames=("Rakefile", "Gemfile"), package_scope=True,
        ),
        LanguageSpec("php", "php", (".php",), "php.scm", "php"),
        LanguageSpec("lua", "lua", (".lua",), "lua.scm", "lua"),
        # C#, Kotlin, Scala, Swift: names are qualified by path as in Java; their
        # namespaces, packages and modules are read by retrievers/namespaces.py.
        LanguageSpec("csharp", "csharp", (".cs",), "csharp.scm", "csharp"),
        LanguageSpec(
            "kotlin", "kotlin", (".kt", ".kts"), "kotlin.scm", "kotlin",
            comment_types=("line_comment", "multiline_comment"),
        ),
        LanguageSpec(
            "scala", "scala", (".scala", ".sc"), "scala.scm", "scala",
            comment_types=("comment", "block_comment"), local_types=True,
        ),
        LanguageSpec(
            "swift", "swift", (".swift",), "swift.scm", "swift",
            comment_types=("comment", "multiline_comment"),
        ),
        *(
            LanguageSpec(
                g.name, g.name, g.extensions, f"generic/{g.name}.scm", "",
                comment_types=g.comment_types, filenames=g.filenames, generic=True,
            )
            for g in GENERIC
        ),
    )
}

_BY_EXTENSION: Final = {ext: spec.name for spec in LANGUAGES.values() for ext in spec.extensions}
_BY_FILENAME: Final = {name: spec.name for spec in LANGUAGES.values() for name in spec.filenames}
# Languages whose qualified names come from the code's own nesting (Ruby constants, PHP
# classes), not from the file's path: a Ruby class reopened in another file is one class.
_NO_PATH_PREFIX: Final = frozenset({"ruby", "php"})

# File names that stand for their folder, per language.
_FOLDER_FILES: Final[dict[str, frozenset[str]]] = {
    "python": frozenset({"__init__"}),
    "javascript": frozenset({"index"}),
    "typescript": frozenset({"index"}),
    "tsx": frozenset({"index"}),
    "rust": frozenset({"mod", "lib", "main"}),
    "lua": frozenset({"init"}),  # `require "a.b"` loads a/b.lua or a/b/init.lua
}

# Languages whose names live in one namespace for the whole program, whatever the file
# (C, and C++ outside its `namespace` blocks): no module prefix.
GLOBAL_NAMESPACE: Final = frozenset({"c", "cpp"})

# A query file may start with "; inherits: a, b" to include shared files (the JS family).
_INHERITS: Final = re.compile(r"^;\s*inherits:\s*(.+)$", re.MULTILINE)


def language_for(path: str) -> str | None:
    """The registry name of the language of `path`, by extension (or, for a file without
    one, by the shebang line the index read: note_detected); None when unsupported."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    if dot <= 0:
        return _BY_FILENAME.get(name) or (_DETECTED.get(path) if _DETECTED else None)
    return _BY_EXTENSION.get(name[dot:].lower())


# Extension-less paths of the current view whose bytes named their language (a shebang):
# the index records it per blob (extract/detect.py) and the view's reader notes it here, so
# that resolution, which goes by path, treats `bin/tool` as the Python it is.
_DETECTED: dict[str, str] = {}


def note_detected(files: Iterable[tuple[str, str | None]]) -> None:
    """Remember the languages of the extension-less paths among (path, language) pairs."""
    _DETECTED.clear()
    for path, language in files:
        if language and "." not in path.rsplit("/", 1)[-1][1:]:
            _DETECTED[path] = language


def module_name(path: str, language: str) -> str:
    """The dotted module prefix of a repository path ("pkg/sub/mod.py" -> "pkg.sub.mod").

    Folder-marker files (`__init__.py`, `index.ts`, `mod.rs`/`lib.rs`/`main.rs`) name their
    folder; Go names the directory, so a Go file at the repository root gives "". Leading
    "src/" or "lib/" segments are kept: we do not guess the package root.
    """
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if not parts:
        return ""
    *folders, filename = parts
    if language == "go":
        return ".".join(folders)
    if language in _NO_PATH_PREFIX or language in GLOBAL_NAMESPACE:
        return ""
    stem = filename.rsplit(".", 1)[0] if "." in filename[1:] else filename
    if language in ("typescript", "tsx") and stem.endswith(".d"):
        stem = stem[: -len(".d")]  # "types.d.ts" declares the module "types"
    if folders and stem in _FOLDER_FILES.get(language, ()):
        return ".".join(folders)
    return ".".join([*folders, stem])


def qualify(module: str, local: str) -> str:
    """Join a module prefix and a local qualified name, either of which may be empty."""
    if module and local:
        return f"{module}.{local}"
    return module or local


QUERY_DIR: Final = Path(__file__).with_name("queries")


def query_source(language: str) -> str:
    """The text of a language's query file, with its `; inherits:` files prepended."""
    return _read_query(LANGUAGES[language].query_file, ())


def _read_query(filename: str, seen: tuple[str, ...]) -> str:
    if filename in seen:  # a cycle in "inherits" lines; stop rather than recurse forever
        return ""
    # A plain path, not importlib.resources: importing that costs ~10 ms of every run, and
    # the package always sits in a folder (its grammars are native libraries).
    text = (QUERY_DIR / filename).read_text("utf-8")
    parts = []
    for match in _INHERITS.finditer(text):
        for base in match.group(1).split(","):
            parts.append(_read_query(base.strip() + ".scm", (*seen, filename)))
    parts.append(text)
    return "\n".join(parts)
