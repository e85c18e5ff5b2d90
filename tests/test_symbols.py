"""symbols.extract: golden fixtures per language, targeted constructs, and robustness."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from regen_golden import golden, golden_languages, sample_path

from maguyva_guard.extract.chunks import CHUNK_MAX_LINES, CHUNK_OVERLAP_LINES, CHUNK_WINDOW_LINES
from maguyva_guard.extract.languages import LANGUAGES
from maguyva_guard.extract.symbols import extract
from maguyva_guard.records import (
    ANNOTATION,
    CALL,
    CLASS,
    CONSTANT,
    DECORATOR,
    FUNCTION,
    IMPORT,
    INHERIT,
    INTERFACE,
    METHOD,
    STRING,
    TYPE,
    USE,
    FileSymbols,
    Reference,
)


def _py(source: str) -> FileSymbols:
    return extract(source.encode(), "python")


def _refs(symbols: FileSymbols, kind: str) -> list[Reference]:
    return [r for r in symbols.references if r.kind == kind]


def _definition(symbols: FileSymbols, qualified_name: str):  # noqa: ANN202 - test helper
    found = [d for d in symbols.definitions if d.qualified_name == qualified_name]
    assert len(found) == 1, [d.qualified_name for d in symbols.definitions]
    return found[0]


# ---- golden fixtures ---------------------------------------------------------------------


@pytest.mark.parametrize("language", golden_languages())
def test_fixture_matches_its_checked_golden(language: str) -> None:
    sample = sample_path(language)
    expected = json.loads((sample.parent / "expected.json").read_text(encoding="utf-8"))
    assert golden(extract(sample.read_bytes(), language)) == expected


@pytest.mark.parametrize("language", golden_languages())
def test_the_index_rows_of_a_fixture_are_those_of_its_records(language: str) -> None:
    """Parse workers write each reference from its fields (extract_fields), not from a
    Reference: the rows are those of extract()'s records, field for field."""
    from maguyva_guard.extract.symbols import extract_fields
    from maguyva_guard.index.writer import symbol_rows

    source = sample_path(language).read_bytes()
    by_fields = symbol_rows(7, extract_fields(source, language))
    by_records = symbol_rows(7, extract(source, language))
    assert by_fields.refs or LANGUAGES[language].generic  # the full tier's have references
    assert by_fields == by_records


@pytest.mark.parametrize("language", sorted(k for k, v in LANGUAGES.items() if not v.generic))
def test_fixture_exercises_every_kind_of_record(language: str) -> None:
    symbols = extract(sample_path(language).read_bytes(), language)
    reference_kinds = {r.kind for r in symbols.references}
    assert {CALL, IMPORT, USE} <= reference_kinds
    assert {d.kind for d in symbols.definitions} & {FUNCTION, METHOD}
    assert symbols.parse_errors == 0
    assert all(r.path == "" for r in symbols.references)
    assert all(d.path == "" for d in symbols.definitions)


# ---- Python constructs -------------------------------------------------------------------


def test_python_imports_bind_names_as_python_does() -> None:
    symbols = _py(
        "import a.b\nimport a.b as c\nfrom x.y import z as w\nfrom ..p import q\n"
        "from . import r\nfrom m import *\n"
    )
    imports = [(r.name, r.target, r.alias) for r in _refs(symbols, IMPORT)]
    assert imports == [
        ("b", "a.b", "a"),
        ("b", "a.b", "c"),
        ("z", "x.y.z", "w"),
        ("q", "..p.q", "q"),
        ("r", ".r", "r"),
        ("*", "m.*", "*"),
    ]


def test_python_receivers_are_written_as_in_the_source() -> None:
    symbols = _py(
        "import os\nclass A(B):\n    def f(self):\n        self.g()\n        super().h()\n"
        "        os.path.join('a')\n        self.client.get()\n        Foo().run()\n"
        "        qs.filter(a=1)\\\n            .order_by('x')\n"
    )
    calls = {r.name: r.receiver for r in _refs(symbols, CALL)}
    assert calls["g"] == "self"
    assert calls["h"] == "super()"
    assert calls["join"] == "os.path"
    assert calls["get"] == "self.client"
    assert calls["run"] == "Foo()"
    assert calls["order_by"] == "qs.filter(a=1)"
    assert calls["Foo"] == ""
    assert {r.scope for r in _refs(symbols, CALL)} == {"A.f"}


