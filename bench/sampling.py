"""A seeded sample of scenarios whose definition is used elsewhere, per the oracle.

Candidates are shuffled with the seed and asked of the oracle in that order (two jedi
workers, one per core, each keeping its parse cache) until enough have callers. Names
found in more than `max_files` files are skipped: jedi with lifted limits takes minutes
on them (Django's `output_field`: 179 s), and the report states the restriction.
"""

from __future__ import annotations

import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bench import oracle, scenarios
from bench.oracle import Caller, Mapper, OracleCache, Reference
from bench.scenarios import Scenario

MAX_NAME_FILES = 100
WORKERS = 2
BATCH = 4  # oracle queries in flight per round: small, so few are wasted past the target


@dataclass(frozen=True)
class Sampled:
    scenario: Scenario
    refs: tuple[Reference, ...]
    callers: tuple[Caller, ...]
    oracle_seconds: float


@dataclass(frozen=True)
class Sample:
    items: list[Sampled]
    asked: int  # oracle queries made (cached or not)
    unused: int  # asked, but no caller outside the definition
    skipped_common: int  # candidates skipped for a name in too many files
    candidates: int
    failed: int = 0  # jedi raised: skipped, not cached


def file_counts(texts: dict[str, str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for text in texts.values():
        counts.update(set(scenarios._WORD.findall(text)))
    return counts


def _ask(cache: OracleCache, pool: ProcessPoolExecutor, root: Path,
         batch: list[Scenario]) -> list[tuple[list[Reference], float] | None]:
    keys = [OracleCache.key(s.path, s.qualname, s.line) for s in batch]
    missing = [(k, s) for k, s in zip(keys, batch, strict=True) if cache.get(k) is None]
    futures = [(k, pool.submit(oracle.timed_references, str(root), s.path, s.line, s.col))
               for k, s in missing]
    for key, future in futures:
        try:
            refs, seconds = future.result()
        except Exception as exc:  # noqa: BLE001 - jedi can fail on odd code: skip the candidate
            print(f"  oracle failed on {key}: {exc!r}", file=sys.stderr)
            continue  # not cached: a later run asks again
        cache.put(key, [Reference(*r) for r in refs], seconds)
    if futures:
        cache.save()
    return [cache.get(k) for k in keys]


def sample(project: str, corpus: Path, texts: dict[str, str], want: int, seed: int,
           max_files: int = MAX_NAME_FILES) -> Sample:
    mapper = Mapper(texts)
    cache = OracleCache(project)
    counts = file_counts(texts)
    found = scenarios.candidates(project, texts)
    order = scenarios.shuffled(found, seed)
    usable = [s for s in order if counts[s.name] <= max_files]
    items: list[Sampled] = []
    asked = unused = failed = 0
    with ProcessPoolExecutor(WORKERS) as pool:
        for start in range(0, len(usable), BATCH):
            if len(items) >= want:
                break
            batch = usable[start:start + BATCH]
            for cand, answer in zip(batch, _ask(cache, pool, corpus.resolve(), batch),
                                    strict=True):
                asked += 1
                if answer is None:
                    failed += 1
                    continue
                refs, seconds = answer
                callers = mapper.callers(refs, Caller(cand.path, cand.qualname))
                if not callers:
                    unused += 1
                elif len(items) < want:
                    scenario = scenarios.with_change(cand, texts[cand.path], seed)
                    items.append(Sampled(scenario, tuple(refs), tuple(callers), seconds))
    return Sample(items, asked, unused, len(order) - len(usable), len(found), failed)
