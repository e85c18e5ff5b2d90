"""prepush.revisions_from_env: the range pre-commit hands a pre-push hook."""

from __future__ import annotations

import pytest

from maguyva_guard.errors import FatalError
from maguyva_guard.integrations.prepush import revisions_from_env


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"PRE_COMMIT": "1", "PRE_COMMIT_FROM_REF": "a1", "PRE_COMMIT_TO_REF": "b2"}, ("a1", "b2")),
        # pre-commit before 2.0 named them ORIGIN (from) and SOURCE (to)
        ({"PRE_COMMIT": "1", "PRE_COMMIT_ORIGIN": "a1", "PRE_COMMIT_SOURCE": "b2"}, ("a1", "b2")),
        # the current names win when both are there
        ({"PRE_COMMIT_FROM_REF": "a1", "PRE_COMMIT_TO_REF": "b2",
          "PRE_COMMIT_ORIGIN": "x", "PRE_COMMIT_SOURCE": "y"}, ("a1", "b2")),
        # a push of the whole history: pre-commit sets no range, nothing to compare
        ({"PRE_COMMIT": "1"}, None),
    ],
)
def test_the_range_pre_commit_exports(environ, expected):
    assert revisions_from_env(environ) == expected


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({}, "--from-env reads PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF"),
        ({"PRE_COMMIT": "1", "PRE_COMMIT_FROM_REF": "a1"},
         "PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF must be set together"),
        ({"PRE_COMMIT_SOURCE": "b2"},
         "PRE_COMMIT_ORIGIN and PRE_COMMIT_SOURCE must be set together"),
    ],
)
def test_a_missing_or_half_range_is_a_usage_error(environ, message):
    with pytest.raises(FatalError, match=message):
        revisions_from_env(environ)
