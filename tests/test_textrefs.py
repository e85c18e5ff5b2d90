"""References recovered from the text (retrievers/textrefs.py): reads the index keeps no
reference for, found by the text index and turned into references."""

from __future__ import annotations

from maguyva_guard.index import indexer
from maguyva_guard.index.store import Store
from maguyva_guard.retrievers.graph import GraphRetriever

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        "def handler():\n    pass\n\n"
        "class Box:\n    def __init__(self):\n        self.size = 3\n\n"
        "    @property\n    def label(self):\n        return 'x'\n"
    ),
    "pkg/use.py": (
        "from pkg.core import handler, Box\n"
        "from pkg.core import handler as handle_it\n\n"
        "def pick():\n    return handler, handle_it\n\n"
        "def show(box):\n"
        "    if box.label:\n"
        "        pass\n"
        "    # box.label in a comment\n"
        "    note = 'box.label in a string'\n"
        "    return box.label.upper() + note\n\n"
        "def shadow(handler):\n    return handler\n"
    ),
}


def recovered(make_repo):
    store = Store.open(make_repo(FILES))
    indexer.update(store)
    return store, GraphRetriever(store).recovered


def test_an_attribute_read_without_a_call_becomes_a_reference(make_repo) -> None:
    store, text = recovered(make_repo)
    try:
        (label,) = store.definitions(name="label")
        refs = list(text.attribute_uses(label))
        assert [(r.path, r.line, r.scope, r.receiver) for r in refs] == [
            ("pkg/use.py", 8, "pkg.use.show", "box"),  # not the comment, not the string
            ("pkg/use.py", 12, "pkg.use.show", "box")]
    finally:
        store.close()


def test_a_name_read_as_a_value_and_its_alias_become_uses(make_repo) -> None:
    store, text = recovered(make_repo)
    try:
        (handler,) = store.definitions(name="handler")
        uses = {(r.line, r.name, r.scope) for r in text.name_uses(handler)}
        # `return handler, handle_it` in pick, through the alias too ...
        assert {(5, "handler", "pkg.use.pick"), (5, "handle_it", "pkg.use.pick")} <= uses
        # ... but not `handler` in shadow, which is its own parameter there.
        assert not any(scope == "pkg.use.shadow" for _, _, scope in uses)
    finally:
        store.close()


def test_data_attributes_are_names_some_class_stores_on_self(make_repo) -> None:
    store, text = recovered(make_repo)
    try:
        assert text.data_attribute("size")
        assert not text.data_attribute("label")
    finally:
        store.close()


STORES = {
    "pkg/__init__.py": "",
    "pkg/a.py": (
        "class A:\n    def __init__(self):\n        self.size = 3\n"
        "        self.count: int = 0\n        self.total += 1\n"
        "        self.mapping: dict[\n            str, int] = {}\n"
        "        if self.flag == 1:\n            pass\n"
        "        # self.noted = 1\n"
        "        return {self.keyed: 1}\n\n    x = 1\n"
        "        self.late\x0c= 2\n"
    ),
    "pkg/b.txt": "self.prose = 1\n",
    "pkg/c.py": "def total():\n    pass\n\ndef flag():\n    pass\n\ndef keyed():\n    pass\n",
}
NAMES = ("size", "count", "total", "mapping", "flag", "noted", "keyed", "late", "prose",
         "absent", "ab")


def test_a_data_attribute_is_answered_as_the_ranked_search_answers(make_repo) -> None:
    """The shortcut (no `self.name = ...` in any Python text: no search) against the
    ranked search itself, name by name, on one real index."""
    store = Store.open(make_repo(FILES | STORES))
    indexer.update(store)
    try:
        quick = GraphRetriever(store).recovered
        searched = GraphRetriever(store).recovered
        searched._stored_anywhere = lambda name: True  # type: ignore[method-assign]
        answers = {name: quick.data_attribute(name) for name in NAMES}
        assert answers == {name: searched.data_attribute(name) for name in NAMES}
        assert {n for n, yes in answers.items() if yes} == {"size", "count", "noted"}
    finally:
        store.close()
