"""The `query` command's core: bring the index up to date, answer, shape docs/json.md's JSON.

The answer is engine.search's (classify, plan, run the modalities in parallel, fuse), as
the JSON of SearchResponse.to_json(): docs/json.md's fields plus each result's contributions,
which `query --explain` renders (explain.py).
"""

from __future__ import annotations

from typing import Any

from maguyva_guard import config, spec
from maguyva_guard.index import indexer
from maguyva_guard.index.store import Store
from maguyva_guard.search import engine


def answer(repo: str, text: str, preset: str = spec.DEFAULT, limit: int = 10,
           progress: indexer.Progress | None = None) -> dict[str, Any]:
    """docs/json.md `query --json`: {"query", "intent", ..., "results": [...]}."""
    with Store.open(repo, exclusive=True) as store:
        indexer.update(store, progress=progress)
        settings = config.load_config(store.root)
        response = engine.search(store, text, preset=preset, limit=limit,
                                 config=settings.semantic)
    return response.to_json()
