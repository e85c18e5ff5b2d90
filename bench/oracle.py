"""The reference oracle: jedi's `get_references` with its file limits lifted.

jedi stops a project-wide reference search after parsing 30 files that contain the name
(`jedi.inference.references._PARSED_FILE_LIMIT`) or opening 2000 files
(`_OPENED_FILE_LIMIT`); both are module globals read at search time, so setting them high
makes the search exhaustive. The sys path is the project's own source plus the stdlib
only, so that `import click` inside the click corpus resolves to the corpus, never to a
copy installed in the benchmark's virtualenv; pytest alone is added (a folder that links
the installed `pytest` and `_pytest` packages and nothing else), so that jedi's pytest
plugin can recognise `@pytest.fixture` and type a test's fixture parameters (flask's
`def test_x(app): @app.route(...)`, with `app` from conftest.py).

Each reference outside the definition itself becomes a caller: (path, enclosing function,
method or class, or `<module>`), found by parsing the referencing file with `ast`.

Run as a script (`python bench/oracle.py ROOT PATH:LINE:COL ... [--default-limits]`) it
prints the references as JSON: the baselines time jedi in a fresh process that way.
"""

from __future__ import annotations

import json
import os
import re
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import scenarios  # noqa: E402
from bench.pysource import Enclosing, parse_or_none  # noqa: E402

LIFTED_LIMIT = 10**9
DEFAULT_PARSED_FILE_LIMIT = 30
DEFAULT_OPENED_FILE_LIMIT = 2000
CACHE_DIR = Path(__file__).resolve().parent / ".cache" / "oracle"
# parso pickles parsed files into jedi's cache directory; two processes writing one file
# corrupt it (EOFError on the next load). The one-at-a-time script shares JEDI_CACHE; each
# oracle worker gets a folder of its own under it.
JEDI_CACHE = Path(__file__).resolve().parent / ".cache" / "jedi"
PYTEST_ONLY = Path(__file__).resolve().parent / ".cache" / "pytest-only"
# Part of the cache key: answers of an oracle set up differently are not reused.
# 2: pytest on the sys path (fixture parameters typed); `goto` at every occurrence of the
# name beside `get_references` (see goto_sweep). 3: the sweep skips same-named definitions.
ORACLE_SETUP = 3


@dataclass(frozen=True, order=True)
class Caller:
    path: str
    symbol: str


@dataclass(frozen=True)
class Reference:
    path: str
    line: int
    col: int


def set_limits(lifted: bool) -> None:
    from jedi.inference import references

    references._PARSED_FILE_LIMIT = LIFTED_LIMIT if lifted else DEFAULT_PARSED_FILE_LIMIT
    references._OPENED_FILE_LIMIT = LIFTED_LIMIT if lifted else DEFAULT_OPENED_FILE_LIMIT


def use_cache_dir(folder: Path) -> None:
    import jedi

    folder.mkdir(parents=True, exist_ok=True)
    jedi.settings.cache_directory = str(folder)


