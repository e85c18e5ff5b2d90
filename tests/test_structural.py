"""The structural retriever: name tiers, kind hints, signatures, categories."""

from __future__ import annotations

import pytest

from maguyva_guard.index import indexer
from maguyva_guard.index.store import Store
from maguyva_guard.records import Definition
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.retrievers.structural import StructuralRetriever, parse_query

FILES = {
    "app/config.py": (
        "class Config:\n"
        "    def load(self, path):\n"
        "        return path\n\n\n"
        "def parse_config(path):\n"
        "    return Config().load(path)\n\n\n"
        "def parse_config_file(name, strict=False):\n"
        "    return name\n"
    ),
    "app/other.py": "class Loader:\n    def load(self):\n        pass\n\n\nclass parse_config:\n"
                    "    pass\n",
    "tests/test_config.py": "def parse_config(path):\n    return path\n",
    "vendor/x/config.py": "def parse_config(path):\n    return path\n",
}


@pytest.fixture
def search(make_repo):
    repo = make_repo(FILES)
    store = Store.open(repo)
    indexer.update(store)

    def run(query: str, **kw):
        request = SearchRequest(query=query, intent="find_definition", **kw)
        return StructuralRetriever(store).search(request)

    yield run
    store.close()


def test_exact_name_source_first_then_tests_then_vendor(search):
    hits = search("parse_config")
    assert [(h.path, h.symbol) for h in hits[:4]] == [
        ("app/config.py", "app.config.parse_config"),
        ("app/other.py", "app.other.parse_config"),
        ("tests/test_config.py", "tests.test_config.parse_config"),
        ("vendor/x/config.py", "vendor.x.config.parse_config"),
    ]
    assert hits[-1].symbol == "app.config.parse_config_file"  # a prefix match comes last
    assert all(0.0 <= h.score <= 1.0 and h.modality == "structural" for h in hits)
    assert hits == sorted(hits, key=lambda h: -h.score)


def test_kind_hint_prefers_that_kind(search):
    assert search("class parse_config")[0].symbol == "app.other.parse_config"
    hits = search("def parse_config")
    assert hits[0].symbol == "app.config.parse_config"
    assert hits[0].kind == "function"
    assert (hits[0].line_start, hits[0].line_end) == (6, 7)


def test_qualified_suffix(search):
    hits = search("Config.load")
    assert hits[0].symbol == "app.config.Config.load"
    assert hits[1].symbol == "app.other.Loader.load"
    assert hits[0].score > hits[1].score
    assert search("app.other.Loader.load")[0].score == 1.0


def test_signature_text_breaks_ties(search):
    hits = search("def parse_config(path)")
    assert hits[0].symbol == "app.config.parse_config"
    assert search("def parse_config_file(name, strict=False)")[0].symbol == (
        "app.config.parse_config_file")


def test_case_insensitive_fallback_and_nothing(search):
    assert search("PARSE_CONFIG_FILE")[0].symbol == "app.config.parse_config_file"
    assert search("no_such_symbol_anywhere") == []


def test_target_comes_first_and_limit_and_excludes(search):
    target = Definition("vendor/x/config.py", "parse_config", "vendor.x.config.parse_config",
                        "function", 1, 2)
    hits = search("who calls parse_config", terms=("parse_config",), target=target, limit=2)
    assert [h.path for h in hits] == ["vendor/x/config.py", "app/config.py"]
    hits = search("parse_config", exclude_paths=frozenset({"app/config.py"}))
    assert "app/config.py" not in {h.path for h in hits}


@pytest.mark.parametrize("text, terms, kinds, params", [
    ("def parse_config(path)", ("parse_config",), ("function", "method"), "path"),
    ("class Config", ("Config",), ("class",), ""),
    ("func (s *Server) Serve(w io.Writer)", ("Serve",), ("function", "method"), "wio.Writer"),
    ("where is the retry logic", ("retry", "logic"), (), ""),
    ("how does Config.load work", ("Config.load",), (), ""),
    ("std::vector::push_back", ("std.vector.push_back",), (), ""),
])
def test_parse_query(text, terms, kinds, params):
    q = parse_query(text)
    if terms:
        assert q.terms == terms
    assert q.kinds == kinds
    assert q.params == params


def test_caseless_lookup_folds_ascii_in_sqlite_and_unicode_in_python(make_repo):
    repo = make_repo({"app/names.py": "def Größe():\n    pass\n\n\ndef LoadAll():\n    pass\n"})
    with Store.open(repo) as store:
        indexer.update(store)
        assert [d.name for d in store.definitions(name_caseless="loadall")] == ["LoadAll"]
        assert [d.name for d in store.definitions(name_caseless="größe")] == ["Größe"]
        assert [d.name for d in store.definitions(name_caseless="GRÖßE")] == ["Größe"]
