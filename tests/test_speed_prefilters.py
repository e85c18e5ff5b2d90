"""Cheap checks in front of costly ones (issue 18) answer exactly what the costly ones
did: the Python formatting test compares names before parsing, the protocol-syntax scan
skips lines without the text its pattern needs, the whitespace squeeze runs without a
Python call per run. The CLI tests run a real repository."""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path

from click.testing import CliRunner
from conftest import git, write_files

from maguyva_guard.cli import main
from maguyva_guard.guard import formatting
from maguyva_guard.retrievers import protocols

PACKAGE = Path(formatting.__file__).resolve().parents[1]
ELIF = "def pick(a):\n    if a:\n        return 1\n    elif a is None:\n        return 2\n"
ELSE_IF = ("def pick(a):\n    if a:\n        return 1\n    else:\n"
           "        if a is None:\n            return 2\n")
TRICKY = '''x = 1e5 + 0x1f + 1..real  # a comment: if while
s = rb'a\\'b' "it's" f"{a!r}" """tri "" ple""" \'\'\'q\'\'\' 'a\\
b'
if a: pass
elif b: y = c if 1else d
'''


def _tokenized_names(text: str) -> list[str]:
    """Python's own tokenizer: the names and keywords, `elif` as `else`, `if`."""
    out: list[str] = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME:
            out.extend(("else", "if") if tok.string == "elif" else (tok.string,))
    return out


def _check(repo: Path) -> dict:
    result = CliRunner().invoke(main, ["check", "--repo", str(repo), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_name_lexer_reads_what_pythons_tokenizer_reads():
    sources = [TRICKY, ELIF, ELSE_IF, *(p.read_text(encoding="utf-8")
                                      for p in sorted(PACKAGE.rglob("*.py")))]
    for text in sources:
        words = formatting._python_words(text)
        if words is not None:  # None: not compared (an f-string on Python 3.12+)
            assert words == _tokenized_names(text)


def test_elif_and_else_if_are_the_same_code(make_repo):
    """`elif` parses to `else: if`: the names compared first must agree too."""
    assert formatting.formatting_only("a.py", ELIF.encode(), ELSE_IF.encode())
    repo = make_repo({"app/__init__.py": "", "app/pick.py": ELIF,
                      "app/use.py": "from app.pick import pick\n\npick(1)\n"})
    write_files(repo, {"app/pick.py": ELSE_IF})
    git(repo, "add", "-A")
    report = _check(repo)
    assert report["changed_symbols"] == []
    assert [f["path"] for f in report["files"]] == ["app/pick.py"]


def test_a_renamed_local_is_a_change_without_a_parse(monkeypatch):
    parsed: list[str] = []
    real = formatting._python_tree
    monkeypatch.setattr(formatting, "_python_tree", lambda t: parsed.append(t) or real(t))
    renamed = ELIF.replace("a", "b")
    assert not formatting.formatting_only("a.py", ELIF.encode(), renamed.encode())
    assert parsed == []  # the names differ: no tree was built
    # a change of a literal leaves the names equal: the trees decide
    assert not formatting.formatting_only("a.py", ELIF.encode(),
                                          ELIF.replace("2", "3").encode())
    assert len(parsed) == 2


def test_the_whitespace_squeeze_is_the_per_run_rule():
    def per_run(text: str) -> str:  # the rule as it was written: one decision per run
        return re.sub(r"\s+", lambda m: "\n" if "\n" in m.group() else " ", text).strip()

    samples = [" a  b\n\n c \t\n d ", "x\r\ny\u2028z\x0c w", "\n\n", "", "a\t\tb",
               (PACKAGE / "guard" / "formatting.py").read_text(encoding="utf-8")]
    for text in samples:
        assert formatting._squeezed(text) == per_run(text)


def test_every_protocol_pattern_needs_its_text():
    """A line without the text listed for a pattern never matches it, on every line of
    the package's own source and a few written to match."""
    lines = ["for x in Thing():", "if not t:", "while t:", "y = t == u", "t[1] = 2",
             "del t[k]", "with Thing() as t:", "async with t:", "await t", "a < b",
             "total = a + b - c * d / e", "x = [v for v in t]", "len(t)", "f(t)",
             *(line for p in sorted(PACKAGE.rglob("*.py"))
               for line in p.read_text(encoding="utf-8").splitlines())]
    assert set(protocols._NEEDS) == set(protocols._PATTERNS)
    for name, checks in protocols._CHECKS.items():
        assert len(checks) == len(protocols._PATTERNS[name])
        for pattern, needs in checks:
            for line in lines:
                if pattern.search(line):
                    assert any(n in line for n in needs), (name, pattern.pattern, line)


def test_the_changed_symbols_read_a_blobs_definitions_only(make_repo):
    """What a diff's two sides are parsed into (changes.py reads the definitions and the
    language): the same definitions as the whole record, without references or chunks."""
    from maguyva_guard.index import indexer
    from maguyva_guard.index.store import Store

    repo = make_repo({"app/__init__.py": "", "app/pick.py": ELIF,
                      "app/use.py": "from app.pick import pick\n\npick(1)\n"})
    with Store.open(str(repo)) as store:
        indexer.update(store)
        blob = store.files()["app/use.py"].blob
        whole = store.symbols_of(blob, "app/use.py")
        lean = store.symbols_of(blob, "app/use.py", definitions_only=True)
    assert whole is not None and whole.references and lean is not None
    assert (lean.language, lean.definitions, lean.parse_errors) == (
        whole.language, whole.definitions, whole.parse_errors)
    assert (lean.references, lean.chunks) == ((), ())
