"""Names as users write them: `requests.adapters.HTTPAdapter`, not `src.requests.adapters...`.

The index names a symbol after its file's path ("src/requests/adapters.py" gives
"src.requests.adapters"): cheap, unique, and what resolution works with. The report renames
them into the names the project's users write, from the project's own configuration:

- Python: the import root of `pyproject.toml` (setuptools `package-dir` and
  `packages.find.where`, poetry `packages[].from`, hatch wheel `packages`/`sources`, pdm
  `package-dir`, maturin `python-source`), `setup.cfg` (`package_dir`, `packages.find
  where`), `setup.py`'s `package_dir={"": ...}`, else a `src/` folder holding packages beside
  a project file (or at the top). A folder holding a project file is itself a root (monorepos).
  Namespace packages (no `__init__.py`) keep every folder below the root in their name.
- JavaScript/TypeScript: the nearest `package.json`'s `name`; its entry file (`exports["."]`,
  `module`, `main`, `types`; `dist/`, `lib/`, `build/` or `out/` read as `src/` too) is the
  package itself, an `exports` subpath is that subpath, any other file `name/its/path`.
- Go: `go.mod`'s module path and the package folder: `example.com/acme/store.Open`.

Other languages keep their names. Paths are never renamed: the JSON keeps `path` as the file.
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from maguyva_guard import git
from maguyva_guard.extract.languages import language_for, module_name
from maguyva_guard.guard.risk import cause_names

if TYPE_CHECKING:
    from maguyva_guard.guard.model import ImpactReport
    from maguyva_guard.records import Affected

PROJECT_FILES: Final = ("pyproject.toml", "setup.cfg", "setup.py", "package.json", "go.mod")
MAX_PROJECT_FILES: Final = 200  # read at most this many (vendored trees can hold thousands)
SKIPPED_FOLDERS: Final = frozenset({"node_modules", "vendor", ".git", "third_party"})
BUILD_FOLDERS: Final = ("dist/", "lib/", "build/", "out/")
SOURCE_EXTENSIONS: Final = (".d.ts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_SETUP_PY_DIR: Final = re.compile(r"package_dir\s*=\s*\{\s*['\"]{2}\s*:\s*['\"]([^'\"]+)['\"]")
_GO_MODULE: Final = re.compile(r"^module\s+\"?([^\s\"]+)\"?", re.MULTILINE)


@dataclass(frozen=True)
class JsPackage:
    folder: str  # "" or "packages/ui/"
    name: str
    entries: frozenset[str]  # extension-less paths of the entry files, from the folder
    exports: tuple[tuple[str, str], ...]  # (extension-less file, "/subpath")


@dataclass(frozen=True)
class Roots:
    python: tuple[tuple[str, str], ...] = ()  # (folder with "/", module prefix), deepest first
    js: tuple[JsPackage, ...] = ()  # deepest folder first
    go: tuple[tuple[str, str], ...] = ()  # (folder with "/", module path), deepest first

    def user_module(self, path: str, language: str) -> str | None:
        """The module users name for `path`, or None to keep the index's name."""
        if language == "python":
            return _python_module(self.python, path)
        if language in ("javascript", "typescript", "tsx"):
            return _js_module(self.js, path)
        if language == "go":
            for folder, module in self.go:
                if path.startswith(folder):
                    package = path[len(folder):].rpartition("/")[0]
                    return f"{module}/{package}" if package else module
        return None


def roots_at(repo: str, head: str | None) -> Roots:
    """The roots of the revision `head` (None: the staged index) of a repository."""
    entries = git.ls_index(repo, sizes=False) if head is None else git.ls_tree(repo, head)

    def read(paths: list[str]) -> dict[str, bytes]:
        blobs = git.read_blobs(repo, {entries[p].blob for p in paths})
        return {p: blobs[entries[p].blob] for p in paths if entries[p].blob in blobs}

    return discover(entries, read)


