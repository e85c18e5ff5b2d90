"""Module names from paths (retrievers/modnames.py): the names imports use for each file."""

from __future__ import annotations

from conftest import MemorySource

from maguyva_guard.retrievers.resolve import Resolver


def names(files: dict[str, str]) -> Resolver:
    return Resolver(MemorySource(files))


def test_a_src_layout_names_modules_from_the_topmost_package() -> None:
    r = names({"src/pkg/__init__.py": "", "src/pkg/core.py": "", "src/pkg/sub/deep.py": "",
               "scripts/tool.py": ""})
    assert r.module_of_path == {"src/pkg/__init__.py": "pkg", "src/pkg/core.py": "pkg.core",
                                "src/pkg/sub/deep.py": "pkg.sub.deep",  # sub: no __init__
                                "scripts/tool.py": "scripts.tool"}  # under no package


def test_every_file_is_also_reachable_by_its_full_path_name() -> None:
    r = names({"src/pkg/__init__.py": "", "src/pkg/core.py": ""})
    assert r.modules["pkg.core"] == r.modules["src.pkg.core"] == "src/pkg/core.py"
    assert r.modules["pkg"] == "src/pkg/__init__.py"


def test_a_module_wins_over_its_stub() -> None:
    assert names({"t.pyi": "", "t.py": ""}).modules["t"] == "t.py"


def test_relative_imports_become_absolute() -> None:
    r = names({"ns/__init__.py": "", "ns/mod.py": "", "ns/sub/__init__.py": "",
               "ns/sub/deep.py": ""})
    assert r.absolute_import("ns/sub/deep.py", "..mod") == "ns.mod"
    assert r.absolute_import("ns/sub/deep.py", ".") == "ns.sub"
    assert r.absolute_import("ns/sub/__init__.py", ".deep") == "ns.sub.deep"
    assert r.absolute_import("ns/sub/deep.py", "os.path") == "os.path"  # already absolute


def test_only_python_files_get_dotted_names() -> None:
    r = names({"pkg/__init__.py": "", "web/app.ts": "", "go/main.go": ""})
    assert set(r.module_of_path) == {"pkg/__init__.py"}
    assert r.paths == frozenset({"pkg/__init__.py", "web/app.ts", "go/main.go"})
