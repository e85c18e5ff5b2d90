"""Property-based tests (hypothesis): random source files in every registered language (the
generic tier included, its fragments taken from its fixture sample), and
random edits of them, never crash the indexer or the change mapper, and every span they
report lies inside its file.

Files are built from grammar-ish fragments of each language (definitions, nested and
broken ones, calls, imports, comments, strings) mixed with garbage: bytes that are not
UTF-8, NUL bytes, lone CR, form feeds, Unicode line separators, tabs, very long lines. Spans
are 1-based lines; a file of n newline-terminated lines has lines 1..n (git's count).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import GIT_ENV
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maguyva_guard import git
from maguyva_guard.extract import symbols
from maguyva_guard.extract.languages import LANGUAGES as REGISTRY
from maguyva_guard.extract.languages import language_for
from maguyva_guard.guard import changes, impact
from maguyva_guard.index import indexer
from maguyva_guard.index.store import Store
from maguyva_guard.records import REMOVED

HANDWRITTEN = {"python": "py", "javascript": "js", "typescript": "ts", "tsx": "tsx", "go": "go",
               "rust": "rs", "java": "java", "ruby": "rb", "php": "php", "csharp": "cs",
               "kotlin": "kt", "scala": "scala", "swift": "swift", "lua": "lua"}
# Every language of the registry, the generic tier included: an extension each.
EXTENSIONS = {**HANDWRITTEN, **{name: spec.extensions[0][1:] for name, spec in REGISTRY.items()
                                if name not in HANDWRITTEN and spec.extensions}}
LANGUAGES = tuple(EXTENSIONS)

# Per language: fragments with {n} (a name) and {m} (another name).
FRAGMENTS: dict[str, tuple[str, ...]] = {
    "python": (
        "def {n}(a, b=1):\n    return {m}(a)\n", "class {n}({m}):\n    def {m}(self):\n"
        "        return self.{n}()\n", "import {n}\n", "from {n} import {m} as x\n",
        "@{m}\ndef {n}():\n    pass\n", "{n} = {m}()\n", "async def {n}(*a, **k):\n"
        "    await {m}()\n", "    def {n}(:\n", "class {n}:\n    '''doc'''\n    x: {m} = 1\n",
        "if {n}:\n    {m}.{n}()\n", "def {n}(\n", "lambda: {m}(\n", "'''unclosed {n}\n",
    ),
    "javascript": (
        "function {n}(a, b) {{ return {m}(a); }}\n", "class {n} extends {m} {{ {m}() {{ "
        "return this.{n}(); }} }}\n", "import {{ {n} }} from './{m}';\n", "const {n} = "
        "require('{m}');\n", "export default function {n}() {{}}\n", "const {n} = () => "
        "{m}();\n", "function {n}( {{\n", "}}\n", "/* {n}\n", "`${{{m}}}`\n",
    ),
    "typescript": (
        "function {n}(a: number): {m} {{ return {m}(a); }}\n", "interface {n} {{ {m}: string; "
        "}}\n", "type {n} = {m} | null;\n", "export class {n} implements {m} {{ private "
        "{m}(): void {{}} }}\n", "import type {{ {n} }} from '{m}';\n", "enum {n} {{ A, B }}\n",
        "declare module '{n}' {{ export function {m}(): void; }}\n", "function {n}<T(\n",
        "@{m}() class {n} {{}}\n",
    ),
    "tsx": (
        "export function {n}() {{ return <div onClick={{{m}}}>{{{m}()}}</div>; }}\n",
        "const {n} = () => <{m} />;\n", "function {n}(props: {m}) {{ return <a>{{props.x}}"
        "</a>; }}\n", "<div>\n", "class {n} extends React.Component {{ render() {{ return "
        "<{m}/>; }} }}\n",
    ),
    "go": (
        "package {n}\n", "import \"{m}\"\n", "func {n}(a int) int {{ return {m}(a) }}\n",
        "type {n} struct {{ {m} int }}\n", "func (r *{n}) {m}() {{ r.{n}() }}\n", "const {n} = "
        "1\n", "type {n} interface {{ {m}() }}\n", "func {n}( {{\n", "var {n} = {m}.New()\n",
    ),
    "rust": (
        "fn {n}(a: i32) -> i32 {{ {m}(a) }}\n", "struct {n} {{ {m}: u8 }}\n", "impl {n} {{ "
        "pub fn {m}(&self) {{ Self::{n}(); }} }}\n", "use crate::{n}::{m};\n", "trait {n} {{ "
        "fn {m}(&self); }}\n", "#[derive(Debug)]\nenum {n} {{ A, B }}\n", "mod {n} {{ fn {m}() "
        "{{}} }}\n", "fn {n}( {{\n", "macro_rules! {n} {{ () => {{}} }}\n",
    ),
    "java": (
        "package {n};\n", "import {n}.{m};\n", "class {n} extends {m} {{ void {m}() {{ "
        "{n}(); }} }}\n", "interface {n} {{ int {m}(); }}\n", "public class {n} {{ "
        "@Override public String {m}(int a) {{ return this.{m}(a); }} }}\n", "enum {n} "
        "{{ A, B }}\n", "class {n} {{ void {m}( {{\n", "record {n}(int {m}) {{}}\n",
    ),
    "csharp": (
        "namespace {n} {{\n", "using {n}.{m};\n", "public partial class {n} : {m} {{ void "
        "{m}() {{ {n}(); base.{m}(); }} }}\n", "interface {n} {{ int {m}(); }}\n", "struct {n} "
        "{{ public {m} X {{ get; set; }} }}\n", "class {n} {{ public {n}({m} a) {{}} }}\n",
        "class {n} {{ void {m}( {{\n", "record {n}(int {m});\n", "}}\n",
    ),
    "kotlin": (
        "package {n}\n", "import {n}.{m} as x\n", "class {n}(val a: {m}) : {m}() {{ fun {m}() "
        "{{ {n}() }} }}\n", "fun {n}.{m}(): Int = 1\n", "object {n} {{ fun {m}() {{}} }}\n",
        "class {n} {{ companion object {{ fun {m}() = {n}() }} }}\n", "fun {n}( {{\n",
        "interface {n} {{\n    fun {m}()\n}}\n", "val {n} = {m}.x()\n",
    ),
    "scala": (
        "package {n}\n", "import {n}.{{{m} => x, _}}\n", "class {n}(a: {m}) extends {m} {{ def "
        "{m}(): Unit = {n}() }}\n", "object {n} {{ def {m} = new {n}() }}\n", "trait {n} {{ def "
        "{m}: Int }}\n", "extension (s: {n}) def {m}: Int = 1\n", "def {n}( = {{\n",
        "case class {n}({m}: Int)\n",
    ),
    "swift": (
        "import {n}\n", "class {n}: {m} {{ func {m}() {{ self.{n}() }} }}\n", "struct {n} {{ "
        "var {m}: Int }}\n", "extension {n} {{ func {m}() {{}} }}\n", "protocol {n} {{ func "
        "{m}() }}\n", "func {n}(_ a: {m}) -> {m} {{ return {m}(a) }}\n", "class {n} {{ init("
        "{m}: Int) {{}} }}\n", "func {n}( {{\n", "let {n} = {m}()\n",
    ),
}
FRAGMENTS.update({
    "c": (
        "#include \"{n}.h\"\n", "#include <{m}.h>\n",
        "static int {n}(int a) {{ return {m}(a); }}\n",
        "int {n}(void);\n", "struct {n} {{ int {m}; }};\n", "typedef struct {{ int x; }} {n};\n",
        "#define {n}(a) {m}(a)\n", "#define {n} 1\n", "char **{n}(const char *{m}) {{\n",
        "void {n}(int (*{m})(int));\n", "#ifdef {n}\n", "#endif\n", "int {n}( {{\n",
    ),
    "cpp": (
        "namespace {n} {{\n", "}}\n",
        "class {n} : public {m} {{ public: int {m}(int a) const; }};\n",
        "int {n}::{m}(int a) const {{ return this->{m}(a); }}\n", "using namespace {n}::{m};\n",
        "template <typename T> T {n}(T v) {{ return {m}<T>(v); }}\n",
        "void {n}() {{ {m} x(1); {m} *p = new {m}; p->{n}(); {n}::{m}(); }}\n",
        "{n}::{n}(int a) : {m}(a) {{}}\n", "struct {n} {{ virtual ~{n}(); }};\n",
        "void {n}::{m}::{n}() {{\n", "#include \"{n}.hpp\"\n",
    ),
})
FRAGMENTS["ruby"] = (
    "def {n}(a, b = 1)\n  {m}(a)\nend\n", "class {n} < {m}\n  include {m}\n", "end\n",
    "module {n}\n  def self.{m}; end\nend\n", "require_relative '{n}'\n", "{n}.new({m})\n",
    "  def {n}(\n", "{n}::{m}.call\n", "=begin\n", "<<~EOS\n{n}\n", "class {n}::{m}; end\n",
)
FRAGMENTS["lua"] = (
    "local {n} = {{}}\n{n}.__index = {n}\n", "function {n}.{m}(a, b)\n  return {m}(a)\nend\n",
    "function {n}:{m}(...)\n  return self:{n}()\nend\n", "local function {n}(x) return x end\n",
    "{n}.{m} = function(a) end\n", "local {n} = require(\"{m}.x\")\n", "require '{m}'\n",
    "local {n} = {{ {m} = function() end, [1] = 2 }}\n", "return {n}\n", "function {n}(\n",
    "local o = setmetatable({{}}, {n})\no:{m}()\n", "--[[ {n}\n", "end\n", "{n}[[\n",
)
FRAGMENTS["php"] = (
    "<?php\n", "namespace {n}\\{m};\n", "use {n}\\{m} as X;\n", "class {n} extends {m} {{\n",
    "}}\n", "  public function {n}(int $a): {m} {{ return $this->{m}(); }}\n",
    "trait {n} {{ function {m}() {{ self::{n}(); parent::{m}(); }} }}\n", "new {n}();\n",
    "function {n}( {{\n", "use {n}\\{{A, B as C}};\n", "?>\n<b>{n}</b>\n<?php\n",
)


def _sample_fragments(language: str) -> tuple[str, ...]:
    """Fragments for a language without handwritten ones (the generic tier, and any language
    added later): the lines of its fixture sample, its names made random."""
    folder = Path(__file__).parent / "fixtures" / "langs" / language
    sample = next(p for p in sorted(folder.glob("sample.*")) if language_for(p.name) == language)
    text = sample.read_text("utf-8").replace("{", "{{").replace("}", "}}")
    text = text.replace("total", "{n}").replace("helper", "{m}")
    lines = [line + "\n" for line in text.split("\n") if line]
    return (text, *lines)


for _language in LANGUAGES:
    if _language not in FRAGMENTS:
        FRAGMENTS[_language] = _sample_fragments(_language)

GARBAGE = (b"\xff\xfe\x80", b"\x00", b"\r", b"\x0c", "\u2028".encode(), "\u0085".encode(),
           b"\t\t", b"\\", b"\"", b"'", b"{", b"}", b"(", b")", "é😀".encode(),
           b"\xed\xa0\x80", b"x" * 5000, b"\n" * 3, b"\r\n")

names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,11}", fullmatch=True)


@st.composite
def source_files(draw: st.DrawFn, language: str) -> bytes:
    """A file of `language`: fragments with random names, and now and then garbage."""
    parts: list[bytes] = []
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.integers(0, 4)) == 0:
            parts.append(draw(st.sampled_from(GARBAGE)))
        else:
            fragment = draw(st.sampled_from(FRAGMENTS[language]))
            parts.append(fragment.format(n=draw(names), m=draw(names)).encode())
    if draw(st.booleans()):
        parts.append(draw(st.binary(max_size=40)))
    return b"".join(parts)


def line_count(data: bytes) -> int:
    """Lines as git and tree-sitter count them: newline-terminated, plus an unterminated tail."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def assert_inside(start: int, end: int, lines: int, what: object) -> None:
    assert 1 <= start <= end <= max(lines, 1), (start, end, lines, what)


