"""Extraction speed against the bare parse floor, on a real corpus.

    python bench/extract.py DIR [LANGUAGE]   (LANGUAGE defaults to the one of most files)

Rounds alternate bare parsing and full extraction so that machine noise hits both alike;
the report gives the fastest round of each and the median ratio of the rounds.
"""

from __future__ import annotations

import collections
import statistics
import sys
import time
from pathlib import Path

from tree_sitter_language_pack import get_parser

from maguyva_guard.extract.languages import LANGUAGES, language_for
from maguyva_guard.extract.symbols import compile_language, extract

ROUNDS = 5


def main(root: str, language: str | None = None) -> None:
    paths = [p for p in sorted(Path(root).rglob("*")) if p.is_file() and language_for(p.name)]
    if language is None:
        language = collections.Counter(language_for(p.name) for p in paths).most_common(1)[0][0]
    blobs = [p.read_bytes() for p in paths if language_for(p.name) == language]
    compile_language(language)
    parser = get_parser(LANGUAGES[language].grammar)
    parse_times, extract_times = [], []
    for _ in range(ROUNDS):
        start = time.process_time()
        for blob in blobs:
            parser.parse(blob)
        parse_times.append(time.process_time() - start)
        start = time.process_time()
        results = [extract(blob, language) for blob in blobs]
        extract_times.append(time.process_time() - start)
    ratio = statistics.median(e / p for e, p in zip(extract_times, parse_times, strict=True))
    fastest = min(extract_times)
    print(
        f"{language}: {len(blobs)} files, {sum(map(len, blobs)) / 1e6:.1f} MB; "
        f"parse {min(parse_times):.2f} s; extract {fastest:.2f} s "
        f"({len(blobs) / fastest:.0f} files/s); median ratio {ratio:.2f}"
    )
    kinds = collections.Counter(r.kind for result in results for r in result.references)
    print(
        f"definitions {sum(len(r.definitions) for r in results)}, "
        f"references {sum(kinds.values())} {dict(sorted(kinds.items()))}, "
        f"chunks {sum(len(r.chunks) for r in results)}, "
        f"parse errors {sum(r.parse_errors for r in results)}"
    )


if __name__ == "__main__":
    main(*sys.argv[1:3])
