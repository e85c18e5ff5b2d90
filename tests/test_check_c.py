"""`maguyva-guard check` on C and C++ repositories: signature changed, renamed and removed,
in a source file or in the header that declares it, with the callers the compiler would
reject; same-named functions elsewhere left out."""

from __future__ import annotations

from conftest import callers, check, check_json, edit, git

C_FILES = {
    "include/util.h": "#ifndef UTIL_H\n#define UTIL_H\nint util_add(int a, int b);\n#endif\n",
    "src/util.c": '#include "util.h"\n\nint util_add(int a, int b)\n{\n    return a + b;\n}\n',
    "src/main.c": '#include "util.h"\n\nint main(void)\n{\n    return util_add(1, 2);\n}\n',
    "tools/other.c": (
        "static int util_add(int a, int b) { return a - b; }\n"
        "int other(void) { return util_add(3, 4); }\n"
    ),
}
CPP_FILES = {
    "include/geo/shape.hpp": (
        "#pragma once\nnamespace geo {\nclass Shape {\n public:\n"
        "  int area(int scale) const;\n};\n}\n"
    ),
    "src/shape.cpp": (
        '#include "geo/shape.hpp"\nnamespace geo {\n'
        "int Shape::area(int scale) const { return 4 * scale; }\n}\n"
    ),
    "src/app.cpp": (
        '#include "geo/shape.hpp"\nusing namespace geo;\n'
        "class Circle {\n public:\n  int area(int scale) const { return scale; }\n};\n"
        "int report() { Shape s; return s.area(2); }\n"
        "int circle() { Circle c; return c.area(1); }\n"
    ),
}


def test_c_signature_change_in_the_source_file_finds_its_callers(make_repo):
    repo = make_repo(C_FILES)
    edit(repo, "src/util.c", "int util_add(int a, int b)\n", "int util_add(int a, int b, int c)\n")
    report = check_json(repo)
    (sym,) = report["changed_symbols"]
    assert (sym["path"], sym["qualified_name"], sym["change"]) == (
        "src/util.c", "util_add", "signature_changed")
    assert callers(report) == {("src/main.c", "main")}


def test_c_signature_change_in_the_header_finds_the_same_callers(make_repo):
    repo = make_repo(C_FILES)
    edit(repo, "include/util.h", "int util_add(int a, int b);", "int util_add(int a, long b);")
    report = check_json(repo)
    (sym,) = report["changed_symbols"]
    assert (sym["path"], sym["change"]) == ("include/util.h", "signature_changed")
    assert callers(report) == {("src/main.c", "main")}


def test_c_rename_and_removal_keep_the_callers_of_the_old_name(make_repo):
    repo = make_repo(C_FILES)
    edit(repo, "src/util.c", "int util_add(int a, int b)\n", "int util_sum(int a, int b)\n")
    report = check_json(repo)
    (sym,) = report["changed_symbols"]
    assert (sym["change"], sym["old_name"], sym["name"]) == ("renamed", "util_add", "util_sum")
    assert callers(report) == {("src/main.c", "main")}
    git(repo, "reset", "-q", "--hard")
    git(repo, "rm", "-q", "src/util.c")
    report = check_json(repo)
    assert [(s["path"], s["change"]) for s in report["changed_symbols"]] == [
        ("src/util.c", "removed")]
    assert callers(report) == {("src/main.c", "main")}


def test_cpp_method_signature_change_out_of_line_finds_callers_by_declared_type(make_repo):
    repo = make_repo(CPP_FILES)
    edit(repo, "src/shape.cpp", "int Shape::area(int scale) const",
         "int Shape::area(int scale, int unit) const")
    report = check_json(repo)
    (sym,) = report["changed_symbols"]
    assert (sym["qualified_name"], sym["kind"], sym["change"]) == (
        "geo.Shape.area", "method", "signature_changed")
    assert callers(report) == {("src/app.cpp", "report")}  # not Circle's area
    code, out, _ = check(repo, "--fail-on", "medium")
    assert code == 1 and "report" in out and "signature changed" in out
