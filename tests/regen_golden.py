"""Regenerate the golden outputs of the per-language fixtures: `python -m tests.regen_golden`.

Writes tests/fixtures/langs/<language>/expected.json from sample.<ext>, for the languages
named, else for every fixture that has one. A regenerated file
must be read by hand before it is committed: tests/test_symbols.py compares it exactly.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from maguyva_guard.extract.languages import LANGUAGES, language_for
from maguyva_guard.extract.symbols import extract
from maguyva_guard.records import FileSymbols

FIXTURES = Path(__file__).parent / "fixtures" / "langs"


def sample_path(language: str) -> Path:
    """The one sample.<ext> of a language's fixture folder."""
    folder = FIXTURES / language
    samples = sorted(p for p in folder.glob("sample.*") if language_for(p.name) == language)
    if len(samples) != 1:
        raise FileNotFoundError(f"{folder}: expected one sample.<ext> of {language}")
    return samples[0]


def golden(symbols: FileSymbols) -> dict[str, object]:
    """The comparable form of an extraction: records without the (empty) path, chunk spans."""

    def record(value: object) -> dict[str, object]:
        fields = dataclasses.asdict(value)  # type: ignore[call-overload]
        fields.pop("path")
        fields.pop("text", None)
        if "bases" in fields:
            fields["bases"] = list(fields["bases"])
        return fields

    return {
        "language": symbols.language,
        "parse_errors": symbols.parse_errors,
        "definitions": [record(d) for d in symbols.definitions],
        "references": [record(r) for r in symbols.references],
        "chunks": [record(c) for c in symbols.chunks],
    }


def render(data: dict[str, object]) -> str:
    """JSON with one record per line, so that a reviewer can read and diff it line by line."""
    lines = ["{"]
    items = list(data.items())
    for index, (key, value) in enumerate(items):
        comma = "," if index < len(items) - 1 else ""
        if isinstance(value, list):
            lines.append(f"  {json.dumps(key)}: [")
            for position, entry in enumerate(value):
                tail = "," if position < len(value) - 1 else ""
                lines.append("    " + json.dumps(entry, ensure_ascii=False) + tail)
            lines.append("  ]" + comma)
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def golden_languages() -> list[str]:
    """The languages whose fixture has a golden: every resolved language, and one language
    per family of the generic tier (tests/test_generic_tier.py lists the families)."""
    return sorted(lang for lang in LANGUAGES if (FIXTURES / lang / "expected.json").is_file())


def main(languages: list[str]) -> None:
    for language in languages or golden_languages():
        sample = sample_path(language)
        data = golden(extract(sample.read_bytes(), language))
        target = sample.parent / "expected.json"
        target.write_text(render(data), encoding="utf-8")
        print(f"wrote {target}")


if __name__ == "__main__":
    main(sys.argv[1:])
