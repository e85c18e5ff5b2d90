"""Pasted errors through the real CLI (`maguyva-guard query --json`) on a real repository:
each way a message is built, each prefix form, each trace format, the fallback chain."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from maguyva_guard.cli import main

REPO = {
    "pkg/fstr.py": (
        "def check_level(level):\n"
        "    if level not in ('head', 'row', 'foot'):\n"
        "        raise ValueError(f\"level must be 'head', 'row' or 'foot', not {level!r}\")\n"
    ),
    "pkg/percent.py": (
        "def take(items, n):\n"
        "    if n > len(items):\n"
        "        raise IndexError('cannot take %d items from a list of %d' % (n, len(items)))\n"
        "\n"
        "\n"
        "def parse_spec(spec):\n"
        "    raise ValueError('Invalid specifier: %r' % spec)\n"
    ),
    "pkg/fmt.py": (
        "def connect(host, port):\n"
        "    raise ConnectionError('could not reach {}:{} after {} attempts'.format(\n"
        "        host, port, 3))\n"
    ),
    "pkg/i18n.py": (
        "from gettext import gettext as _\n"
        "\n"
        "\n"
        "class ImproperlyConfigured(Exception):\n"
        "    pass\n"
        "\n"
        "\n"
        "def require(name):\n"
        "    raise ImproperlyConfigured(\n"
        "        _('The %(setting)s setting must not be empty.') % {'setting': name})\n"
    ),
    "pkg/concat.py": (
        "import logging\n"
        "\n"
        "log = logging.getLogger(__name__)\n"
        "\n"
        "\n"
        "def parse_url(url):\n"
        "    raise InvalidURL(\n"
        "        f'Invalid URL {url!r}: No scheme supplied. '\n"
        "        f'Perhaps you meant https://{url}?'\n"
        "    )\n"
        "\n"
        "\n"
        "# the quota is checked by the nightly reaper job\n"
        "def report(path, size):\n"
        "    log.error('upload of ' + path + ' failed: ' + str(size) + ' bytes over the quota')\n"
        "\n"
        "\n"
        "class InvalidURL(ValueError):\n"
        "    pass\n"
    ),
    "pkg/twins.py": (
        "def lookup(table, key):\n"
        "    if key not in table:\n"
        "        raise KeyError(f'no entry named {key} in the registry')\n"
        "    if table[key] is None:\n"
        "        raise LookupError(f'no entry named {key} in the registry')\n"
        "    return table[key]\n"
        "\n"
        "\n"
        "def explained():\n"
        "    \"\"\"Raises 'no entry named X in the registry' when X is missing.\"\"\"\n"
    ),
    "tests/test_twins.py": (
        "def test_missing():\n"
        "    assert str(err) == 'no entry named spam in the registry'\n"
    ),
    "web/pool.js": (
        "class Pool {\n"
        "  take() {\n"
        "    if (this.closed) {\n"
        "      throw new Error(`pool ${this.name} is closed`);\n"
        "    }\n"
        "  }\n"
        "}\n"
        "function main() { new Pool().take(); }\n"
        "module.exports = { Pool, main };\n"
    ),
    "cmd/main.go": (
        "package main\n"
        "\n"
        "import \"fmt\"\n"
        "\n"
        "func parsePort(s string) int {\n"
        "\tpanic(fmt.Sprintf(\"bad port %q\", s))\n"
        "}\n"
        "\n"
        "func main() {\n"
        "\tparsePort(\"x\")\n"
        "}\n"
    ),
    "src/main/java/com/acme/Pool.java": (
        "package com.acme;\n"
        "\n"
        "public class Pool {\n"
        "    public Object take() {\n"
        "        throw new IllegalStateException(\"pool \" + name + \" is closed\");\n"
        "    }\n"
        "}\n"
    ),
    "src/main.rs": (
        "fn pick(v: &[u32], i: usize) -> u32 {\n"
        "    if i >= v.len() {\n"
        "        panic!(\"index {} is past the end of {} values\", i, v.len());\n"
        "    }\n"
        "    v[i]\n"
        "}\n"
        "\n"
        "fn main() {\n"
        "    pick(&[1, 2, 3], 5);\n"
        "}\n"
    ),
}


def line_of(path: str, marker: str) -> int:
    """The 1-based line of `marker` in the fixture file (so expectations follow the text)."""
    return next(i for i, line in enumerate(REPO[path].splitlines(), 1) if marker in line)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory):
    from conftest import git, write_files

    root = tmp_path_factory.mktemp("pasted") / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_files(root, REPO)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def ask(repo, text: str, *more: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["query", text, "--json", "--repo", str(repo), *more])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def top(data: dict[str, Any]) -> tuple[str, int]:
    first = data["results"][0]
    return first["path"], first["line_start"]


# --- each way a message is built ----------------------------------------------------------

@pytest.mark.parametrize(("pasted", "path", "marker"), [
    # f-string, a repr()'d value in the gap
    ("ValueError: level must be 'head', 'row' or 'foot', not 'side'", "pkg/fstr.py", "raise"),
    # % formatting with numbers
    ("IndexError: cannot take 7 items from a list of 3", "pkg/percent.py", "raise"),
    # .format with values, the call spread over lines
    ("ConnectionError: could not reach db.local:5432 after 3 attempts", "pkg/fmt.py", "raise"),
    # gettext _() around a %(name)s template
    ("ImproperlyConfigured: The SECRET_KEY setting must not be empty.", "pkg/i18n.py", "_("),
    # implicit concatenation across lines, f-strings
    ("InvalidURL: Invalid URL 'foo': No scheme supplied. Perhaps you meant https://foo?",
     "pkg/concat.py", "Invalid URL"),
    # + concatenation with values between the literals
    ("upload of /tmp/a.bin failed: 1024 bytes over the quota", "pkg/concat.py", "log.error"),
])
def test_each_message_construction_finds_its_site(repo, pasted: str, path: str,
                                                  marker: str) -> None:
    data = ask(repo, pasted)
    assert data["intent"] == "exact_match"
    assert data["recognised"]["stage"] == "message"
    assert top(data) == (path, line_of(path, marker))


def test_the_named_class_ranks_its_raise_first(repo) -> None:
    lookup = ask(repo, "LookupError: no entry named spam in the registry", "--limit", "20")
    key = ask(repo, "KeyError: no entry named spam in the registry", "--limit", "20")
    assert top(lookup) == ("pkg/twins.py", line_of("pkg/twins.py", "raise LookupError"))
    assert top(key) == ("pkg/twins.py", line_of("pkg/twins.py", "raise KeyError"))


def test_a_docstring_or_a_test_repeating_the_text_ranks_below_the_raise(repo) -> None:
    data = ask(repo, "KeyError: no entry named spam in the registry", "--limit", "20")
    paths = [r["path"] for r in data["results"]]
    # One result per file: the raise holds pkg/twins.py, the test file comes after it.
    assert paths[:2] == ["pkg/twins.py", "tests/test_twins.py"]


def test_an_unprefixed_sentence_the_source_builds_is_a_message(repo) -> None:
    data = ask(repo, "cannot take 7 items from a list of 3")
    assert (data["intent"], data["confidence"], data["rule"]) == (
        "exact_match", 0.86, "4 message found in the source")
    assert top(data) == ("pkg/percent.py", line_of("pkg/percent.py", "raise"))


# --- each prefix form ----------------------------------------------------------------------

@pytest.mark.parametrize(("pasted", "kind", "cls", "prefix"), [
    ("ValueError: level must be 'head', 'row' or 'foot', not 'x'", "message", "ValueError",
     "ValueError: "),
    ("pkg.errors.ValueError: level must be 'head', 'row' or 'foot', not 'x'", "message",
     "pkg.errors.ValueError", "pkg.errors.ValueError: "),
    ("Uncaught Error [ERR_LEVEL]: level must be 'head', 'row' or 'foot', not 'x'", "message",
     "Error", "Uncaught Error [ERR_LEVEL]: "),
    ('Exception in thread "main" java.lang.IllegalArgumentException: level must be '
     "'head', 'row' or 'foot', not 'x'", "message", "java.lang.IllegalArgumentException",
     'Exception in thread "main" java.lang.IllegalArgumentException: '),
    ("ERROR:root:level must be 'head', 'row' or 'foot', not 'x'", "log line", "",
     "ERROR:root:"),
    ("2026-12-04 09:30:00,123 ERROR [pkg.fstr] level must be 'head', 'row' or 'foot', "
     "not 'x'", "log line", "", "2026-12-04 09:30:00,123 ERROR [pkg.fstr] "),
    ("[ERROR] level must be 'head', 'row' or 'foot', not 'x'", "log line", "", "[ERROR] "),
    ("E1204 09:30:00.123456 4242 fstr.go:12] level must be 'head', 'row' or 'foot', not 'x'",
     "log line", "", "E1204 09:30:00.123456 4242 fstr.go:12] "),
    ("09:30:00.123 [main] ERROR com.acme.Levels - level must be 'head', 'row' or 'foot', "
     "not 'x'", "log line", "", "09:30:00.123 [main] ERROR com.acme.Levels - "),
    ("ERROR:root:ValueError: level must be 'head', 'row' or 'foot', not 'x'", "log line",
     "ValueError", "ERROR:root:ValueError: "),
])
def test_each_prefix_is_set_aside(repo, pasted: str, kind: str, cls: str, prefix: str) -> None:
    data = ask(repo, pasted)
    recognised = data["recognised"]
    assert (recognised["kind"], recognised["error_class"], recognised["prefix"]) == (
        kind, cls, prefix)
    assert recognised["message"] == "level must be 'head', 'row' or 'foot', not 'x'"
    assert data["terms"] == [recognised["message"]]
    assert top(data) == ("pkg/fstr.py", line_of("pkg/fstr.py", "raise"))


def test_a_sentence_with_a_colon_is_not_an_exception(repo) -> None:
    data = ask(repo, "Note: the cache of levels")
    assert data["recognised"] is None


# --- each trace format ----------------------------------------------------------------------

PY_TRACE = """Traceback (most recent call last):
  File "/home/me/app/run.py", line 4, in <module>
    lookup({}, 'spam')
  File "/home/me/venv/lib/python3.12/site-packages/pkg/twins.py", line 3, in lookup
    raise KeyError(f'no entry named {key} in the registry')
