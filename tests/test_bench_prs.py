"""bench/prs.py's oracle for a constructor: the class's references that can call it."""

from __future__ import annotations

from bench.prs import _type_only

CODE = (
    "import typing as t\n"                                     # 1
    "from ds import Headers\n"                                  # 2
    "\n"                                                        # 3
    "class Env(Headers):\n"                                     # 4
    "    pass\n"                                                # 5
    "\n"                                                        # 6
    "def f(h: Headers | None = None) -> 'Headers':\n"           # 7
    "    x: Headers = Headers()\n"                              # 8
    "    if isinstance(h, (Headers, dict)):\n"                  # 9
    "        return t.cast(Headers, h)\n"                       # 10
    "    return x\n"                                            # 11
)


def test_annotations_casts_and_isinstance_only_name_the_type() -> None:
    text = CODE
    type_only = [(7, 9), (7, 36), (8, 7), (9, 23), (10, 22)]
    calls = [(2, 15), (4, 10), (8, 17)]  # the import, a subclass, a call
    assert [_type_only(text, line, col) for line, col in type_only] == [True] * 5
    assert [_type_only(text, line, col) for line, col in calls] == [False] * 3
