"""The blast radius as inline SVG for the HTML report, laid out here (no renderer, no script).

A layered layout: changed symbols (and fallback causes) in the first column, each caller one
column right of the deepest node it hangs under; within a column, nodes sit in the order of
their parents' rows (the barycentre heuristic of layered graph drawing), so that edges cross
little. Every string is escaped with html.escape after its control characters are written
out (escape.visible): a name is always text, never markup.
"""

from __future__ import annotations

import html
from typing import Final

from maguyva_guard.records import AMBIGUOUS, EXACT
from maguyva_guard.report import escape
from maguyva_guard.report.graphview import CALLER, CHANGED, BlastGraph, Node, shorten

BOX_W: Final = 250
BOX_H: Final = 42
GAP_X: Final = 70
GAP_Y: Final = 14
MARGIN: Final = 10
NAME_CHARS: Final = 32  # what fits a box in the report's font; the full name is the tooltip

# (stroke width, dash pattern) per confidence: the same code as the Markdown picture.
EDGE_STYLE: Final[dict[str, tuple[str, str]]] = {EXACT: ("2.5", ""), AMBIGUOUS: ("1.2", "5 4")}
PLAIN_EDGE: Final = ("1.5", "")
FILL: Final = {"changed": ("#fde2e1", "#b42318"), "hub": ("#fff4ce", "#b54708"),
               "cause": ("#eef2f6", "#667085"), "caller": ("#eef4ff", "#6172f3")}


def layout(graph: BlastGraph) -> dict[str, tuple[int, int]]:
    """Node id -> (column, row)."""
    column = {n.id: 0 for n in graph.nodes}
    for e in graph.edges:  # a source is placed before the edges that leave it
        column[e.target] = max(column[e.target], column[e.source] + 1)
    parents: dict[str, list[str]] = {}
    for e in graph.edges:
        parents.setdefault(e.target, []).append(e.source)
    rows: dict[str, int] = {}
    for col in range(max(column.values(), default=-1) + 1):
        here = [n.id for n in graph.nodes if column[n.id] == col]
        keys = {node_id: (_centre(parents.get(node_id, []), rows), i)
                for i, node_id in enumerate(here)}
        for row, node_id in enumerate(sorted(here, key=keys.__getitem__)):
            rows[node_id] = row
    return {node_id: (column[node_id], rows[node_id]) for node_id in column}


def _centre(parents: list[str], rows: dict[str, int]) -> float:
    above = [rows[p] for p in parents if p in rows]
    return sum(above) / len(above) if above else 0.0


def render(graph: BlastGraph) -> str:
    """The <svg> element, or "" when there is nothing to draw."""
    if graph.empty:
        return ""
    place = layout(graph)
    width = MARGIN * 2 + (max(c for c, _ in place.values()) + 1) * (BOX_W + GAP_X) - GAP_X
    n_rows = max(r for _, r in place.values()) + 1 + (1 if graph.more else 0)
    height = MARGIN * 2 + n_rows * (BOX_H + GAP_Y) - GAP_Y

    def corner(node_id: str) -> tuple[int, int]:
        col, row = place[node_id]
        return MARGIN + col * (BOX_W + GAP_X), MARGIN + row * (BOX_H + GAP_Y)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="blast" width="{width}"'
        f' height="{height}" viewBox="0 0 {width} {height}" role="img"'
        ' aria-label="blast radius: changed symbols and the callers they reach">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5"'
        ' markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9"'
        ' orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"'
        ' fill="#344054"/></marker></defs>',
    ]
    for e in graph.edges:
        (x1, y1), (x2, y2) = corner(e.source), corner(e.target)
        x1, y1, y2 = x1 + BOX_W, y1 + BOX_H // 2, y2 + BOX_H // 2
        stroke, dash = EDGE_STYLE.get(e.confidence, PLAIN_EDGE)
        mid = (x1 + x2) // 2
        parts.append(
            f'<path class="edge {_attr(e.confidence)}" d="M{x1},{y1} C{mid},{y1} {mid},{y2}'
            f' {x2 - 2},{y2}" fill="none" stroke="#344054" stroke-width="{stroke}"'
            + (f' stroke-dasharray="{dash}"' if dash else "") + ' marker-end="url(#arrow)"/>'
        )
    for node in graph.nodes:
        parts.append(_box(node, *corner(node.id)))
    if graph.more:
        y = height - MARGIN - BOX_H // 2
        noun = "caller" if graph.more == 1 else "callers"
        parts.append(f'<text class="more" x="{MARGIN}" y="{y}">and {graph.more} more {noun}'
                     " in the tables below</text>")
    parts.append("</svg>")
    return "\n".join(parts)


def _box(node: Node, x: int, y: int) -> str:
    style = "changed" if node.role == CHANGED else "hub" if node.hub else (
        "caller" if node.role == CALLER else "cause")
    fill, stroke = FILL[style]
    width = "3" if style in ("hub", "changed") else "1"
    dash = ' stroke-dasharray="4 3"' if style == "cause" else ""
    if node.role == CHANGED:
        second = f"risk {node.risk}, {node.detail}"  # cut at its end: the risk stays
    elif node.role == CALLER:
        second = f"{node.path}:{int(node.line)}"
    else:
        second = node.detail
    shown = _cut(second, "/") if node.role == CALLER else _cut_end(second)
    lines = [node.name, second] + (["hub: much of the project leans on it"] if node.hub else [])
    title = "&#10;".join(_text(line) for line in lines)
    return (
        f'<g class="node {style}"><title>{title}</title>'
        f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6" fill="{fill}"'
        f' stroke="{stroke}" stroke-width="{width}"{dash}/>'
        f'<text x="{x + 8}" y="{y + 17}" class="name">{_text(_cut(node.name))}</text>'
        f'<text x="{x + 8}" y="{y + 34}" class="where">{_text(shown)}</text></g>'
    )


def _cut(text: str, sep: str = ".") -> str:
    return shorten(escape.visible(text), NAME_CHARS, sep)


def _cut_end(text: str) -> str:
    shown = escape.visible(text)
    return shown if len(shown) <= NAME_CHARS else shown[: NAME_CHARS - 1] + "\u2026"


def _text(text: str) -> str:
    return html.escape(escape.visible(text))


def _attr(text: str) -> str:
    return "".join(c for c in text if c.isalnum())
