"""The package's shape: import arrows run one way along the pipeline, and never in a circle.

git -> extract -> embed -> index -> retrievers -> search -> guard -> report -> integrations ->
commands -> cli. A module may import its own stage and the stages before it, never one after
it; lazy imports inside functions count too (they are dependencies all the same), imports
under `if TYPE_CHECKING:` do not (they never run).
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterator
from pathlib import Path

import maguyva_guard
from maguyva_guard.index import indexer

PACKAGE = Path(maguyva_guard.__file__).parent
NAME = "maguyva_guard"

# Stages in pipeline order. The top-level modules that every stage may use come first.
STAGES: tuple[tuple[str, ...], ...] = (
    (NAME, "errors", "spec", "records", "config", "config_check", "pathglob", "git",
     "startcache"),
    ("extract",),
    ("embed",),
    ("index",),
    ("retrievers",),
    ("search",),
    ("guard",),
    ("report",),
    ("integrations",),
    ("commands", "api"),
    ("cli", "__main__", "entry"),
)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _runtime_nodes(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node, except what sits under `if TYPE_CHECKING:`."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `name` imports (a `from a import b` names module a.b
    when there is one, else a)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = name.split(".") if is_package else name.split(".")[:-1]
                parent = parent[: len(parent) - (node.level - 1)]
                base = ".".join([*parent, base] if base else parent)
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if target in known else base)
    return {m for m in found if m in known and m != name}


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def stage_of(module: str) -> int:
    parts = module.split(".")
    head = parts[1] if len(parts) > 1 else NAME
    for rank, names in enumerate(STAGES):
        if head in names:
            return rank
    raise AssertionError(f"{module} belongs to no stage: add it to STAGES in {__file__}")


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{m} (stage {stage_of(m)}) imports {t} (stage {stage_of(t)})"
                  for m, targets in graph.items() for t in targets
                  if stage_of(t) > stage_of(m))


def test_the_package_has_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_no_stage_imports_a_later_stage() -> None:
    assert layer_violations(import_graph()) == []


def test_the_checks_see_a_cycle_and_an_upward_import() -> None:
    looped = import_graph()
    looped["maguyva_guard.index.writer"].add("maguyva_guard.index.store")  # store -> writer
    assert cycles(looped) == [["maguyva_guard.index.store", "maguyva_guard.index.writer"]]
    upward = import_graph()
    upward["maguyva_guard.extract.symbols"].add("maguyva_guard.guard.impact")
    assert layer_violations(upward) == [
        "maguyva_guard.extract.symbols (stage 1) imports maguyva_guard.guard.impact (stage 6)"]


def test_every_module_has_a_stage() -> None:
    for module in modules():
        stage_of(module)


def test_every_subpackage_says_what_it_owns_and_may_import() -> None:
    for init in PACKAGE.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "May import" in doc, f"{init.parent.name}/__init__.py: say what it may import"


def test_the_extractor_fingerprint_covers_every_extraction_file(tmp_path, monkeypatch) -> None:
    """A change to any file under extract/ (code or query) changes the fingerprint, which
    makes every index re-extract its records; a change elsewhere does not."""
    copy = tmp_path / NAME
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(maguyva_guard, "__file__", str(copy / "__init__.py"))

    def fingerprint() -> str:
        indexer.extractor_fingerprint.cache_clear()
        return indexer.extractor_fingerprint()

    try:
        before = fingerprint()
        extraction = sorted(p for p in (copy / "extract").rglob("*")
                            if p.is_file() and p.suffix in {".py", ".scm"})
        assert len(extraction) > 10
        for path in extraction:
            original = path.read_bytes()
            path.write_bytes(original + b"\n")
            assert fingerprint() != before, path.relative_to(copy)
            path.write_bytes(original)
        (copy / "guard" / "risk.py").write_text("# not extraction code\n", encoding="utf-8")
        assert fingerprint() == before
    finally:
        indexer.extractor_fingerprint.cache_clear()
