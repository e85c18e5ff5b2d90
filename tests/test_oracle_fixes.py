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
