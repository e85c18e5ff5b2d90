"""Reports: the guard's model rendered for people and machines.

Owns one renderer per format behind `render.render` (templated.py for text and Markdown
through the Jinja templates, as_json.py, sarif.py), the grouping of callers by changed symbol
(groups.py) and the escaping of everything that comes from the repository (escape.py).

May import: the top-level basics and every stage up to guard.
"""

from enum import StrEnum


class ReportFormat(StrEnum):
    """The report formats (`check --format`). Here, in the package's own module, so that the
    command line can list them without importing any renderer (the hook's start-up)."""

    TEXT = "text"
    MARKDOWN = "markdown"
    JSON = "json"
    SARIF = "sarif"
    HTML = "html"
