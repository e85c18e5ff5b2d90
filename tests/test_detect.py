"""Language detection from a blob's bytes: C++ headers named `.h`, scripts without an
extension named by their shebang line; and the check that follows them."""

from __future__ import annotations

import pytest
from conftest import callers, check_json, edit

from maguyva_guard.extract.detect import language_of_source


@pytest.mark.parametrize(
    ("path", "data", "language"),
    [
        ("include/a.h", b'#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void);\n', "c"),
        ("include/a.h", b"/* see Foo::bar */\n// and a::b\nint f(void);\n", "c"),
        ("include/a.h", b"namespace geo {\nint f();\n}\n", "cpp"),
        ("include/a.h", b"#pragma once\nclass Shape : public Base {\n};\n", "cpp"),
        ("include/a.h", b"template <typename T>\nT twice(T v);\n", "cpp"),
        ("include/a.h", b"#include <vector>\nint f();\n", "cpp"),
        ("include/a.h", b"struct S {\n public:\n  int x;\n};\n", "cpp"),
        ("include/a.h", b"inline int g() { return std::max(1, 2); }\n", "cpp"),
        ("bin/tool", b"#!/usr/bin/env python3\nprint(1)\n", "python"),
        ("bin/tool", b"#!/usr/bin/python3.11 -u\nprint(1)\n", "python"),
        ("bin/serve", b"#!/usr/bin/env -S node --no-warnings\n", "javascript"),
        ("bin/serve", b"#!/usr/local/bin/node\n", "javascript"),
        ("bin/run", b"#!/bin/sh\necho hi\n", "bash"),
        ("bin/run", b"#!/usr/bin/env ruby\nputs 1\n", "ruby"),
        ("bin/run", b"#!/usr/bin/env zx\n", None),  # no registered language
        ("Makefile", b"all:\n\techo hi\n", None),
        ("src/a.py", b"#!/usr/bin/env node\n", "python"),  # an extension settles it
        ("src/a.c", b"class X {};\n", "c"),  # only headers are read
    ],
)
def test_language_of_source(path: str, data: bytes, language: str | None) -> None:
    assert language_of_source(path, data) == language


SCRIPT = (
    "#!/usr/bin/env python3\n"
    "from app.config import parse_config\n"
    "\n"
    "\n"
    "def main():\n"
    "    return parse_config('a')\n"
)


def test_a_script_without_extension_is_checked_as_its_shebang_says(make_repo):
    repo = make_repo({
        "app/__init__.py": "",
        "app/config.py": "def parse_config(path):\n    return {}\n",
        "bin/tool": SCRIPT,
    })
    edit(repo, "app/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    report = check_json(repo)
    assert ("bin/tool", "bin.tool.main") in callers(report)
    edit(repo, "bin/tool", "    return parse_config('a')", "    return parse_config('b')")
    report = check_json(repo)
    assert {f["path"]: f["treatment"] for f in report["files"]}["bin/tool"] == "analysed"
    assert "bin.tool.main" in {s["qualified_name"] for s in report["changed_symbols"]}


def test_a_cpp_header_named_h_is_parsed_as_cpp(make_repo):
    repo = make_repo({
        "include/shape.h": (
            "#pragma once\nnamespace geo {\nclass Shape {\n public:\n"
            "  int area(int scale) const;\n};\n}\n"
        ),
        "src/app.cpp": (
            '#include "shape.h"\n'
            "int report() { geo::Shape s; return s.area(2); }\n"
        ),
    })
    edit(repo, "include/shape.h", "int area(int scale) const;", "int area(int scale, int u) const;")
    report = check_json(repo)
    (sym,) = report["changed_symbols"]
    assert (sym["qualified_name"], sym["change"]) == ("geo.Shape.area", "signature_changed")
    assert callers(report) == {("src/app.cpp", "report")}