def test_python_qualified_names_kinds_and_parents() -> None:
    symbols = _py(
        "class A:\n    class Inner:\n        def m(self):\n            def helper():\n"
        "                pass\n\ndef f():\n    pass\nMAX = 1\nlower = 2\n"
    )
    kinds = {d.qualified_name: (d.kind, d.parent) for d in symbols.definitions}
    assert kinds == {
        "A": (CLASS, ""),
        "A.Inner": (CLASS, "A"),
        "A.Inner.m": (METHOD, "A.Inner"),
        "A.Inner.m.helper": (FUNCTION, "A.Inner.m"),
        "f": (FUNCTION, ""),
        "MAX": (CONSTANT, ""),
    }


def test_decorators_belong_to_the_definition_span() -> None:
    symbols = _py("\n@app.route('/x')\n@login_required\ndef view(request):\n    return 1\n")
    view = _definition(symbols, "view")
    assert (view.line_start, view.line_end) == (2, 5)
    assert view.signature == "@app.route('/x') @login_required def view(request)"
    decorators = [(r.name, r.receiver, r.scope) for r in _refs(symbols, DECORATOR)]
    assert decorators == [("route", "app", "view"), ("login_required", "", "view")]
    assert not _refs(symbols, CALL)  # `@app.route(...)` is a decorator, not also a call


def test_signature_ignores_the_body_and_tracks_the_header() -> None:
    base = "def f(a, b=1) -> int:\n    return a\n"
    signature = _definition(_py(base), "f").signature
    assert signature == "def f(a, b=1) -> int"
    body_edit = "def f(a, b=1) -> int:\n    return a + b\n    # x\n"
    assert _definition(_py(body_edit), "f").signature == signature
    assert _definition(_py("def  f(a,\n      b=1)->int :\n    return a\n"), "f").signature != ""
    reflowed = "def f(\n    a,\n    b=1,\n) -> int:  # why\n    return a\n"
    assert _definition(_py(reflowed), "f").signature == signature
    tuple_default = _definition(_py("def f(a, b=(1,)):\n    pass\n"), "f").signature
    assert tuple_default == "def f(a, b=(1,))"
    for changed in (
        "def f(a, b=2) -> int:\n    return a\n",
        "def f(a, b=1) -> str:\n    return a\n",
        "@cache\ndef f(a, b=1) -> int:\n    return a\n",
        "async def f(a, b=1) -> int:\n    return a\n",
    ):
        assert _definition(_py(changed), "f").signature != signature, changed


def test_docstring_first_paragraph_and_class_bases() -> None:
    symbols = _py(
        'class A(B, mod.C, metaclass=M):\n    """First line\n    continues.\n\n    Not this."""\n'
    )
    a = _definition(symbols, "A")
    assert a.doc == "First line continues."
    assert a.bases == ("B", "mod.C")
    inherits = [(r.name, r.receiver) for r in _refs(symbols, INHERIT)]
    assert inherits == [("B", ""), ("C", "mod")]


def test_string_annotations_are_read_for_identifiers() -> None:
    symbols = _py(
        "def f(t: 'Task', u: \"Optional[models.Job]\") -> List[Task]:\n    x: 'Queue' = g()\n"
    )
    annotations = [(r.name, r.receiver) for r in _refs(symbols, ANNOTATION)]
    assert annotations == [
        ("Task", ""),
        ("Optional", ""),
        ("Job", "models"),
        ("List", ""),
        ("Task", ""),
        ("Queue", ""),
    ]
    assert {r.scope for r in _refs(symbols, ANNOTATION)} == {"f"}


def test_mock_patch_strings_name_a_dotted_path() -> None:
    symbols = _py("@mock.patch('pkg.mod.func')\ndef test_x(m):\n    print('not a.path!')\n")
    (string,) = _refs(symbols, STRING)
    assert (string.name, string.receiver, string.target) == ("func", "pkg.mod", "pkg.mod.func")
    assert string.scope == "test_x"


