"""What every embedding backend shares: the Backend protocol, its settings, its failure.

Every backend returns the same thing, sign bits packed eight to a byte, so the index format
and the Hamming search do not depend on the backend. A backend is named by `tag`
(backend, model, dimension); vectors of different tags are never mixed.

Voyage is used only when the configuration asks for it AND `VOYAGE_API_KEY` is set: no code
leaves the machine otherwise. A backend that cannot answer raises `SemanticUnavailable`; the
engine then runs the other modalities and reports the reason.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol

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
    @property
    def name(self) -> str: ...  # "embedded" or "voyage"

    @property
    def model(self) -> str: ...

    @property
    def dimension(self) -> int: ...  # bits per vector

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


def warn_once(message: str) -> None:
    """One line on stderr, at most once per process for the same message."""
    if message in _warned:
        return
    _warned.add(message)
    print(f"maguyva-guard: warning: {message}", file=sys.stderr)
