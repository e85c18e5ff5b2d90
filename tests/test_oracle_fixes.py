"""Callers in Go, Rust and Java that the compiler-oracle legs (bench/compilerleg.py) found
resolved wrongly, each reduced to the smallest project that shows it."""

from __future__ import annotations

from maguyva_guard.index import indexer
from maguyva_guard.index.store import Store
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.retrievers.graph import GraphRetriever


def _callers(repo, name: str, path: str, qualified: str | None = None) -> dict[str, str]:
    with Store.open(repo) as store:
        indexer.update(store)
        (target,) = [d for d in store.definitions(name=name) if d.path == path
                     and qualified in (None, d.qualified_name)]
        hits = GraphRetriever(store).search(
            SearchRequest(query="", intent="find_references", target=target, limit=0))
    return {h.symbol: h.confidence for h in hits}


GO_FIELD = {
    "go.mod": "module example.com/flags\n",
    "flag.go": (
        "package flags\n\n"
        "type Flag struct {\n\tChanged bool\n}\n\n"
        "type FlagSet struct {\n\tformal map[string]*Flag\n}\n\n"
        "func (f *FlagSet) Changed(name string) bool {\n\treturn f.formal[name] != nil\n}\n\n"
        "func (f *FlagSet) Set(name string) {\n"
        "\tflag := f.formal[name]\n\tif !flag.Changed {\n\t\tflag.Changed = true\n\t}\n}\n"
    ),
    "use.go": (
        "package flags\n\n"
        "func Check(f *FlagSet) bool {\n\treturn f.Changed(\"x\")\n}\n"
    ),
}


def test_go_assigning_a_field_is_no_use_of_a_method_of_that_name(make_repo):
    """`flag.Changed = true` writes the field `Flag.Changed` and `!flag.Changed` reads it:
    neither calls nor passes the method `FlagSet.Changed` (the Go compiler: no error there
    when the method's signature changes; pflag's FlagSet.Set was reported as a caller)."""
    found = _callers(make_repo(GO_FIELD), "Changed", "flag.go")
    assert "Check" in found, found
    assert "FlagSet.Set" not in found, found


GO_LITERAL = {
    "go.mod": "module example.com/flags\n",
    "errors.go": (
        "package flags\n\n"
        "type NotExistError struct{ name string }\n\n"
        "func (e *NotExistError) GetSpecifiedName() string {\n\treturn e.name\n}\n\n"
        "type ValueRequiredError struct{ name string }\n\n"
        "func (e *ValueRequiredError) GetSpecifiedName() string {\n\treturn e.name\n}\n"
    ),
    "errors_test.go": (
        "package flags\n\n"
        "func checkNotExist() string {\n"
        "\terr := &NotExistError{name: \"foo\"}\n\treturn err.GetSpecifiedName()\n}\n\n"
        "func checkRequired() string {\n"
        "\terr := ValueRequiredError{name: \"foo\"}\n\treturn err.GetSpecifiedName()\n}\n"
    ),
}


def test_go_a_local_bound_to_a_composite_literal_has_its_type(make_repo):
    """`err := &NotExistError{...}` makes `err` a NotExistError: its GetSpecifiedName call
    is no caller of ValueRequiredError.GetSpecifiedName (pflag's errors_test.go: go vet
    flags only the test of the type whose method changed)."""
    repo = make_repo(GO_LITERAL)
    found = _callers(repo, "GetSpecifiedName", "errors.go", "NotExistError.GetSpecifiedName")
    assert found == {"checkNotExist": "probable"}, found


RUST_MACROS = {
    "Cargo.toml": "[package]\nname = \"syn\"\nversion = \"0.1.0\"\n",
    "src/lib.rs": "pub mod hir;\npub mod translate;\n",
    "src/hir.rs": (
        "pub struct Hir;\n\nimpl Hir {\n"
        "    pub fn empty() -> Hir {\n        Hir\n    }\n"
        "    pub fn push(&self, h: Hir) {}\n}\n"
    ),
    "src/translate.rs": (
        "use crate::hir::Hir;\n\n"
        "pub fn in_assert() {\n    assert_eq!(1, Hir::empty().len());\n}\n\n"
        "pub fn in_vec(h: &Hir) -> Vec<Hir> {\n    vec![Hir::empty(), h.push(Hir)]\n}\n\n"
        "pub fn helper() -> u8 {\n    1\n}\n\n"
        "pub fn in_format() -> String {\n    format!(\"{}\", helper())\n}\n"
    ),
}