def discover(paths: Iterable[str], read: Callable[[list[str]], dict[str, bytes]]) -> Roots:
    """The roots of a tree of `paths`; `read` gives the content of the project files."""
    every = list(paths)
    wanted = [p for p in every if p.rpartition("/")[2] in PROJECT_FILES
              and SKIPPED_FOLDERS.isdisjoint(p.split("/")[:-1])][:MAX_PROJECT_FILES]
    files = read(wanted)
    python: dict[str, str] = {}
    js: list[JsPackage] = []
    go: list[tuple[str, str]] = []
    for path, data in files.items():
        folder, _, base = path.rpartition("/")
        folder = folder + "/" if folder else ""
        text = data.decode("utf-8", "replace")
        if base == "package.json":
            js += _package_json(folder, text)
        elif base == "go.mod":
            found = _GO_MODULE.search(text)
            if found:
                go.append((folder, found.group(1)))
        else:
            python.setdefault(folder, "")
            for sub, prefix in _python_config(base, text):
                python[_join(folder, sub)] = prefix
    for folder in {""} | {f for f in python if f}:
        src = folder + "src/"
        if src not in python and _holds_packages(every, src):
            python[src] = ""
    deepest = lambda item: -len(item[0])  # noqa: E731
    return Roots(tuple(sorted(python.items(), key=deepest)),
                 tuple(sorted(js, key=lambda p: -len(p.folder))), tuple(sorted(go, key=deepest)))


def _join(folder: str, sub: str) -> str:
    sub = sub.strip().strip("/").removeprefix("./")
    return f"{folder}{sub}/" if sub and sub != "." else folder


def _holds_packages(paths: list[str], src: str) -> bool:
    """True when `src` holds Python files in subfolders and is no package itself."""
    inside = [p[len(src):] for p in paths if p.startswith(src) and p.endswith(".py")]
    return "__init__.py" not in inside and any("/" in p for p in inside)


