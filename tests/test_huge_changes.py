"""Huge changes stay cheap and short: limits before reading, formatting is no change, capped
reports. Each runs the real CLI on a real repository."""

from __future__ import annotations

import json

from click.testing import CliRunner
from conftest import git, write_files

from maguyva_guard import git as gitmod
from maguyva_guard.cli import main
from maguyva_guard.report.render import DEFAULT_MAX_SYMBOLS

CORE = "def parse(x):\n    return x\n"
CALLER = "from app.core import parse\n\n\ndef main():\n    return parse(1)\n"


def check(repo, *args: str):  # noqa: ANN001, ANN201
    result = CliRunner().invoke(main, ["check", "--repo", str(repo), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == 0, result.output
    return result


def test_an_oversized_file_is_neither_diffed_nor_read(make_repo, monkeypatch):
    repo = make_repo({"app/__init__.py": "", "app/core.py": CORE, "app/cli.py": CALLER,
                      ".maguyva-guard.toml": "max_file_size = 4096\n"})
    big = "".join(f"value_{i} = parse({i})\n" for i in range(50_000))  # ~1 MB
    write_files(repo, {"app/big.py": big})
    git(repo, "add", "app/big.py")
    big_blob = git(repo, "rev-parse", ":app/big.py").strip()
    read, diffed = [], []
    real_read, real_hunks = gitmod.read_blobs, gitmod.diff_hunks
    monkeypatch.setattr(gitmod, "read_blobs", lambda r, ids: read.extend(ids) or real_read(r, ids))

    def hunks(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        found = real_hunks(*args, **kwargs)
        diffed.extend(found)
        return found

    monkeypatch.setattr(gitmod, "diff_hunks", hunks)
    report = json.loads(check(repo, "--format", "json").stdout)
    assert big_blob not in read
    assert "app/big.py" not in diffed
    assert report["complete"] is False
    (reason,) = [r for r in report["incomplete_reasons"] if r.startswith("app/big.py")]
    assert reason.startswith("app/big.py not analysed (over the size limit (")
    assert reason.endswith(" bytes): neither diffed nor read)")


PY_BEFORE = '''def parse(text, strict=False):
    """Parse it."""
    if strict:
        return text.strip()
    return text


NAMES = ['a', 'b']
'''
# black-style: quotes, a call split over lines with a trailing comma, two-space indents,
# a comment, blank lines: the same syntax tree.
PY_AFTER = '''def parse(
  text,
  strict=False,
):
  """Parse it."""
  # strict mode
  if strict:
    return (text.strip())
  return text

NAMES = [
    "a",
    "b",
]
'''
JS_BEFORE = "export function run(a, b) {\n  return a + b;\n}\n"
JS_AFTER = "export function run(a,   b) {\n\treturn a + b;   \n}\n\n"


def test_whitespace_and_formatting_only_changes_are_no_change(make_repo):
    repo = make_repo({"app/__init__.py": "", "app/text.py": PY_BEFORE, "web/run.js": JS_BEFORE,
                      "app/use.py": "from app.text import parse\n\nparse('x')\n"})
    write_files(repo, {"app/text.py": PY_AFTER, "web/run.js": JS_AFTER})
    git(repo, "add", "-A")
    report = json.loads(check(repo, "--format", "json").stdout)
    assert report["changed_symbols"] == []
    assert report["fallbacks"] == []
    assert report["complete"] is True


def test_a_dedent_that_changes_behaviour_is_still_a_change(make_repo):
    repo = make_repo({"app/__init__.py": "", "app/text.py": PY_BEFORE})
    write_files(repo, {"app/text.py": PY_BEFORE.replace("        return text.strip()\n",
                                                        "        pass\n    return text.strip()\n")})
    git(repo, "add", "-A")
    report = json.loads(check(repo, "--format", "json").stdout)
    assert [(c["qualified_name"], c["change"]) for c in report["changed_symbols"]] == [
        ("app.text.parse", "modified")]


def test_a_change_of_many_symbols_gives_a_short_text_report(make_repo):
    count = DEFAULT_MAX_SYMBOLS + 20
    repo = make_repo({f"gen/m{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(count)})
    write_files(repo, {f"gen/m{i}.py": f"def f{i}(x):\n    return x - {i}\n" for i in range(count)})
    git(repo, "add", "-A")
    text = check(repo).stdout
    assert text.startswith(f"maguyva-guard: No callers affected by {count} changed symbols.")
    groups = [line for line in text.splitlines() if "  modified  risk " in line]
    assert len(groups) == DEFAULT_MAX_SYMBOLS
    assert "... and 20 more changed symbols (--format json lists them all)" in text
    assert len(json.loads(check(repo, "--format", "json").stdout)["changed_symbols"]) == count
