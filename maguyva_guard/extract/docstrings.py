"""Python statements that are only a string literal: module, class, function and attribute
docstrings. Editing one changes no behaviour a caller sees, like editing a comment.

Found with tree-sitter (Python's own tokenize costs about a second on a 3,000-line test
module; the parse costs milliseconds). Only statement lists are walked, never expressions.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

# Nodes whose children are statements (or hold blocks of them).
CONTAINERS: Final = frozenset({
    "module", "block", "class_definition", "function_definition", "decorated_definition",
    "if_statement", "elif_clause", "else_clause", "for_statement", "while_statement",
    "try_statement", "except_clause", "except_group_clause", "finally_clause",
    "with_statement", "match_statement", "case_clause",
})
STRINGS: Final = frozenset({"string", "concatenated_string"})


@lru_cache(maxsize=1)
def _parser() -> Any:
    from tree_sitter_language_pack import get_parser

    return get_parser("python")


def docstring_lines(source: bytes) -> set[int]:
    """1-based lines of every string-only statement of a Python source."""
    out: set[int] = set()
    stack = [_parser().parse(source).root_node]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            # Grammars differ: the statement is `expression_statement > string`, or the
            # string stands in the statement list itself.
            parts = child.named_children if child.type == "expression_statement" else [child]
            if len(parts) == 1 and parts[0].type in STRINGS:
                out.update(range(child.start_point[0] + 1, child.end_point[0] + 2))
            elif child.type in CONTAINERS:
                stack.append(child)
    return out