def test_uses_of_names_passed_as_values() -> None:
    symbols = _py(
        "import mod\nfrom h import handler\nclass Foo: pass\n"
        "def f(x, local_fn):\n    y = 1\n    isinstance(x, Foo)\n    callbacks = [handler, y]\n"
        "    z = mod.CONST\n    run(local_fn, x)\n    handler()\n"
    )
    uses = [(r.name, r.receiver, r.scope) for r in _refs(symbols, USE)]
    assert uses == [("Foo", "", "f"), ("handler", "", "f"), ("CONST", "mod", "f")]
    # the callee of a call is a call, never also a use
    assert ("handler", CALL) in {(r.name, r.kind) for r in symbols.references}


# ---- other languages ---------------------------------------------------------------------


def test_go_methods_are_qualified_by_their_receiver_type() -> None:
    source = (
        "package p\nimport log \"github.com/a/log/v2\"\n"
        "func (s *Server) Start() error { return s.run() }\n"
        "func (s Server) Stop() { log.Print(\"x\") }\n"
    )
    symbols = extract(source.encode(), "go")
    start = _definition(symbols, "Server.Start")
    assert (start.kind, start.parent) == (METHOD, "Server")
    assert _definition(symbols, "Server.Stop").kind == METHOD
    calls = {r.name: (r.receiver, r.scope) for r in _refs(symbols, CALL)}
    assert calls == {"run": ("s", "Server.Start"), "Print": ("log", "Server.Stop")}
    (imported,) = _refs(symbols, IMPORT)
    assert (imported.name, imported.target, imported.alias) == (
        "log",
        "github.com/a/log/v2",
        "log",
    )


def test_rust_impl_methods_use_trees_and_paths() -> None:
    source = (
        "use a::b::{c, d as e, f::{self, G}};\nstruct T;\ntrait Tr { fn m(&self); }\n"
        "impl T { fn new() -> Self { T::helper(); Vec::<u8>::new() } }\n"
        "impl Tr for T { fn m(&self) {} }\n"
    )
    symbols = extract(source.encode(), "rust")
    imports = [(r.name, r.target, r.alias) for r in _refs(symbols, IMPORT)]
    assert imports == [
        ("c", "a::b::c", "c"),
        ("d", "a::b::d", "e"),
        ("f", "a::b::f", "f"),
        ("G", "a::b::f::G", "G"),
    ]
    kinds = {d.qualified_name: d.kind for d in symbols.definitions}
    assert kinds == {"T": TYPE, "Tr": INTERFACE, "Tr.m": METHOD, "T.new": METHOD, "T.m": METHOD}
    calls = {r.name: r.receiver for r in _refs(symbols, CALL)}
    assert calls == {"helper": "T", "new": "Vec::<u8>"}
    (inherit,) = _refs(symbols, INHERIT)
    assert (inherit.name, inherit.scope) == ("Tr", "T")
    by_reference = extract(b"impl<'a> Tr for &'a mut T<u8> { fn m(&self) {} }", "rust")
    assert [d.qualified_name for d in by_reference.definitions] == ["T.m"]


def test_javascript_new_require_and_arrow_functions() -> None:
    source = (
        'const fs = require("fs");\nconst { a, b: c } = require("./m");\n'
        "export const make = (x) => new Foo(x);\nconst LIMIT = 10;\n"
    )
    symbols = extract(source.encode(), "javascript")
    imports = [(r.name, r.target, r.alias) for r in _refs(symbols, IMPORT)]
    assert imports == [("default", "fs", "fs"), ("a", "./m", "a"), ("b", "./m", "c")]
    kinds = {d.qualified_name: (d.kind, d.signature) for d in symbols.definitions}
    assert kinds == {
        "make": (FUNCTION, "export const make = (x) =>"),
        "LIMIT": (CONSTANT, "const LIMIT"),
    }
    assert ("Foo", "make") in {(r.name, r.scope) for r in _refs(symbols, CALL)}


