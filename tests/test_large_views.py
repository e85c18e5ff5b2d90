"""What a check computes over every path of the view, done in bulk for large repositories
(100,000 paths): the same answers as the plain per-path loops they replace."""

from __future__ import annotations

import random

from maguyva_guard.extract import classify, languages
from maguyva_guard.guard import testview, testviewstore
from maguyva_guard.index import store
from maguyva_guard.index.schema import FileInfo
from maguyva_guard.retrievers import text

CATEGORIES = (classify.SOURCE, classify.TEST, classify.VENDOR, classify.GENERATED)


def random_view(rng: random.Random, n: int) -> dict[str, FileInfo]:
    paths = {f"{rng.choice('abc')}/{rng.randrange(10**6)}.py" for _ in range(n)}
    return {p: FileInfo(f"{rng.randrange(50):040x}", "python", rng.choice(CATEGORIES))
            for p in sorted(paths)}


def test_the_scan_order_is_the_sort_by_category_rank_then_path():
    rng = random.Random(7)
    for n in (0, 1, 5, 300):
        view = random_view(rng, n)
        shuffled = dict(rng.sample(list(view.items()), len(view)))  # any order in, too
        expected = sorted(view, key=lambda p: (text._category_rank(view[p].category), p))
        assert text._scan_order(view) == expected
        assert text._scan_order(shuffled) == expected


def plain_changed(parts, files, modules) -> set[str]:  # noqa: ANN001 - the loop replaced
    return {p for p, info in files.items()
            if (part := parts.get(p)) is None or part[testviewstore.INFO] != info
            or part[testviewstore.MODULE] != modules.get(p)}


def test_the_changed_parts_are_those_the_per_path_comparison_finds():
    rng = random.Random(11)
    for _ in range(50):
        files = random_view(rng, 400)
        modules = {p: p[:-3].replace("/", ".") for p in files if rng.random() < 0.9}
        parts = {p: (tuple(info), modules.get(p), None, None, None, None, (), (), ())
                 for p, info in files.items()}
        for p in rng.sample(list(files), 3):  # another blob, category or module name
            info = files[p]
            files[p] = rng.choice([info._replace(blob="f" * 40),
                                   info._replace(category=f"not {info.category}")])
        for p in rng.sample(list(files), 2):
            modules[p] = "moved." + p
        if rng.random() < 0.3:  # a path more or fewer: the order-free comparison
            del parts[rng.choice(list(parts))]
        found = testviewstore.changed(parts, files, modules)
        assert found == plain_changed(parts, files, modules)
        assert 4 <= len(found) <= 6


def test_extensionless_paths_are_found_by_string_search_as_by_splitting():
    names = ["tool", ".bashrc", "a.py", ".env.local", "x.", "Makefile", "", "..", ".a"]
    paths = [f"{d}{n}" for d in ("", "bin/", "a.b/", "a/.c/", "x.y/z/") for n in names]
    store._note_detected({p: FileInfo("0" * 40, "python", classify.SOURCE) for p in paths})
    try:
        detected = sorted(languages._DETECTED)
    finally:
        languages.note_detected(())
    assert detected == sorted(p for p in paths if "." not in p.rsplit("/", 1)[-1][1:])
    assert "a.b/tool" in detected and "bin/.bashrc" in detected and "bin/x." not in detected


def plain_assembled(kept: testviewstore.Kept) -> tuple:  # the comprehensions replaced
    parts = kept.parts
    names = {p: part[testviewstore.NAMES] for p, part in parts.items()
             if part[testviewstore.NAMES] is not None}
    known = {n for ns in names.values() for n in ns}
    return ({p: part[testviewstore.TEST] for p, part in parts.items()
             if part[testviewstore.TEST] is not None}, names,
            {p: part[testviewstore.TARGETS] for p, part in parts.items()
             if part[testviewstore.TARGETS] is not None and p in names},
            {p: part[testviewstore.LINES] for p, part in parts.items()
             if part[testviewstore.LINES] is not None},
            tuple((p, scope, target) for p, part in parts.items()
                  for scope, target in part[testviewstore.STRINGS] if target in known),
            tuple(found for part in parts.values() for found in part[testviewstore.DYNAMIC]))


def test_the_view_assembled_in_one_pass_is_the_one_of_the_plain_comprehensions():
    rng = random.Random(5)
    maybe = lambda value: value if rng.random() < 0.5 else None  # noqa: E731
    parts = {}
    for i in range(300):
        path = f"m{i}.py"
        parts[path] = (
            tuple(FileInfo("0" * 40, "python", classify.SOURCE)), f"m{i}",
            maybe(frozenset({f"m{i}"})), maybe(frozenset({1, i})),
            maybe(frozenset({f"m{rng.randrange(300)}"})), maybe(f"test file {i}"),
            tuple((f"s{j}", f"m{rng.randrange(400)}") for j in range(rng.randrange(3))),
            (), tuple((f"C{j}", f"B{j}") for j in range(rng.randrange(2))))
    kept = testviewstore.counted(parts)
    view = testview.assemble(kept)
    assert (view.files, view.import_names, view.imports, view.import_lines, view.by_string,
            view.dynamic) == plain_assembled(kept)
    assert list(view.import_names) == [p for p in parts if parts[p][2] is not None]
    assert view.by_string and view.dynamic and view.files
