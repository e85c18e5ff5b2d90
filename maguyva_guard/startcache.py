"""What every run of the command line compiles, kept between runs as .pyc files are.

Before it reads a byte of the repository, a warm `check` compiles about 340 regular
expressions (the modules' patterns, and the patterns of the names it meets; `re` compiles
in Python) and the methods of 70 dataclasses (`dataclasses` writes each `__init__`,
`__eq__`, `__repr__`... as source text and compiles it): together about a quarter of a
one-symbol check's CPU. Both results depend only on their input text and the interpreter:

- for a pattern, what `re` hands its C engine (the pattern, its flags, the engine's code
  as a list of integers, its groups), from which a pattern met again is built directly;
  the engine validates the code it is given (`_sre.compile`), and anything it refuses is
  compiled again the usual way;
- for a dataclass method, the code object compiled from the source text (as `exec` would,
  without this module's future imports), looked up by that text.

They are kept in one file beside the package's .pyc files (`maguyva_guard/__pycache__/`,
named after the interpreter's exact version). A file that cannot be read costs a run its
speed-up, never its answer. Like .pyc files, nothing is written when
PYTHONDONTWRITEBYTECODE is set or the folder is read-only; MAGUYVA_GUARD_START_CACHE names
another file, or "" for none. `install()` is called by the command line only (entry.py),
before its imports: a program importing maguyva_guard as a library keeps `re` and
`dataclasses` untouched.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's C engine: no stubs
import atexit
import builtins
import marshal
import os
import re
import sys
import threading
from pathlib import Path
from types import CodeType
from typing import Any

VARIABLE = "MAGUYVA_GUARD_START_CACHE"
# Entries kept at most of each kind: those this run met first, then the previous file's
# (the patterns of names are many and rarely met again; 2,000 patterns weigh about 1.5 MB).
MAX_ENTRIES = 2000

_Key = tuple[str | bytes, int]
# Each entry's value stays marshalled until it is used: reading 1,000 patterns and 500
# methods whole took 7 ms; a run uses a third of them.


class _Capture:
    """Stands for `_sre` inside `re._compiler`: keeps the arguments of the thread's last
    `compile` call (everything else is the real module's)."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.last = threading.local()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def compile(self, *args: Any) -> Any:
        self.last.args = args
        return self._real.compile(*args)


class _Cache:
    def __init__(self, path: Path, patterns: dict[_Key, bytes], codes: dict[str, bytes],
                 compile_: Any, capture: _Capture) -> None:
        self.path, self.original, self.capture = path, compile_, capture
        self.patterns, self.codes = patterns, codes
        self.used_patterns: dict[_Key, bytes] = {}
        self.used_codes: dict[str, bytes] = {}
        self.added = 0

    def compile(self, pattern: Any, flags: int = 0) -> Any:
        """`re._compiler.compile`, from the cache when the pattern was met before."""
        if type(pattern) not in (str, bytes) or type(flags) is not int or flags & re.DEBUG:
            return self.original(pattern, flags)
        key = (pattern, flags)
        raw = self.patterns.get(key)
        if raw is not None:
            try:
                compiled = _sre.compile(*marshal.loads(raw))
            except Exception:  # noqa: BLE001 - refused by the engine: compile it again
                del self.patterns[key]
            else:
                self.used_patterns[key] = raw
                return compiled
        self.capture.last.args = None
        compiled = self.original(pattern, flags)
        args = self.capture.last.args
        if args is not None:
            try:
                self.used_patterns[key] = marshal.dumps(tuple(_plain(a) for a in args))
                self.added += 1
            except ValueError:  # a value marshal cannot write: not kept
                pass
        return compiled

    def exec(self, source: Any, globals_: Any = None, locals_: Any = None) -> None:
        """`exec` as `dataclasses` calls it, with the code of a source met before."""
        if type(source) is str:
            kept = self.codes.get(source)
            code = _code(kept) if kept is not None else None
            if kept is None or code is None:
                code = compile(source, "<string>", "exec", dont_inherit=True)
                kept = marshal.dumps(code)
                self.added += 1
            self.used_codes[source] = kept
            source = code
        builtins.exec(source, globals_, locals_)

    def save(self) -> None:
        """Write what this run met (then the older entries) if it compiled anything new."""
        if not self.added:
            return
        patterns = _kept(self.used_patterns, self.patterns)
        data = {"patterns": [(key[0], key[1], raw) for key, raw in patterns.items()],
                "codes": _kept(self.used_codes, self.codes)}
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            encoded = marshal.dumps(data)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(encoded)
            os.replace(tmp, self.path)
        except (OSError, ValueError):  # read-only folder, full disk, an unmarshallable value
            tmp.unlink(missing_ok=True)


def _kept(used: dict[Any, Any], older: dict[Any, Any]) -> dict[Any, Any]:
    kept = dict(list(used.items())[:MAX_ENTRIES])
    for key, value in older.items():
        if len(kept) >= MAX_ENTRIES:
            break
        kept.setdefault(key, value)
    return kept


def _code(raw: bytes) -> CodeType | None:
    try:
        code = marshal.loads(raw)
    except (EOFError, ValueError, TypeError):
        return None
    return code if type(code) is CodeType else None


def _plain(value: Any) -> Any:
    """`value` with re's named integer constants (the opcodes) as plain integers, which
    marshal can write."""
    if isinstance(value, list):
        return [int(v) for v in value]
    return int(value) if isinstance(value, int) else value


def default_path() -> Path | None:
    """The cache file for this interpreter, or None when there is to be none."""
    named = os.environ.get(VARIABLE)
    if named is not None:
        return Path(named) if named else None
    if sys.implementation.name != "cpython":
        return None
    tag = f"{sys.implementation.cache_tag}-{sys.hexversion:x}-{_sre.MAGIC}"
    return Path(__file__).parent / "__pycache__" / f"start.{tag}.marshal"


def _read(path: Path) -> tuple[dict[_Key, bytes], dict[str, bytes]]:
    try:
        data = marshal.loads(path.read_bytes())
        patterns = {(pattern, flags): raw for pattern, flags, raw in data["patterns"]
                    if type(raw) is bytes}
        codes = {source: raw for source, raw in data["codes"].items()
                 if type(source) is str and type(raw) is bytes}
        return patterns, codes
    except (OSError, EOFError, ValueError, TypeError, KeyError, AttributeError):
        return {}, {}


def install() -> None:
    """Serve `re`'s compiles and `dataclasses`' methods from the cache file for the rest
    of the process, and write the file at exit when something new was compiled."""
    compiler = re._compiler  # type: ignore[attr-defined]
    path = default_path()
    if path is None or isinstance(compiler._sre, _Capture):
        return
    capture = _Capture(compiler._sre)
    cache = _Cache(path, *_read(path), compiler.compile, capture)
    compiler._sre = capture
    compiler.compile = cache.compile
    import dataclasses  # (its own patterns from the cache too)

    dataclasses.exec = cache.exec  # type: ignore[attr-defined]  # shadows the builtin there
    if not sys.dont_write_bytecode or os.environ.get(VARIABLE):
        atexit.register(cache.save)
