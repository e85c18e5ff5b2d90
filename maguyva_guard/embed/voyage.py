"""The Voyage backend (opt-in): voyage-code-3 with binary output, through the voyageai client.

What is sent: POST {base_url}/embeddings with the bearer key from VOYAGE_API_KEY, a batch of
chunk texts (or the query), the model, input_type ("document" for chunks and code, "query"
for questions), output_dtype "ubinary" and output_dimension. Nothing else leaves the machine.

Retries are ours, not the client's (it is built with max_retries=0): the client's backoff
ignores Retry-After and waits up to 16 s with jitter, which a pre-commit hook cannot afford
unbounded. We retry 429 (waiting what Retry-After says, if it is reasonable), 502, 503 and
504 with exponential backoff; a 500, a refused connection or a timeout fails at once, as the
network is then not going to get better within a commit. Every failure becomes one
SemanticUnavailable line; the API key never appears in it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final

from maguyva_guard.embed.base import (
    DOCUMENT,
    KEY_VARIABLE,
    VOYAGE,
    SemanticUnavailable,
    Settings,
)

if TYPE_CHECKING:
    import numpy as np

# Per-request limits of the API for voyage-code-3: 1,000 texts and 120,000 tokens. Tokens are
# estimated as characters / 4 (counting them exactly downloads a tokenizer); the budget keeps
# a margin because code often runs denser than 4 characters a token.
MAX_BATCH_TEXTS: Final = 1000
MAX_BATCH_TOKENS: Final = 120_000
TOKEN_BUDGET: Final = int(MAX_BATCH_TOKENS * 0.75)
CHARS_PER_TOKEN: Final = 4
MAX_TEXT_CHARS: Final = 32_000 * CHARS_PER_TOKEN  # the model's context; the rest is truncated
BACKOFF_FIRST: Final = 1.0  # seconds before the first retry without Retry-After, doubling
BACKOFF_CAP: Final = 8.0
RETRY_AFTER_CAP: Final = 30.0  # a longer Retry-After gives up instead of blocking the hook
RETRYABLE_STATUS: Final = frozenset({429, 502, 503, 504})
MAX_REASON_CHARS: Final = 160


class VoyageEmbedder:
    name: Final = VOYAGE

    def __init__(self, api_key: str, config: Settings,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.model = config.model
        self.dimension = config.dimension
        self._key = api_key
        self._config = config
        self._sleep = sleep
        self._client: Any = None
        self.requests = 0  # HTTP requests made (tests and the bench read it)

    def embed(self, texts: Sequence[str], input_type: str = DOCUMENT) -> np.ndarray:
        import numpy as np

        rows = [self._request(batch, input_type) for batch in batches(texts)]
        if not rows:
            return np.zeros((0, self.dimension // 8), dtype=np.uint8)
        return np.concatenate(rows)

    def _request(self, texts: list[str], input_type: str) -> np.ndarray:
        import numpy as np
        from voyageai import error

        for attempt in range(self._config.max_retries + 1):
            self.requests += 1
            try:
                result = self.client().embed(
                    texts, model=self.model, input_type=input_type, truncation=True,
                    output_dtype="ubinary", output_dimension=self.dimension)
            except error.AuthenticationError:
                raise SemanticUnavailable(
                    f"Voyage rejected the API key (HTTP 401): check {KEY_VARIABLE}") from None
            except (error.RateLimitError, error.ServiceUnavailableError) as exc:
                wait = self._retry_delay(exc, attempt)
                if wait is None:
                    raise SemanticUnavailable(self._reason(exc)) from None
                self._sleep(wait)
                continue
            except error.VoyageError as exc:
                raise SemanticUnavailable(self._reason(exc)) from None
            bits = np.asarray(result.embeddings, dtype=np.uint8)
            if bits.shape != (len(texts), self.dimension // 8):
                raise SemanticUnavailable(
                    f"Voyage answered {bits.shape} for {len(texts)} texts of "
                    f"{self.dimension} bits")
            return bits
        raise AssertionError("unreachable: the last attempt returns or raises")

    def client(self) -> Any:
        """The voyageai client, imported on first use (the import alone takes ~2.5 s)."""
        if self._client is None:
            import voyageai

            self._client = voyageai.Client(api_key=self._key, max_retries=0,
                                           timeout=self._config.timeout,
                                           base_url=self._config.base_url)
        return self._client

    def _retry_delay(self, exc: Any, attempt: int) -> float | None:
        """Seconds to wait before the next attempt, or None to give up."""
        if attempt >= self._config.max_retries:
            return None
        after = retry_after(getattr(exc, "headers", None) or {})
        if after is not None:
            return after if after <= RETRY_AFTER_CAP else None
        return min(BACKOFF_FIRST * 2.0**attempt, BACKOFF_CAP)

    def _reason(self, exc: Any) -> str:
        status = getattr(exc, "http_status", None)
        text = " ".join(str(getattr(exc, "user_message", None) or exc).split())
        text = text.replace(self._key, "***")[:MAX_REASON_CHARS]
        where = f" (HTTP {status})" if status else ""
        return f"Voyage request failed{where}: {text}" if text else f"Voyage request failed{where}"


def retry_after(headers: Any) -> float | None:
    """Seconds from a Retry-After header given in seconds (an HTTP date is ignored)."""
    value = headers.get("retry-after") or headers.get("Retry-After")
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return max(seconds, 0.0) if math.isfinite(seconds) else None


def batches(texts: Sequence[str]) -> Iterator[list[str]]:
    """Consecutive batches within MAX_BATCH_TEXTS texts and TOKEN_BUDGET estimated tokens."""
    batch: list[str] = []
    tokens = 0
    for text in texts:
        text = text[:MAX_TEXT_CHARS]
        cost = len(text) // CHARS_PER_TOKEN + 1
        if batch and (len(batch) >= MAX_BATCH_TEXTS or tokens + cost > TOKEN_BUDGET):
            yield batch
            batch, tokens = [], 0
        batch.append(text)
        tokens += cost
    if batch:
        yield batch
