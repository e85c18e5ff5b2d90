"""The C and C++ legs' own parts (bench/cleg.py): which functions make scenarios, the change
staged in the definition and its declarations, and how lines map to callers (no compiler,
no network here)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import cleg  # noqa: E402

HEADER = "int plain_sum(int a, int b);\nint no_args(void);\nint many_args(int n, ...);\n"
SOURCE = (
    '#include "lib.h"\n'
    "int plain_sum(int a, int b)\n{\n  return a + b;\n}\n"
    "int no_args(void) { return plain_sum(1, 2); }\n"
    "int many_args(int n, ...) { return n; }\n"
    "static int alone(int x) { return x; }\n"
)
USER = '#include "lib.h"\nint user(void) { return plain_sum(1, no_args()) + many_args(1); }\n'
CPP_HEADER = (
    "namespace db {\nclass Table {\n public:\n  int Lookup(int key) const;\n"
    "  void Close();\n  int Over(int a);\n  int Over(double a);\n  int Deflt(int a = 1);\n"
    "};\n}\n"
)
CPP_SOURCE = (
    '#include "table.h"\nnamespace db {\n'
    "int Table::Lookup(int key) const { return key; }\nvoid Table::Close() {}\n"
    "int Table::Over(int a) { return a; }\nint Table::Over(double a) { return 0; }\n"
    "int Table::Deflt(int a) { return a; }\n}\n"
)
CPP_USER = '#include "table.h"\nint scan(db::Table &t) { t.Close(); return t.Lookup(1); }\n'


def test_c_functions_with_plain_parameters_used_elsewhere_make_scenarios():
    found = {s.name: s for s in cleg.candidates(
        {"lib.h": HEADER, "lib.c": SOURCE, "user.c": USER}, "c")}
    assert set(found) == {"plain_sum", "no_args"}  # not variadic, not unused elsewhere
    assert [site.path for site in found["plain_sum"].sites] == ["lib.c", "lib.h"]


def test_the_change_appends_a_parameter_to_the_definition_and_its_declarations():
    found = {s.name: s for s in cleg.candidates(
        {"lib.h": HEADER, "lib.c": SOURCE, "user.c": USER}, "c")}
    s = found["plain_sum"]
    header = cleg.change(HEADER, [x for x in s.sites if x.path == "lib.h"])
    assert header.startswith("int plain_sum(int a, int b, int mg_extra);\n")
    source = cleg.change(SOURCE, [x for x in s.sites if x.path == "lib.c"])
    assert "int plain_sum(int a, int b, int mg_extra)\n{" in source
    v = found["no_args"]
    assert "int no_args(int mg_extra);" in cleg.change(HEADER, [x for x in v.sites
                                                               if x.path == "lib.h"])
    assert s.changed("lib.c", 3) and not s.changed("lib.c", 7)


def test_cpp_methods_pair_their_declaration_and_skip_overloads_and_defaults():
    found = {s.name: s for s in cleg.candidates(
        {"table.h": CPP_HEADER, "table.cc": CPP_SOURCE, "user.cc": CPP_USER}, "cpp")}
    assert set(found) == {"Lookup", "Close"}
    assert found["Lookup"].kind == "method"
    assert sorted(site.path for site in found["Lookup"].sites) == ["table.cc", "table.h"]
    changed = cleg.change(CPP_SOURCE, [x for x in found["Close"].sites if x.path == "table.cc"])
    assert "void Table::Close(int mg_extra) {}" in changed


def test_lines_map_to_the_enclosing_function_else_class_else_module():
    scopes = cleg.Scopes(CPP_SOURCE, cleg.parser("cpp"))
    assert scopes.at(3) == "Table::Lookup@3"
    assert scopes.at(1) == cleg.MODULE
    assert cleg.Scopes(CPP_HEADER, cleg.parser("cpp")).at(4) == "Table"
    assert cleg._ERROR.match("c/enc/encode.c:1726:50: error: too few arguments to function")
