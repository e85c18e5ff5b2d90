"""Nesting of definitions: qualified names, parents, and the scope of any byte position.

Definitions (and Rust impl/mod blocks, which qualify names without being definitions) are
sorted by span and swept once with a stack. The sweep also records, for every position
where the innermost enclosing item changes, which item that is, so the scope of a reference
is one bisect instead of a walk up its parents.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Final

from tree_sitter import Node

from maguyva_guard.records import CLASS, FUNCTION, INTERFACE, METHOD, TYPE

# A function directly inside one of these is a method. "impl" is the Rust impl scope.
_METHOD_PARENTS: Final = frozenset({CLASS, INTERFACE, TYPE, "impl"})


class Item:
    """A definition or a qualifying scope, with its span widened to decorators/wrappers."""

    __slots__ = (
        "head", "outer", "name", "kind", "is_definition", "body", "qualifier",
        "start", "end", "line_start", "line_end", "qualified", "parent", "bases",
    )

    def __init__(
        self,
        head: Node,
        outer: Node,
        name: str,
        kind: str,
        is_definition: bool,
        body: Node | None,
        qualifier: str,
    ) -> None:
        self.head = head  # the first node of the definition (a decorator, an attribute)
        self.outer = outer  # the node that ends it
        self.name = name
        self.kind = kind
        self.is_definition = is_definition
        self.body = body
        self.qualifier = qualifier  # Go receiver type: the method is "Type.Method"
        self.start = head.start_byte
        self.end = max(outer.end_byte, self.start)
        self.line_start = head.start_point[0] + 1
        end_row, end_column = outer.end_point
        # A node that ends at column 0 ended with the previous line's newline.
        self.line_end = max(end_row + 1 if end_column else end_row, self.line_start)
        self.qualified = ""
        self.parent = ""
        self.bases: list[str] = []

    def add_base(self, base: str) -> None:
        """Record a base (base class, interface, embedded type) of this definition.

        Called for inheritance references whose innermost enclosing item is this one, so a
        nested class's bases stay with the nested class.
        """
        if self.is_definition:
            self.bases.append(base)


class ScopeMap:
    """Position -> index of the innermost enclosing item (-1 at module level)."""

    __slots__ = ("bounds", "owners")

    def __init__(self, bounds: list[int], owners: list[int]) -> None:
        self.bounds = bounds
        self.owners = owners

    def owner(self, position: int) -> int:
        return self.owners[bisect_right(self.bounds, position) - 1]


def widen(node: Node, wrappers: tuple[str, ...], leading: tuple[str, ...]) -> tuple[Node, Node]:
    """(first node, last node) of a definition with its decorators and wrappers.

    The span grows to each enclosing `wrappers` node that holds only this definition
    (Python's decorated_definition, `export`, Go's `type` around a lone spec), then back
    over the `leading` siblings just before it (TS method decorators, Rust attributes).
    """
    outer = node
    parent = outer.parent
    while parent is not None and parent.type in wrappers:
        if sum(1 for child in parent.named_children if child.type == outer.type) != 1:
            break
        outer = parent
        parent = outer.parent
    head = outer
    if leading:
        sibling = head.prev_sibling
        while sibling is not None and sibling.type in leading:
            head = sibling
            sibling = sibling.prev_sibling
    return head, outer


def resolve_items(items: list[Item]) -> ScopeMap:
    """Sort `items` in place by position and fill in qualified names, parents and kinds."""
    items.sort(key=lambda item: (item.start, -item.end))
    bounds, owners = [0], [-1]
    stack: list[int] = []
    for index, item in enumerate(items):
        while stack and _closes_before(items[stack[-1]], item):
            bounds.append(items[stack.pop()].end)
            owners.append(stack[-1] if stack else -1)
        _name(item, items[stack[-1]] if stack else None)
        stack.append(index)
        bounds.append(item.start)
        owners.append(index)
    while stack:
        bounds.append(items[stack.pop()].end)
        owners.append(stack[-1] if stack else -1)
    return ScopeMap(bounds, owners)


def _closes_before(open_item: Item, item: Item) -> bool:
    # Identical spans (Java `static final int A = 1, B = 2;`) are siblings, not nested.
    return open_item.end <= item.start or (
        open_item.start == item.start and open_item.end == item.end
    )


def _name(item: Item, parent: Item | None) -> None:
    prefix = parent.qualified if parent is not None else ""
    if item.qualifier:
        # Go's receiver type (always at the top), or C++'s `Shape::` of an out-of-line
        # method inside `namespace geo { ... }`: "geo.Shape.area".
        owner = item.qualifier.replace("::", ".")
        item.parent = f"{prefix}.{owner}" if prefix else owner
        item.qualified = f"{item.parent}.{item.name}"
        return
    item.parent = prefix
    name = item.name.replace("::", ".")  # C++17 `namespace a::b {`
    item.qualified = f"{prefix}.{name}" if prefix else name
    if item.kind == FUNCTION and parent is not None and parent.kind in _METHOD_PARENTS:
        item.kind = METHOD
