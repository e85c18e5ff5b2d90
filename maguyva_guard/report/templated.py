"""Text and Markdown reports through the Jinja templates of templates/ (design §7, step 5).

Escaping is not left to the template author's memory. Each environment has a `finalize`
hook that escapes EVERY `{{ ... }}` value (Markdown and HTML for the pull-request comment,
control characters for the terminal) unless it is a `Safe` string, which only the filters
here make, after escaping. `{{ caller.path }}` is therefore safe as written; literal text
of the templates is the only unescaped content.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote

from maguyva_guard import __version__
from maguyva_guard.guard.model import STAGED, file_groups
from maguyva_guard.records import REMOVED, Affected, ChangedSymbol
from maguyva_guard.report import escape, fit, sections, tree
from maguyva_guard.report.groups import groups
from maguyva_guard.report.labels import between, change_label

if TYPE_CHECKING:
    import jinja2

    from maguyva_guard.guard.model import ImpactReport
    from maguyva_guard.report.groups import SymbolGroup

TEMPLATE_PACKAGE: Final = "maguyva_guard.templates"

# GitHub refuses comments longer than 65,536 characters (report/fit.py keeps under this).
MAX_COMMENT_CHARS: Final = 60_000
# A fallback query is often a whole hunk; show its start only.
QUERY_PREVIEW_CHARS: Final = 80

# Commit ids: SHA-1 and SHA-256 repositories; shown shortened as GitHub does.
SHA1_HEX: Final = 40
SHA256_HEX: Final = 64
SHORT_SHA: Final = 12

# ANSI SGR codes of the text report's styles.
ANSI: Final = {
    "bold": "1",
    "dim": "2",
    "high": "1;31",
    "medium": "33",
    "low": "36",
    "none": "2",
    "complete": "32",
    "incomplete": "1;33",
}


class Safe(str):
    """Text already escaped for the output at hand: `finalize` lets it through."""


# Possible (name-only) callers listed in text and Markdown; JSON lists them all.
POSSIBLE_SHOWN = 20


def render_text(report: ImpactReport, groups: list[SymbolGroup], *, color: bool,
                more_groups: int = 0) -> str:
    template = _environment("text", color).get_template("text.j2")
    return template.render(report=report, groups=groups, possible_shown=POSSIBLE_SHOWN,
                           sections=sections.extra_sections(report), more_groups=more_groups,
                           file_groups=file_groups(report.files))


def render_markdown(report: ImpactReport, max_callers: int, limit: int | None = None) -> str:
    """The pull-request comment: summary, table and picture first, then the per-symbol
    sections in risk order, cut to fit a GitHub comment (report/fit.py) or `limit`."""
    from maguyva_guard.report import graphview, mermaid  # Markdown's picture: not for text

    template = _environment("markdown", False).get_template("markdown.j2")
    every = groups(report, 1)
    n_table = sum(1 for g in every if g.changed)
    n_sections = sum(1 for g in every if g.callers)
    fixed = dict(
        report=report, link=_linker(report), version=__version__,
        picture=Safe(mermaid.markdown_block(graphview.build(report))),
        sections=sections.extra_sections(report),
        file_groups=file_groups(report.files),
    )

    def render(table: list[SymbolGroup], shown: list[SymbolGroup], cut: fit.Cut) -> str:
        return template.render(
            **fixed, table_groups=table, groups=shown, more_groups=n_table - len(table),
            more_sections=n_sections - len(shown), possible_shown=cut.possible,
            fallbacks_shown=cut.fallbacks, more_note=cut.note,
        )

    return fit.fit(report, max_callers, render, limit or fit.MAX_COMMENT_CHARS)


# --- Environments ---------------------------------------------------------------------------


@lru_cache(maxsize=4)
def _environment(kind: str, color: bool) -> jinja2.Environment:
    import jinja2

    escaper = escape.markdown if kind == "markdown" else escape.terminal
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(load_template),
        autoescape=False,  # we escape through finalize, for Markdown and terminals alike
        finalize=_finalizer(escaper),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_bytecode_cache(),
    )
    env.filters.update(
        esc=lambda v: Safe(escaper(str(v))),
        join_esc=lambda items, sep: Safe(escaper(sep).join(escaper(str(i)) for i in items)),
        style=_styler(color),
        change_label=change_label,
        where=where,
        found_by=found_by,
        between=between,
        plural=lambda n, noun: f"{n} {noun}" if n == 1 else f"{n} {noun}s",
        preview=preview,
        seconds=lambda s: f"{s:.2f} s",
        short_rev=short_rev,
        tree=_tree_rows,
    )
    if kind == "markdown":
        env.filters["md"] = env.filters["esc"]
    return env


def _bytecode_cache() -> jinja2.BytecodeCache:
    """The templates' compiled code, kept beside the package's .pyc files as Python keeps
    those (nothing written with PYTHONDONTWRITEBYTECODE or in a read-only folder): a text
    report compiled text.j2 on every run (about 15 ms of the pre-commit hook's CPU). Jinja
    checks the source's checksum and the interpreter's version before using a file."""
    import jinja2

    class PycacheBytecode(jinja2.FileSystemBytecodeCache):
        def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            if sys.dont_write_bytecode:
                return
            try:
                Path(self.directory).mkdir(exist_ok=True)
                super().dump_bytecode(bucket)
            except OSError:
                pass  # read-only: the next run compiles the template again

    package = importlib.import_module(TEMPLATE_PACKAGE)
    folder = Path(str(package.__file__)).with_name("__pycache__")
    return PycacheBytecode(str(folder), f"%s.jinja.{sys.implementation.cache_tag}.cache")


def _tree_rows(group: SymbolGroup) -> list[Any]:
    return list(tree.rows(group))


def load_template(name: str) -> str:
    # By path, as languages.py reads the query files (importlib.resources costs ~10 ms).
    package = importlib.import_module(TEMPLATE_PACKAGE)
    return Path(str(package.__file__)).with_name(name).read_text(encoding="utf-8")


def _finalizer(escaper: Callable[[str], str]) -> Callable[[Any], Any]:
    def finalize(value: Any) -> Any:
        if isinstance(value, Safe):
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            return escaper(str(value))
        return value

    return finalize


def _styler(color: bool) -> Callable[[Any, str], Safe]:
    def style(value: Any, name: str) -> Safe:
        text = escape.terminal(str(value))
        return Safe(f"\x1b[{ANSI[name]}m{text}\x1b[0m" if color and name in ANSI else text)

    return style


# --- Labels shared by both templates (plain text; finalize escapes them) ------------------


def where(changed: ChangedSymbol) -> str:
    """path:line of a changed symbol; a removed one is shown where it was."""
    if changed.change == REMOVED:
        return f"{changed.old_path or changed.path}:{changed.line_start} (before the change)"
    return f"{changed.path}:{changed.line_start}"


def found_by(affected: Affected) -> str:
    return "+".join(affected.modalities) or "-"


def short_rev(rev: str) -> str:
    """A full commit id cut to SHORT_SHA characters, as GitHub shows them; names as they are."""
    full = len(rev) in (SHA1_HEX, SHA256_HEX) and all(c in "0123456789abcdef" for c in rev)
    return rev[:SHORT_SHA] if full else rev


def preview(query: str) -> str:
    flat = " ".join(query.split())
    if len(flat) <= QUERY_PREVIEW_CHARS:
        return flat
    return flat[: QUERY_PREVIEW_CHARS - 1] + "\u2026"


# --- Links to the repository (Markdown) ---------------------------------------------------


def _linker(report: ImpactReport) -> Callable[[str, int, bool], Safe | None]:
    """`link(path, line, old_side)` -> a percent-encoded blob URL, or None without one."""
    base_url = escape.http_url(report.repo_url)
    refs = {False: None if report.head == STAGED else report.head, True: report.base}

    def link(path: str, line: int, old_side: bool = False) -> Safe | None:
        ref = refs[old_side]
        if base_url is None or not ref:
            return None
        return Safe(
            f"{base_url}/blob/{quote(ref, safe='/')}/{quote(path, safe='/')}#L{int(line)}"
        )

    return link
