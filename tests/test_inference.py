"""Types guessed from code (retrievers/inference.py): what a variable, an attribute or a
call returns, as far as the text of the code shows."""

from __future__ import annotations

from conftest import MemorySource

from maguyva_guard.retrievers.resolve import Resolver

FILES = {
    "svc.py": (
        "class Conn:\n"
        "    def open_it(self):\n"
        "        pass\n"
        "\n"
        "class Client:\n"
        "    def __init__(self):\n"
        "        self.conn = Conn()\n"
        "\n"
        "def make() -> Conn:\n"
        "    return whatever()\n"
        "\n"
        "def build():\n"
        "    return Conn()\n"
        "\n"
        "def main(given: Conn):\n"
        "    local = Conn()\n"
        "    local.open_it()\n"
        "\n"
        "app = Client()\n"
    ),
}


def instance_of(entity) -> str | None:
    assert entity is None or entity.kind == "instance"
    return entity.definition.qualified_name if entity else None


def resolver() -> Resolver:
    return Resolver(MemorySource(FILES))


def test_a_local_assigned_a_constructor_or_annotated_is_an_instance() -> None:
    r = resolver()
    assert instance_of(r.local_type("svc.py", "svc.main", "local")) == "svc.Conn"
    assert instance_of(r.local_type("svc.py", "svc.main", "given")) == "svc.Conn"
    assert r.local_type("svc.py", "svc.main", "unknown") is None


def test_an_attribute_set_in_the_class_has_that_type() -> None:
    r = resolver()
    (client,) = r.source.definitions(name="Client")
    assert instance_of(r.attribute_type(client, "conn")) == "svc.Conn"
    assert r.attribute_type(client, "other") is None


def test_a_function_returns_its_annotation_or_what_every_return_builds() -> None:
    r = resolver()
    (make,) = r.source.definitions(name="make")
    (build,) = r.source.definitions(name="build")
    (main,) = r.source.definitions(name="main")
    assert instance_of(r.return_type(make)) == "svc.Conn"  # the annotation wins
    assert instance_of(r.return_type(build)) == "svc.Conn"
    assert r.return_type(main) is None  # returns nothing


def test_a_module_level_variable_built_by_a_constructor_is_typed() -> None:
    assert instance_of(resolver().typed_global("svc.py", "app")) == "svc.Client"


def test_an_expression_is_followed_through_locals_and_attributes() -> None:
    r = resolver()
    assert instance_of(r.resolve_expression("svc.py", "svc.main", "local")) == "svc.Conn"
    assert instance_of(r.resolve_expression("svc.py", "svc.Client.__init__", "self.conn")) \
        == "svc.Conn"
