"""A file's language from its bytes where its name does not settle it.

The index is blob-addressed, so this reads a blob's bytes, never the working tree:
- a `.h` header is C unless its code is C++ (a class, a namespace, a template, `::`, an
  access label, an extension-less standard header such as `<vector>`);
- a file without an extension is the language its shebang line names
  (`#!/usr/bin/env python3`, `#!/usr/bin/node`, `#!/bin/bash` when bash is registered).
Everything else is decided by the extension (languages.language_for).
"""

from __future__ import annotations

import re
from typing import Final

from maguyva_guard.extract.languages import LANGUAGES, language_for

# What the name gives for the files whose bytes are read too: a `.h` (C by name) and a
# file without an extension (None).
BY_CONTENT: Final = frozenset({None, "c"})
HEAD_BYTES: Final = 64 * 1024  # a header's C++ shows early; a shebang is the first line

_CPP_MARKS: Final = re.compile(
    rb"^[ \t]*(?:template\s*<|namespace(?:\s+[A-Za-z_][\w:]*)?\s*\{|class\s+[A-Za-z_]\w*\s*"
    rb"(?:final\s*)?[:{;]|using\s+namespace\b|(?:public|private|protected)\s*:"
    rb"|#\s*include\s*<[a-z_]+>)"
    rb"|^(?![ \t]*(?://|\*|/\*))[^\n]*\b[A-Za-z_]\w*::~?[A-Za-z_]",
    re.MULTILINE,
)
_SHEBANG: Final = re.compile(rb"^#![ \t]*(\S+)(?:[ \t]+(?:-\S+[ \t]+)*(\S+))?")
_VERSION: Final = re.compile(r"[\d.]+$")  # python3.12 -> python
# Interpreter -> registry name; a language that is not registered (yet) is skipped.
INTERPRETERS: Final = {
    "python": "python", "pypy": "python",
    "node": "javascript", "nodejs": "javascript", "bun": "javascript",
    "deno": "typescript", "ts-node": "typescript", "tsx": "typescript",
    "bash": "bash", "sh": "bash", "zsh": "bash", "ksh": "bash", "dash": "bash",
    "ruby": "ruby", "perl": "perl", "php": "php", "lua": "lua", "Rscript": "r",
    "tclsh": "tcl", "elixir": "elixir", "escript": "erlang", "julia": "julia",
}


def language_of_source(path: str, data: bytes) -> str | None:
    """The registry name of the language of the blob `data` stored at `path`."""
    name = path.rsplit("/", 1)[-1]
    if "." not in name[1:]:
        return shebang_language(data)
    by_name = language_for(path)
    if by_name == "c" and path.lower().endswith(".h"):
        return "cpp" if is_cpp_header(data) else "c"
    return by_name


def is_cpp_header(data: bytes) -> bool:
    return _CPP_MARKS.search(data[:HEAD_BYTES]) is not None


def shebang_language(data: bytes) -> str | None:
    """The language a `#!` line names, if it is registered."""
    m = _SHEBANG.match(data[:256])
    if m is None:
        return None
    program = m.group(1).rsplit(b"/", 1)[-1]
    if program == b"env" and m.group(2):
        program = m.group(2).rsplit(b"/", 1)[-1]
    name = _VERSION.sub("", program.decode("ascii", "replace")) or program.decode("ascii",
                                                                                 "replace")
    language = INTERPRETERS.get(name)
    return language if language in LANGUAGES else None
