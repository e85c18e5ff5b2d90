"""guard/importreach.py answers what a walk of the import graph from each file answers."""

from __future__ import annotations

import random

import pytest

from maguyva_guard.guard.importreach import ImportReach


def _walk(edges: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


@pytest.mark.parametrize("seed", range(60))
def test_same_files_as_a_walk_from_each_start_in_any_order(seed):
    r = random.Random(seed)
    nodes = [f"m{i}.py" for i in range(r.randint(1, 40))]
    edges = {a: {r.choice(nodes) for _ in range(r.randint(0, 4))} for a in nodes}  # cycles too
    wanted = frozenset(n for n in nodes if r.random() < 0.4)
    reach = ImportReach(lambda a: edges.get(a, set()), wanted)
    for start in r.sample(nodes, len(nodes)):
        assert reach.reached(start) == frozenset(_walk(edges, start) & wanted)


def test_a_cycle_reaches_the_wanted_files_of_all_its_members():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    reach = ImportReach(lambda a: edges[a], frozenset({"a", "d"}))
    assert reach.reached("b") == {"a", "d"}
    assert reach.reached("d") == {"d"}
