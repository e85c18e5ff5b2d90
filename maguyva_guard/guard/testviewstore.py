"""The tests' view kept in the index between runs, file by file (testview.load's parts).

Reading the view means reading every import of the repository and every test file's
records: 0.35 s of CPU on Django, a third of a JSON check. All of it is per file, so the
index keeps each file's part with what it was computed from (its blob, language, category
and module name); a run recomputes only the files whose entry differs from its own view
(a staged change: one or two files) and takes every other part as stored. The stored row is
also keyed by the code that computes the parts and by the extractor and size limit whose
records they read: another version never reads it. A row that is missing, from another
key or unreadable is ignored (the view is computed as when nothing is stored), never
trusted. Written by `maguyva-guard index` and by a run that had to compute everything.
"""

from __future__ import annotations

import hashlib
import operator
import pickle
import sqlite3
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import compress
from operator import itemgetter
from pathlib import Path
from typing import Any, Final, NamedTuple

from maguyva_guard.extract.languages import module_name
from maguyva_guard.index.schema import FileInfo
from maguyva_guard.records import Definition

TABLE: Final = "test_view"
_IMPORTERS: Final = "\0importers"  # the key suffix of the importers' row
# Above this share of the view's files changed, recomputing them one by one costs more
# than reading everything again (and below this many, never).
MAX_CHANGED_SHARE: Final = 0.25
MIN_CHANGED_FULL: Final = 100
# The modules whose code decides what a part holds: any change to them is another key.
_SOURCES: Final = ("guard/testview.py", "guard/testviewstore.py", "guard/testbases.py",
                   "index/store.py", "retrievers/modnames.py", "records.py")


class Definitions(Sequence[Definition]):
    """A test file's definitions, kept as stored (one pickled tuple) until first read: a
    check reads those of a few of Django's 600 test files, and building all 14k records
    was two thirds of reading the stored view."""

    __slots__ = ("_items", "_packed")

    def __init__(self, items: Iterable[Definition] = (), packed: bytes | None = None) -> None:
        self._items: tuple[Definition, ...] | None = None if packed else tuple(items)
        self._packed = packed

    @property
    def _all(self) -> tuple[Definition, ...]:
        if self._items is None:
            self._items = tuple(pickle.loads(self._packed or b""))
            self._packed = None
        return self._items

    def __getitem__(self, index: Any) -> Any:
        return self._all[index]

    def __len__(self) -> int:
        return len(self._all)

    def __iter__(self) -> Iterator[Definition]:
        return iter(self._all)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Definitions | tuple):
            return self._all == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all)

    def __repr__(self) -> str:
        return f"Definitions({self._all!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_packed_definitions, (pickle.dumps(self._all, pickle.HIGHEST_PROTOCOL),))


def _packed_definitions(packed: bytes) -> Definitions:
    return Definitions(packed=packed)


class Part(NamedTuple):
    """What the view holds of one file, and what it was computed from. Stored as a plain
    tuple (INFO... below index it): 14k NamedTuples cost a third of reading them back."""

    info: FileInfo
    module: str | None  # the resolver's module name of the path (relative imports)
    names: frozenset[str] | None  # the dotted names imports use for it (Python files)
    lines: frozenset[int] | None  # its import lines; None: no import reference
    targets: frozenset[str] | None  # absolute targets of its imports; None: none named
    test: Any  # its testview.TestFile (a test module or conftest), or None
    strings: tuple[tuple[str, str], ...]  # a test file's (scope, target) of string refs
    methods: tuple[str, ...]  # the names of its method definitions (duplicates kept)
    dynamic: tuple[tuple[str, str], ...]  # a test file's testdispatch.dynamic_bases


INFO, MODULE, NAMES, LINES, TARGETS, TEST, STRINGS, METHODS, DYNAMIC = range(len(Part._fields))
Parts = dict[str, tuple[Any, ...]]  # path -> a Part, or the plain tuple of one


