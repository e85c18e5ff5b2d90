"""A variable whose binding lines mention it again (`lambda c: c == ','` on every line of a
table of cases): its type is worked out once per question, not once per path through the
lines (more-itertools' tests: 275,000 questions and 27 s of CPU for one changed method)."""

from __future__ import annotations

from conftest import edit

from maguyva_guard import api
from maguyva_guard.retrievers.inference import Inference

CASES = "".join(f"            (('a,b,c,d', lambda c: c == ',', {n}), [['a'], [',', 'b']]),\n"
                for n in range(8))
FILES = {
    "box.py": "class Box:\n    def __bool__(self):\n        return True\n\n"
              "def split(items, pred):\n    return [x for x in items if pred(x)]\n",
    "test_box.py": "from box import Box, split\n\n\nclass SplitTest:\n"
                   "    def test_max_split(self):\n"
                   "        for args, expected in [\n" + CASES + "        ]:\n"
                   "            actual = list(split(*args))\n"
                   "            assert actual == expected\n"
                   "        assert not list(split([], lambda c: bool(c)))\n"
                   "        assert bool(Box())\n",
}


def test_a_variable_bound_on_lines_that_mention_it_again_is_asked_a_bounded_number_of_times(
        make_repo, monkeypatch) -> None:
    repo = make_repo(FILES)
    edit(repo, "box.py", "def __bool__(self):", "def __bool__(self, strict=False):")
    asked: list[tuple[str, str]] = []
    real = Inference.local_type

    def counted(self, path, scope, var, hops=0):
        asked.append((scope, var))
        return real(self, path, scope, var, hops)

    monkeypatch.setattr(Inference, "local_type", counted)
    answer = api.impact(str(repo), depth=1)
    lines = {(a.path, a.line) for a in answer.report.affected}
    site = FILES["test_box.py"].splitlines().index("        assert bool(Box())") + 1
    assert ("test_box.py", site) in lines  # bool(Box()): the changed method runs
    assert asked.count(("test_box.SplitTest.test_max_split", "c")) <= 2 * len(
        FILES["test_box.py"].splitlines())
