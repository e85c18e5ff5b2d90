"""The text modality: trigram candidates, verified lines, comment- and path-aware ranking.

Repositories are real (git init in tmp_path); their blobs, by their real ids, go through
`index_contents` into an in-memory SQLite database, and a small store stand-in serves the
view (`files()`) and the definitions. The end-to-end test at the bottom runs the real
indexer and store instead.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import git, write_files

from maguyva_guard.errors import FatalError
from maguyva_guard.extract import classify
from maguyva_guard.index.fulltext import (
    candidate_blobs,
    drop_blobs,
    index_contents,
    match_expression,
    read_texts,
)
from maguyva_guard.index.schema import FileInfo
from maguyva_guard.records import Definition, Hit
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.retrievers.text import MAX_HITS_PER_FILE, TextRetriever

NET = '''import socket


def connect(host):
    """Open a connection; ECONNREFUSED is reported as ours."""
    try:
        return socket.create_connection(host)
    except OSError:
        raise RuntimeError("ECONNREFUSED: cannot reach the host")
'''


class FakeStore:
    """The three things the retriever needs from the store, over a real repository."""

    def __init__(self, repo: Path, conn: sqlite3.Connection | None = None,
                 defs: dict[str, list[Definition]] | None = None) -> None:
        self.conn = conn or sqlite3.connect(":memory:", isolation_level=None)
        self.defs = defs or {}
        self.repo = repo
        self.view: dict[str, FileInfo] = {}
        self.refresh()

    def refresh(self) -> None:
        """Index the staged blobs the database lacks and make them the view."""
        view = {}
        for row in git(self.repo, "ls-files", "-s").splitlines():
            meta, path = row.split("\t", 1)
            blob = meta.split()[1]
            language = "python" if path.endswith(".py") else None
            view[path] = FileInfo(blob, language, classify.path_category(path))
        have = read_texts(self.conn, {i.blob for i in view.values()}) if self.view else {}
        items = [(i.blob, git(self.repo, "cat-file", "blob", i.blob))
                 for i in view.values() if i.blob not in have]
        index_contents(self.conn, list(dict(items).items()))
        self.view = view

    def files(self) -> dict[str, FileInfo]:
        return dict(self.view)

    def definitions_in(self, path: str) -> list[Definition]:
        return self.defs.get(path, [])


@pytest.fixture
def indexed(make_repo: Callable[..., Path]) -> Callable[..., FakeStore]:
    def make(files: dict[str, str], **kw: object) -> FakeStore:
        return FakeStore(make_repo(files), **kw)  # type: ignore[arg-type]

    return make


def search(store: FakeStore, *terms: str, case_sensitive: bool = True,
           limit: int = 50) -> list[Hit]:
    request = SearchRequest(query=" ".join(terms), intent="exact_match", terms=terms,
                            case_sensitive=case_sensitive, limit=limit)
    return TextRetriever(store).search(request)


def places(hits: list[Hit]) -> list[tuple[str, int]]:
    return [(h.path, h.line_start) for h in hits]


def test_literal_in_a_string_is_found_at_its_exact_line_and_symbol(indexed):
    connect = Definition("pkg/net.py", "connect", "pkg.net.connect", "function", 4, 9)
    store = indexed({"pkg/net.py": NET, "README.md": "nothing here\n"},
                    defs={"pkg/net.py": [connect]})
    hits = search(store, "ECONNREFUSED: cannot reach")
    assert places(hits) == [("pkg/net.py", 9)]
    assert (hits[0].symbol, hits[0].kind, hits[0].modality) == ("pkg.net.connect", "function",
                                                                 "text")
    assert 0 < hits[0].score <= 1


def test_identifier_inside_strings_and_docstrings_all_lines(indexed):
    store = indexed({"pkg/net.py": NET})
    hits = search(store, "ECONNREFUSED")
    assert sorted(h.line_start for h in hits) == [5, 9]
    assert hits[0].line_start == 9  # the string in code outranks the docstring
    assert {h.symbol for h in hits} == {"<module>"}  # no definitions known: module level


def test_two_letter_query_falls_back_to_a_scan(indexed):
    store = indexed({"app.py": "import os\nos.getcwd()\ncosts = 1\n", "b.txt": "OS\n"})
    assert match_expression("os") is None and candidate_blobs(store.conn, "os") is None
    assert places(search(store, "os")) == [("app.py", 1), ("app.py", 2)]  # not costs, not OS
    assert sorted(places(search(store, "os", case_sensitive=False))) == [
        ("app.py", 1), ("app.py", 2), ("b.txt", 1)]


def test_identifier_queries_match_whole_words_only(indexed):
    store = indexed({"m.py": "def parse_config(x):\n    return parse(x)\n\nreparse = 1\n"
                             "x.parse\n"})
    assert places(search(store, "parse")) == [("m.py", 2), ("m.py", 5)]
    assert places(search(store, "parse_config")) == [("m.py", 1)]


def test_case_sensitivity_both_ways(indexed):
    store = indexed({"m.py": "class Parser:\n    pass\n\nparser = Parser()\nPARSER = 1\n"})
    assert places(search(store, "parser")) == [("m.py", 4)]
    folded = search(store, "parser", case_sensitive=False)
    assert sorted(places(folded)) == [("m.py", 1), ("m.py", 4), ("m.py", 5)]
    assert folded[0].line_start == 4  # the exact case first
    assert folded[0].score > folded[1].score


def test_literals_fold_case_and_rank_exact_case_and_whole_words_first(indexed):
    store = indexed({"a.py": 'A = "connection refused"\nB = "Connection Refused"\n'
                             'C = "reconnection refused!"\n'})
    hits = search(store, "connection refused")
    assert places(hits) == [("a.py", 1), ("a.py", 2), ("a.py", 3)]
    assert hits[0].score > hits[1].score > hits[2].score


@pytest.mark.parametrize("path, text, comment_line", [
    ("svc.py", "# handler is called below\nhandler()\n", 1),
    ("svc.py", "x = 1  # see handler\nhandler()\n", 1),
    ("svc.py", 'def f():\n    """Calls handler."""\n    handler()\n', 2),
    ("svc.py", 'def f():\n    """Docs.\n\n    handler here\n    """\n    handler()\n', 4),
    ("svc.js", "/**\n * handler docs\n */\nhandler();\n", 2),
    ("svc.go", "func f() {\n\thandler() // handler again\n}\n// handler\n", 4),
])
def test_comment_and_docstring_matches_rank_below_code(indexed, path, text, comment_line):
    store = indexed({path: text})
    hits = search(store, "handler")
    assert comment_line in [h.line_start for h in hits]
    code = [h for h in hits if h.line_start != comment_line]
    comment = [h for h in hits if h.line_start == comment_line]
    assert code and min(h.score for h in code) > max(h.score for h in comment)
    assert hits[-1].line_start == comment_line


def test_strings_that_look_like_comments_stay_code(indexed):
    store = indexed({"a.py": 'url = "http://x#frag"; handler()\nSQL = """\nhandler\n"""\n'})
    hits = search(store, "handler")
    assert [h.score for h in hits] == [1.0, 1.0]  # neither is a comment nor a docstring


def test_test_and_vendor_paths_rank_below_source(indexed):
    body = "def go():\n    return retry_budget()\n"
    store = indexed({"vendor/lib/x.py": body, "tests/test_x.py": body, "src/x.py": body,
                     "build/x.py": body})
    hits = search(store, "retry_budget")
    assert [h.path for h in hits] == ["src/x.py", "tests/test_x.py", "build/x.py",
                                      "vendor/lib/x.py"]
    assert hits[0].score > hits[1].score > hits[2].score


def test_a_files_best_hit_comes_before_anyones_second(indexed):
    store = indexed({"a.py": "run()\nrun()\nrun()\n", "b.py": "run()\n"})
    assert places(search(store, "run"))[:2] == [("a.py", 1), ("b.py", 1)]


def test_every_line_of_a_file_up_to_the_cap_and_the_limit(indexed):
    calls = "".join(f"target({i})\n" for i in range(MAX_HITS_PER_FILE + 10))
    store = indexed({"many.py": calls, "other.py": "target()\n"})
    assert MAX_HITS_PER_FILE >= 20  # "who calls X" needs every line of a caller
    hits = search(store, "target", limit=1000)
    assert len([h for h in hits if h.path == "many.py"]) == MAX_HITS_PER_FILE
    assert len(search(store, "target", limit=7)) == 7


def test_a_literal_spanning_lines_reports_both_ends(indexed):
    store = indexed({"q.sql": "SELECT 1;\nDELETE FROM users\nWHERE id = 1;\n"})
    hits = search(store, "users\nWHERE")
    assert [(h.line_start, h.line_end) for h in hits] == [(2, 3)]


def test_a_line_with_more_of_the_terms_ranks_first(indexed):
    store = indexed({"a.py": "load()\nsave()\nload(); save()\n"})
    hits = search(store, "load", "save")
    assert places(hits)[0] == ("a.py", 3)
    assert sorted(places(hits)[1:]) == [("a.py", 1), ("a.py", 2)]
    assert hits[0].score > hits[1].score


def test_the_innermost_enclosing_definition_names_the_hit(indexed):
    text = ("class A:\n    def m(self):\n        return probe()\n    x = probe()\n"
            "    def n(self):\n        probe()\n\nprobe()\n")
    defs = [Definition("k.py", "m", "k.A.m", "method", 2, 3, parent="k.A"),
            Definition("k.py", "A", "k.A", "class", 1, 6),
            Definition("k.py", "n", "k.A.n", "method", 5, 6, parent="k.A")]
    store = indexed({"k.py": text}, defs={"k.py": defs})
    hits = {h.line_start: (h.symbol, h.kind) for h in search(store, "probe")}
    assert hits == {3: ("k.A.m", "method"), 4: ("k.A", "class"), 6: ("k.A.n", "method"),
                    8: ("<module>", "")}


def test_quotes_in_a_term_and_terms_from_the_query(indexed):
    store = indexed({"a.py": 'print(\'say "hi" now\')\n'})
    assert places(search(store, 'say "hi"')) == [("a.py", 1)]
    request = SearchRequest(query='"say "hi" now"', intent="exact_match")
    assert places(TextRetriever(store).search(request)) == [("a.py", 1)]


def test_only_the_view_counts_and_a_modified_file_is_searched_at_its_new_content(indexed):
    store = indexed({"a.py": "OLD_MARKER = 1\nkeep()\n"})
    old_blob = store.view["a.py"].blob
    write_files(store.repo, {"a.py": "keep()\nNEW_MARKER = 2\nkeep()\n"})
    git(store.repo, "add", "a.py")
    store.refresh()
    assert old_blob in read_texts(store.conn, [old_blob])  # the stale blob is still stored
    assert search(store, "OLD_MARKER") == []
    assert places(search(store, "NEW_MARKER")) == [("a.py", 2)]
    assert places(search(store, "keep")) == [("a.py", 1), ("a.py", 3)]


def test_a_blob_at_two_paths_is_indexed_once_and_found_at_both(indexed):
    store = indexed({"a/x.py": "SHARED = 1\n", "b/x.py": "SHARED = 1\n"})
    assert store.conn.execute("SELECT count(*) FROM text_blobs").fetchone()[0] == 1
    assert sorted(places(search(store, "SHARED"))) == [("a/x.py", 1), ("b/x.py", 1)]


def test_index_contents_is_idempotent_and_drop_blobs_removes_contents():
    conn = sqlite3.connect(":memory:", isolation_level=None)
    index_contents(conn, [("b1", "alpha_marker here"), ("b2", "beta_marker here")])
    index_contents(conn, [("b1", "alpha_marker here")])
    assert candidate_blobs(conn, "alpha_marker") == {"b1"}
    assert candidate_blobs(conn, "marker here") == {"b1", "b2"}
    drop_blobs(conn, ["b1", "never-indexed"])
    assert candidate_blobs(conn, "alpha_marker") == set()
    assert candidate_blobs(conn, "marker here") == {"b2"}
    assert read_texts(conn, ["b1", "b2"]) == {"b2": "beta_marker here"}
    conn.execute("INSERT INTO text_fts(text_fts) VALUES ('integrity-check')")  # raises if stale
    drop_blobs(conn, ["b2"])
    assert candidate_blobs(conn, "marker here") == set() and read_texts(conn, ["b2"]) == {}


def test_candidates_fold_case_and_long_terms_use_a_bounded_trigram_set():
    conn = sqlite3.connect(":memory:", isolation_level=None)
    long_literal = "an error message that is much longer than twenty-four trigrams"
    index_contents(conn, [("b1", f"Raise: {long_literal.upper()}")])
    assert candidate_blobs(conn, "raise") == {"b1"}
    assert candidate_blobs(conn, long_literal) == {"b1"}
    assert str(match_expression(long_literal)).count(" AND ") == 23


def test_a_search_before_any_indexing_finds_nothing(make_repo):
    store = FakeStore(make_repo({"a.py": "x = 1\n"}))
    store.conn = sqlite3.connect(":memory:", isolation_level=None)  # no text tables at all
    assert search(store, "x = 1") == []


class NoFts5(sqlite3.Connection):
    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if "fts5" in sql:
            raise sqlite3.OperationalError("no such module: fts5")
        return super().execute(sql, *args)  # type: ignore[arg-type]


def test_missing_fts5_is_a_clear_fatal_error(make_repo):
    conn = sqlite3.connect(":memory:", isolation_level=None, factory=NoFts5)
    with pytest.raises(FatalError, match="FTS5 and the trigram tokenizer"):
        index_contents(conn, [("b", "text")])
    repo = make_repo({"a.py": "x\n"})
    store = FakeStore.__new__(FakeStore)
    store.conn, store.repo, store.view, store.defs = conn, repo, {}, {}
    with pytest.raises(FatalError, match="no such module: fts5"):
        TextRetriever(store)


def test_end_to_end_through_the_real_indexer(make_repo):
    pytest.importorskip("maguyva_guard.extract.symbols")
    from maguyva_guard.index import indexer
    from maguyva_guard.index.store import Store

    repo = make_repo({"pkg/net.py": NET, "pkg/__init__.py": ""})
    with Store.open(repo) as store:
        indexer.update(store)
        hits = TextRetriever(store).search(
            SearchRequest(query="ECONNREFUSED", intent="exact_match", terms=("ECONNREFUSED",)))
        assert [(h.path, h.line_start, h.symbol, h.kind) for h in hits] == [
            ("pkg/net.py", 9, "pkg.net.connect", "function"),
            ("pkg/net.py", 5, "pkg.net.connect", "function")]
        first = store.files()["pkg/net.py"].blob
        for n in (2, 3):  # the view changes twice: the first blob is collected
            write_files(repo, {"pkg/net.py": NET.replace("ECONNREFUSED", f"EHOSTDOWN{n}")})
            git(repo, "add", "pkg/net.py")
            indexer.update(store)
        request = SearchRequest(query="x", intent="exact_match", terms=("ECONNREFUSED",))
        assert TextRetriever(store).search(request) == []
        assert [h.line_start for h in TextRetriever(store).search(
            SearchRequest(query="x", intent="exact_match", terms=("EHOSTDOWN3",)))] == [9, 5]
        assert read_texts(store.conn, [first]) == {}  # drop_blobs ran for the dead blob


def test_the_real_index_keeps_code_and_config_text_but_not_prose(make_repo):
    from maguyva_guard.index import indexer
    from maguyva_guard.index.store import Store

    token = "retry-budget-exceeded"
    repo = make_repo({
        "app/errors.py": f"MESSAGE = '{token}'\n",
        "deploy/config.yaml": f"alert: {token}\n",
        "docs/errors.rst": f"The {token} error means...\n",
        "locale/fr/django.po": f'msgid "{token}"\n',
    })
    with Store.open(repo) as store:
        indexer.update(store)
        hits = TextRetriever(store).search(
            SearchRequest(query=token, intent="exact_match", terms=(token,), limit=10))
    assert sorted(h.path for h in hits) == ["app/errors.py", "deploy/config.yaml"]


class SteadyStore(FakeStore):
    """The view as the index gives it: one object until the view changes."""

    def files(self) -> dict[str, FileInfo]:
        return self.view


def test_the_same_terms_with_another_limit_answer_as_a_fresh_search(indexed, monkeypatch):
    """A retriever keeps each terms' lines while the view lasts (one scan for the text
    modality's 200 hits and the graph's 2,000): another limit ranks the same lines, and a
    new view reads its texts again."""
    from maguyva_guard.retrievers import text as text_module

    files = {"a.py": "".join(f"x = parse({i})\n" for i in range(8)),
             "b.py": "from a import parse\nparse(1)\n"}
    store = SteadyStore(indexed(files).repo)
    retriever = TextRetriever(store)
    reads: list[object] = []
    real = text_module.read_texts
    monkeypatch.setattr(text_module, "read_texts", lambda *a: reads.append(a) or real(*a))

    def ask(limit: int) -> list[Hit]:
        return retriever.search(SearchRequest(query="parse", intent="exact_match",
                                              terms=("parse",), limit=limit))

    few = ask(3)
    assert len(reads) == 1
    many = ask(50)
    assert len(reads) == 1  # the same terms in the same view: not read again
    assert len(many) == 10 and places(many)[:3] == places(few)
    for limit, hits in ((3, few), (50, many)):
        assert hits == TextRetriever(SteadyStore(store.repo)).search(SearchRequest(
            query="parse", intent="exact_match", terms=("parse",), limit=limit))
    reads.clear()
    write_files(store.repo, {"b.py": "from a import parse\nparse(1)\nparse(2)\n"})
    git(store.repo, "add", "-A")
    store.refresh()  # a new view: its texts are read again
    assert len(ask(50)) == 11 and len(reads) == 1


def _sorted_without(files: dict[str, FileInfo], exclude: frozenset[str]
                    ) -> tuple[dict[str, FileInfo], dict[str, list[str]]]:
    """The view without `exclude`, sorted anew (what _view did for every exclusion)."""
    from maguyva_guard.retrievers.text import _category_rank

    view = {p: i for p, i in files.items() if p not in exclude}
    paths_of: dict[str, list[str]] = {}
    for path in sorted(view, key=lambda p: (_category_rank(view[p].category), p)):
        paths_of.setdefault(view[path].blob, []).append(path)
    return view, paths_of


@pytest.mark.parametrize("exclude", [
    frozenset(), frozenset({"pkg/a.py"}), frozenset({"pkg/b.py"}), frozenset({"tests/a.py"}),
    frozenset({"pkg/a.py", "pkg/b.py"}), frozenset({"pkg/c.py", "gone.py"}),
    frozenset({"pkg/a.py", "pkg/b.py", "tests/a.py", "pkg/c.py"})])
def test_a_view_without_some_paths_is_the_view_sorted_without_them(indexed, exclude):
    """The same blob at three paths (source and test), another at one: whichever paths a
    search leaves out, the view it reads and its blobs' order are those of a new sort."""
    twin = "def helper():\n    return 'shared'\n"
    store = indexed({"pkg/a.py": twin, "pkg/b.py": twin, "tests/a.py": twin,
                     "pkg/c.py": "x = 'shared'\n"})
    retriever = TextRetriever(store)
    retriever._view(frozenset())  # the whole view first, as a check's searches go
    view, paths_of = retriever._view(exclude)
    want_view, want_paths = _sorted_without(store.files(), exclude)
    assert dict(view) == want_view and len(view) == len(want_view)
    assert list(paths_of.items()) == list(want_paths.items())
    request = SearchRequest(query="shared", intent="exact_match", terms=("shared",),
                            limit=50, exclude_paths=exclude)
    assert {h.path for h in retriever.search(request)} == set(want_view)
