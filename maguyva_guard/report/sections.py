"""Sections beside `affected` ("docs to review", "tests to run"...): one table each, drawn by
every human-readable format the same way.

A feature that adds a list to the report registers a builder here, which reads its field
from the report by name and returns a `Section` (or None when it has nothing to say); the
text, Markdown and HTML templates show each section as a table after the callers, escaped
like every other value. Nothing here needs to know which fields exist.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from maguyva_guard.guard.model import ImpactReport


@dataclass(frozen=True)
class Section:
    key: str  # the report field it shows, e.g. "docs_to_review"
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]  # plain text; the templates escape it
    note: str = ""  # one line under the title


Builder = Callable[["ImpactReport"], "Section | None"]
BUILDERS: list[Builder] = []


def register(builder: Builder) -> Builder:
    """Decorator: add a section builder (report order is registration order)."""
    BUILDERS.append(builder)
    return builder


def extra_sections(report: ImpactReport) -> list[Section]:
    return [s for s in (build(report) for build in BUILDERS) if s is not None and s.rows]
