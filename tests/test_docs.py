"""The user-facing documentation stands alone: no pointer to files outside the repository,
and docs/design.md states the numbers that maguyva_guard/spec.py holds."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from maguyva_guard import spec

ROOT = Path(__file__).resolve().parent.parent
DESIGN = (ROOT / "docs/design.md").read_text()


def test_no_user_facing_text_points_outside_the_repository():
    proc = subprocess.run(["grep", "-rnE", r"SPEC [0-9]|SPEC\.md|CONTRACT\.md|\.\./shared",
                           "README.md", "maguyva_guard", "templates", "action.yml",
                           "docs"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.stdout == ""


def test_every_docs_link_in_the_readme_exists():
    links = re.findall(r"\]\((docs/[^)#]+)", (ROOT / "README.md").read_text())
    assert "docs/design.md" in links and "docs/json.md" in links
    for link in links:
        assert (ROOT / link).is_file(), link


def test_the_weight_table_is_spec_weights():
    rows = re.findall(r"^\| `(\w+)` \| ([\d.*]+) \| ([\d.*]+) \| ([\d.*]+) \| ([\d.*]+) \|$",
                      DESIGN, re.M)
    table = {intent: dict(zip((spec.SEMANTIC, spec.TEXT, spec.STRUCTURAL, spec.GRAPH),
                              (float(v.strip("*")) for v in values), strict=True))
             for intent, *values in rows}
    assert table == spec.WEIGHTS


def test_the_design_states_the_other_numbers_of_spec():
    assert f"at least **{spec.DIRECT_PATH_MIN_CONFIDENCE}**" in DESIGN
    for preset in (spec.DEFAULT, spec.THOROUGH):
        assert f"| {spec.RRF_K[preset]} |" in DESIGN
    assert (f"min(1 + {spec.BOOST_SLOPE} × ln(1 + centrality), {spec.BOOST_CAP})") in DESIGN
    assert "w / (k + rank + 1) × boost" in DESIGN
    assert f"multiplied by {spec.DEMOTION_FACTOR}" in DESIGN
    assert spec.DEFAULT_PRESET_MODALITY_COUNT == 3 and "the three strongest" in DESIGN
    for conf in (spec.CONF_DEFINITION_KEYWORD, spec.CONF_REFERENCES_PHRASE, spec.CONF_FALLBACK,
                 spec.CONF_UNDERSTAND_PHRASE, spec.CONF_EXACT_ERRNO, spec.CONF_SIMILAR,
                 spec.CONF_IDENTIFIER_TWO_PART, spec.CONF_IDENTIFIER_MIN):
        assert f"{conf:.2f}" in DESIGN, conf
    for intent in spec.INTENTS:
        assert f"`{intent}`" in DESIGN
