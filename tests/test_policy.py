"""The resolution policy (retrievers/policy.py): each kind of reference resolved the way
the language does it, and how sure each answer is."""

from __future__ import annotations

from conftest import MemorySource

from maguyva_guard.records import AMBIGUOUS, EXACT, PROBABLE
from maguyva_guard.retrievers.resolve import Resolver

FILES = {
    "a.py": ("class A:\n    def save(self):\n        pass\n\n"
             "class B:\n    def save(self):\n        pass\n\n"
             "def use(obj):\n    obj.save()\n    import os\n    os.path.join('a')\n"),
    "h.py": ("class Root:\n    def ping(self):\n        pass\n\n"
             "class Leaf(Root):\n    def ping(self):\n        self.ping()\n\n"
             "def go(x):\n    x.ping()\n"),
    "m.py": "from a import A\n\nA().save()\n",
}


def resolved(src: MemorySource, r: Resolver, path: str, name: str, line: int):
    answer = r.resolve(src.reference(path, name, line))
    return sorted(d.qualified_name for d in answer.definitions), answer.confidence


def test_an_unknown_receiver_with_several_classes_is_ambiguous() -> None:
    src = MemorySource(FILES)
    r = Resolver(src)
    assert resolved(src, r, "a.py", "save", 10) == (["a.A.save", "a.B.save"], AMBIGUOUS)


def test_an_unknown_receiver_within_one_class_hierarchy_is_probable() -> None:
    src = MemorySource(FILES)
    r = Resolver(src)
    assert resolved(src, r, "h.py", "ping", 10) == (["h.Leaf.ping", "h.Root.ping"], PROBABLE)
    assert r.one_hierarchy("ping", tuple(src.definitions(name="ping")))
    assert not r.one_hierarchy("save", tuple(src.definitions(name="save")))


def test_self_and_bases_and_imports_resolve_exactly() -> None:
    src = MemorySource(FILES)
    r = Resolver(src)
    assert resolved(src, r, "h.py", "ping", 7) == (["h.Leaf.ping"], EXACT)
    assert resolved(src, r, "h.py", "Root", 5) == (["h.Root"], EXACT)
    assert resolved(src, r, "m.py", "A", 1) == (["a.A"], EXACT)


def test_a_constructed_receiver_resolves_its_method() -> None:
    src = MemorySource(FILES)
    r = Resolver(src)
    names, confidence = resolved(src, r, "m.py", "save", 3)
    assert names == ["a.A.save"] and confidence in (EXACT, PROBABLE)


def test_what_lives_outside_the_repository_resolves_to_nothing() -> None:
    src = MemorySource(FILES)
    r = Resolver(src)
    assert r.is_external("a.py", "a.use", "os.path")
    assert resolved(src, r, "a.py", "join", 12) == ([], "")
    assert r.resolve(src.reference("a.py", "save", 10)) is r.resolve(
        src.reference("a.py", "save", 10))  # answered once, then remembered