def test_rust_calls_inside_macro_arguments_are_calls(make_repo):
    """`assert_eq!(.., Hir::empty())`, `vec![Hir::empty()]` and `format!("{}", helper())`:
    tree-sitter leaves macro arguments as token trees; cargo check flags those calls when
    the signature changes (regex-syntax: 6 of Hir::empty's 12 callers were in macros)."""
    repo = make_repo(RUST_MACROS)
    assert set(_callers(repo, "empty", "src/hir.rs")) == {
        "src.translate.in_assert", "src.translate.in_vec"}
    assert set(_callers(repo, "helper", "src/translate.rs")) == {"src.translate.in_format"}
    assert set(_callers(repo, "push", "src/hir.rs")) == {"src.translate.in_vec"}


RUST_INLINE_MOD = {
    "Cargo.toml": "[package]\nname = \"syn\"\nversion = \"0.1.0\"\n",
    "src/lib.rs": "pub mod print;\n",
    "src/print.rs": (
        "pub fn print(s: &str) -> String {\n    s.to_string()\n}\n\n"
        "#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
        "    fn roundtrip(given: &str) {\n        assert_eq!(given, print(given));\n    }\n\n"
        "    #[test]\n    fn print_literal() {\n        roundtrip(\"a\");\n    }\n}\n"
    ),
}


def test_rust_a_bare_name_finds_its_sibling_in_an_inline_module(make_repo):
    """`roundtrip("a")` inside `mod tests { .. }` calls the `roundtrip` of that module
    (regex-syntax's ast/print.rs: 9 callers, and the check said "no callers")."""
    found = _callers(make_repo(RUST_INLINE_MOD), "roundtrip", "src/print.rs")
    assert found == {"src.print.tests.print_literal": "exact"}, found


RUST_CHILD_MODULE = {
    "Cargo.toml": "[package]\nname = \"syn\"\nversion = \"0.1.0\"\n",
    "src/lib.rs": (
        "mod unicode;\npub mod ast;\n\n"
        "pub fn try_is_word_character(c: char) -> bool {\n"
        "    unicode::is_word_character(c)\n}\n"
    ),
    "src/unicode.rs": "pub fn is_word_character(c: char) -> bool {\n    c == 'a'\n}\n",
    "src/ast/mod.rs": "pub mod parse;\n",
    "src/ast/parse.rs": (
        "pub fn word(c: char) -> bool {\n    crate::unicode::is_word_character(c)\n}\n"
    ),
}


def test_rust_a_path_through_a_child_module_reaches_its_function(make_repo):
    """`unicode::is_word_character(c)` in lib.rs, where `mod unicode;` declares the child
    module, and `crate::unicode::...` anywhere (regex-syntax: "no callers" before)."""
    found = _callers(make_repo(RUST_CHILD_MODULE), "is_word_character", "src/unicode.rs")
    assert set(found) == {"src.try_is_word_character", "src.ast.parse.word"}, found


RUST_FIELD = {
    "Cargo.toml": "[package]\nname = \"syn\"\nversion = \"0.1.0\"\n",
    "src/lib.rs": "pub mod flags;\n",
    "src/flags.rs": (
        "pub struct Flags {\n    case_insensitive: Option<bool>,\n}\n\n"
        "impl Flags {\n"
        "    pub fn merge(&mut self, other: &Flags) {\n"
        "        if other.case_insensitive.is_some() {\n"
        "            self.case_insensitive = other.case_insensitive;\n        }\n    }\n\n"
        "    pub fn case_insensitive(&self) -> bool {\n"
        "        self.case_insensitive.unwrap_or(false)\n    }\n\n"
        "    pub fn fold(&self) -> bool {\n        self.case_insensitive()\n    }\n}\n"
    ),
}


def test_rust_a_field_read_is_no_use_of_a_method_of_that_name(make_repo):
    """`other.case_insensitive` without a call is the field: Rust has no bound method values
    (regex-syntax's Flags.merge was a false caller of Flags.case_insensitive)."""
    found = _callers(make_repo(RUST_FIELD), "case_insensitive", "src/flags.rs")
    assert set(found) == {"src.flags.Flags.fold"}, found
