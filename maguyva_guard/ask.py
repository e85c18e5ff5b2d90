"""The `query` command's core: bring the index up to date, answer, shape CONTRACT.md's JSON.

Until the fusion engine is wired in, every query goes to the structural retriever (the
direct path); swapping in `engine.search` changes this function's body only.
"""

from __future__ import annotations

from typing import Any

from maguyva_guard import indexer, intent, spec
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.retrievers.structural import StructuralRetriever
from maguyva_guard.store import Store


def answer(repo: str, text: str, preset: str = spec.DEFAULT, limit: int = 10,
           progress: indexer.Progress | None = None) -> dict[str, Any]:
    """CONTRACT.md `query --json`: {"query", "intent", ..., "results": [...]}."""
    found = intent.classify(text)
    with Store.open(repo) as store:
        indexer.update(store, progress=progress)
        request = SearchRequest(query=text, intent=found.intent, terms=found.terms, limit=limit)
        hits = StructuralRetriever(store).search(request)
    return {
        "query": text,
        "intent": found.intent,
        "confidence": found.confidence,
        "fusion_strategy": "direct",
        "preset": preset,
        "modalities_run": [spec.STRUCTURAL],
        "results": [
            {"path": h.path, "line_start": h.line_start, "line_end": h.line_end,
             "symbol": h.symbol, "score": h.score, "modalities": [h.modality]}
            for h in hits
        ],
    }
