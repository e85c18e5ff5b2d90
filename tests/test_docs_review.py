"""Docs that may need an update (guard/docs.py), end to end: the documentation's `git grep`
runs beside the callers' search (started before it, read after it) and still finds, in
the staged index or in a revision, the lines that write a changed name as code."""

from __future__ import annotations

from conftest import CALLED_CONFIG, STRICT_CONFIG, check_json, edit, git

DOCS = {
    "README.md": "# pkg\n\nCall `parse_config(path)` first.\nWe parse_config files.\n",
    "docs/guide.rst": "Guide\n=====\n\nSee :func:`parse_config` and ``parse_config``.\n",
    "docs/notes.txt": "parse_config(\"a.toml\") reads a file\n",
}


def _docs(report: dict) -> list[tuple[str, int, str]]:
    return sorted((d["path"], d["line"], d["term"]) for d in report["docs_to_review"])


WANTED = [("README.md", 3, "parse_config"), ("docs/guide.rst", 4, "parse_config"),
          ("docs/notes.txt", 1, "parse_config")]


def test_a_staged_change_lists_the_docs_naming_it_as_code(make_repo):
    repo = make_repo({**CALLED_CONFIG, **DOCS})
    edit(repo, "README.md", "Call `parse_config(path)` first.",
         "Call `parse_config(path, strict)` first.", stage=False)  # the index is searched
    edit(repo, "pkg/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    report = check_json(repo, "--staged")
    assert any(a["path"] == "pkg/cli.py" for a in report["affected"])
    assert _docs(report) == WANTED


def test_a_commit_range_lists_the_docs_of_its_head(make_repo):
    repo = make_repo({**CALLED_CONFIG, **DOCS})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "pkg/config.py").write_text(STRICT_CONFIG)
    (repo / "docs/notes.txt").write_text("nothing here\n")
    git(repo, "commit", "-q", "-am", "strict")
    report = check_json(repo, "--base", base, "--head", "HEAD")
    assert _docs(report) == WANTED[:2]