def _python_config(base: str, text: str) -> list[tuple[str, str]]:
    """(folder relative to the project file, module prefix) pairs it declares."""
    if base == "setup.py":
        found = _SETUP_PY_DIR.search(text)
        return [(found.group(1), "")] if found else []
    if base == "setup.cfg":
        return _setup_cfg(text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    return _pyproject(data.get("tool", {}) if isinstance(data.get("tool"), dict) else {})


def _pyproject(tool: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    setuptools = _table(tool, "setuptools")
    for module, folder in _table(setuptools, "package-dir").items():
        if isinstance(folder, str):
            out.append((folder, "" if module == "" else f"{module}."))
    where = _table(_table(setuptools, "packages"), "find").get("where", [])
    out += [(w, "") for w in (where if isinstance(where, list) else [where]) if isinstance(w, str)]
    for package in _table(tool, "poetry").get("packages", []) or []:
        if isinstance(package, dict) and isinstance(package.get("from"), str):
            out.append((package["from"], ""))
    wheel = _table(_table(_table(_table(tool, "hatch"), "build"), "targets"), "wheel")
    for package in wheel.get("packages", []) or []:
        if isinstance(package, str) and "/" in package.strip("/"):
            out.append((package.strip("/").rpartition("/")[0], ""))
    sources = wheel.get("sources", [])
    out += [(s, "") for s in (sources if isinstance(sources, list) else []) if isinstance(s, str)]
    pdm_dir = _table(_table(tool, "pdm"), "build").get("package-dir")
    maturin_dir = _table(tool, "maturin").get("python-source")
    out += [(d, "") for d in (pdm_dir, maturin_dir) if isinstance(d, str)]
    return out


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    return value if isinstance(value, dict) else {}


def _setup_cfg(text: str) -> list[tuple[str, str]]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    out = []
    for line in parser.get("options", "package_dir", fallback="").splitlines():
        module, sep, folder = line.partition("=")
        if sep and folder.strip():
            out.append((folder.strip(), f"{module.strip()}." if module.strip() else ""))
    where = parser.get("options.packages.find", "where", fallback="").strip()
    return out + ([(where, "")] if where else [])


def _python_module(roots: tuple[tuple[str, str], ...], path: str) -> str | None:
    for folder, prefix in roots:
        if path.startswith(folder):
            rest = module_name(path[len(folder):], "python").removesuffix("__init__")
            return (prefix + rest).strip(".") if rest or prefix else None
    return None


def _package_json(folder: str, text: str) -> list[JsPackage]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    name = data.get("name") if isinstance(data, dict) else None
    if not isinstance(name, str) or not name:
        return []
    entries: set[str] = set()
    for key in ("main", "module", "types", "typings"):
        entries |= _stems(data.get(key))
    subpaths: list[tuple[str, str]] = []
    exports = data.get("exports")
    if isinstance(exports, dict) and any(k.startswith(".") for k in exports):
        for key, target in exports.items():
            if key == ".":
                entries |= _stems(target)
            elif key.startswith("./") and "*" not in key:
                subpaths += [(stem, key[1:]) for stem in _stems(target)]
    else:
        entries |= _stems(exports)
    return [JsPackage(folder, name, frozenset(entries), tuple(subpaths))]


def _stems(target: object) -> set[str]:
    """Extension-less paths a package.json target names, with dist/ etc. read as src/ too."""
    if isinstance(target, dict):
        return set().union(*(_stems(v) for v in target.values())) if target else set()
    if not isinstance(target, str):
        return set()
    stem = _strip_extension(target.removeprefix("./"))
    out = {stem}
    for build in BUILD_FOLDERS:
        if stem.startswith(build):
            out.add("src/" + stem[len(build):])
    return out


def _strip_extension(path: str) -> str:
    for ext in SOURCE_EXTENSIONS:
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


def _js_module(packages: tuple[JsPackage, ...], path: str) -> str | None:
    for package in packages:
        if path.startswith(package.folder):
            stem = _strip_extension(path[len(package.folder):])
            if stem in package.entries:
                return package.name
            for file, subpath in package.exports:
                if stem == file:
                    return package.name + subpath
            return f"{package.name}/{stem.removesuffix('/index')}"
    return None


# --- the report, renamed ------------------------------------------------------------------


def for_users(report: ImpactReport, roots: Roots) -> ImpactReport:
    """`report` with every symbol name (changed, affected, possible, their chains) renamed."""
    names: dict[str, str] = {}

    def rename(path: str, qualified: str) -> str:
        language = language_for(path)
        if not language or qualified in ("", "<module>"):
            return qualified
        module = roots.user_module(path, language)
        old = module_name(path, language)
        if module is None or module == old:
            return qualified
        if qualified == old or qualified.startswith(old + ".") or not old:
            local = qualified[len(old):].lstrip(".") if old else qualified
            new = f"{module}.{local}" if local else module
            names.setdefault(qualified, new)
            return new
        return qualified

    for c in report.changed_symbols:  # the old names callers of a renamed symbol carry
        for name in cause_names(c) - {c.qualified_name}:
            rename(c.old_path or c.path, name)
    changed = tuple(replace(c, qualified_name=rename(c.old_path or c.path, c.qualified_name)
                            if c.change == "removed" else rename(c.path, c.qualified_name))
                    for c in report.changed_symbols)
    affected = tuple(replace(a, symbol=rename(a.path, a.symbol)) for a in report.affected)
    possible = tuple(replace(a, symbol=rename(a.path, a.symbol)) for a in report.possible)

    def chain(names_: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(names.get(n, n) for n in names_)

    def renamed(a: Affected) -> Affected:  # links name changed symbols as because_of does
        links = tuple(replace(k, changed=names.get(k.changed, k.changed), via=chain(k.via))
                      for k in a.links)
        return replace(a, because_of=chain(a.because_of), via=chain(a.via), links=links)

    return replace(report, changed_symbols=changed,
                   affected=tuple(renamed(a) for a in affected),
                   possible=tuple(renamed(a) for a in possible),
                   incomplete_reasons=_renamed_reasons(report.incomplete_reasons, names))


def _renamed_reasons(reasons: tuple[str, ...], names: dict[str, str]) -> tuple[str, ...]:
    """The reasons with the symbols they name renamed as the lists are (a reason names a
    changed symbol whose callers are possible only, or called implicitly)."""
    if not names or not reasons:
        return reasons
    pattern = re.compile(r"(?<![\w.])(?:" + "|".join(
        re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![\w])")
    return tuple(pattern.sub(lambda m: names[m.group(0)], r) for r in reasons)
