"""Every changed file accounted for: what kind of file it is, and why it was (not) analysed.

A diff is more than code. Prose, package metadata and lock files cannot break a caller;
configuration can, through the keys code reads; a submodule bump, a binary blob under a
source name, a UTF-16 source or a source over the size limit may hide code we could not read,
so the report names them and calls itself a lower bound. Generated code is code: a marked
generated module is parsed like any other (only minified ones are skipped).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from maguyva_guard import git
from maguyva_guard.extract import classify
from maguyva_guard.extract.languages import LANGUAGES
from maguyva_guard.records import ChangedFile, ChangedSymbol, Fallback

CODE: Final = "code"
DOCS: Final = "docs"
METADATA: Final = "metadata"
CONFIG: Final = "config"
GENERATED: Final = "generated"
DATA: Final = "data"
BINARY: Final = "binary"
SUBMODULE: Final = "submodule"
KINDS: Final = (CODE, DOCS, METADATA, CONFIG, GENERATED, DATA, BINARY, SUBMODULE)

ANALYSED: Final = "analysed"
NO_BEHAVIOUR: Final = "analysed-no-behaviour-change"
NOT_ANALYSED: Final = "not-analysed"

SUBMODULE_MODE: Final = "160000"
UTF16_BOMS: Final = (b"\xff\xfe", b"\xfe\xff")

DOC_EXTENSIONS: Final = frozenset(".md .markdown .rst .txt .adoc .asciidoc .tex .rtf".split())
# Prose files that carry no extension, by the start of their name (upper case as written).
DOC_NAMES: Final = ("README", "AUTHORS", "CHANGELOG", "CHANGES", "HISTORY", "NEWS", "LICENSE",
                    "LICENCE", "COPYING", "CONTRIBUTORS", "CONTRIBUTING", "NOTICE", "THANKS",
                    "CODE_OF_CONDUCT", "SECURITY", "MAINTAINERS")
DOC_DIRS: Final = frozenset({"docs", "doc", "documentation"})
METADATA_NAMES: Final = frozenset(
    "PKG-INFO SOURCES.txt MANIFEST.in MANIFEST poetry.lock uv.lock Pipfile.lock pdm.lock "
    "package-lock.json npm-shrinkwrap.json yarn.lock pnpm-lock.yaml bun.lockb Cargo.lock "
    "go.sum Gemfile.lock composer.lock dependency_links.txt top_level.txt requires.txt "
    "entry_points.txt not-zip-safe RECORD WHEEL METADATA".split())
METADATA_DIRS: Final = (".egg-info", ".dist-info")
CONFIG_EXTENSIONS: Final = frozenset(
    ".toml .yaml .yml .json .jsonc .json5 .ini .cfg .cnf .conf .env .properties .editorconfig "
    ".gitignore .gitattributes .flake8 .pylintrc .coveragerc .npmrc .nvmrc .babelrc "
    ".eslintrc .prettierrc".split())
CONFIG_NAMES: Final = frozenset("Makefile Dockerfile Containerfile Jenkinsfile Vagrantfile "
                                "tox.ini setup.cfg Pipfile Gemfile Procfile .python-version"
                                .split())
# Code in languages without symbol support: its changed identifiers are searched for
# mentions. Any other extension is data (certificates, fixtures, catalogues...).
OTHER_CODE_EXTENSIONS: Final = frozenset(
    ".c .h .cc .cpp .cxx .hpp .hh .m .mm .sh .bash .zsh .fish .ps1 .bat .cmd .rb .php .pl .pm "
    ".lua .r .scala .kt .kts .swift .cs .fs .vb .dart .ex .exs .erl .hrl .hs .ml .mli .clj "
    ".groovy .gradle .html .htm .jinja .jinja2 .j2 .mako .tmpl .tpl .vue .svelte .css .scss "
    ".sass .less .pyx .pxd .pxi .zig .nim .jl .f90 .proto .graphql .gql .thrift .cmake "
    ".coffee .elm .sol .v .sv .vhd .asm .s .awk .sed .tcl".split())
METADATA_PREFIXES: Final = ("requirements", "constraints")  # requirements-dev.txt, .in

# Names whose values are release numbers: changing them changes no behaviour a caller sees.
VERSION_NAMES: Final = frozenset(
    {"__version__", "version", "VERSION", "__version_info__", "version_info", "VERSION_INFO",
     "__version_tuple__", "version_tuple", "__date__", "__release__", "__build__"})
_VERSION_NAME = (r"""(__version__|version|VERSION|__version_info__|version_info|VERSION_INFO"""
                 r"""|__version_tuple__|version_tuple|__date__|__release__|__build__)""")
# A chained assignment names several (setuptools_scm's `_version.py`:
# `__version__ = version = '2.3.0'`, `__version_tuple__ = version_tuple = (2, 3, 0)`).
_VERSION_LINE = re.compile(
    rf"""^\s*(?:{_VERSION_NAME}\s*=\s*)*["']?{_VERSION_NAME}["']?\s*[:=]\s*"""
    r"""[\[(]?\s*["']?[\w.+\-, '"]*["']?\s*[\])]?\s*,?\s*$""")


