"""Packed binary vectors on disk, and Hamming top-k over them (design §1: semantic modality).

One file per (backend, model, dimension): `vectors-v<N>-<backend>-<model>-<bits>.npy` in the
index folder, so vectors of different backends are never mixed and switching back to a
backend finds its vectors again. The file is a plain .npy of records (key, bits): `key` is
a 16-byte digest of the chunk's content hash, `bits` the packed sign bits. One file holds
both, so one `os.replace` swaps them together (atomic), and it is memory-mapped on read.

Format changelog (bump FORMAT_VERSION, and the file name with it, on any change):
  1: records (key V16, bits u1[dimension / 8])
  2: a hex content hash's key is its first 16 bytes (was a blake2b of it), so a search
     can go from its nearest keys back to the chunks without reading the whole view
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import numpy as np

FORMAT_VERSION: Final = 2
KEY_BYTES: Final = 16
# Distances are computed over blocks of rows so the XOR temporaries stay in the CPU cache.
BLOCK_ROWS: Final = 16_384
# held(): from this many rows on, a few keys are looked for with numpy (see there).
LARGE_FILE_ROWS: Final = 50_000
FEW_KEYS: Final = 2_000


def key_of(content_hash: str) -> bytes:
    """The stored key of a chunk's content hash: the hash's own first 16 bytes when it is
    hex (the store's sha1), so `hash_prefix` turns a key back into a look-up; else a digest."""
    try:
        raw = bytes.fromhex(content_hash)
    except ValueError:
        raw = b""
    if len(raw) >= KEY_BYTES:
        return raw[:KEY_BYTES]
    return hashlib.blake2b(content_hash.encode(), digest_size=KEY_BYTES).digest()


def hash_prefix(key: bytes) -> str:
    """The hex prefix of the content hashes that have this key (see key_of)."""
    return key.hex()


def file_for(index_dir: Path, backend: str, model: str, dimension: int) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model)
    return index_dir / f"vectors-v{FORMAT_VERSION}-{backend}-{slug}-{dimension}.npy"


