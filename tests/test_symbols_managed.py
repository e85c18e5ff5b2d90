"""symbols.extract on C#, Kotlin, Scala and Swift constructs the resolver relies on."""

from __future__ import annotations

from maguyva_guard.extract.symbols import extract
from maguyva_guard.records import ANNOTATION, IMPORT


def _defs(source: str, language: str) -> dict[str, tuple[str, int, int, str]]:
    found = extract(source.encode(), language)
    assert found.parse_errors == 0
    return {d.qualified_name: (d.kind, d.line_start, d.line_end, d.parent)
            for d in found.definitions}


def _imports(source: str, language: str) -> list[tuple[str, str, str]]:
    return [(r.name, r.target, r.alias) for r in extract(source.encode(), language).references
            if r.kind == IMPORT]


def test_a_scala_body_on_the_next_line_ends_with_its_last_expression():
    defs = _defs("class A {\n  def f(): Int =\n    g(1)\n\n  def g(x: Int): Int = x\n}\n",
                 "scala")
    assert defs["A.f"][1:3] == (2, 3)  # not 2..5, into g's first line


def test_a_scala_type_parameter_is_no_reference_to_a_type_of_that_name():
    source = ("class Box[A](a: A) {\n  def map[B](f: A => B): Box[B] = ???\n}\n"
              "object Use {\n  def keep(x: A): B = ???\n}\n")
    types = {(r.name, r.line) for r in extract(source.encode(), "scala").references
             if r.kind == ANNOTATION}
    # Box's A and map's B are parameters; in Use, A and B name types declared elsewhere.
    assert types == {("Box", 2), ("A", 5), ("B", 5)}


def test_kotlin_companion_members_and_extension_functions():
    defs = _defs("class A {\n    companion object {\n        fun make(): A = A()\n    }\n}\n"
                 "fun A.twice(): Int = 2\n", "kotlin")
    assert defs["A.make"][0] == "method"  # the companion qualifies nothing
    assert defs["A.twice"] == ("function", 6, 6, "A")


def test_swift_extension_members_belong_to_the_extended_type():
    defs = _defs("extension Store {\n    func reopen() {}\n}\n", "swift")
    assert defs == {"Store.reopen": ("method", 2, 2, "Store")}


def test_namespaces_and_packages_are_recorded_as_the_files_own():
    assert _imports("namespace A.B {\n  class C {}\n}\n", "csharp") == [
        ("*", "A.B.*", ""), ("*", "A.*", "*")]
    assert _imports("using X.Y;\nusing Z = X.Y.Z;\nusing static X.M;\n", "csharp") == [
        ("*", "X.Y.*", "*"), ("Z", "X.Y.Z", "Z"), ("*", "X.M.*", "*")]
    assert _imports("package a.b\n\nimport c.D as E\nimport f.*\n", "kotlin") == [
        ("*", "a.b.*", ""), ("D", "c.D", "E"), ("*", "f.*", "*")]
    assert _imports("package a\nimport b.{C => D, E, _}\n", "scala") == [
        ("*", "a.*", ""), ("C", "b.C", "D"), ("E", "b.E", "E"), ("*", "b.*", "*")]
    assert _imports("import Foundation\nimport struct Lib.Store\n", "swift") == [
        ("*", "Foundation.*", "*"), ("Store", "Lib.Store", "Store")]
