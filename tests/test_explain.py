"""Human output of `query`: one line per result; --explain shows each score's arithmetic."""

from __future__ import annotations

from typing import Any

from maguyva_guard.commands import explain
from maguyva_guard.records import Hit
from maguyva_guard.search import engine


class Canned:
    def __init__(self, modality: str, hits: list[Hit]) -> None:
        self.modality, self.hits = modality, hits

    def search(self, request: object) -> list[Hit]:
        return self.hits


def response_json(**kw: Any) -> dict:
    retrievers = {
        "structural": Canned("structural", [Hit("pkg/c.py", 4, 8, "pkg.c.parse", 1, "structural")]),
        "text": Canned("text", [Hit("vendor/v.py", 2, 2, "<module>", 1, "text"),
                                Hit("pkg/c.py", 5, 5, "pkg.c.parse", 1, "text")]),
    }
    return engine.search(None, "parse_config", retrievers=retrievers, **kw).to_json()


def test_one_line_per_result() -> None:
    text = explain.render(response_json())
    assert text.splitlines() == [
        "pkg/c.py:4-8  pkg.c.parse  0.0170  [structural,text]",
        "vendor/v.py:2  <module>  0.0006  [text]",
    ]


def test_explain_writes_out_the_arithmetic() -> None:
    lines = explain.render(response_json(), explain=True).splitlines()
    assert lines[0] == ("intent find_definition (confidence 0.70, rule 5 bare identifier;"
                        " terms: parse_config)")
    assert lines[1] == "rrf · preset default · k 40 · ran structural, semantic, text"
    assert "    structural rank 0   0.6 x 1/(40+0+1) x boost 1.000 = 0.014634" in lines
    assert "    text       rank 1   0.1 x 1/(40+1+1) x boost 1.000 = 0.002381" in lines
    assert "    x 0.25 demoted (vendor)" in lines


def test_failures_are_warnings() -> None:
    data = response_json()
    assert explain.warnings(data) == ["warning: semantic failed: not available"]
    assert "warning" not in explain.render(data)


def test_no_results() -> None:
    data = engine.search(None, "parse_config", retrievers={}).to_json()
    assert explain.render(data) == "no results"
