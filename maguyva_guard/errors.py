"""The one error type for the user's mistakes and unreadable input."""

from __future__ import annotations


class FatalError(Exception):
    """Bad input or an input that cannot be read.

    The CLI prints it as one line on stderr and exits 2 (docs/json.md); the core raises it
    and never imports click.
    """
