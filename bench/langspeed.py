"""Parsing and extraction speed per language, per line of code, next to Python's.

    python bench/langspeed.py [--runs 3] [--out bench/results]

For every language of the registry (maguyva_guard/extract/languages.py, so a language added
there shows up here on the next run) it takes that language's files from the corpora cached
under bench/.cache/repos (real code from the registries: the Python sdists of bench/corpus.py,
rxjs of bench/tsleg.py, the Go, Rust and Java projects of bench/compilerleg.py, and whatever
other legs have cached), and, when they hold under 1,000 lines of it, the fixture files under
tests/fixtures/langs/<language>/ too, marked as such. It times, in this one process, what the
indexer does to each file (index/parse.py's `parse_one`: tree-sitter parse, the query pass,
the records and their rows), as CPU time (user+sys of the process, so other work on the
machine matters less than for wall time); each language's figure is the least of N runs.
Reported: files, lines, CPU seconds, milliseconds per 1,000 lines and that figure over
Python's. Target: within 2x of Python's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import managed, scriptleg, tsleg  # noqa: E402
from bench.corpus import REPOS, ensure_repo  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "langs"
PYTHON_CORPORA = (("requests", "2.32.3"), ("click", "8.1.7"))  # small, from PyPI
TARGET_RATIO = 2.0
# More real code for the languages whose one corpus alone could mislead (Scala's cats-core is
# dense with implicits and type classes): plain libraries, as sources jars.
EXTRA_SOURCES = (
    ("scala-parser-combinators-2.3.0", "org/scala-lang/modules/scala-parser-combinators_3/"
     "2.3.0/scala-parser-combinators_3-2.3.0-sources.jar"),
    ("os-lib-0.9.1", "com/lihaoyi/os-lib_3/0.9.1/os-lib_3-0.9.1-sources.jar"),
)
SMALL = 1_000  # lines: fewer make no meaningful per-line figure
MAX_BYTES = 1_000_000  # the indexer's default size limit: larger files are not parsed


def collect(repos: list[Path]) -> dict[str, dict[str, list[bytes]]]:
    """language -> source ("corpus" names, or "fixture") -> file contents."""
    from maguyva_guard.extract.languages import LANGUAGES, language_for

    found: dict[str, dict[str, list[bytes]]] = {lang: {} for lang in LANGUAGES}
    for repo in repos:
        for path in sorted(p for p in repo.rglob("*") if ".git" not in p.parts):
            lang = language_for(path.name)
            if lang and path.is_file() and path.stat().st_size <= MAX_BYTES:
                found[lang].setdefault(repo.name, []).append(path.read_bytes())
    for lang, sources in found.items():
        lines = sum(f.count(b"\n") for chunk in sources.values() for f in chunk)
        if lines < SMALL and (FIXTURES / lang).is_dir():  # none, or a stray file or two
            files = sorted(p for p in (FIXTURES / lang).rglob("*")
                           if p.is_file() and language_for(p.name) == lang)
            sources["fixture"] = [p.read_bytes() for p in files]
    return found


def cpu_seconds(lang: str, files: list[bytes], runs: int) -> tuple[float, int]:
    """The least CPU time of `runs` passes, and how many files failed to parse."""
    from maguyva_guard.index.parse import parse_one

    parse_one((0, b"x = 1\n", lang))  # load the grammar and compile the query first
    best, failed = float("inf"), 0
    for _ in range(runs):
        started = time.process_time()
        failed = sum(parse_one((0, data, lang))[1] is None for data in files)
        best = min(best, time.process_time() - started)
    return best, failed


def measure_all(found: dict[str, dict[str, list[bytes]]], runs: int) -> list[dict]:
    rows = []
    for lang, sources in sorted(found.items()):
        files = [f for chunk in sources.values() for f in chunk]
        if not files:
            rows.append({"language": lang, "source": "none", "files": 0, "lines": 0})
            continue
        lines = sum(f.count(b"\n") for f in files)
        cpu, failed = cpu_seconds(lang, files, runs)
        rows.append({"language": lang, "source": ", ".join(sorted(sources)),
                     "files": len(files), "failed": failed, "lines": lines,
                     "cpu_seconds": round(cpu, 3),
                     "ms_per_kloc": round(1000 * cpu / max(lines, 1) * 1000, 2)})
    base = next((r["ms_per_kloc"] for r in rows if r["language"] == "python"
                 and "ms_per_kloc" in r), None)
    for r in rows:
        if base and "ms_per_kloc" in r:
            r["vs_python"] = round(r["ms_per_kloc"] / base, 2)
    return rows


def render(rows: list[dict], runs: int) -> str:
    load = os.getloadavg()[0]
    out = [f"# Parse + extract speed per language (least CPU time of {runs} runs; load "
           f"average {load:.1f} at the end)", "",
           f"Command: `python bench/langspeed.py --runs {runs}`. Target: within "
           f"{TARGET_RATIO:g}x of Python per 1,000 lines. A source of `fixture` means the "
           f"cached corpora had under {SMALL:,} lines of that language: the test fixtures "
           "were added, and the figure is over too few lines to mean much.", "",
           "| language | source | files (failed) | lines | CPU s | ms / 1,000 lines | "
           "vs Python |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if not r["files"]:
            out.append(f"| {r['language']} | none | 0 | 0 | | | |")
            continue
        few = " (too few lines to mean much)" if r["lines"] < SMALL else ""
        out.append(f"| {r['language']} | {r['source']} | {r['files']:,} ({r['failed']}) | "
                   f"{r['lines']:,} | {r['cpu_seconds']:.2f} | {r['ms_per_kloc']:.1f} | "
                   f"{r.get('vs_python', 0):.2f}x{few} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = ap.parse_args(argv)
    for name, version in PYTHON_CORPORA:
        ensure_repo(name, version)
    tsleg.ensure_repo()  # TypeScript: rxjs from npm
    for project, jar in EXTRA_SOURCES:
        managed.ensure_sources(project, jar)
    for p in scriptleg.PROJECTS:
        if p.suffix == ".lua":  # Lua: Debian packages that ship their sources
            scriptleg.ensure_repo(p)
    repos = sorted(p for p in REPOS.iterdir() if (p / ".git").is_dir()) \
        if REPOS.is_dir() else []
    rows = measure_all(collect(repos), args.runs)
    md = render(rows, args.runs)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "langspeed.md").write_text(md)
    (args.out / "langspeed.json").write_text(json.dumps({"runs": args.runs, "rows": rows},
                                                        indent=1) + "\n")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