def test_java_constants_constructors_and_static_imports() -> None:
    source = (
        "import static org.junit.Assert.assertEquals;\nclass A extends B {\n"
        "  static final int MAX = 1;\n  final int notConstant = 2;\n  A() { super(); }\n}\n"
    )
    symbols = extract(source.encode(), "java")
    kinds = {d.qualified_name: d.kind for d in symbols.definitions}
    assert kinds == {"A": CLASS, "A.MAX": CONSTANT, "A.A": METHOD}
    (imported,) = _refs(symbols, IMPORT)
    assert imported.target == "org.junit.Assert.assertEquals"


# ---- chunks ------------------------------------------------------------------------------


def test_long_bodies_become_overlapping_windows() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(CHUNK_MAX_LINES + 40))
    source = "import os\n\n\ndef long():\n" + body + "\nTAIL = 1\n"
    symbols = _py(source)
    windows = [c for c in symbols.chunks if c.symbol == "long"]
    assert len(windows) > 1
    assert all(c.line_end - c.line_start + 1 <= CHUNK_WINDOW_LINES for c in windows)
    for first, second in zip(windows, windows[1:], strict=False):
        assert first.line_end - second.line_start + 1 == CHUNK_OVERLAP_LINES
    assert windows[0].line_start == 4
    assert windows[-1].line_end == _definition(symbols, "long").line_end
    module = [(c.line_start, c.line_end, c.text) for c in symbols.chunks if c.symbol == ""]
    assert module[0] == (1, 1, "import os")
    assert module[-1][2] == "TAIL = 1"


def test_class_chunk_is_its_header_up_to_the_first_method() -> None:
    symbols = _py('class A:\n    """Doc."""\n    x = 1\n\n    def m(self):\n        pass\n')
    chunks = {c.symbol: (c.line_start, c.line_end) for c in symbols.chunks}
    assert chunks == {"A": (1, 4), "A.m": (5, 6)}


# ---- robustness --------------------------------------------------------------------------


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_truncated_files_never_raise(language: str) -> None:
    data = sample_path(language).read_bytes() + "\n// é ü 名前\n".encode()
    step = max(1, len(data) // 60)
    for cut in [*range(0, len(data), step), len(data) - 1, len(data) - 2]:
        symbols = extract(data[:cut], language)
        lines = data[:cut].count(b"\n") + 1
        for definition in symbols.definitions:
            assert 1 <= definition.line_start <= definition.line_end <= lines
        for chunk in symbols.chunks:
            assert 1 <= chunk.line_start <= chunk.line_end <= lines


def test_syntax_errors_are_counted_not_raised() -> None:
    symbols = _py("def ok():\n    pass\n\ndef broken(:\n    return )(\n")
    assert symbols.parse_errors > 0
    assert "ok" in {d.qualified_name for d in symbols.definitions}


def test_invalid_utf8_is_replaced_in_text_fields() -> None:
    symbols = extract(b"def f():\n    '''caf\xe9 \xff'''\n    g('\xfe')\n", "python")
    assert _definition(symbols, "f").doc == "caf\ufffd \ufffd"
    assert "\ufffd" in symbols.chunks[0].text


def test_unknown_language_gives_empty_symbols() -> None:
    assert extract(b"whatever", "cobol") == FileSymbols(language="cobol")


# The hypothesis tests run on every language with a golden: the resolved ones and one per
# family of the generic tier (test_fuzz.py gives every generic language random files).
@pytest.mark.parametrize("language", golden_languages())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=600))
def test_garbage_bytes_never_raise(language: str, data: bytes) -> None:
    symbols = extract(data, language)
    assert symbols.language == language


@pytest.mark.parametrize("language", golden_languages())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cuts=st.lists(st.integers(min_value=0, max_value=4000), min_size=1, max_size=6))
def test_spliced_fixture_fragments_never_raise(language: str, cuts: list[int]) -> None:
    # Real-looking tokens in a broken order reach far more grammar states than random bytes.
    data = sample_path(language).read_bytes()
    pieces = [data[c % len(data) : (c * 7) % len(data)] for c in cuts]
    extract(b"".join(pieces), language)


def test_threads_extract_concurrently_with_the_same_results() -> None:
    blobs = [(sample_path(language).read_bytes(), language) for language in sorted(LANGUAGES)]
    expected = [extract(data, language) for data, language in blobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda pair: extract(*pair), blobs * 4))
    assert results == expected * 4
