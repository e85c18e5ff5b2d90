"""The Go, Rust and Java legs' own parts (bench/compilerleg.py): which definitions make
scenarios, the change each stages, and how lines map to callers (no compiler is run here)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import compilerleg, legcore  # noqa: E402

GO = (
    'package flags\n\nimport "fmt"\n\n'
    "type FlagSet struct{}\n\n"
    "func (f *FlagSet) BoolP(name string, value bool) bool {\n\treturn value\n}\n\n"
    "func BoolP(name string) bool {\n\treturn fmt.Sprint(name) == \"\"\n}\n\n"
    "func Varargs(names ...string) {}\n\n"
    "func (f *FlagSet) Multi(\n\tname string,\n) {}\n\n"
    "type Value interface {\n\tType() string\n}\n\n"
    "func (f *FlagSet) Type() string { return \"\" }\n\n"
    "func (f *FlagSet) Error() string { return \"\" }\n"
)
GO_USER = "package flags\n\nfunc use() { BoolP(\"a\"); Varargs(); (&FlagSet{}).Multi(\"x\") }\n" \
          "func typed(v Value) string { return v.Type() + (&FlagSet{}).Error() }\n"

RUST = (
    "use std::fmt;\n\n"
    "pub struct Parser;\n\n"
    "impl Parser {\n    pub fn parse_group(&self, depth: u32) -> u32 {\n        depth\n    }\n}\n\n"
    "impl fmt::Display for Parser {\n"
    "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        Ok(())\n    }\n}\n\n"
    "pub fn helper() -> u32 {\n    0\n}\n"
)
RUST_USER = "use crate::p::{Parser, helper};\nfn user() { Parser.parse_group(helper()); }\n" \
            "fn fmt() {}\n"

JAVA = (
    "package org.x;\n\nimport java.util.List;\n\n"
    "public class Options {\n"
    "    public Options addOption(String opt) {\n        return this;\n    }\n"
    "    public Options addOption(String opt, String desc) {\n        return this;\n    }\n"
    "    public boolean hasOption(String opt) {\n        return false;\n    }\n"
    "    public void listAll(String... names) {\n    }\n"
    "    static class Inner {\n        void helpMe() {\n        }\n    }\n"
    "}\n"
)
JAVA_USER = "class U { void u(Options o) { o.addOption(\"a\"); o.hasOption(\"b\");" \
            " o.listAll(); new Options.Inner().helpMe(); } }\n"


def _found(lang: str, texts: dict[str, str]) -> dict[str, legcore.Scenario]:
    return {s.qualname: s for s in compilerleg.candidates(compilerleg.LANGS[lang], texts)}


def test_go_scenarios_skip_variadics_and_interface_methods_and_name_methods_by_receiver():
    found = _found("go", {"flags.go": GO, "use.go": GO_USER})
    assert set(found) == {"FlagSet.BoolP", "BoolP", "FlagSet.Multi"}
    assert found["FlagSet.BoolP"].kind == "method" and found["BoolP"].kind == "function"


def test_go_change_appends_after_a_trailing_comma_without_another():
    found = _found("go", {"flags.go": GO, "use.go": GO_USER})
    lang = compilerleg.LANGS["go"]
    changed = legcore.append_parameter(GO, found["FlagSet.Multi"], lang.extra)
    assert "func (f *FlagSet) Multi(\n\tname string,\nmgExtra string) {}" in changed
    changed = legcore.append_parameter(GO, found["BoolP"], lang.extra)
    assert "func BoolP(name string, mgExtra string) bool {" in changed


def test_rust_scenarios_skip_trait_implementations_and_name_methods_by_impl_type():
    found = _found("rust", {"src/p.rs": RUST, "src/u.rs": RUST_USER})
    assert set(found) == {"Parser.parse_group", "helper"}
    changed = legcore.append_parameter(RUST, found["helper"], "mg_extra: u8")
    assert "pub fn helper(mg_extra: u8) -> u32 {" in changed


def test_java_scenarios_skip_overloads_and_varargs_and_nest_class_names():
    found = _found("java", {"org/x/Options.java": JAVA, "org/x/U.java": JAVA_USER})
    assert set(found) == {"Options.hasOption", "Options.Inner.helpMe"}
    changed = legcore.append_parameter(JAVA, found["Options.hasOption"], "String mgExtra")
    assert "public boolean hasOption(String opt, String mgExtra) {" in changed


def test_lines_map_to_enclosing_symbols_and_imports_are_known():
    lang = compilerleg.LANGS["java"]
    scopes = compilerleg.scopes_of(lang, JAVA, compilerleg.parser(lang))
    assert scopes.at(7) == "Options.addOption"
    assert scopes.at(18) == "Options.Inner.helpMe"
    assert scopes.at(1) == legcore.MODULE and {1, 3} <= scopes.imports
    go = compilerleg.LANGS["go"]
    assert compilerleg.scopes_of(go, GO, compilerleg.parser(go)).at(8) == "FlagSet.BoolP"


def test_compiler_error_lines_are_read_with_paths_relative_to_the_clone(tmp_path):
    out = "# pkg\n./flags.go:12:3: not enough arguments in call to BoolP\n" \
          "src/p.rs:4:5: error[E0061]: this method takes 2 arguments\n" \
          "src/p.rs:9:5: warning: unused\n" \
          "org/x/U.java:3: error: method hasOption in class Options cannot be applied\n"
    assert compilerleg._errors(out, compilerleg._GO_ERR, tmp_path) == {
        ("flags.go", 12, "not enough arguments in call to BoolP")}
    assert compilerleg._errors(out, compilerleg._RS_ERR, tmp_path) == {
        ("src/p.rs", 4, "[E0061]")}
    assert compilerleg._errors(out, compilerleg._JAVA_ERR, tmp_path) == {
        ("org/x/U.java", 3, "method hasOption in class Options cannot be applied")}