@dataclass(frozen=True)
class Kind:
    """What a changed file is, and, when it cannot be analysed as code, why."""

    kind: str
    blocked: str = ""  # why its code was not read ("" when it was, or it is not code)
    lower_bound: bool = False
    parsed: bool = False  # code in a language with symbol support, parsed


def kind_of(change: git.FileChange, data: bytes, status: str | None, size: int,
            language: str | None) -> Kind:
    """Classify one changed path from its (newest existing) blob and the index's verdict."""
    path = change.new_path or change.old_path
    if SUBMODULE_MODE in (change.old_mode, change.new_mode):
        return Kind(SUBMODULE, _submodule_move(change) + ": its code is not analysed", True)
    if language is not None:
        return _source_kind(path, data, status, size, language)
    if data.startswith(UTF16_BOMS):
        return Kind(BINARY, "UTF-16 text: not decoded", False)
    if (classify.binary_by_name(path) or classify.is_binary(data)
            or status == classify.SKIPPED_BINARY):
        return Kind(BINARY, "binary file")
    kind = path_kind(path)
    return Kind(CODE if kind == DATA and data.startswith(b"#!") else kind)  # a script


def _submodule_move(change: git.FileChange) -> str:
    old, new = change.old_blob[:12], change.new_blob[:12]
    if change.old_mode != SUBMODULE_MODE or not old.strip("0"):
        return f"submodule added at {new}"
    if change.new_mode != SUBMODULE_MODE or not new.strip("0"):
        return f"submodule removed (was at {old})"
    return f"submodule moved from {old} to {new}"


def _source_kind(path: str, data: bytes, status: str | None, size: int, language: str) -> Kind:
    """A path in a supported language that the index could not parse hides code."""
    if data.startswith(UTF16_BOMS):
        return Kind(CODE, "UTF-16 encoded source: not decoded, not parsed", True)
    if status == classify.SKIPPED_SIZE:
        return Kind(CODE, f"over the size limit ({size:,} bytes): not parsed", True)
    if status == classify.SKIPPED_BINARY or classify.is_binary(data):
        return Kind(BINARY, f"binary content under a {language} file name: not parsed", True)
    if status == classify.SKIPPED_GENERATED:
        return Kind(GENERATED, "minified or very long lines: not parsed", True)
    if status == classify.SKIPPED_ERROR:
        return Kind(CODE, "the parser failed on it: not parsed", True)
    if classify.looks_generated(data) or classify.path_category(path) == classify.GENERATED:
        return Kind(GENERATED, parsed=True)
    # The generic tier: its symbols are pinned, but their callers are matched by name only.
    return Kind(CODE, parsed=True, lower_bound=LANGUAGES[language].generic)


