"""Choosing the embedding backend: texts in, packed sign bits out (design §1).

    backend = select(config)              # the embedded SimHash unless Voyage is opted in
    bits = backend.embed(texts, "document")   # np.uint8 array (len(texts), dimension // 8)

The protocol, the settings record and `SemanticUnavailable` are in base.py (re-exported
here, so callers need only this module); the backends are hashed.py (embedded, the
default) and voyage.py (opt-in).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from typing import Any, Final

from maguyva_guard.embed import hashed as hashembed
from maguyva_guard.embed.base import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    DOCUMENT,
    EMBEDDED,
    KEY_VARIABLE,
    QUERY,
    VOYAGE,
    VOYAGE_DIMENSION,
    VOYAGE_MODEL,
    Backend,
    SemanticUnavailable,
    Settings,
    _warned,
    warn_once,
)
from maguyva_guard.errors import FatalError

__all__ = [
    "DEFAULT_MAX_RETRIES", "DEFAULT_TIMEOUT", "DOCUMENT", "EMBEDDED", "KEY_VARIABLE", "QUERY",
    "VOYAGE", "VOYAGE_DIMENSION", "VOYAGE_MODEL", "Backend", "SemanticUnavailable", "Settings",
    "_warned", "select", "settings", "tag", "warn_once",
]

VOYAGE_EXTRA: Final = "maguyva-guard[voyage]"  # what installs the voyageai client


def settings(config: Any = None) -> Settings:
    """Defaults filled into a config: None, a Config (its `.semantic`) or a semantic table
    (config.SemanticConfig or anything with its attributes; None values mean "default")."""
    semantic = getattr(config, "semantic", config)
    backend = getattr(semantic, "backend", None) or EMBEDDED
    remote = backend == VOYAGE
    model = getattr(semantic, "model", None) or (VOYAGE_MODEL if remote else hashembed.MODEL)
    default_dim = VOYAGE_DIMENSION if remote else hashembed.DEFAULT_DIMENSION
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
    chosen = settings(config)
    environ = os.environ if env is None else env
    key = environ.get(KEY_VARIABLE, "").strip()
    if chosen.backend == VOYAGE and key:
        if importlib.util.find_spec("voyageai") is None:  # an extra, not a default dependency
            raise FatalError(f"semantic backend 'voyage' needs the voyageai package: "
                             f"pip install '{VOYAGE_EXTRA}'")
        from maguyva_guard.embed import voyage  # opt-in: not imported by every run

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
