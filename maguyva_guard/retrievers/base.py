"""The one surface every retriever offers (design §1): a request in, a ranked list of hits out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from maguyva_guard.records import Definition, Frame, Hit


@dataclass(frozen=True)
class SearchRequest:
    """What the engine asks a retriever.

    `query` is the user's words (or code, for find_similar). `terms` are the identifiers or
    literals the classifier pulled out of it ("parse_config" from "who calls parse_config").
    `target`, when set, is a resolved definition: the guard passes the changed symbol so no
    retriever has to guess which `parse_config` is meant. `message`, `error_class` and
    `frames` carry a pasted error: the text retriever then looks for the code that produced
    it (retrievers/pasted.py) instead of the terms.
    """

    query: str
    intent: str
    terms: tuple[str, ...] = ()
    target: Definition | None = None
    limit: int = 50
    depth: int = 1  # graph: how far to follow callers
    case_sensitive: bool = True  # text: identifiers are case-sensitive unless asked
    exclude_paths: frozenset[str] = field(default_factory=frozenset)
    # A pasted error (search/pasted.py), for the text modality: the message as the program
    # printed it, the exception class it names ("ValueError"), the trace's frames.
    message: str = ""
    error_class: str = ""
    frames: tuple[Frame, ...] = ()


class Retriever(Protocol):
    """A modality. `search` returns hits ranked best first, raw scores of its own scale."""

    @property
    def modality(self) -> str: ...

    def search(self, request: SearchRequest) -> list[Hit]: ...