def sys_path_for(root: Path) -> list[str]:
    own = [str(root / "src")] if (root / "src").is_dir() else []
    stdlib = [sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib")]
    dynload = [p for p in sys.path if p.endswith("lib-dynload")]
    return own + [str(root)] + list(dict.fromkeys(stdlib + dynload)) + _pytest_only()


def _pytest_only() -> list[str]:
    """A sys path entry holding only pytest (links to the installed packages), or none when
    pytest is not installed."""
    try:
        import _pytest
        import pytest
    except ImportError:
        return []
    PYTEST_ONLY.mkdir(parents=True, exist_ok=True)
    for module in (pytest, _pytest):
        link = PYTEST_ONLY / module.__name__
        target = Path(module.__file__).parent
        if not link.exists() or link.resolve() != target.resolve():
            if link.is_symlink():
                link.unlink()
            link.symlink_to(target, target_is_directory=True)
    return [str(PYTEST_ONLY)]


def make_project(root: Path):  # -> jedi.Project
    import jedi

    return jedi.Project(str(root), sys_path=sys_path_for(root), smart_sys_path=False,
                        load_unsafe_extensions=False)


def references(root: Path, path: str, line: int, col: int, project=None) -> list[Reference]:
    """jedi's references to the name at (line, col) in the project, minus the definition."""
    import jedi

    root = root.resolve()
    project = project or make_project(root)
    code = (root / path).read_text(encoding="utf-8")
    script = jedi.Script(code, path=str(root / path), project=project)
    found = set()
    for name in script.get_references(line, col, include_builtins=False, scope="project"):
        module = name.module_path
        if module is None or name.line is None:
            continue
        rel = project_path(root, Path(module))
        if rel is None:  # outside the project (stdlib)
            continue
        if (rel, name.line, name.column) != (path, line, col):
            found.add(Reference(rel, name.line, name.column))
    return sorted(found, key=lambda r: (r.path, r.line, r.col))


def project_path(root: Path, module: Path) -> str | None:
    """The module's path relative to the (resolved) root, or None outside it.

    jedi walks the folder, not the tracked files: the cached attrs corpus held an untracked
    copy of itself (ROOT/attrs-24.2.0/, a nested clone), and references found in that copy
    scored as misses of every tool. A path under such a copy is mapped to the tracked file
    it copies (same text) when that exists."""
    try:
        rel = module.resolve().relative_to(root)
    except ValueError:
        return None
    parts = rel.parts
    if len(parts) > 1 and parts[0] == root.name and not (root / rel).exists() \
            and (root.joinpath(*parts[1:])).exists():
        rel = Path(*parts[1:])
    return rel.as_posix()


class Mapper:
    """Reference lines to enclosing symbols, parsing each file once (HEAD text given)."""

    def __init__(self, texts: dict[str, str]) -> None:
        self._texts = texts
        self._cache: dict[str, Enclosing | None] = {}

    def enclosing(self, path: str) -> Enclosing | None:
        if path not in self._cache:
            text = self._texts.get(path)
            file_scopes = parse_or_none(text) if text is not None else None
            self._cache[path] = Enclosing(file_scopes) if file_scopes is not None else None
        return self._cache[path]

    def tracked(self, path: str) -> str:
        """A cached answer may name a file in a nested copy of the corpus (see
        project_path): `attrs-24.2.0/src/attr/_make.py` is `src/attr/_make.py` when only
        that is tracked."""
        if path in self._texts or "/" not in path:
            return path
        rest = path.split("/", 1)[1]
        return rest if rest in self._texts else path

    def caller(self, path: str, line: int) -> Caller:
        enc = self.enclosing(path)
        return Caller(path, enc.at(line) if enc else "<module>")

    def callers(self, refs: list[Reference], exclude: Caller) -> list[Caller]:
        """Distinct callers in first-seen order; the changed definition itself is no caller.
        Stub files (.pyi) hold declarations, not callers: jedi reports them, we drop them."""
        seen: dict[Caller, None] = {}
        for ref in refs:
            if not ref.path.endswith(".py"):
                continue
            caller = self.caller(self.tracked(ref.path), ref.line)
            if caller != exclude:
                seen.setdefault(caller, None)
        return list(seen)


class OracleCache:
    """jedi is slow on big projects (seconds a query): answers persist per project."""

    def __init__(self, project: str) -> None:
        import jedi

        self.file = CACHE_DIR / f"{project}.json"
        self._version = jedi.__version__
        data = json.loads(self.file.read_text()) if self.file.exists() else {}
        fresh = data.get("jedi") == self._version and data.get("setup") == ORACLE_SETUP
        self.entries: dict[str, dict] = data.get("entries", {}) if fresh else {}

    @staticmethod
    def key(path: str, qualname: str, line: int) -> str:
        return f"{path}::{qualname}@{line}"

    def get(self, key: str) -> tuple[list[Reference], float] | None:
        entry = self.entries.get(key)
        if entry is None:
            return None
        return [Reference(*r) for r in entry["refs"]], entry["seconds"]

    def put(self, key: str, refs: list[Reference], seconds: float) -> None:
        self.entries[key] = {"refs": [[r.path, r.line, r.col] for r in refs],
                             "seconds": round(seconds, 3)}

    def save(self) -> None:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.file.with_suffix(f".{os.getpid()}.tmp")  # two runs may save at once
        tmp.write_text(json.dumps({"jedi": self._version, "setup": ORACLE_SETUP,
                                   "entries": self.entries}))
        tmp.replace(self.file)


_WORKER_PROJECT: dict[str, object] = {}


def timed_references(root: str, path: str, line: int, col: int) -> tuple[list, float]:
    """One lifted-limit query in a worker process that keeps its jedi Project (and parso's
    parse cache) between queries: the search cost is mostly parsing."""
    if root not in _WORKER_PROJECT:
        set_limits(lifted=True)
        use_cache_dir(JEDI_CACHE / f"worker-{os.getpid()}")
        _WORKER_PROJECT[root] = make_project(Path(root))
    start = time.perf_counter()
    project = _WORKER_PROJECT[root]
    refs = references(Path(root), path, line, col, project)
    refs = sorted({*refs, *goto_sweep(Path(root), path, line, col, project, set(refs))},
                  key=lambda r: (r.path, r.line, r.col))
    return [[r.path, r.line, r.col] for r in refs], time.perf_counter() - start


_WORKER_TEXTS: dict[str, dict[str, str]] = {}  # root -> its tracked .py files, per worker


def goto_sweep(root: Path, path: str, line: int, col: int, project,
               known: set[Reference]) -> list[Reference]:
    """References `get_references` left out, found by asking jedi's `goto` at every other
    whole-word occurrence of the name: kept when it lands on the definition itself.

    `get_references` searches by name and then checks each hit with a cheaper inference
    than `goto`; it misses, for instance, `@app.route` where `app` is a pytest fixture
    parameter, which `goto` types through conftest.py. Each reference is still jedi's own
    answer, never a textual match."""
    import jedi

    root = root.resolve()
    if str(root) not in _WORKER_TEXTS:
        _WORKER_TEXTS[str(root)] = scenarios.read_tracked(root)
    texts = _WORKER_TEXTS[str(root)]
    name = _name_at(texts.get(path, ""), line, col)
    if name is None:
        return []
    word = re.compile(rf"\b{re.escape(name)}\b")
    # A def or class of the same name is a definition, not a reference: jedi's `goto` on an
    # overriding method's name answers with the method it overrides.
    defines = re.compile(rf"\b(?:def|class)\s+{re.escape(name)}\b")
    target = (str((root / path).resolve()), line, col)
    found: list[Reference] = []
    for rel, text in texts.items():
        if name not in text:
            continue
        for lineno, row in enumerate(text.splitlines(), 1):
            if name not in row:
                continue
            defined = {d.end() - len(name) for d in defines.finditer(row)}
            for m in word.finditer(row):
                ref = Reference(rel, lineno, m.start())
                if ref in known or m.start() in defined:
                    continue
                try:
                    # A Script of its own for each question: one Script's inference state
                    # caches jedi's pytest conftest search as a spent generator, so only
                    # its first fixture parameter gets a type (jedi 0.19-0.20).
                    script = jedi.Script(text, path=str(root / rel), project=project)
                    names = script.goto(lineno, m.start(), follow_imports=True)
                except Exception:  # noqa: BLE001 - jedi fails on some code: not a reference
                    continue  # (seen: KeyError on a module it loaded half)
                if any(n.module_path is not None
                       and (str(Path(n.module_path).resolve()), n.line, n.column) == target
                       for n in names):
                    found.append(ref)
    return found


def _name_at(text: str, line: int, col: int) -> str | None:
    rows = text.splitlines()
    if not 0 < line <= len(rows):
        return None
    m = re.match(r"\w+", rows[line - 1][col:])
    return m.group(0) if m else None


def _main(argv: list[str]) -> int:
    """ROOT PATH:LINE:COL [PATH:LINE:COL ...] [--default-limits]: one process, every target
    asked in turn (as an editor would), the references of all of them together."""
    root = Path(argv[0])
    targets = [a.rsplit(":", 2) for a in argv[1:] if not a.startswith("--")]
    set_limits(lifted="--default-limits" not in argv)
    use_cache_dir(JEDI_CACHE / "shared")
    start = time.perf_counter()
    project = make_project(root)
    refs = [r for path, line, col in targets
            for r in references(root, path, int(line), int(col), project)]
    print(json.dumps({"seconds": time.perf_counter() - start,
                      "refs": [[r.path, r.line, r.col] for r in refs]}))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