class Importers(Mapping[str, set[str]]):
    """The files importing each dotted name or anything under it, as kept: unpickled at
    the first look-up (a 100,000-file repository keeps 180,000 names, 0.2 s to read, and
    a check whose change reaches no test never asks). The files whose parts changed since
    are moved when it is read (`move`); a row that cannot be read is worked out from the
    view's parts (`parts`, the merged ones) instead, never trusted."""

    __slots__ = ("_packed", "_data", "_moves", "parts")

    def __init__(self, packed: bytes | None, parts: Parts) -> None:
        self._packed = packed
        self._data: dict[str, set[str]] | None = None
        self._moves: list[tuple[str, set[str], set[str]]] = []
        self.parts = parts

    def move(self, path: str, before: set[str], after: set[str]) -> None:
        if self._data is not None:
            _move(self._data, path, before, after)
        else:
            self._moves.append((path, before, after))

    @property
    def data(self) -> dict[str, set[str]]:
        if self._data is None:
            try:
                found = pickle.loads(self._packed) if self._packed is not None else None
            except Exception:  # noqa: BLE001 - a damaged row is a missing row
                found = None
            if isinstance(found, dict):
                for move in self._moves:
                    _move(found, *move)
            else:
                found = importers(self.parts)
            self._data, self._packed, self._moves = found, None, []
        return self._data

    def get(self, name: str, default: Any = None) -> Any:
        return self.data.get(name, default)

    def __getitem__(self, name: str) -> set[str]:
        return self.data[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


class Kept(NamedTuple):
    """The parts of every file of a view, how many method definitions carry a name, and
    the files importing each dotted name or anything under it (TestView.importers_by_name:
    80k set insertions a check)."""

    parts: Parts
    counts: dict[str, int]
    by_name: dict[str, set[str]] | Importers


def counted(parts: Parts) -> Kept:
    return Kept(parts, dict(Counter(n for part in parts.values() for n in part[METHODS])),
                importers(parts))


def importers(parts: Parts) -> dict[str, set[str]]:
    """Kept.by_name of these parts."""
    by_name: dict[str, set[str]] = {}
    for path, part in parts.items():
        for name in imported(part):
            by_name.setdefault(name, set()).add(path)
    return by_name


def _move(by_name: dict[str, set[str]], path: str, before: set[str], after: set[str]) -> None:
    for name in before - after:
        by_name[name].discard(path)
        if not by_name[name]:
            del by_name[name]
    for name in after - before:
        by_name.setdefault(name, set()).add(path)


def imported(part: tuple[Any, ...]) -> set[str]:
    """The dotted names a file's imports run (`pkg.mod.f` runs `pkg` and `pkg.mod`), as
    TestView.importers_by_name counts them: Python files' targets only."""
    if part[TARGETS] is None or part[NAMES] is None:
        return set()
    out: set[str] = set()
    for target in part[TARGETS]:
        pieces = target.split(".")
        out.update(".".join(pieces[:i]) for i in range(1, len(pieces) + 1))
    return out


@lru_cache(maxsize=1)
def code_digest() -> str:
    import maguyva_guard

    package = Path(maguyva_guard.__file__).parent
    h = hashlib.sha1(f"{maguyva_guard.__version__}\0{sys.version_info[:2]}".encode())
    for name in _SOURCES:
        h.update(name.encode() + b"\0" + (package / name).read_bytes())
    return h.hexdigest()


def key(store: Any) -> str:
    """The row's key: the code, the extractor and the size limit the parts depend on."""
    return "\0".join((code_digest(), store.meta_get("extractor") or "",
                      store.meta_get("max_size") or ""))


def stored(store: Any) -> Kept | None:
    """The stored parts under this run's key, or None (missing, another key, unreadable).
    The importers are read with them, unpickled when first asked (Importers)."""
    try:
        rows = dict(store.conn.execute(f"SELECT key, data FROM {TABLE} WHERE key IN (?, ?)",
                                       (key(store), key(store) + _IMPORTERS)))
    except sqlite3.Error:
        return None  # no table yet (an index no `index` of this version wrote), or damage
    if key(store) not in rows:
        return None
    try:
        parts, counts = pickle.loads(rows[key(store)])
    except Exception:  # noqa: BLE001 - a damaged row is a missing row, whatever it raises
        return None
    width = len(Part._fields)
    if not all(isinstance(x, dict) for x in (parts, counts)) or not all(
            type(p) is tuple and len(p) == width for p in parts.values()):
        return None
    return Kept(parts, counts, Importers(rows.get(key(store) + _IMPORTERS), parts))


def save(store: Any, kept: Kept) -> None:
    """Keep the parts and the importers (two rows: the previous ones go). Best effort: a
    store that cannot be written (a full disk, a read-only index) leaves the run as it was."""
    plain = {p: (tuple(part[INFO]), *part[MODULE:]) for p, part in kept.parts.items()}
    data = pickle.dumps((plain, kept.counts), protocol=pickle.HIGHEST_PROTOCOL)
    by_name = kept.by_name.data if isinstance(kept.by_name, Importers) else kept.by_name
    try:
        with store.transaction() as conn:
            conn.execute(f"CREATE TABLE IF NOT EXISTS {TABLE}(key TEXT PRIMARY KEY,"
                         " data BLOB NOT NULL)")
            conn.execute(f"DELETE FROM {TABLE}")
            conn.executemany(f"INSERT INTO {TABLE}(key, data) VALUES (?, ?)", [
                (key(store), data), (key(store) + _IMPORTERS,
                                     pickle.dumps(by_name, protocol=pickle.HIGHEST_PROTOCOL))])
    except Exception:  # noqa: BLE001 - FatalError or sqlite3.Error: the view is not kept
        return


def changed(parts: Parts, files: Mapping[str, FileInfo],
            modules: Mapping[str, str]) -> set[str] | None:
    """The paths of the view whose stored part is missing or was computed from another
    entry; None when so many changed that reading everything again is cheaper."""
    paths = list(files)
    if list(parts) == paths:  # the usual case: the same paths (in path order)
        # Compared in C (map, itemgetter, compress): a Python loop over 100,000 paths
        # cost 0.1 s a check.
        stored = parts.values()
        differ = map(operator.or_,
                     map(operator.ne, map(itemgetter(INFO), stored), files.values()),
                     map(operator.ne, map(itemgetter(MODULE), stored), map(modules.get, paths)))
        out = set(compress(paths, differ))
    else:
        out = {p for p, info in files.items()
               if (part := parts.get(p)) is None or part[INFO] != info
               or part[MODULE] != modules.get(p)}
    most = max(MAX_CHANGED_SHARE * len(files), MIN_CHANGED_FULL)
    return None if len(out) > most else out


def merged(kept: Kept, fresh: Parts, files: Iterable[str]) -> Kept:
    """The view's parts in path order, the fresh ones else the stored ones, and the counts
    and importers moved by what changed (`kept`'s are updated in place)."""
    parts = {p: fresh[p] if p in fresh else kept.parts[p] for p in files}
    counts, by_name = kept.counts, kept.by_name
    for path in fresh.keys() | (kept.parts.keys() - parts.keys()):
        old, new = kept.parts.get(path), fresh.get(path)
        for name in old[METHODS] if old is not None else ():
            counts[name] -= 1
        for name in new[METHODS] if new is not None else ():
            counts[name] = counts.get(name, 0) + 1
        before = imported(old) if old is not None else set()
        after = imported(new) if new is not None else set()
        if isinstance(by_name, Importers):
            by_name.move(path, before, after)
        else:
            _move(by_name, path, before, after)
    if isinstance(by_name, Importers):
        by_name.parts = parts  # what a row that cannot be read is worked out from
    return Kept(parts, counts, by_name)


def python_names(path: str, module: str | None) -> frozenset[str] | None:
    """The dotted names imports use for a Python file the resolver names `module`."""
    return None if module is None else frozenset({module, module_name(path, "python")})
