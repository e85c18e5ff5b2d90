"""Embedding backends behind one interface: texts in, packed sign bits out (SPEC 1).

    backend = select(config)              # the embedded SimHash unless Voyage is opted in
    bits = backend.embed(texts, "document")   # np.uint8 array (len(texts), dimension // 8)

Every backend returns the same thing, sign bits packed eight to a byte, so the index format
and the Hamming search do not depend on the backend. A backend is named by `tag`
(backend, model, dimension); vectors of different tags are never mixed.

Voyage is used only when the configuration asks for it AND `VOYAGE_API_KEY` is set: no code
leaves the machine otherwise. A backend that cannot answer raises `SemanticUnavailable`; the
engine then runs the other modalities and reports the reason.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

if TYPE_CHECKING:
    import numpy as np

DOCUMENT: Final = "document"  # input_type of indexed chunks (and of code given as a query)
QUERY: Final = "query"  # input_type of a natural-language query
EMBEDDED: Final = "embedded"
VOYAGE: Final = "voyage"
KEY_VARIABLE: Final = "VOYAGE_API_KEY"

VOYAGE_MODEL: Final = "voyage-code-3"
VOYAGE_DIMENSION: Final = 1024
# A hook must not hang on the network: one request may take this long, and is retried at
# most this many times (only 429, 502, 503 and 504 are retried; see voyage.py).
DEFAULT_TIMEOUT: Final = 30.0
DEFAULT_MAX_RETRIES: Final = 3

_warned: set[str] = set()


class SemanticUnavailable(Exception):
    """The semantic backend cannot answer (network, quota, key). The message is one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Backend(Protocol):
    name: str  # "embedded" or "voyage"
    model: str
    dimension: int  # bits per vector

    def embed(self, texts: Sequence[str], input_type: str = DOCUMENT) -> np.ndarray: ...


@dataclass(frozen=True)
class Settings:
    """The `[tool.maguyva-guard.semantic]` table with every default filled in."""

    backend: str = EMBEDDED
    model: str = ""
    dimension: int = 0
    base_url: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_MAX_RETRIES


def settings(config: Any = None) -> Settings:
    """Defaults filled into a config: None, a Config (its `.semantic`) or a semantic table
    (config.SemanticConfig or anything with its attributes; None values mean "default")."""
    from maguyva_guard.embed import hashed as hashembed

    semantic = getattr(config, "semantic", config)
    backend = getattr(semantic, "backend", None) or EMBEDDED
    voyage = backend == VOYAGE
    model = getattr(semantic, "model", None) or (VOYAGE_MODEL if voyage else hashembed.MODEL)
    default_dim = VOYAGE_DIMENSION if voyage else hashembed.DEFAULT_DIMENSION
    timeout = getattr(semantic, "timeout", None)
    retries = getattr(semantic, "max_retries", None)
    return Settings(
        backend=backend,
        model=model,
        dimension=getattr(semantic, "dimension", None) or default_dim,
        base_url=getattr(semantic, "base_url", None),
        timeout=DEFAULT_TIMEOUT if timeout is None else float(timeout),
        max_retries=DEFAULT_MAX_RETRIES if retries is None else int(retries),
    )


def select(config: Any = None, env: Mapping[str, str] | None = None) -> Backend:
    """The backend the configuration asks for, or the embedded one (said once on stderr when
    Voyage was asked for but no key is set). Creating a backend makes no request."""
    from maguyva_guard.embed import hashed as hashembed

    chosen = settings(config)
    environ = os.environ if env is None else env
    key = environ.get(KEY_VARIABLE, "").strip()
    if chosen.backend == VOYAGE and key:
        from maguyva_guard.embed import voyage

        return voyage.VoyageEmbedder(key, chosen)
    if chosen.backend == VOYAGE:
        warn_once(f"semantic backend 'voyage' is configured but {KEY_VARIABLE} is not set: "
                  "using the embedded backend (no code leaves this machine)")
        return hashembed.HashEmbedder(hashembed.DEFAULT_DIMENSION)
    if chosen.model != hashembed.MODEL:
        warn_once(f"the embedded backend has one model, {hashembed.MODEL}; "
                  f"ignoring model {chosen.model!r}")
    return hashembed.HashEmbedder(chosen.dimension)


def tag(backend: Backend) -> tuple[str, str, int]:
    return backend.name, backend.model, backend.dimension


def warn_once(message: str) -> None:
    """One line on stderr, at most once per process for the same message."""
    if message in _warned:
        return
    _warned.add(message)
    print(f"maguyva-guard: warning: {message}", file=sys.stderr)
