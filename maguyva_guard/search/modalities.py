"""Running the planned modalities (design §4): the registry, one deadline for all.

A modality that may block on the network (a retriever whose `may_block` is true: semantic
search through Voyage) runs in its own daemon thread; the local ones (SQLite and numpy work
on the index) run one after another in the calling thread meanwhile. One deadline holds for
all (`timeout`): a modality that raises, is still running at the deadline, or has not
started by then is reported with the reason, and the others answer. Local work in threads
of its own was slower, not faster: under the GIL each SQLite call that gives the lock away
waits for it again behind the other threads (a one-symbol check on Django spent 0.1 s more).
Daemon threads rather than a ThreadPoolExecutor: the executor joins its workers at
interpreter exit, so a hung backend would hold the pre-commit hook open after the answer
was printed.

The registry imports a retriever module only when its modality is planned: an exact-match
query never imports, let alone calls, the semantic backend. A module that cannot be
imported fails its modality as "not available", and the others still answer.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from maguyva_guard import spec
from maguyva_guard.records import Hit
from maguyva_guard.retrievers.base import Retriever, SearchRequest

# modality -> (module, class): the registry, imported lazily (only planned modalities load).
_RETRIEVERS = {
    spec.STRUCTURAL: ("maguyva_guard.retrievers.structural", "StructuralRetriever"),
    spec.TEXT: ("maguyva_guard.retrievers.text", "TextRetriever"),
    spec.GRAPH: ("maguyva_guard.retrievers.graph", "GraphRetriever"),
    spec.SEMANTIC: ("maguyva_guard.retrievers.semantic", "SemanticRetriever"),
}

Factory = Callable[[], Retriever]


def run(modalities: tuple[str, ...], factories: Mapping[str, Factory], request: SearchRequest,
        timeout: float, started: float | None = None,
        ) -> tuple[dict[str, list[Hit]], dict[str, str]]:
    """Run the modalities under one deadline, `timeout` seconds after `started` (a
    time.monotonic(); None: now); (hits per modality that answered, reason per failure),
    both in the order of `modalities`."""
    deadline = (time.monotonic() if started is None else started) + timeout
    outcomes: dict[str, list[Hit] | BaseException] = {}
    lock = threading.Lock()

    def answer(modality: str, retriever: Retriever) -> None:
        try:
            outcome: list[Hit] | BaseException = list(retriever.search(request))
        except Exception as exc:  # any failure of one modality is reported, not raised
            outcome = exc
        with lock:
            outcomes[modality] = outcome

    local: list[tuple[str, Retriever]] = []
    threads: list[threading.Thread] = []
    for modality in modalities:
        try:
            factory = factories.get(modality)
            if factory is None:
                raise LookupError("not available")
            retriever = factory()
        except Exception as exc:  # a modality that cannot be built is reported, not raised
            outcomes[modality] = exc
            continue
        if getattr(retriever, "may_block", False):
            thread = threading.Thread(target=answer, args=(modality, retriever), daemon=True,
                                      name=f"maguyva-guard-{modality}")
            thread.start()
            threads.append(thread)
        else:
            local.append((modality, retriever))
    for modality, retriever in local:
        if time.monotonic() < deadline:  # not started by the deadline: timed out
            answer(modality, retriever)
    for thread in threads:
        thread.join(max(deadline - time.monotonic(), 0.0))
    with lock:
        finished = dict(outcomes)  # a straggler may still write after the deadline
    ranked: dict[str, list[Hit]] = {}
    failed: dict[str, str] = {}
    for modality in modalities:
        outcome = finished.get(modality)
        if outcome is None:
            failed[modality] = f"timed out after {timeout:g}s"
        elif isinstance(outcome, BaseException):
            failed[modality] = _reason(outcome)
        else:
            ranked[modality] = outcome
    return ranked, failed


def retriever_factories(store: Any, config: Any = None) -> dict[str, Factory]:
    """The registry built from the store: one lazily imported retriever per modality."""
    return {m: _factory(module, name, store, config) for m, (module, name) in _RETRIEVERS.items()}


def build(store: Any, config: Any = None) -> dict[str, Retriever]:
    """Every retriever that can be imported and built; the others are left out."""
    built: dict[str, Retriever] = {}
    for modality, make in retriever_factories(store, config).items():
        try:
            built[modality] = make()
        except Exception:  # a modality that cannot be built is "not available" when planned
            continue
    return built


def _factory(module: str, name: str, store: Any, config: Any) -> Factory:
    def make() -> Retriever:
        try:
            cls = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as exc:
            raise LookupError(f"not available ({exc})") from None
        made: Retriever = cls(store, config) if name == "SemanticRetriever" else cls(store)
        return made

    return make


def _reason(exc: BaseException) -> str:
    if isinstance(exc, LookupError) and str(exc).startswith("not available"):
        return str(exc).strip("'\"")
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
