"""`check --format html`: one self-contained page (templates/report.html.j2).

No network: no external script, style sheet, font or image; the graph is inline SVG laid out
by report/svg.py; the only script is the small inline table sorter, allowed by its hash in
a Content-Security-Policy that forbids every other script and every fetch. So even a
string that escaped its escaping could not run or load anything. And none does: Jinja's
HTML autoescaping is on, after `finalize` has written out control and bidi characters.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

from maguyva_guard import __version__
from maguyva_guard.report import escape

if TYPE_CHECKING:
    import jinja2

    from maguyva_guard.guard.model import ImpactReport

TEMPLATE: Final = "report.html.j2"

# Sorts a table by the clicked column: numbers by data-sort, text by its content; marks the
# page once ready (the browser test tells our script from an injected one by that).
SORTER: Final = """
(function () {
  function key(row, i) {
    var cell = row.cells[i];
    return cell.hasAttribute("data-sort") ? parseFloat(cell.getAttribute("data-sort"))
                                          : cell.textContent.trim().toLowerCase();
  }
  function sortBy(th) {
    var table = th.closest("table"), body = table.tBodies[0];
    var i = Array.prototype.indexOf.call(th.parentNode.children, th);
    var up = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(th.parentNode.children, function (h) {
      h.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", up ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a, i), y = key(b, i);
      var c = typeof x === "number" ? x - y : String(x).localeCompare(String(y));
      return up ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable th").forEach(function (th) {
    th.tabIndex = 0;
    th.addEventListener("click", function () { sortBy(th); });
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") sortBy(th); });
  });
  document.documentElement.setAttribute("data-sortable", "ready");
})();
"""


def script_hash(script: str = SORTER) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def render_html(report: ImpactReport) -> str:
    import markupsafe

    from maguyva_guard.report import graphview, sections, svg
    from maguyva_guard.report.groups import groups

    csp = (f"default-src 'none'; script-src '{script_hash()}'; style-src 'unsafe-inline';"
           " img-src data:; base-uri 'none'; form-action 'none'")
    return _environment().get_template(TEMPLATE).render(
        report=report, groups=groups(report, 0), picture=markupsafe.Markup(
            svg.render(graphview.build(report))),
        sections=sections.extra_sections(report), version=__version__, csp=csp,
        script=markupsafe.Markup(SORTER),
    )


def _finalize(value: Any) -> Any:
    import markupsafe

    if isinstance(value, markupsafe.Markup) or isinstance(value, int | float):
        return value
    return escape.visible(str(value))  # autoescape then escapes the markup characters


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    import jinja2

    from maguyva_guard.report import labels, templated

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(templated.load_template),
        autoescape=True,
        finalize=_finalize,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        change_label=labels.change_label, where=templated.where,
        found_by=templated.found_by, between=labels.between,
        short_rev=templated.short_rev, seconds=lambda s: f"{s:.2f} s",
        plural=lambda n, noun: f"{n} {noun}" if n == 1 else f"{n} {noun}s",
        preview=templated.preview,
    )
    return env
