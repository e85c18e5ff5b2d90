"""The revisions of a push, as the pre-commit framework hands them to a pre-push hook.

pre-commit reads git's pre-push lines itself and exports the range to check as
PRE_COMMIT_FROM_REF / PRE_COMMIT_TO_REF (older releases: PRE_COMMIT_ORIGIN / _SOURCE, same
meaning). It exports neither when the push carries the whole history (a first push of a
root commit): then there is nothing to compare against, which is not an error.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from maguyva_guard.errors import FatalError

# (from, to) pairs, the current names first.
_NAMES = (("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF"), ("PRE_COMMIT_ORIGIN", "PRE_COMMIT_SOURCE"))


def revisions_from_env(environ: Mapping[str, str] = os.environ) -> tuple[str, str] | None:
    """(base, head) for `check --base base --head head`, or None when pre-commit gave none.

    FatalError when not run by pre-commit at all, or when only one end of the range is set.
    """
    for from_name, to_name in _NAMES:
        base, head = environ.get(from_name, ""), environ.get(to_name, "")
        if base and head:
            return base, head
        if base or head:
            raise FatalError(f"{from_name} and {to_name} must be set together")
    if environ.get("PRE_COMMIT") == "1":
        return None
    raise FatalError(
        "--from-env reads PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF, which pre-commit sets"
        " for a pre-push hook; use --base/--head to check a range by hand"
    )
