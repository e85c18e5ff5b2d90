"""Compiled regular expressions kept between runs, as the interpreter keeps .pyc files.

A warm `check` compiles about 340 regular expressions (the modules' patterns, and the
patterns of the names it meets), and `re` compiles in Python: about a sixth of a
one-symbol check's CPU. What `re` hands to its C engine for a pattern (the pattern, its
flags, the engine's code as a list of integers, its groups) depends only on the pattern,
the flags and the interpreter, so the command line keeps those arguments in one file
beside its .pyc files (`maguyva_guard/__pycache__/`, named after the interpreter's exact
version) and builds a pattern met again straight from them. The engine checks the code it
is given (`_sre.compile` validates it) and anything it refuses, or a file that cannot be
read, is compiled again the usual way: the cache can cost a run its speed-up, never its
answer. Like .pyc files, nothing is written when PYTHONDONTWRITEBYTECODE is set or the
folder is read-only; MAGUYVA_GUARD_REGEX_CACHE names another file, or "" for none.

`install()` is called by the command line only (entry.py), before its imports; a program
importing maguyva_guard as a library keeps `re` untouched.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's C engine: no stubs
import atexit
import marshal
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

VARIABLE = "MAGUYVA_GUARD_REGEX_CACHE"
# Patterns kept at most: those this run met first, then the previous file's (the patterns
# of names are many and rarely met again; 2,000 entries weigh about 1 MB).
MAX_ENTRIES = 2000

_Key = tuple[str | bytes, int]


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
    def __init__(self, path: Path, known: dict[_Key, tuple[Any, ...]], compile_: Any,
                 capture: _Capture) -> None:
        self.path, self.known, self.original, self.capture = path, known, compile_, capture
        self.used: dict[_Key, tuple[Any, ...]] = {}
        self.added = 0

    def compile(self, pattern: Any, flags: int = 0) -> Any:
        if type(pattern) not in (str, bytes) or type(flags) is not int or flags & re.DEBUG:
            return self.original(pattern, flags)
        key = (pattern, flags)
        args = self.known.get(key)
        if args is not None:
            try:
                compiled = _sre.compile(*args)
            except Exception:  # noqa: BLE001 - refused by the engine: compile it again
                del self.known[key]
            else:
                self.used[key] = args
                return compiled
        self.capture.last.args = None
        compiled = self.original(pattern, flags)
        args = self.capture.last.args
        if args is not None:
            self.used[key] = tuple(_plain(a) for a in args)
            self.added += 1
        return compiled

    def save(self) -> None:
        """Write the patterns met (then the older ones) if this run compiled new ones."""
        if not self.added:
            return
        entries = dict(self.used)
        for key, args in self.known.items():
            if len(entries) >= MAX_ENTRIES:
                break
            entries.setdefault(key, args)
        rows = [(key[0], key[1], args) for key, args in entries.items()][:MAX_ENTRIES]
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            data = marshal.dumps(rows)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(data)
            os.replace(tmp, self.path)
        except (OSError, ValueError):  # read-only folder, full disk, an unmarshallable value
            tmp.unlink(missing_ok=True)


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
    return Path(__file__).parent / "__pycache__" / f"regex.{tag}.marshal"


def _read(path: Path) -> dict[_Key, tuple[Any, ...]]:
    try:
        rows = marshal.loads(path.read_bytes())
        return {(pattern, flags): args for pattern, flags, args in rows}
    except (OSError, EOFError, ValueError, TypeError):
        return {}


def install() -> None:
    """Serve `re`'s compiles from the cache file for the rest of the process, and write
    the file at exit when new patterns were compiled."""
    compiler = re._compiler  # type: ignore[attr-defined]
    path = default_path()
    if path is None or isinstance(compiler._sre, _Capture):
        return
    capture = _Capture(compiler._sre)
    cache = _Cache(path, _read(path), compiler.compile, capture)
    compiler._sre = capture
    compiler.compile = cache.compile
    if not sys.dont_write_bytecode or os.environ.get(VARIABLE):
        atexit.register(cache.save)
