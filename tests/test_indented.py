"""report/indented.py writes exactly what json.dumps(value, indent=2) writes."""

from __future__ import annotations

import enum
import json

import pytest
from conftest import CALLED_CONFIG, check, edit

from maguyva_guard.report import indented


class Kind(enum.StrEnum):
    CALL = "call"


class Level(enum.IntEnum):
    HIGH = 3


VALUES = [
    {}, [], (), {"a": []}, {"a": {}}, [[], {}], (1, (2, [3])),
    {"é": "ü\u2028\x00\"\\/", "n": [0, -1, 2**70, 2.5, 1e100, -0.0, 1e-7]},
    [float("nan"), float("inf"), -float("inf"), True, False, None],
    {Kind.CALL: Kind.CALL, "level": Level.HIGH},
    {1: "int key", None: "null key", 2.5: "float key"},  # json.dumps's own key rules
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_same_text_as_json_dumps(value):
    assert indented.dumps(value) == json.dumps(value, indent=2)


def test_what_json_dumps_refuses_it_refuses_alike():
    with pytest.raises(TypeError):
        indented.dumps({"set": {1, 2}})


def test_a_check_report_is_the_text_json_dumps_writes(make_repo):
    repo = make_repo(CALLED_CONFIG)
    edit(repo, "pkg/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    code, out, _ = check(repo, "--staged", "--format", "json")
    assert code == 0
    assert out == json.dumps(json.loads(out), indent=2) + "\n"
    assert json.loads(out)["affected"][0]["path"] == "pkg/cli.py"
