"""`render`: the report (guard/model.py) to text, Markdown, JSON, SARIF or HTML.

Each format has its renderer module here (templated.py: text and Markdown through Jinja;
as_json.py; sarif.py; html.py); this module picks one.
"""

from __future__ import annotations

from typing import Final

from maguyva_guard.config import DEFAULT_MAX_CALLERS
from maguyva_guard.errors import FatalError
from maguyva_guard.guard.model import (  # noqa: F401 - the model, for callers of render
    STAGED,
    UNSPECIFIED_REASON,
    ImpactReport,
    Stats,
    ambiguous_reason,
    fallback_reason,
    ranked,
)
from maguyva_guard.report import ReportFormat
from maguyva_guard.report.groups import SymbolGroup, groups  # noqa: F401

# Changed symbols listed in the text report, riskiest first. A reformatting of thousands of
# files must not print thousands of "no callers found"; JSON lists every one.
DEFAULT_MAX_SYMBOLS: Final = 100
TEXT: Final = ReportFormat.TEXT
MARKDOWN: Final = ReportFormat.MARKDOWN
JSON: Final = ReportFormat.JSON
SARIF: Final = ReportFormat.SARIF
HTML: Final = ReportFormat.HTML
FORMATS: Final = tuple(ReportFormat)


def render(
    report: ImpactReport,
    fmt: str,
    *,
    color: bool = False,
    max_callers: int = DEFAULT_MAX_CALLERS,
    max_symbols: int = DEFAULT_MAX_SYMBOLS,
) -> str:
    """The report in one of FORMATS, ending with a newline.

    `color` (ANSI) applies to text only: pass `sys.stdout.isatty()`. `max_callers` limits
    the callers listed per changed symbol in text and Markdown ("... and N more");
    JSON and SARIF are for machines and list every caller. `max_symbols` limits the changed
    symbols the text report lists (riskiest first, "... and N more"; 0 shows all).
    """
    # Each renderer imported when its format is asked: the pre-commit hook prints text on
    # every commit and has no use for the others' imports (Mermaid, SARIF, HTML).
    if fmt == TEXT:
        from maguyva_guard.report.templated import render_text

        found = groups(report, max_callers)
        shown = found[:max_symbols] if max_symbols > 0 else found
        return render_text(report, shown, color=color, more_groups=len(found) - len(shown))
    if fmt == MARKDOWN:
        from maguyva_guard.report.templated import render_markdown

        return render_markdown(report, max_callers)
    if fmt == JSON:
        from maguyva_guard.report.as_json import render_json

        return render_json(report)
    if fmt == SARIF:
        from maguyva_guard.report.sarif import render_sarif

        return render_sarif(report)
    if fmt == HTML:
        from maguyva_guard.report.html import render_html

        return render_html(report)
    raise FatalError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}")
