"""The graph modality on real repositories: each resolution rule of issue 3, name collisions,
and the honesty rule (an unresolvable call is kept as ambiguous, never dropped)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from maguyva_guard.index import indexer
from maguyva_guard.index.store import Store
from maguyva_guard.records import AMBIGUOUS, EXACT, PROBABLE
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.retrievers.graph import GraphRetriever

PY_FILES = {
    "app/__init__.py": "from .config import parse_config\n",
    "app/config.py": (
        "def parse_config(path):\n"
        "    return {}\n"
        "\n"
        "class Loader:\n"
        "    def parse_config(self, text):\n"
        "        return text\n"
        "\n"
        "    def load(self):\n"
        "        return self.parse_config('x')\n"
    ),
    "app/base.py": (
        "class Base:\n"
        "    def save(self):\n"
        "        return 1\n"
        "\n"
        "    @classmethod\n"
        "    def make(cls):\n"
        "        return cls.save(None)\n"
    ),
    "app/models.py": (
        "from app.base import Base\n"
        "from . import config as cfg\n"
        "\n"
        "class Model(Base):\n"
        "    def save(self):\n"
        "        return super().save()\n"
        "\n"
        "    def store(self):\n"
        "        return self.save()\n"
        "\n"
        "def use_cfg():\n"
        "    return cfg.parse_config('a')\n"
    ),
    "app/cli.py": (
        "import app.config as conf\n"
        "from app.config import parse_config as pc\n"
        "from app import parse_config\n"
        "from app.config import Loader\n"
        "from app.models import Model\n"
        "\n"
        "def main():\n"
        "    return conf.parse_config('a')\n"
        "\n"
        "def aliased():\n"
        "    return pc('b')\n"
        "\n"
        "def reexported():\n"
        "    return parse_config('c')\n"
        "\n"
        "def loader_user():\n"
        "    loader = Loader()\n"
        "    return loader.parse_config('text')\n"
        "\n"
        "def chained():\n"
        "    return Loader().load()\n"
        "\n"
        "def builds():\n"
        "    m = Model()\n"
        "    return m.store()\n"
        "\n"
        "def unknown(thing):\n"
        "    return thing.store()\n"
        "\n"
        "def top():\n"
        "    return chained()\n"
    ),
    "app/deco.py": (
        "from app.config import parse_config\n"
        "\n"
        "@parse_config\n"
        "def decorated():\n"
        "    pass\n"
    ),
    "app/other.py": (
        "class Shop:\n"
        "    def store(self):\n"
        "        return 2\n"
    ),
}


@pytest.fixture
def graph(make_repo) -> Iterator[GraphRetriever]:
    repo = make_repo(PY_FILES)
    store = Store.open(repo)
    indexer.update(store, indexer.staged_view(store))
    yield GraphRetriever(store)
    store.close()


def callers(
    graph: GraphRetriever, qualified_name: str, depth: int = 1
) -> dict[tuple[str, str], str]:
    (target,) = graph.store.definitions(qualified_name=qualified_name)
    hits = graph.search(SearchRequest(query="", intent="find_references", target=target,
                                      depth=depth, limit=0))
    return {(h.path, h.symbol): h.confidence for h in hits}


def test_module_function_callers_through_every_import_form(graph):
    found = callers(graph, "app.config.parse_config")
    assert found[("app/cli.py", "app.cli.main")] == EXACT  # import a.b as c; c.f()
    assert found[("app/cli.py", "app.cli.aliased")] == EXACT  # from a import f as g; g()
    assert found[("app/cli.py", "app.cli.reexported")] == EXACT  # re-export through __init__
    assert found[("app/models.py", "app.models.use_cfg")] == EXACT  # relative: from . import m
    assert found[("app/deco.py", "app.deco.decorated")] == EXACT  # a decorator is a use
    assert found[("app/__init__.py", "<module>")] == EXACT  # the re-exporting import line
    assert ("app/cli.py", "<module>") in found  # the import lines themselves


def test_same_named_method_on_unrelated_class_is_not_a_caller(graph):
    found = callers(graph, "app.config.parse_config")
    assert ("app/cli.py", "app.cli.loader_user") not in found  # loader.parse_config: Loader's
    assert ("app/config.py", "app.config.Loader.load") not in found  # self.parse_config


def test_method_callers_through_self_local_variable_and_constructor(graph):
    found = callers(graph, "app.config.Loader.parse_config")
    assert found[("app/config.py", "app.config.Loader.load")] == EXACT  # self.m()
    assert found[("app/cli.py", "app.cli.loader_user")] == PROBABLE  # obj = C(); obj.m()
    assert ("app/cli.py", "app.cli.main") not in found


def test_constructor_call_and_chained_method(graph):
    found = callers(graph, "app.config.Loader")
    assert ("app/cli.py", "app.cli.loader_user") in found  # Loader(...)
    assert ("app/cli.py", "app.cli.chained") in found
    found = callers(graph, "app.config.Loader.load")
    assert found[("app/cli.py", "app.cli.chained")] == EXACT  # ClassName().m()


def test_super_cls_and_bases(graph):
    found = callers(graph, "app.base.Base.save")
    assert found[("app/models.py", "app.models.Model.save")] == EXACT  # super().save()
    assert found[("app/base.py", "app.base.Base.make")] == EXACT  # cls.save
    # self.save() in Model resolves to Model.save, which overrides Base.save
    assert ("app/models.py", "app.models.Model.store") not in found
    bases = callers(graph, "app.base.Base")
    assert bases[("app/models.py", "app.models.Model")] == EXACT  # class Model(Base)


def test_unresolvable_receiver_is_ambiguous_not_dropped(graph):
    found = callers(graph, "app.models.Model.store")
    assert found[("app/cli.py", "app.cli.builds")] == PROBABLE  # m = Model(); m.store()
    assert found[("app/cli.py", "app.cli.unknown")] == AMBIGUOUS  # thing.store(): two classes
    found = callers(graph, "app.other.Shop.store")
    assert ("app/cli.py", "app.cli.builds") not in found  # m is a Model
    assert found[("app/cli.py", "app.cli.unknown")] == AMBIGUOUS


def test_transitive_callers_carry_depth_and_chain(graph):
    (target,) = graph.store.definitions(qualified_name="app.config.Loader.load")
    hits = graph.search(SearchRequest(query="", intent="impact_analysis", target=target,
                                      depth=2, limit=0))
    by_symbol = {h.symbol: h for h in hits}
    assert by_symbol["app.cli.chained"].depth == 1
    assert by_symbol["app.cli.chained"].via == ("app.config.Loader.load",)
    assert by_symbol["app.cli.top"].depth == 2
    assert by_symbol["app.cli.top"].via == ("app.config.Loader.load", "app.cli.chained")
    shallow = graph.search(SearchRequest(query="", intent="impact_analysis", target=target,
                                         depth=1, limit=0))
    assert "app.cli.top" not in {h.symbol for h in shallow}


RETURN_FILES = {
    "net/__init__.py": "from .sessions import Session, session\n",
    "net/sessions.py": (
        "class Session:\n"
        "    def get(self, url):\n"
        "        return url\n"
        "\n"
        "    @classmethod\n"
        "    def fresh(cls):\n"
        "        return cls()\n"
        "\n"
        "class Cache:\n"
        "    def get(self, key):\n"
        "        return key\n"
        "\n"
        "def session():\n"
        "    return Session()\n"
        "\n"
        "def typed() -> 'Session':\n"
        "    return make_one()\n"
        "\n"
        "def either(flag):\n"
        "    if flag:\n"
        "        return Session()\n"
        "    return Cache()\n"
        "\n"
        "def maybe(flag):\n"
        "    if flag:\n"
        "        return None\n"
        "    return Session()\n"
        "\n"
        "def via():\n"
        "    return session()  # another function's type\n"
        "\n"
        "def local():\n"
        "    s = Session()\n"
        "    return s\n"
        "\n"
        "def not_session():\n"
        "    return Session().get('x')\n"
    ),
    "use.py": (
        "import net\n"
        "from net.sessions import typed, either, maybe, Session\n"
        "\n"
        "def built():\n"
        "    s = net.session()\n"
        "    return s.get('u')\n"
        "\n"
        "def annotated():\n"
        "    s = typed()\n"
        "    return s.get('u')\n"
        "\n"
        "def from_classmethod():\n"
        "    return Session.fresh().get('u')\n"
        "\n"
        "def optional():\n"
        "    s = maybe(1)\n"
        "    return s.get('u')\n"
        "\n"
        "def mixed():\n"
        "    s = either(1)\n"
        "    return s.get('u')\n"
        "\n"
        "def chained():\n"
        "    s = net.sessions.via()\n"
        "    return s.get('u')\n"
        "\n"
        "def from_local():\n"
        "    s = net.sessions.local()\n"
        "    return s.get('u')\n"
        "\n"
        "def a_string():\n"
        "    s = net.sessions.not_session()\n"
        "    return s.get('u')\n"
    ),
}


def test_a_function_return_type_types_the_variable_it_is_assigned_to(make_repo):
    """`s = requests.session(); s.get()`: the function's `return Session()` (or its `->`
    annotation, a classmethod's `return cls()`, another function's type, a typed local)
    makes `s` a Session (probable); a function returning two classes, or the result of a
    call on a Session, types nothing."""
    repo = make_repo(RETURN_FILES)
    with Store.open(repo) as store:
        indexer.update(store, indexer.staged_view(store))
        graph = GraphRetriever(store)
        found = callers(graph, "net.sessions.Session.get")
        cache = callers(graph, "net.sessions.Cache.get")
    for fn in ("built", "annotated", "optional", "from_classmethod", "chained", "from_local"):
        assert found[("use.py", f"use.{fn}")] in (EXACT, PROBABLE), fn
        assert ("use.py", f"use.{fn}") not in cache, fn
    assert found[("use.py", "use.built")] == PROBABLE
    assert found.get(("use.py", "use.mixed")) == AMBIGUOUS  # Session or Cache: unknown
    assert cache.get(("use.py", "use.mixed")) == AMBIGUOUS
    assert found.get(("use.py", "use.a_string")) == AMBIGUOUS  # Session().get(): not a Session


def test_terms_without_target_find_definitions_by_name(graph):
    hits = graph.search(SearchRequest(query="who calls parse_config", intent="find_references",
                                      terms=("parse_config",), limit=0))
    assert {h.path for h in hits} >= {"app/cli.py", "app/models.py"}


def test_index_dir_is_inside_git_dir(graph):
    assert Path(graph.store.index_dir).parts[-2] == ".git"


def test_a_qualified_term_matches_whole_name_segments_only(make_repo):
    repo = make_repo({
        "app/fields.py": "class Field:\n    def check(self):\n        pass\n\n\n"
                         "class CharField(Field):\n    def check(self):\n        pass\n",
    })
    with Store.open(repo) as store:
        indexer.update(store)
        found = GraphRetriever(store).targets_for(("Field.check",))
    assert [d.qualified_name for d in found] == ["app.fields.Field.check"]


def test_centralities_are_measured_again_only_once_the_view_drifts(make_repo):
    from conftest import git, write_files

    from maguyva_guard.index import centrality

    files = {f"pkg/m{i:02}.py": f"def f{i}():\n    return {i}\n" for i in range(40)}
    repo = make_repo(files)
    with Store.open(repo) as store:
        indexer.update(store)
        assert centrality.refresh(store) > 0  # never measured: measured now
        assert centrality.refresh(store) == 0  # the same view: kept
        # Two of 40 files changed: within REFRESH_DRIFT (5%), the centralities are kept.
        write_files(repo, {"pkg/m00.py": "def f0():\n    return -1\n",
                           "pkg/m01.py": "def f1():\n    return -1\n"})
        git(repo, "add", "pkg")
        indexer.update(store)
        assert not centrality.needs_refresh(store)
        # A third path (a removed one counts too): past 5%, measured again.
        git(repo, "rm", "-q", "--cached", "pkg/m02.py")
        indexer.update(store)
        assert centrality.needs_refresh(store)
        assert centrality.refresh(store) > 0
        assert not centrality.needs_refresh(store)


def test_the_centrality_a_search_reads_is_the_memo_not_a_copy(make_repo):
    """known() answers every key asked, as lookup() does, without copying a value per key:
    a search asks for thousands of hits' keys and reads back a few."""
    from maguyva_guard.index import centrality

    files = {"pkg/a.py": "def used():\n    return 1\n",
             **{f"pkg/m{i}.py": f"from pkg.a import used\n\n\ndef f{i}():\n    return used()\n"
                for i in range(5)}}
    with Store.open(make_repo(files)) as store:
        indexer.update(store)
        centrality.refresh(store)
        keys = [("pkg/a.py", "pkg.a.used"), ("pkg/m0.py", "pkg.m0.f0"), ("nowhere.py", "x")]
        view = centrality.known(store, keys)
        assert {k: view[k] for k in keys} == centrality.lookup(store, keys)
        assert view[keys[0]] > view[keys[1]] > 0 and view[keys[2]] == 0.0
        assert centrality.known(store, keys[:1]) == view  # the same memo, not a new dict
        with pytest.raises(TypeError):
            view[keys[0]] = 1.0  # read-only: the memo is shared
