"""Where an import points, for the languages whose imports name files and folders.

Python imports are dotted module names (maguyva_guard.retrievers.resolve handles them). The others
name a file or a package folder in their own way:

- JavaScript/TypeScript: a relative specifier ("./api", "../lib/format") is a file, tried
  with the usual extensions and as a folder with an index file; a bare specifier
  ("react") is a package outside the repository.
- Go: an import path ("github.com/acme/tasks/store") ends with a folder of the repository.
- Java: "com.acme.store.Store" is a class in a file ending with com/acme/store/Store.java;
  "com.acme.store.*" is the folder.
- Ruby, PHP and Lua: see scripting.py (require paths; PSR-4 autoloading).
- Rust: "crate::store::Store" is an item of src/store.rs or src/store/mod.rs; `self::` and
  `super::` start from the importing file's module.

Each answer is a `Target`: the file or folder (folders end with "/"), and the names still to
look up inside it. None means the import leaves the repository.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

from maguyva_guard.retrievers import scripting

JS_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts")
JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
PACKAGE_LANGUAGES = frozenset({"go", "java", "php"})  # a folder is one namespace


@dataclass(frozen=True)
class Target:
    location: str  # a file path, or a folder path ending with "/"
    members: tuple[str, ...] = ()  # names to look up inside it, outermost first


class ImportPaths:
    def __init__(self, paths: Iterable[str], read: Callable[[str], str] | None = None):
        self.paths = frozenset(paths)
        self.read = read  # a repository file's text (composer.json), when available

    @cached_property
    def php_roots(self) -> list[tuple[str, str]]:
        """composer.json's PSR-4 prefixes and folders, when the repository has one."""
        if self.read is None or "composer.json" not in self.paths:
            return []
        return scripting.composer_roots(self.read("composer.json"))

    @cached_property
    def folders(self) -> dict[str, list[str]]:
        """Folder ("a/b/") -> its files, for Go and Java packages."""
        out: dict[str, list[str]] = defaultdict(list)
        for p in self.paths:
            out[posixpath.dirname(p) + "/"].append(p)
        return out

    @cached_property
    def go_folders(self) -> list[str]:
        return sorted(
            (d for d, files in self.folders.items() if any(f.endswith(".go") for f in files)),
            key=len,
            reverse=True,
        )

    @cached_property
    def java_files(self) -> dict[str, str]:
        """The last path segments of every .java file without extension -> its path."""
        return {p[: -len(".java")]: p for p in self.paths if p.endswith(".java")}

    def resolve(self, language: str, importer: str, target: str) -> Target | None:
        if language in JS_LANGUAGES:
            return self.javascript(importer, target)
        if language == "go":
            return self.go(target)
        if language == "java":
            return self.java(target)
        if language == "rust":
            return self.rust(importer, target)
        found = None
        if language == "ruby":
            found = scripting.ruby_require(self.paths, importer, target)
        elif language == "php":
            found = scripting.php_class_file(self.paths, self.php_roots, target)
        elif language == "lua":
            found = scripting.lua_require(self.paths, target)
        return Target(*found) if found is not None else None

    def javascript(self, importer: str, spec: str) -> Target | None:
        if not spec.startswith("."):
            return None
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        stem = base[: -len(posixpath.splitext(base)[1])] if base.endswith(".js") else base
        for candidate in (base, *(stem + e for e in JS_EXTENSIONS),
                          *(f"{base}/index{e}" for e in JS_EXTENSIONS)):
            if candidate in self.paths:
                return Target(candidate)
        return None

    def go(self, import_path: str) -> Target | None:
        for folder in self.go_folders:
            bare = folder.rstrip("/")
            if bare and (import_path == bare or import_path.endswith("/" + bare)):
                return Target(folder)
        return None

    def java(self, dotted: str) -> Target | None:
        parts = dotted.split(".")
        if parts[-1] == "*":
            folder = "/".join(parts[:-1])
            for d in self.folders:
                if d.rstrip("/").endswith(folder):
                    return Target(d)
            return None
        for cut in range(len(parts), 0, -1):
            suffix = "/".join(parts[:cut])
            for stem, path in self.java_files.items():
                if stem == suffix or stem.endswith("/" + suffix):
                    return Target(path, tuple(parts[cut - 1 :]))
        return None

    def rust(self, importer: str, target: str) -> Target | None:
        parts = [p for p in target.split("::") if p]
        if not parts:
            return None
        head = parts[0]
        if head == "crate":
            root = self._crate_root(importer)
            parts = parts[1:]
        elif head in ("self", "super"):
            root = self._module_folder(importer)
            while parts and parts[0] == "super":
                root = posixpath.dirname(root.rstrip("/")) + "/" if root.strip("/") else root
                parts = parts[1:]
            parts = parts[1:] if parts and parts[0] == "self" else parts
        else:
            return None  # another crate
        for cut in range(len(parts), -1, -1):
            stem = root + "/".join(parts[:cut])
            for candidate in (stem + ".rs", stem.rstrip("/") + "/mod.rs"):
                if cut and candidate in self.paths:
                    return Target(candidate, tuple(parts[cut:]))
            if cut == 0:
                for name in ("lib.rs", "main.rs", "mod.rs"):
                    if root + name in self.paths:
                        return Target(root + name, tuple(parts))
        return None

    def _crate_root(self, importer: str) -> str:
        """The folder holding the crate's lib.rs or main.rs (src/ in a cargo layout)."""
        folder = posixpath.dirname(importer)
        while True:
            for name in ("lib.rs", "main.rs"):
                if posixpath.join(folder, name) in self.paths:
                    return folder + "/" if folder else ""
            if not folder:
                return "src/" if any(p.startswith("src/") for p in self.paths) else ""
            folder = posixpath.dirname(folder)

    def _module_folder(self, importer: str) -> str:
        """The folder of the importing module's children (`self::x` resolves there)."""
        name = posixpath.basename(importer)
        folder = posixpath.dirname(importer)
        prefix = folder + "/" if folder else ""
        if name in ("mod.rs", "lib.rs", "main.rs"):
            return prefix
        return prefix + name[: -len(".rs")] + "/"
