"""guard/importreach.py answers what a walk of the import graph from each file answers."""

from __future__ import annotations

import random

import pytest

from maguyva_guard.guard import testview
from maguyva_guard.guard.importreach import ImportReach
from maguyva_guard.guard.testpicker import Picker, importers_by_name, reaching


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


@pytest.mark.parametrize("seed", range(30))
def test_a_walk_kept_upstream_answers_as_the_whole_walk(seed):
    """Given the files that can reach a wanted one, the walk never leaves them and every
    answer stays the same (the others reach nothing)."""
    r = random.Random(seed)
    nodes = [f"m{i}.py" for i in range(r.randint(1, 40))]
    edges = {a: {r.choice(nodes) for _ in range(r.randint(0, 4))} for a in nodes}
    wanted = frozenset(n for n in nodes if r.random() < 0.2)
    upstream = {n for n in nodes if _walk(edges, n) & wanted}
    asked: list[str] = []

    def successors(a: str) -> set[str]:
        asked.append(a)
        return edges.get(a, set()) & upstream

    reach = ImportReach(successors, wanted, lambda: upstream)
    for start in r.sample(nodes, len(nodes)):
        assert reach.reached(start) == frozenset(_walk(edges, start) & wanted)
    assert set(asked) <= upstream


def test_no_wanted_file_walks_nothing():
    asked: list[str] = []
    reach = ImportReach(lambda a: asked.append(a) or {"b"}, frozenset())
    assert reach.reached("a") == frozenset()
    assert asked == []


def _view(r: random.Random) -> testview.TestView:
    """A random view: modules importing names (or names inside them) of each other."""
    paths = [f"pkg/m{i}.py" for i in range(r.randint(2, 30))]
    tests = [p for p in paths if r.random() < 0.25]
    names = {p: frozenset({f"pkg.m{p[5:-3]}"}) for p in paths}
    imports = {p: frozenset(r.choice([f"pkg.m{q[5:-3]}", f"pkg.m{q[5:-3]}.f", "pkg"])
                            for q in r.sample(paths, r.randint(0, 3))) for p in paths}
    files = {p: testview.TestFile(p, "python", min(names[p]), (), imports[p])
             for p in tests}
    return testview.TestView(files, names, imports, {})


def _reach_by_walk(view: testview.TestView, path: str) -> list[str]:
    everyone = reaching(view, path, importers_by_name(view))
    return sorted(everyone & view.test_module_set)


@pytest.mark.parametrize("seed", range(40))
def test_the_pickers_reach_is_the_walk_over_every_importer(seed):
    r = random.Random(seed)
    view = _view(r)
    picker = Picker(view)
    for path in r.sample(sorted(view.import_names), len(view.import_names)):
        assert picker.reach(path) == _reach_by_walk(view, path)