# --- The extractor -----------------------------------------------------------------------


@pytest.mark.parametrize("language", tuple(HANDWRITTEN))
@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_extraction_never_crashes_and_spans_lie_inside_the_file(language, data):
    _extract_inside(data.draw(source_files(language)), language)


# Fewer examples each for the sixty languages of the generic tier: one code path, one query.
@pytest.mark.parametrize("language", tuple(lang for lang in LANGUAGES if lang not in HANDWRITTEN))
@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generic_extraction_never_crashes_and_spans_lie_inside_the_file(language, data):
    _extract_inside(data.draw(source_files(language)), language)


def _extract_inside(source: bytes, language: str) -> None:
    found = symbols.extract(source, language)
    lines = line_count(source)
    for d in found.definitions:
        assert_inside(d.line_start, d.line_end, lines, d)
    for r in found.references:
        assert_inside(r.line, r.line, lines, r)
    for c in found.chunks:
        assert_inside(c.line_start, c.line_end, lines, c)


# --- The change mapper and the guard on a real repository -----------------------------------


class Repo:
    """One repository for every example: each example writes its two sides as commits with
    git's plumbing (no working tree, no index), then maps and checks the diff between them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True)
        self._git("init", "-q", "-b", "main")
        self.store = Store.open(root)

    def _git(self, *args: str, stdin: bytes | None = None) -> str:
        env = {**os.environ, **GIT_ENV}
        proc = subprocess.run(["git", "-C", str(self.root), *args], input=stdin, env=env,
                              capture_output=True, check=True)
        return proc.stdout.decode().strip()

    def commit(self, files: dict[str, bytes], parent: str | None = None) -> str:
        entries = []
        for path, data in sorted(files.items()):
            blob = self._git("hash-object", "-w", "--stdin", stdin=data)
            entries.append(f"100644 blob {blob}\t{path}")
        tree = self._mktree(entries)
        args = ["commit-tree", tree, "-m", "x"] + (["-p", parent] if parent else [])
        return self._git(*args)

    def _mktree(self, entries: list[str]) -> str:
        """Nested trees: mktree takes one level at a time."""
        top: list[str] = []
        nested: dict[str, list[str]] = {}
        for entry in entries:
            meta, path = entry.split("\t", 1)
            head, sep, rest = path.partition("/")
            if sep:
                nested.setdefault(head, []).append(f"{meta}\t{rest}")
            else:
                top.append(entry)
        for folder, inner in nested.items():
            top.append(f"040000 tree {self._mktree(inner)}\t{folder}")
        return self._git("mktree", stdin="".join(f"{e}\n" for e in top).encode())


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Repo:
    return Repo(tmp_path_factory.mktemp("fuzz") / "repo")


@st.composite
def edits(draw: st.DrawFn) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """Two sides of a diff: a few files of any languages, then some changed, added,
    removed or renamed (a line inserted, deleted or replaced; a fresh file)."""
    old: dict[str, bytes] = {}
    for i in range(draw(st.integers(1, 4))):
        language = draw(st.sampled_from(LANGUAGES))
        old[f"src/m{i}.{EXTENSIONS[language]}"] = draw(source_files(language))
    new = dict(old)
    for path in list(old):
        action = draw(st.sampled_from(["keep", "edit", "edit", "remove", "rename"]))
        if action == "remove":
            del new[path]
        elif action == "rename":
            new[path.replace("src/", "moved/")] = new.pop(path)
        elif action == "edit":
            lines = new[path].split(b"\n")
            at = draw(st.integers(0, len(lines)))
            language = language_for(path) or ""
            inserted = draw(source_files(language)).split(b"\n")
            removed = draw(st.integers(0, 3))
            new[path] = b"\n".join(lines[:at] + inserted + lines[at + removed:])
    if draw(st.booleans()):
        language = draw(st.sampled_from(LANGUAGES))
        new[f"src/new.{EXTENSIONS[language]}"] = draw(source_files(language))
    return old, new


def _lines_of(side: dict[str, bytes], path: str) -> int:
    return line_count(side[path])


def assert_changed_spans_inside(changed, old: dict[str, bytes], new: dict[str, bytes]) -> None:
    """Each changed symbol's span lies inside its file, on the side the symbol lives on."""
    for sym in changed:
        side, path = (old, sym.old_path or sym.path) if sym.change == REMOVED else (new, sym.path)
        assert path in side, sym
        assert_inside(sym.line_start, sym.line_end, _lines_of(side, path), sym)


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(sides=edits())
def test_the_change_mapper_never_crashes_and_spans_lie_inside_the_file(repo, sides):
    old, new = sides
    base = repo.commit(old)
    head = repo.commit(new, parent=base)
    store = repo.store
    change_set = changes.compute(str(repo.root), base, head,
                                 lambda blob, path: indexer.symbols_for(store, blob, path),
                                 lambda ids: git.read_blobs(repo.root, ids))
    assert_changed_spans_inside(change_set.changed, old, new)
    for side, defs in ((old, change_set.old_definitions), (new, change_set.new_definitions)):
        for d in defs.values():
            assert_inside(d.line_start, d.line_end, _lines_of(side, d.path), d)


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(sides=edits())
def test_the_guard_never_crashes_and_affected_lines_lie_inside_their_files(repo, sides):
    old, new = sides
    base = repo.commit(old)
    head = repo.commit(new, parent=base)
    result = impact.check(str(repo.root), base=base, head=head)
    assert_changed_spans_inside(result.changed_symbols, old, new)
    for a in result.affected:  # callers at the head, or at the base for removed symbols
        sides_with_path = [s for s in (new, old) if a.path in s]
        assert sides_with_path, a
        assert any(1 <= a.line <= line_count(s[a.path]) for s in sides_with_path), a
    indexer.update_tree(repo.store, head)  # the indexer on the whole head tree, too


SEGMENT = st.text(alphabet="ab._-", min_size=1, max_size=6).filter(lambda s: s not in (".", ".."))


@given(st.lists(SEGMENT, min_size=1, max_size=4))
def test_a_module_path_loses_its_suffix_as_pathlib_would_take_it(parts: list[str]) -> None:
    from pathlib import PurePosixPath

    from maguyva_guard.retrievers.modnames import _without_suffix

    path = "/".join(parts)
    assert _without_suffix(path) == str(PurePosixPath(path).with_suffix(""))