KeyError: 'no entry named spam in the registry'
"""
JS_TRACE = """/srv/app/web/pool.js:4
      throw new Error(`pool ${this.name} is closed`);
      ^

Error: pool main is closed
    at Pool.take (/srv/app/web/pool.js:4:13)
    at main (/srv/app/web/pool.js:8:31)
    at Object.<anonymous> (/srv/app/run.js:1:22)
    at node:internal/main/run_main_module:28:49
"""
GO_TRACE = """panic: bad port "x"

goroutine 1 [running]:
main.parsePort({0x4b6f1e, 0x1})
\t/home/me/src/app/cmd/main.go:6 +0x65
main.main()
\t/home/me/src/app/cmd/main.go:10 +0x25
exit status 2
"""
JAVA_TRACE = """Exception in thread "main" java.lang.RuntimeException: take failed
\tat com.acme.Main.main(Main.java:9)
Caused by: java.lang.IllegalStateException: pool main is closed
\tat com.acme.Pool.take(Pool.java:5)
\tat com.acme.Main.main(Main.java:7)
\t... 1 more
"""
RUST_TRACE = """thread 'main' panicked at src/main.rs:3:9:
index 5 is past the end of 3 values
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
"""


@pytest.mark.parametrize(("trace", "kind", "path", "line", "message"), [
    (PY_TRACE, "python traceback", "pkg/twins.py", 3, "'no entry named spam in the registry'"),
    (JS_TRACE, "javascript stack", "web/pool.js", 4, "pool main is closed"),
    (GO_TRACE, "go panic", "cmd/main.go", 6, 'bad port "x"'),
    (JAVA_TRACE, "java stack", "src/main/java/com/acme/Pool.java", 5, "pool main is closed"),
    (RUST_TRACE, "rust panic", "src/main.rs", 3, "index 5 is past the end of 3 values"),
])
def test_each_trace_puts_the_innermost_project_frame_first(repo, trace: str, kind: str,
                                                           path: str, line: int,
                                                           message: str) -> None:
    data = ask(repo, trace)
    assert data["recognised"]["kind"] == kind
    assert data["recognised"]["message"] == message
    assert top(data) == (path, line)


def test_frames_outside_the_repository_are_not_results(repo) -> None:
    data = ask(repo, JS_TRACE, "--limit", "20")
    # The frame, then the other place that builds the same text; not run.js, not node:.
    assert [r["path"] for r in data["results"]] == ["web/pool.js",
                                                    "src/main/java/com/acme/Pool.java"]
    assert len(data["recognised"]["frames"]) == 4


def test_explain_says_what_was_recognised(repo) -> None:
    result = CliRunner().invoke(main, ["query", GO_TRACE, "--explain", "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[2:6] == [
        'recognised go panic: bad port "x"',
        "2 frames, innermost /home/me/src/app/cmd/main.go:6 main.parsePort",
        "answered by: message",
        "",
    ]


# --- the fallback chain --------------------------------------------------------------------

def test_no_template_falls_back_to_the_longest_literal_fragment(repo) -> None:
    # The fragment is in a comment: no string builds the message, the fragment is there.
    data = ask(repo, "RuntimeError: 'uploads' the quota is checked by the nightly reaper job")
    assert data["recognised"]["stage"] == "fragments"
    assert data["recognised"]["searched"] == ["the quota is checked by the nightly reaper job"]
    assert data["notes"] == [
        "no string in this repository builds the message",
        "searched its longest literal fragments: 'the quota is checked by the nightly reaper "
        "job'",
    ]
    assert top(data) == ("pkg/concat.py", line_of("pkg/concat.py", "nightly reaper"))


def test_no_fragment_falls_back_to_fused_words_and_says_so(repo) -> None:
    data = ask(repo, "RuntimeError: quota exhausted while uploading 3 files")
    assert data["recognised"]["stage"] == "words"
    assert data["fusion_strategy"] == "rrf"
    assert data["notes"][-1].startswith("fused search (")
    assert data["notes"][-1].endswith("for its distinctive words: quota, exhausted, uploading, "
                                      "files")
    assert "pkg/concat.py" in [r["path"] for r in data["results"]]  # "quota" is there


def test_a_quoted_value_found_nowhere_falls_back_to_the_whole_message(repo) -> None:
    # Row 4 looks for the quoted 'side' alone, which is nowhere; the whole query then goes
    # through the message chain, and the response says so.
    data = ask(repo, "Invalid specifier: 'side'")
    assert (data["intent"], data["rule"]) == ("exact_match", "4 quoted string")
    assert data["notes"][-1] == ("nothing found for side: searched the whole query as a "
                                 "pasted message")
    assert data["recognised"]["stage"] == "message"
    assert top(data) == ("pkg/percent.py", line_of("pkg/percent.py", "Invalid specifier"))