def path_kind(path: str) -> str:
    """docs, metadata, config or data, from the path of a file in no supported language."""
    parts = path.split("/")
    name = parts[-1]
    dot = name.rfind(".")
    ext = name[dot:].lower() if dot > 0 else ""
    if name in METADATA_NAMES or any(p.endswith(METADATA_DIRS) for p in parts[:-1]) or (
            name.startswith(METADATA_PREFIXES) and ext in (".txt", ".in")):
        return METADATA
    if ext in DOC_EXTENSIONS or name.upper().startswith(DOC_NAMES):
        return DOCS
    if name in CONFIG_NAMES or ext in CONFIG_EXTENSIONS or (dot == 0 and len(parts) >= 1):
        return CONFIG
    if ext in OTHER_CODE_EXTENSIONS:
        return CODE  # a language without symbol support: searched for mentions
    if any(p.lower() in DOC_DIRS for p in parts[:-1]):
        return DOCS
    return DATA


def is_version_line(line: str) -> bool:
    """`__version__ = "1.2.3"`, `version = "1.2.3"` (TOML), `"version": "1.2.3",` (JSON)."""
    return bool(_VERSION_LINE.match(line))


def accounted(changes: Iterable[git.FileChange], kinds: Mapping[str, Kind],
              changed: Iterable[ChangedSymbol], fallbacks: Iterable[Fallback],
              version_only: Callable[[str], bool]) -> tuple[ChangedFile, ...]:
    """One entry per changed path, in diff order: how it was treated and why."""
    per_path: dict[str, int] = {}
    for sym in changed:
        for p in {sym.path, sym.old_path or sym.path}:
            per_path[p] = per_path.get(p, 0) + 1
    fell_back = {f.path for f in fallbacks}
    out = []
    for change in changes:
        path = change.new_path or change.old_path
        k = kinds.get(path, Kind(path_kind(path)))
        count = per_path.get(path, 0) + (per_path.get(change.old_path, 0)
                                        if change.old_path != path else 0)
        out.append(_entry(path, k, count, path in fell_back, version_only(path)))
    return tuple(out)


def _entry(path: str, k: Kind, count: int, fell_back: bool, version: bool) -> ChangedFile:
    if k.blocked:
        return ChangedFile(path, k.kind, NOT_ANALYSED, k.blocked, 0, k.lower_bound)
    if k.kind == CODE and not k.parsed:
        why = "no symbol support for this file type"
        return ChangedFile(path, k.kind, NOT_ANALYSED,
                           why + ("; identifiers searched for mentions" if fell_back else ""))
    if k.kind in (CODE, GENERATED, CONFIG) and (count or fell_back):
        parts = [f"{count} changed symbol{'s' if count != 1 else ''}"] if count else []
        if fell_back:
            what = "changed keys" if k.kind == CONFIG else "module-level code"
            parts.append(f"{what} searched for mentions")
        if k.lower_bound:
            parts.append(GENERIC_TIER)
        return ChangedFile(path, k.kind, ANALYSED, "; ".join(parts), count, k.lower_bound)
    if k.kind in (CODE, GENERATED):
        why = "version string only" if version else "comments, docstrings or whitespace only"
        return ChangedFile(path, k.kind, NO_BEHAVIOUR, why)
    if k.kind == CONFIG:
        why = "version string only" if version else "no key that code names changed"
        return ChangedFile(path, k.kind, NO_BEHAVIOUR, why)
    return ChangedFile(path, k.kind, NOT_ANALYSED, REASONS[k.kind])


GENERIC_TIER: Final = "generic tier: callers matched by name only"

REASONS: Final = {
    DOCS: "documentation, cannot change behaviour",
    METADATA: "package metadata or lock file, cannot change behaviour",
    DATA: "data, not analysed",
    BINARY: "binary file",
}
