"""The `query` command's core: bring the index up to date, answer, shape docs/json.md's JSON.

The answer is api.search's (engine.search: classify, plan, run the modalities in parallel,
fuse), as its JSON: docs/json.md's fields plus each result's contributions, which
`query --explain` renders (explain.py).
"""

from __future__ import annotations

from typing import Any

from maguyva_guard import api, spec
from maguyva_guard.index import indexer


def answer(repo: str, text: str, preset: str = spec.DEFAULT, limit: int = 10,
           progress: indexer.Progress | None = None) -> dict[str, Any]:
    """docs/json.md `query --json`: {"query", "intent", ..., "results": [...]}."""
    answer = api.search(repo, text, preset=preset, limit=limit, worktree=False,
                        progress=progress)
    return answer.to_json()