def record_dtype(dimension: int) -> np.dtype:
    import numpy as np

    return np.dtype([("key", f"V{KEY_BYTES}"), ("bits", np.uint8, (dimension // 8,))])


@dataclass(frozen=True)
class Vectors:
    """The stored vectors of one backend: keys in row order, and the packed bit matrix."""

    keys: list[bytes]
    bits: np.ndarray  # (n, dimension // 8) uint8, possibly a memory-mapped strided view

    def rows(self) -> dict[bytes, int]:
        return {key: row for row, key in enumerate(self.keys)}


def load(path: Path, dimension: int) -> Vectors | None:
    """The vectors in `path`, memory-mapped; None when missing or not of this format."""
    import numpy as np

    try:
        records = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError):
        return None
    if records.dtype != record_dtype(dimension) or records.ndim != 1:
        return None
    raw = np.ascontiguousarray(records["key"]).view(np.uint8).tobytes()
    keys = [raw[i : i + KEY_BYTES] for i in range(0, len(raw), KEY_BYTES)]
    return Vectors(keys, records["bits"])


def save(path: Path, keys: list[bytes], bits: np.ndarray) -> None:
    """Write the vectors atomically: a temporary file in the same folder, then os.replace."""
    import numpy as np

    records = np.empty(len(keys), dtype=record_dtype(bits.shape[1] * 8))
    records["key"] = np.frombuffer(b"".join(keys), dtype=f"V{KEY_BYTES}")
    records["bits"] = bits
    import tempfile  # only when writing (a search or a no-change update only reads)

    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            np.save(out, records, allow_pickle=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def hamming(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Hamming distance of `query` (packed, one row) to every row of `matrix` (packed)."""
    import numpy as np

    words = matrix.view(np.uint64)
    q = np.ascontiguousarray(query, dtype=np.uint8).view(np.uint64)
    out = np.empty(len(words), dtype=np.uint32)
    for start in range(0, len(words), BLOCK_ROWS):
        counts = np.bitwise_count(words[start : start + BLOCK_ROWS] ^ q)
        # Adding the columns one by one beats .sum(axis=1), whose inner axis is short.
        total = counts[:, 0].astype(np.uint16)
        for column in range(1, counts.shape[1]):
            total += counts[:, column]
        out[start : start + len(total)] = total
    return out


def hamming_many(matrix: np.ndarray, queries: list[np.ndarray]) -> list[np.ndarray]:
    """`hamming(matrix, q)` for each of `queries`, the same arrays, twice as fast for the
    guard's sweep (hundreds of queries over every stored vector): each block of rows is
    laid out once as its 64-bit columns, so each step XORs and counts one contiguous column
    of every row, in buffers allocated once."""
    import numpy as np

    words = matrix.view(np.uint64)
    out = [np.empty(len(words), dtype=np.uint32) for _ in queries]
    packed = [np.ascontiguousarray(q, dtype=np.uint8).view(np.uint64) for q in queries]
    for start in range(0, len(words), BLOCK_ROWS):
        columns = np.ascontiguousarray(words[start : start + BLOCK_ROWS].T)
        rows = columns.shape[1]
        xor = np.empty(rows, dtype=np.uint64)
        counts = np.empty(rows, dtype=np.uint8)
        for q, dist in zip(packed, out, strict=True):
            total = np.zeros(rows, dtype=np.uint16)
            for column in range(columns.shape[0]):
                np.bitwise_xor(columns[column], q[column], out=xor)
                np.bitwise_count(xor, out=counts)
                total += counts
            dist[start : start + rows] = total
    return out


NPY_MAGIC: Final = b"\x93NUMPY"


def top_k_file(path: Path, query: bytes, k: int) -> tuple[list[bytes], list[tuple[int, int]]]:
    """(keys of the k nearest records, [(row, distance)] nearest first, ties by row) read
    straight from the .npy file with Python integers, without importing numpy: importing it
    costs ~0.2 s, most of a pre-commit hook's budget, while XOR and popcount over 45k
    1024-bit integers take ~30 ms. ([], []) when the file is missing or of another shape."""
    import heapq

    data = _read(path)
    if data is None:
        return [], []
    record = _record_size(data, len(query))
    if record is None:
        return [], []
    start, q = record[1], int.from_bytes(query, "big")
    size = record[0]
    count = (len(data) - start) // size
    rows = _row_integers(data, start, size, count)
    distances = [(q ^ row).bit_count() for row in rows]
    nearest = heapq.nsmallest(k, zip(distances, range(count), strict=True))
    keys = [data[start + row * size : start + row * size + KEY_BYTES] for _, row in nearest]
    return keys, [(row, d) for d, row in nearest]


# The rows of the last vectors file searched, as Python integers: a check without the
# numpy sweep searches it once per changed symbol and side (five symbols: five scans), and
# decoding the rows was 60% of each (16 of 27 ms on Django's 43,000 rows).
_integers: list[tuple[bytes, int, list[int]]] = []


def _row_integers(data: bytes, start: int, size: int, count: int) -> list[int]:
    """The bit rows of `data` as integers, kept while the same bytes are searched."""
    if _integers and _integers[0][0] is data and _integers[0][1] == size:
        return _integers[0][2]
    rows = [int.from_bytes(data[o + KEY_BYTES : o + size], "big")
            for o in range(start, start + count * size, size)]
    _integers[:] = [(data, size, rows)]
    return rows


def read_keys(path: Path, nbytes: int) -> set[bytes] | None:
    """The keys stored in a vectors file of `nbytes`-byte bit rows, without numpy; None
    when the file is missing or of another shape. Kept while the file is unchanged: the
    caller must not modify the set."""
    data = _read(path)
    if data is None:
        return None
    cached = _files.get(path)
    if cached is not None and cached.data is data and cached.keys is not None \
            and cached.nbytes == nbytes:
        return cached.keys
    record = _record_size(data, nbytes)
    if record is None:
        return None
    size, start = record
    keys = {data[o : o + KEY_BYTES] for o in range(start, len(data) - size + 1, size)}
    if cached is not None and cached.data is data:
        _files[path] = replace(cached, keys=keys, nbytes=nbytes)
    return keys


def held(path: Path, nbytes: int, keys: list[bytes]) -> set[bytes] | None:
    """Which of `keys` a vectors file of `nbytes`-byte bit rows holds; None when the file is
    missing or of another shape. A few keys in a large file (a commit's chunks against a
    100,000-file repository's 500,000 rows) are looked for with numpy in the keys' column,
    without building the set of every key (0.2 s there, and again after each append)."""
    data = _read(path)
    if data is None:
        return None
    cached = _files.get(path)
    record = _record_size(data, nbytes)
    if record is None:
        return None
    size, start = record
    count = (len(data) - start) // size
    known = cached.keys if cached is not None and cached.data is data \
        and cached.nbytes == nbytes else None
    if known is None and (count < LARGE_FILE_ROWS or len(keys) > FEW_KEYS):
        known = read_keys(path, nbytes)
    if known is not None:
        return {k for k in keys if k in known}
    import numpy as np

    wanted = [k for k in keys if len(k) == KEY_BYTES]
    if not wanted:
        return set()
    # The first 8 bytes of every row's key, as integers (a strided view, nothing copied).
    heads = np.ndarray((count,), dtype=np.uint64, buffer=data, offset=start, strides=(size,))
    probe = np.frombuffer(b"".join(k[:8] for k in wanted), dtype=np.uint64)
    rows = np.flatnonzero(np.isin(heads, probe)).tolist()
    found = {data[start + r * size : start + r * size + KEY_BYTES] for r in rows}
    return {k for k in keys if k in found}


@dataclass(frozen=True)
class _Cached:
    stamp: tuple[int, int, int]  # inode, size, mtime: os.replace of a new version changes it
    data: bytes
    keys: set[bytes] | None = None  # read_keys' answer for rows of `nbytes` bytes
    nbytes: int = 0


# One check reads a vectors file several times (which keys it holds before and after the
# changed chunks are embedded, then the nearest rows of each query): ~6 MB on Django, and
# its key set ~15 ms to build. Both are kept per file while its stamp is unchanged.
_files: dict[Path, _Cached] = {}


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _read(path: Path) -> bytes | None:
    """The bytes of a vectors file, None when it is missing (see _files)."""
    stamp = _stamp(path)
    cached = _files.get(path)
    if stamp is not None and cached is not None and cached.stamp == stamp:
        return cached.data
    try:
        data = path.read_bytes()
    except OSError:
        _files.pop(path, None)
        return None
    if stamp is not None:
        _files[path] = _Cached(stamp, data)
    return data


def append(path: Path, keys: list[bytes], rows: list[bytes]) -> bool:
    """Add records to an existing vectors file without numpy, atomically (a new file in the
    same folder, then os.replace), as numpy itself would write it. False, and nothing
    written, when the file is missing or not of this shape: then use save()."""
    data = _read(path)
    if data is None:
        return False
    nbytes = len(rows[0]) if rows else 0
    record = _record_size(data, nbytes) if rows else None
    if record is None or len(keys) != len(rows) or any(len(r) != nbytes for r in rows) \
            or any(len(k) != KEY_BYTES for k in keys):
        return False
    size, start = record
    count = (len(data) - start) // size + len(keys)
    written = b"".join((_npy_header(nbytes, count),
                        memoryview(data)[start : start + (count - len(keys)) * size],
                        b"".join(k + r for k, r in zip(keys, rows, strict=True))))
    import tempfile  # only when writing (a search or a no-change update only reads)

    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(written)
            out.flush()
            st = os.fstat(out.fileno())  # of the file itself: another writer may follow
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    cached, stamp = _files.get(path), (st.st_ino, st.st_size, st.st_mtime_ns)
    # What this process wrote, under the stamp of the file it wrote.
    known = None
    if cached is not None and cached.data is data and cached.keys is not None \
            and cached.nbytes == nbytes:
        known = cached.keys | set(keys)
    _files[path] = _Cached(stamp, written, known, nbytes)
    return True


def damage(path: Path, nbytes: int) -> str | None:
    """Why the vectors file at `path` (rows of `nbytes` bytes) cannot be trusted, or None
    when it is sound or missing: a damaged header, or a length that is not the header's
    count of whole records (a truncated or overwritten file, a run killed mid-copy)."""
    data = _read(path)
    if data is None:
        return None
    record = _record_size(data, nbytes)
    if record is None:
        return "not a vectors file of this format"
    size, start = record
    declared = _declared_count(data, start)
    held, rest = divmod(len(data) - start, size)
    if declared is None or held != declared or rest:
        return f"truncated or overwritten: {held} whole records where {declared} were written"
    return None


def _declared_count(data: bytes, start: int) -> int | None:
    """The record count in a .npy header ('shape': (N,)), None when unreadable."""
    import ast

    width = 2 if data[6] == 1 else 4
    try:
        shape = ast.literal_eval(data[8 + width : start].decode("latin-1")).get("shape")
    except (ValueError, SyntaxError, AttributeError):
        return None
    ok = isinstance(shape, tuple) and len(shape) == 1 and isinstance(shape[0], int)
    return shape[0] if ok else None


def _npy_header(nbytes: int, count: int) -> bytes:
    """A version 1.0 .npy header for `count` records, padded as numpy pads it (the whole
    preamble a multiple of 64 bytes, ending in a newline)."""
    text = (f"{{'descr': [('key', '|V{KEY_BYTES}'), ('bits', '|u1', ({nbytes},))], "
            f"'fortran_order': False, 'shape': ({count},), }}")
    preamble = len(NPY_MAGIC) + 2 + 2
    padded = text + " " * (-(preamble + len(text) + 1) % 64) + "\n"
    return NPY_MAGIC + b"\x01\x00" + len(padded).to_bytes(2, "little") + padded.encode("latin-1")


def _record_size(data: bytes, nbytes: int) -> tuple[int, int] | None:
    """(record size, data offset) of a vectors file whose records hold `nbytes` bits."""
    import ast

    if not data.startswith(NPY_MAGIC) or len(data) < 10:
        return None
    major = data[6]
    width = 2 if major == 1 else 4
    length = int.from_bytes(data[8 : 8 + width], "little")
    offset = 8 + width + length
    try:
        header = ast.literal_eval(data[8 + width : offset].decode("latin-1"))
    except (ValueError, SyntaxError):
        return None
    expected = [("key", f"|V{KEY_BYTES}"), ("bits", "|u1", (nbytes,))]
    if header.get("descr") != expected or header.get("fortran_order"):
        return None
    return KEY_BYTES + nbytes, offset


def top_k(matrix: np.ndarray, query: np.ndarray, k: int,
          candidates: np.ndarray | None = None) -> list[tuple[int, int]]:
    """The k nearest rows as (row, distance), nearest first; ties by row (deterministic).

    `candidates` (row indices) restricts the search, e.g. to the chunks of the current view.
    """
    import numpy as np

    dist = hamming(matrix, query)
    rows = np.arange(len(dist)) if candidates is None else np.asarray(candidates, np.int64)
    if candidates is not None:
        dist = dist[rows]
    if k <= 0 or len(rows) == 0:
        return []
    if k < len(dist):
        # The k-th smallest distance, then every row at or below it: ties at the boundary
        # are then cut by row order rather than by argpartition's arbitrary choice.
        kth = np.partition(dist, k - 1)[k - 1]
        keep = np.flatnonzero(dist <= kth)
        rows, dist = rows[keep], dist[keep]
    order = np.lexsort((rows, dist))[:k]
    return [(int(rows[i]), int(dist[i])) for i in order]


class Ranking:
    """The rows of a vectors file by Hamming distance to one query (ties by row): the
    distances are computed once, in the guard's one numpy sweep over all its queries, and
    each top k is then a partial selection over them (O(rows)), not a full sort turned into
    Python lists (O(rows log rows), ~0.5 s per query over 500,000 chunks)."""

    def __init__(self, data: bytes, start: int, size: int, dist: np.ndarray):
        self._data, self._start, self._size = data, start, size
        self._dist = dist
        self._best: tuple[list[int], list[int]] = ([], [])  # the largest top k computed

    def top_k(self, k: int) -> tuple[list[bytes], list[tuple[int, int]]]:
        """Exactly what top_k_file(path, query, k) answers for this ranking's query."""
        k = max(min(k, len(self._dist)), 0)
        if len(self._best[0]) < k:
            self._best = _nearest(self._dist, k)
        rows, dist = self._best[0][:k], self._best[1]
        at = self._start
        keys = [self._data[at + r * self._size : at + r * self._size + KEY_BYTES] for r in rows]
        return keys, [(r, dist[i]) for i, r in enumerate(rows)]


def _nearest(dist: np.ndarray, k: int) -> tuple[list[int], list[int]]:
    """The k smallest distances' rows and distances, nearest first, ties by row."""
    import numpy as np

    if k < len(dist):
        kth = np.partition(dist, k - 1)[k - 1]
        rows = np.flatnonzero(dist <= kth)  # every row at the boundary: ties go by row
        rows = rows[np.lexsort((rows, dist[rows]))][:k]
    else:
        rows = np.argsort(dist, kind="stable")
    return rows.tolist(), dist[rows].tolist()


def rank_file(path: Path, queries: list[bytes]) -> dict[bytes, Ranking]:
    """A Ranking per distinct query (packed bits) over the file's rows, with numpy; {} when
    the file is missing or not of this shape (the caller then asks top_k_file)."""
    import numpy as np

    distinct = list(dict.fromkeys(queries))
    data = _read(path)
    record = _record_size(data, len(distinct[0])) if data is not None and distinct else None
    if data is None or record is None or (record[0] - KEY_BYTES) % 8:
        return {}
    size, start = record
    count = (len(data) - start) // size
    rows = np.frombuffer(data, dtype=np.uint8, count=count * size, offset=start)
    bits = np.ascontiguousarray(rows.reshape(count, size)[:, KEY_BYTES:])
    dists = hamming_many(bits, [np.frombuffer(query, np.uint8) for query in distinct])
    return {query: Ranking(data, start, size, dist)
            for query, dist in zip(distinct, dists, strict=True)}
