"""Naming modules from paths: the dotted name imports use for each file, and back."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from functools import cached_property

from maguyva_guard.retrievers import modcache
from maguyva_guard.retrievers.edgecache import MODNAME, MODULE, PATHS, RecordedMap
from maguyva_guard.retrievers.importpaths import ImportPaths
from maguyva_guard.retrievers.resolution_base import (
    ResolverAPI,
)


class ModuleNaming:
    """Naming modules from paths: the dotted name imports use for each file, and back."""

    # The edge cache (edgecache.py) sees each look-up in these maps as a question: the
    # paths and import paths as a whole, module names one name at a time.

    @property
    def paths(self: ResolverAPI) -> frozenset[str]:
        if self.tracker is not None:
            self.tracker.ask((PATHS, ""))
        return self.all_paths

    @cached_property
    def all_paths(self: ResolverAPI) -> frozenset[str]:
        return frozenset(self.view.files())

    @property
    def module_of_path(self: ResolverAPI) -> Mapping[str, str]:
        if self.tracker is None:
            return self.all_module_of_path
        return RecordedMap(self.all_module_of_path, MODNAME, self.tracker)

    @property
    def modules(self: ResolverAPI) -> Mapping[str, str]:
        if self.tracker is None:
            return self.all_modules
        return RecordedMap(self.all_modules, MODULE, self.tracker)

    @property
    def imports(self: ResolverAPI) -> ImportPaths:
        if self.tracker is not None:
            self.tracker.ask((PATHS, ""))
        return self.all_imports

    @cached_property
    def all_module_of_path(self: ResolverAPI) -> dict[str, str]:
        """Path -> the dotted name imports use for it, for every Python file in the view
        (see _module_of_path); kept in the index folder per list of paths (modcache.py)."""
        return _name_maps(self)[0]

    @cached_property
    def all_modules(self: ResolverAPI) -> dict[str, str]:
        """Dotted module name -> path (see _modules); kept as all_module_of_path is."""
        return _name_maps(self)[1]

    @cached_property
    def all_imports(self: ResolverAPI) -> ImportPaths:
        return ImportPaths(self.all_paths, self.view.text)

    def absolute_import(self: ResolverAPI, path: str, target: str) -> str:
        """Turn a relative import target ("..x.y") into an absolute dotted name."""
        if not target.startswith("."):
            return target
        dots = len(target) - len(target.lstrip("."))
        module = self.module_of_path.get(path, "")
        package = module.split(".") if path.endswith("__init__.py") else module.split(".")[:-1]
        if dots > 1:
            package = package[: len(package) - (dots - 1)]
        rest = target[dots:]
        return ".".join([*package, rest] if rest else package)


_MAPS_ATTRIBUTE = "_module_name_maps"  # both maps, on the resolver, once read or built


def _name_maps(resolver: ResolverAPI) -> modcache.Maps:
    maps: modcache.Maps | None = getattr(resolver, _MAPS_ATTRIBUTE, None)
    if maps is None:
        files = resolver.view.files()

        def build() -> modcache.Maps:
            by_path = _module_of_path(resolver.all_paths)
            return by_path, _modules(by_path)

        # A store's view is in path order (the key); anything else is built each time.
        index_dir = getattr(resolver.view, "index_dir", None) if isinstance(files, dict) \
            else None
        maps = modcache.cached(index_dir, files, build)
        setattr(resolver, _MAPS_ATTRIBUTE, maps)
    return maps


def _module_of_path(paths: frozenset[str]) -> dict[str, str]:
    """Path -> the dotted name imports use for it, for every Python file in the view.

    Names are relative to the file's source root: the folder above the topmost package
    (a folder with `__init__.py`) on its path, so "src/pkg/sub/mod.py" is "pkg.sub.mod"
    even when `sub` is a namespace package without `__init__.py`. A file under no
    package keeps its path as its name ("scripts/tool.py" is "scripts.tool").
    """
    python = [p for p in paths if p.endswith((".py", ".pyi"))]
    packages = {p.rpartition("/")[0] for p in python if _is_init(p)}
    roots = {d.rpartition("/")[0] for d in packages if d.rpartition("/")[0] not in packages}
    out: dict[str, str] = {}
    root_of: dict[str, str | None] = {}  # folder -> the deepest source root above it
    for path in python:
        folder = path.rpartition("/")[0]
        if folder not in root_of:
            root_of[folder] = _root_above(folder, roots)
        root = root_of[folder]
        stem = path[: path.rfind(".")]
        if root:  # under no package (None) or at the top (""): the path is the name
            stem = stem[len(root) + 1 :]
        if stem.endswith("__init__"):
            stem = stem[: -len("__init__")].rstrip("/")
        if stem:
            out[path] = stem.replace("/", ".")
    return out


def _modules(module_of_path: dict[str, str]) -> dict[str, str]:
    """Dotted module name -> path; a `.py` file wins over its `.pyi` stub. Every file is
    also reachable by its full path name ("src.pkg.mod"), and by its name below a `src/`
    folder: a namespace package there ("src/ns/pkg/mod.py", no `ns/__init__.py`) is
    imported as "ns.pkg.mod", which the topmost-package rule cannot see."""
    out: dict[str, str] = {}
    for path, name in sorted(module_of_path.items(), key=lambda i: i[0].endswith("i")):
        out.setdefault(name, path)
    for path in sorted(module_of_path, key=lambda p: p.endswith("i")):
        full = _without_suffix(path).replace("/", ".").removesuffix(".__init__")
        out.setdefault(full, path)
        below_src = full.partition("src.")[2] if full.startswith("src.") else (
            full.partition(".src.")[2])
        if below_src:
            out.setdefault(below_src, path)
    return out


def _root_above(folder: str, roots: set[str]) -> str | None:
    """The deepest source root at or above `folder` ("" is the repository's top), or None."""
    while True:
        if folder in roots:
            return folder
        if not folder:
            return None
        folder = folder.rpartition("/")[0]



def _is_init(path: str) -> bool:
    return posixpath.basename(path) in ("__init__.py", "__init__.pyi")



def _without_suffix(path: str) -> str:
    """`path` without its file name's last suffix, as PurePosixPath.with_suffix("") would
    give it for a git path (string work: pathlib costs ~30 ms over Django's 2.8k modules)."""
    slash, dot = path.rfind("/"), path.rfind(".")
    if dot <= slash + 1 or dot == len(path) - 1:  # no suffix, a dot file, or "name."
        return path
    return path[:dot]

