"""The blast radius as a Mermaid flowchart, which GitHub draws in a comment's ```mermaid block.

A name cannot break out of the diagram: node ids are generated ("n0", "n1"...), and every
label is a quoted string in which each character other than letters, digits and `._/:-` and
the space is written as a Mermaid entity code (`#60;` for "<"). Mermaid shows an entity as
its character, as text; the quote that would end the label, the brackets and semicolons of
the syntax, a backtick that could close the Markdown fence, `<` of HTML and every control
character become codes. Labels are cut to a readable length, keeping their end (the name).
"""

from __future__ import annotations

from typing import Final

from maguyva_guard.records import AMBIGUOUS, EXACT
from maguyva_guard.report import escape
from maguyva_guard.report.graphview import CALLER, CHANGED, BlastGraph, Node, shorten

MAX_LABEL_CHARS: Final = 48
_PLAIN: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:- ")

# Line style per confidence: thick for exact, plain for probable, dotted for ambiguous.
ARROWS: Final[dict[str, str]] = {EXACT: "==>", AMBIGUOUS: "-.->"}
PLAIN_ARROW: Final = "-->"

CLASS_DEFS: Final = (
    "classDef changed fill:#fde2e1,stroke:#b42318,stroke-width:2px,color:#3b0b07",
    "classDef hub fill:#fff4ce,stroke:#b54708,stroke-width:4px",
    "classDef cause fill:#eef2f6,stroke:#667085,stroke-dasharray:4 3",
    "classDef more fill:#ffffff,stroke:#98a2b3,stroke-dasharray:2 2,color:#475467",
)

LEGEND: Final = (
    "Thick arrows: exact calls; plain: probable; dotted: ambiguous (name-only). Red: the"
    " changed symbols; thick orange border: hubs (code much of the project leans on)."
)


def label_text(text: str, sep: str = ".") -> str:
    """`text` as the inside of a quoted Mermaid label (see the module docstring), cut to
    MAX_LABEL_CHARS at a `sep`."""
    # "..." rather than an ellipsis character, after which Mermaid would wrap the line.
    shown = shorten(escape.visible(text), MAX_LABEL_CHARS, sep, "...")
    return "".join(ch if ch in _PLAIN else f"#{ord(ch)};" for ch in shown)


def _label(node: Node) -> str:
    name = label_text(node.name)
    if node.role == CHANGED:
        return f"{name}<br/>{label_text(node.detail)}, risk {label_text(node.risk)}"
    if node.role == CALLER:
        return f"{name}<br/>{label_text(node.path, '/')}:{int(node.line)}"
    return f"{name}<br/>{label_text(node.detail)}"


def flowchart(graph: BlastGraph) -> str:
    """The diagram's source (without the fence), one statement a line."""
    lines = ["flowchart LR"]
    lines += [f"  {d}" for d in CLASS_DEFS]
    for node in graph.nodes:
        lines.append(f'  {node.id}["{_label(node)}"]')
    for edge in graph.edges:
        arrow = ARROWS.get(edge.confidence, PLAIN_ARROW)
        lines.append(f"  {edge.source} {arrow} {edge.target}")
    if graph.more:
        noun = "caller" if graph.more == 1 else "callers"
        lines.append(f'  more(["and {graph.more} more {noun} in the tables below"])')
        lines.append("  class more more")
    for style in ("changed", "hub", "cause"):
        ids = [n.id for n in graph.nodes if _style(n) == style]
        if ids:
            lines.append(f"  class {','.join(ids)} {style}")
    return "\n".join(lines) + "\n"


def _style(node: Node) -> str:
    if node.role == CHANGED:
        return "changed"
    if node.hub:
        return "hub"
    return "cause" if node.role != CALLER else ""


def markdown_block(graph: BlastGraph) -> str:
    """The fenced block for the comment, with its legend; "" when there is nothing to draw."""
    if graph.empty:
        return ""
    return f"```mermaid\n{flowchart(graph)}```\n\n<sub>{LEGEND}</sub>"
