"""Plain-text labels that several renderers share (the templates, the picture, the tree);
each renderer escapes them for its own output."""

from __future__ import annotations

from maguyva_guard.records import RENAMED, Affected, ChangedSymbol


def change_label(changed: ChangedSymbol) -> str:
    if changed.change == RENAMED and changed.old_name:
        return f"renamed from {changed.old_name}"
    return changed.change.replace("_", " ")


def between(affected: Affected, changed_name: str) -> tuple[str, ...]:
    """The symbols on the chain between a changed symbol and this caller (none when direct):
    `via` runs from the changed symbol (under its old name when renamed) to the callee."""
    via = affected.via
    if via and (via[0] == changed_name or via[0] in affected.because_of):
        return via[1:]
    return via
