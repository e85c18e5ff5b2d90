"""Bindings (retrievers/bindings.py): what a name means in a file, a module, a class."""

from __future__ import annotations

from conftest import MemorySource

from maguyva_guard.retrievers.resolve import Resolver

FILES = {
    "pkg/__init__.py": "from .core import Engine as Engine\n",
    "pkg/core.py": ("class Root:\n    def ping(self):\n        pass\n\n"
                    "class Engine(Root):\n    def start(self):\n        pass\n"),
    "pkg/star.py": "from pkg.core import *\n",
    "n.py": ("def outer():\n    def helper():\n        return 1\n    return helper()\n\n"
             "def helper():\n    return 2\n"),
}


def qualified(entity) -> str | None:
    return entity.definition.qualified_name if entity and entity.definition else None


def test_a_module_binds_its_definitions_its_imports_and_a_star_import() -> None:
    r = Resolver(MemorySource(FILES))
    assert qualified(r.module_binding("pkg/core.py", "Engine")) == "pkg.core.Engine"
    assert qualified(r.module_binding("pkg/__init__.py", "Engine")) == "pkg.core.Engine"
    assert qualified(r.module_binding("pkg/star.py", "Root")) == "pkg.core.Root"
    assert r.module_binding("pkg/core.py", "nothing_here") is None


def test_a_dotted_name_walks_modules_then_members() -> None:
    r = Resolver(MemorySource(FILES))
    assert qualified(r.resolve_dotted("pkg.core.Engine.start")) == "pkg.core.Engine.start"
    assert qualified(r.resolve_dotted("pkg.Engine")) == "pkg.core.Engine"  # re-exported
    assert r.resolve_dotted("pkg.core.Engine.missing") is None


def test_a_class_member_is_found_in_the_class_then_its_bases() -> None:
    r = Resolver(MemorySource(FILES))
    (engine,) = [d for d in r.source.definitions(name="Engine") if d.kind == "class"]
    assert [b.qualified_name for b in r.bases(engine)] == ["pkg.core.Root"]
    member = r.class_member(engine, "ping")
    assert member is not None and member.qualified_name == "pkg.core.Root.ping"
    assert not r.unresolved_bases(engine)


def test_a_bare_name_looks_in_the_enclosing_function_before_the_module() -> None:
    r = Resolver(MemorySource(FILES))
    assert qualified(r.lookup_name("n.py", "n.outer", "helper")) == "n.outer.helper"
    assert qualified(r.lookup_name("n.py", "", "helper")) == "n.helper"


def test_a_files_scope_knows_its_classes_and_functions() -> None:
    r = Resolver(MemorySource(FILES))
    scope = r.scope("pkg/core.py")
    assert qualified_name(scope.enclosing_class("pkg.core.Engine.start")) == "pkg.core.Engine"
    assert qualified_name(scope.enclosing_function("pkg.core.Engine.start")) \
        == "pkg.core.Engine.start"
    assert qualified_name(r.enclosing_class("pkg/core.py", "pkg.core.Engine.start")) \
        == "pkg.core.Engine"
    assert scope.enclosing_function("pkg.core.Engine") is None  # a class is no function


def qualified_name(d) -> str | None:
    return d.qualified_name if d is not None else None
