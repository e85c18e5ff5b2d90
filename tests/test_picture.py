"""The blast-radius picture: the Mermaid block rendered by the real Mermaid (mermaid-cli on
Chromium), the HTML report opened in headless Chromium, hostile names in both."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from browsers import Elements, colours, dump_dom, node, render_mermaid, run_chromium, screenshot
from report_samples import (
    HEAD,
    TARGET,
    affected,
    check_golden,
    clean_report,
    fixture_report,
    hostile_report,
)

from maguyva_guard.guard import risk
from maguyva_guard.guard.model import ImpactReport
from maguyva_guard.records import AMBIGUOUS, PROBABLE, SIGNATURE_CHANGED, ChangedSymbol
from maguyva_guard.report import graphview, mermaid
from maguyva_guard.report.render import render


def mermaid_block(md: str) -> str:
    found = re.search(r"(?ms)^```mermaid\n(.*?)^```\n", md)
    assert found is not None, "no mermaid block"
    return found.group(1)


# --- the diagram's source ------------------------------------------------------------------


def test_golden_html() -> None:
    check_golden("report.html", render(fixture_report(), "html"))


def test_flowchart_styles_edges_by_confidence_and_marks_changed_and_hubs() -> None:
    source = mermaid_block(render(fixture_report(), "markdown"))
    assert '  n0["pkg.config.parse_config<br/>signature changed, risk high"]' in source
    assert "  n0 ==> n2\n" in source  # exact: thick
    assert "  n0 -.-> n3\n" in source  # ambiguous: dotted
    assert "  n2 ==> n4\n" in source  # depth 2 hangs under its callee, not the changed symbol
    assert "  class n0,n1 changed\n" in source and "  class n2 hub\n" in source
    probable = replace(fixture_report().affected[2], confidence=PROBABLE)
    report = replace(fixture_report(), affected=(probable,))
    assert "  n0 --> n2\n" in mermaid.flowchart(graphview.build(report))  # plain


def test_picture_is_bounded_with_a_count_of_the_rest() -> None:
    report = clean_report(100)
    graph = graphview.build(report)
    assert len(graph.nodes) == graphview.MAX_NODES and graph.more == 100 - 24
    source = mermaid.flowchart(graph)
    assert 'more(["and 76 more callers in the tables below"])' in source
    kept = [n.name for n in graph.nodes if n.role == graphview.CALLER]
    best = [a.symbol for a in sorted(report.affected, key=lambda a: -a.score)][:24]
    assert kept == best  # the top of the ranking, in rank order


def test_a_deep_caller_brings_its_chain_or_stays_out() -> None:
    chain = (TARGET, "pkg.a.f", "pkg.b.g")
    deep = affected("pkg/c.py", "pkg.c.h", 3, score=0.9, depth=3, via=chain)
    middle = affected("pkg/b.py", "pkg.b.g", 2, score=0.001, depth=2, via=chain[:2])
    first = affected("pkg/a.py", "pkg.a.f", 1, score=0.0005, depth=1)
    report = clean_report(0, affected=(deep, middle, first))
    graph = graphview.build(report)
    names = {n.id: n.name for n in graph.nodes}
    assert [(names[e.source], names[e.target]) for e in graph.edges] == [
        (TARGET, "pkg.a.f"), ("pkg.a.f", "pkg.b.g"), ("pkg.b.g", "pkg.c.h")]
    small = graphview.build(report, limit=3)  # the chain does not fit: the caller waits
    assert [n.name for n in small.nodes] == [TARGET, "pkg.a.f", "pkg.b.g"] and small.more == 1


def test_labels_cannot_leave_the_quoted_string() -> None:
    source = mermaid.flowchart(graphview.build(hostile_report()))
    for line in source.splitlines()[5:]:
        assert re.fullmatch(
            r'  (n\d+\["[^"\n`<>;\[\]]*?(<br/>[^"\n`<>;\[\]]*)?"\]'
            r'|n\d+ (==>|-->|-\.->) n\d+|class [\w,]+ \w+|more\(\["[\w ]+"\]\))',
            re.sub(r"#\d+;", "", line)), line
    assert "`" not in source


# --- the real renderer ---------------------------------------------------------------------


def test_golden_markdown_picture_renders_with_mermaid(tmp_path: Path) -> None:
    svg = render_mermaid(mermaid_block(render(fixture_report(), "markdown")), tmp_path)
    doc = Elements(svg.read_text("utf-8"))
    text = " ".join(doc.text)
    for name in ("pkg.config.parse_config", "pkg.util.slugify", "pkg.cli.main",
                 "pkg.server.Server.load", "pkg.app.run", "pkg/app.py:12"):
        assert name in text
    assert len(doc.with_class("g", "node")) == 5
    assert len(doc.with_class("path", "flowchart-link")) == 3
    assert len(doc.with_class("g", "changed")) == 2 and len(doc.with_class("g", "hub")) == 1


def test_hostile_names_render_as_text_with_mermaid(tmp_path: Path) -> None:
    svg = render_mermaid(mermaid.flowchart(graphview.build(hostile_report())), tmp_path)
    doc = Elements(svg.read_text("utf-8"))
    assert not doc.tags() & {"script", "img", "a", "iframe", "details"}
    assert not any(k.startswith("on") for _, attrs in doc.elements for k in attrs)
    text = " ".join(doc.text)
    assert "<script>alert(1)</script>" in text and "<img src=x onerror=alert(1)>" in text
    assert len(doc.with_class("g", "node")) == graphview.MAX_NODES + 1  # and the "more" note


# --- the HTML report in Chromium ---------------------------------------------------------


def test_html_report_in_chromium_shows_graph_and_tables(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render(fixture_report(), "html"), "utf-8")
    doc = Elements(dump_dom(page))
    root = doc.elements[0][1]
    assert root.get("data-sortable") == "ready"  # our script ran under the CSP
    assert len(doc.with_class("g", "node")) == 5 and len(doc.with_class("path", "edge")) == 3
    assert len(doc.with_class("table", "sortable")) == 3
    assert "3 affected callers of 2 changed symbols" in " ".join(doc.text)
    shot = screenshot(page, tmp_path / "report.png")
    seen = colours(shot)
    assert len(seen) > 50, "a blank page"
    assert seen.get((0xFD, 0xE2, 0xE1), 0) > 1000  # the changed symbols' red boxes
    assert seen.get((0xFF, 0xF4, 0xCE), 0) > 1000  # the hub's orange box


def test_html_hostile_names_run_no_script_and_add_no_markup(tmp_path: Path) -> None:
    pwn = "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','1')\">"
    script = "<script>document.documentElement.setAttribute('data-pwned','2')</script>"
    report = hostile_report()
    evil = (replace(report.affected[0], symbol=pwn, path=script + ".py"),
            *report.affected[1:])
    report = replace(report, affected=evil)
    page = tmp_path / "hostile.html"
    page.write_text(render(report, "html"), "utf-8")
    doc = Elements(dump_dom(page))
    assert doc.elements[0][1].get("data-sortable") == "ready"
    assert not any("data-pwned" in attrs for _, attrs in doc.elements)
    assert [t for t, _ in doc.elements].count("script") == 1
    assert doc.tags() <= {
        "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "div", "ul", "li",
        "code", "table", "thead", "tbody", "tr", "th", "td", "svg", "defs", "marker", "path",
        "g", "rect", "text", "script"}
    assert not any(k.startswith("on") for _, attrs in doc.elements for k in attrs)
    text = " ".join(doc.text)
    assert pwn in text and "<script>alert(1)</script>" in text  # shown, as text


def test_html_is_self_contained() -> None:
    page = render(fixture_report(), "html")
    assert re.findall(r"https?://[^\s\"'<]*", page) == ["http://www.w3.org/2000/svg"]
    for needle in ("<link", " src=", "@import", "@font-face", "<iframe", "<object"):
        assert needle not in page
    assert set(re.findall(r"url\(([^)]*)\)", page)) == {"#arrow"}  # in-page references only
    assert "content=\"default-src &#39;none&#39;; script-src &#39;sha256-" in page


SORT_SCRIPT = """
const puppeteer = require(process.argv[2]);
(async () => {
  const browser = await puppeteer.launch({executablePath: process.argv[3],
                                          args: JSON.parse(process.argv[4])});
  const page = await browser.newPage();
  await page.goto(process.argv[5]);
  const names = () => page.$$eval("table.callers tbody tr td:first-child",
                                  cells => cells.map(c => c.textContent));
  const before = await names();
  await page.click("table.callers th:nth-child(3)");  // depth, ascending
  const up = await names();
  await page.click("table.callers th:nth-child(3)");  // descending
  const down = await names();
  console.log(JSON.stringify({before, up, down}));
  await browser.close();
})();
"""


def test_html_caller_tables_sort_on_click(tmp_path: Path) -> None:
    import json

    from browsers import CLI_DIR, FLAGS, chromium, mmdc

    mmdc()  # puppeteer comes with the Mermaid CLI
    callers = tuple(affected(f"pkg/m{i}.py", f"pkg.m{i}.f", i + 1, score=0.01 + i / 1000,
                             depth=1 + (i * 7) % 3) for i in range(6))
    page = tmp_path / "sort.html"
    page.write_text(render(clean_report(0, affected=callers), "html"), "utf-8")
    script = tmp_path / "sort.js"
    script.write_text(SORT_SCRIPT, "utf-8")
    import subprocess

    done = subprocess.run(
        [node(), str(script), str(CLI_DIR / "node_modules" / "puppeteer-core"), chromium(),
         json.dumps(FLAGS), page.as_uri()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    depth = {a.symbol: a.depth for a in callers}
    assert result["before"] == [a.symbol for a in sorted(callers, key=lambda a: -a.score)]
    assert [depth[n] for n in result["up"]] == sorted(depth.values())
    assert [depth[n] for n in result["down"]] == sorted(depth.values(), reverse=True)


def test_chromium_helper_runs() -> None:
    assert run_chromium("--version").returncode in (0, 1)  # present, or skipped above


def test_many_changed_symbols_each_named_in_a_big_report() -> None:
    long = "y" * 150
    changed = [ChangedSymbol(f"pkg/s{i}.py", f"s{i}", f"pkg.s{i}.s{i}", "function",
                             SIGNATURE_CHANGED, 1, 2) for i in range(5)]
    callers = tuple(
        affected(f"pkg/{long}{i}.py", f"pkg.{long}{i}.f", i + 1,
                 because_of=(changed[i % 5].qualified_name,), via=(changed[i % 5].qualified_name,),
                 confidence=AMBIGUOUS if i % 7 == 0 else "exact")
        for i in range(2000))
    report = ImpactReport(".", "main", HEAD, tuple(risk.assess(changed, callers)), callers)
    md = render(report, "markdown", max_callers=0)
    assert len(md) <= 65_536
    for c in changed:
        assert f"<code>pkg.s{c.name[1:]}.{c.name}</code>" in md
    assert "more (see the job summary / the JSON artifact)" in md
    assert md.count("<details>") == md.count("</details>")
    assert "```mermaid" in md


def test_long_names_are_cut_at_a_segment_keeping_the_end() -> None:
    name = "tests.test_requests.TestRequests.test_cannot_send_unprepared_requests"
    assert graphview.shorten(name, 48) == "\u2026test_cannot_send_unprepared_requests"
    assert graphview.shorten("a.b.c", 48) == "a.b.c"
    assert graphview.shorten("x" * 60, 10) == "\u2026" + "x" * 9
    assert mermaid.label_text("pkg.mod." + "Klass." * 10 + "method") == (
        "...Klass.Klass.Klass.Klass.Klass.Klass.method")
    assert mermaid.label_text("src/" + "deep/" * 12 + "mod.py", "/").startswith("...deep/")


def test_a_registered_section_shows_in_every_human_format(monkeypatch) -> None:
    """The room left for "docs to review" and "tests to run": a builder reads its field by
    name; text, Markdown and HTML show its table, escaped like everything else. (The
    field here is `tests_to_run`: `docs_to_review` is a field of the model now, of records.)"""
    from maguyva_guard.report import sections

    def docs(report: ImpactReport) -> sections.Section | None:
        rows = getattr(report, "tests_to_run", None)
        if rows is None:
            return None
        return sections.Section("tests_to_run", "Docs to review", ("path", "because of"),
                                tuple(rows), note="They mention a changed symbol.")

    monkeypatch.setattr(sections, "BUILDERS", [docs])
    report = fixture_report()
    object.__setattr__(report, "tests_to_run", (("docs/<b>api</b>.md", "parse_config"),))
    text = render(report, "text")
    assert ("Docs to review: They mention a changed symbol.\n"
            "  docs/<b>api</b>.md  parse_config\n") in text
    md = render(report, "markdown")
    assert "### Docs to review\n" in md
    assert "| docs/&lt;b&gt;api&lt;/b&gt;.md | parse&#95;config |" in md
    page = render(report, "html")
    assert "<h2>Docs to review</h2>" in page
    assert "<td>docs/&lt;b&gt;api&lt;/b&gt;.md</td><td>parse_config</td>" in page
    assert "Docs to review" not in render(fixture_report(), "markdown")  # no field, no section


def test_every_node_and_edge_style_renders_with_mermaid(tmp_path: Path) -> None:
    """Probable and ambiguous edges, a fallback cause, a hub and the "more" note at once."""
    report = clean_report(30)
    extra = (
        affected("pkg/p.py", "pkg.p.probable", 1, score=0.5, confidence=PROBABLE),
        affected("pkg/q.py", "pkg.q.maybe", 2, score=0.4, confidence=AMBIGUOUS),
        affected("pkg/h.py", "pkg.h.hub", 3, score=0.3, centrality=40.0),
        affected("docs/x.py", "docs.x.reads_yaml", 4, score=0.2, confidence=AMBIGUOUS,
                 because_of=("config/defaults.yaml:<module>",), via=()),
    )
    report = replace(report, affected=report.affected + extra)
    source = mermaid.flowchart(graphview.build(report))
    assert "-->" in source and "-.->" in source and "==>" in source
    assert re.search(r"(?m)^  class n\d+ cause$", source)
    assert "config/defaults.yaml:#60;module#62;<br/>fallback search" in source
    svg = render_mermaid(source, tmp_path)
    doc = Elements(svg.read_text("utf-8"))
    assert len(doc.with_class("g", "node")) == graphview.MAX_NODES + 1
    assert len(doc.with_class("g", "cause")) == 1 and len(doc.with_class("g", "hub")) == 1
    assert "fallback search" in " ".join(doc.text)


def test_the_text_tree_spells_out_the_chain_of_a_caller_whose_callee_is_cut() -> None:
    chain = (TARGET, "pkg.a.f")
    report = clean_report(0, affected=(
        affected("pkg/b.py", "pkg.b.g", 2, score=0.9, depth=2, via=chain),
        affected("pkg/c.py", "pkg.c.h", 3, score=0.5),
        affected("pkg/a.py", "pkg.a.f", 1, score=0.1),
    ))
    lines = render(report, "text", max_callers=2).splitlines()
    start = lines.index("pkg.config.parse_config  signature changed  risk none  pkg/config.py:10")
    assert lines[start + 1:start + 4] == [
        "  |-- pkg/b.py:2 pkg.b.g [depth 2, exact, found by: graph] via pkg.a.f",
        "  `-- pkg/c.py:3 pkg.c.h [depth 1, exact, found by: graph]",
        "  ... and 1 more",
    ]
    full = render(report, "text", max_callers=0).splitlines()
    assert full[start + 1:start + 4] == [
        "  |-- pkg/c.py:3 pkg.c.h [depth 1, exact, found by: graph]",
        "  `-- pkg/a.py:1 pkg.a.f [depth 1, exact, found by: graph]",
        "      `-- pkg/b.py:2 pkg.b.g [depth 2, exact, found by: graph]",
    ]
