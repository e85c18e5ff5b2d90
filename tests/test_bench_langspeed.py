"""bench/langspeed.py: every language of the registry gets a row, from the cached corpora
or, when they have too little of it, from its fixtures (marked)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import langspeed  # noqa: E402
from maguyva_guard.extract.languages import LANGUAGES  # noqa: E402


def test_every_registry_language_gets_a_row_with_fixtures_where_corpora_lack_it(tmp_path):
    corpus = tmp_path / "pyproj"
    corpus.mkdir()
    (corpus / "big.py").write_text("def f(x):\n    return g(x)\n" * 600)  # 1,200 lines
    found = langspeed.collect([corpus])
    assert set(found) == set(LANGUAGES)
    assert list(found["python"]) == ["pyproj"]
    assert list(found["go"]) == ["fixture"]
    rows = {r["language"]: r for r in langspeed.measure_all(
        {"python": found["python"], "go": found["go"]}, runs=1)}
    assert rows["python"]["lines"] == 1200 and rows["python"]["vs_python"] == 1.0
    assert rows["go"]["source"] == "fixture" and rows["go"]["failed"] == 0
    table = langspeed.render(list(rows.values()), 1)
    assert "| go | fixture |" in table
    go_row = next(line for line in table.splitlines() if line.startswith("| go |"))
    assert go_row.endswith("x (too few lines to mean much) |")  # under 1,000 lines
