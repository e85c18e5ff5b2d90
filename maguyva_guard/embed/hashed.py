"""The embedded semantic backend: a SimHash of hashed code subtokens (numpy only, offline).

A text becomes weighted features: its words split into subtokens (camelCase, snake_case,
digits), lowercased, stop words dropped, cut to their first STEM_CHARS characters (a cheap
stemmer: "configuration" and "configs" both become "confi"), plus the bigrams of consecutive
subtokens. Each feature's weight is 1 + ln(count), doubled on the chunk's header line (the
`def`/`class` line: a function's name says most about what it does). Each feature owns a
pseudo-random +-1 vector drawn from SHAKE-128 of its text, so vectors need no stored random
matrix and are identical across runs, processes, platforms and numpy versions. The vector
is the sign of the weighted sum. bench/semantic.py measured every choice here (README).

Weights are integers (the real weight in units of 1/WEIGHT_SCALE), so every sum is exact:
numpy's matrix product (in float64, exact for integers below 2**53, whatever order BLAS
adds in) and the plain-Python `embed_one` give the same bits on every machine. The hook
path embeds a few changed chunks without importing numpy (about 0.2 s of its budget).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from hashlib import shake_128
from itertools import chain, pairwise
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import numpy as np

NAME: Final = "embedded"
# Bump the version whenever features or weights change: stored vectors carry the model name,
# so a new version re-embeds instead of mixing incompatible vectors.
MODEL: Final = "subtoken-simhash-v2"  # v2: integer weights (v1: float32 sums)
DEFAULT_DIMENSION: Final = 1024  # the record size of voyage-code-3's default ubinary output
STEM_CHARS: Final = 5  # bench: 5 beat 4 (more collisions) and 6/none (fewer matches)
HEADER_WEIGHT: Final = 2.0  # bench: NL->code MRR@10 0.33 -> 0.38 at 1024 bits
WEIGHT_SCALE: Final = 256  # weights are rounded to 1/256: exact sums, same bits everywhere
FLOAT32_EXACT: Final = 2**24  # float32 holds every integer below this exactly
# The feature -> packed sign row cache is dropped past this size (memory stays ~20 MB).
CACHE_LIMIT: Final = 200_000
MIN_CAPACITY: Final = 4096  # rows of the first packed-row buffer
RUN_CACHE_LIMIT: Final = 50_000  # memoised runs of `words` (~210 B each), then all dropped

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# The header is the first line that opens a definition, looked for in the first HEADER_LINES
# lines (decorators with long arguments come first); failing that, the first line that is not
# blank, a comment or a decorator.
HEADER_LINES: Final = 12
_DEFINITION = re.compile(
    r"\s*(?:(?:export|public|private|protected|internal|static|async|pub|abstract|final|"
    r"override|default|unsafe)\s+)*"
    r"(?:def|class|function|func|fn|interface|struct|enum|trait|impl|type|module|object)\b")
_NOT_HEADER = ("@", "#", "//", "/*", "*", '"""', "'''", "--", ";")
_STOP: Final = frozenset(
    # English function words that carry no topic in a query or a docstring.
    "a an the of to in on for and or is are be been by with from as at it its this that "
    "these those if not no into than then when which who will can may must should would "
    "does do given get gets set sets return returns any all some each other such only also "
    # Keywords and ubiquitous names of the languages we index: present in almost every
    # chunk, they only add the same noise to every vector.
    "def class self cls args kwargs none true false null nil elif else while pass try "
    "except finally raise yield lambda import var let const function func fn public "
    "private protected static void new end".split()
)


class HashEmbedder:
    """SimHash of hashed subtokens; `embed` returns packed sign bits (n, dimension // 8)."""

    name: Final = NAME
    model: Final = MODEL

    def __init__(self, dimension: int = DEFAULT_DIMENSION,
                 cache_limit: int = CACHE_LIMIT) -> None:
        if dimension <= 0 or dimension % 64:
            raise ValueError(f"dimension must be a positive multiple of 64, not {dimension}")
        self.dimension = dimension
        self.cache_limit = cache_limit  # features whose rows are kept (then all dropped)
        self._nbytes = dimension // 8
        self._ids: dict[str, int] = {}
        self._rows: list[bytes] = []  # rows of features not yet in the matrix
        self._matrix: np.ndarray | None = None  # packed rows by feature id, grown lazily
        self._filled = 0  # rows of self._matrix written (its length is its capacity)

    def embed(self, texts: Sequence[str], input_type: str = "document") -> np.ndarray:
        """Packed sign bits, one row per text. Symmetric: `input_type` changes nothing."""
        import numpy as np

        out = np.zeros((len(texts), self._nbytes), dtype=np.uint8)
        if len(self._ids) > self.cache_limit:
            self._ids, self._rows, self._matrix, self._filled = {}, [], None, 0
        weighted = [self._feature_ids(text) for text in texts]
        matrix = self._packed_rows()
        for i, (ids, weights) in enumerate(weighted):
            if ids:
                out[i] = _simhash(matrix, ids, weights)
        return out

    def embed_one(self, text: str) -> bytes:
        """One text's packed sign bits in plain Python (no numpy: the hook's path), the
        very bits `embed` gives (integer weights: both sums are exact)."""
        counts, header = features(text)
        width = self.dimension
        acc = [0] * width
        total = 0
        for feature, n in counts.items():
            w = weight(n, feature in header)
            total += w
            row = int.from_bytes(hashlib.shake_128(feature.encode()).digest(self._nbytes), "big")
            for i, bit in enumerate(format(row, f"0{width}b")):
                if bit == "1":
                    acc[i] += w
        packed = int("".join("1" if 2 * a > total else "0" for a in acc), 2) if counts else 0
        return packed.to_bytes(self._nbytes, "big")

    def _feature_ids(self, text: str) -> tuple[list[int], list[int]]:
        """(feature ids, their integer weights) for one text."""
        counts, header = features(text)
        keys = list(counts)
        ids = list(map(self._ids.get, keys))
        if None in ids:  # new features: ids in order, their rows drawn in one pass
            fresh = [f for f, i in zip(keys, ids, strict=True) if i is None]
            have, nbytes = len(self._ids), self._nbytes
            self._ids.update(zip(fresh, range(have, have + len(fresh)), strict=True))
            self._rows.extend([shake_128(f.encode()).digest(nbytes) for f in fresh])
            ids = list(map(self._ids.__getitem__, keys))
        weights = list(map(_PLAIN_WEIGHTS.__getitem__, counts.values()))
        for feature in header.intersection(counts):  # a few: the header line's
            weights[keys.index(feature)] = weight(counts[feature], True)
        return ids, weights  # type: ignore[return-value]

    def _packed_rows(self) -> np.ndarray:
        """The packed rows of every feature seen, in a buffer grown by doubling: new
        features in every call (a parse worker embeds file by file, and a repository of
        unique names brings new ones in each file) must not copy the whole matrix each
        time, which was quadratic in the features seen."""
        import numpy as np

        need = len(self._ids)
        have = self._filled
        if have < need:
            if self._matrix is None or len(self._matrix) < need:
                capacity = max(need, 2 * have, MIN_CAPACITY)
                grown = np.empty((capacity, self._nbytes), dtype=np.uint8)
                if self._matrix is not None:
                    grown[:have] = self._matrix[:have]
                self._matrix = grown
            fresh = np.frombuffer(b"".join(self._rows), dtype=np.uint8)
            self._matrix[have:need] = fresh.reshape(-1, self._nbytes)
            self._filled, self._rows = need, []  # each row is kept once, in the matrix
        if self._matrix is None:
            return np.zeros((0, self._nbytes), "u1")
        return self._matrix[:need]


@lru_cache(maxsize=4096)
def weight(count: int, on_header: bool) -> int:
    """A feature's weight, 1 + ln(count), doubled on the header line, in 1/WEIGHT_SCALE.
    Memoised: a cold index asks it two million times (Django), for a few hundred distinct
    counts (a twentieth of the embedding time)."""
    real = (1.0 + math.log(count)) * (HEADER_WEIGHT if on_header else 1.0)
    return round(real * WEIGHT_SCALE)


class _Weights(dict[int, int]):
    """count -> weight(count, False), looked up by map() in C (a feature's weight was a
    Python call per feature: two million on Django)."""

    def __missing__(self, count: int) -> int:
        found = self[count] = weight(count, False)
        return found


_PLAIN_WEIGHTS: Final = _Weights()


def _simhash(matrix: np.ndarray, ids: list[int], weights: list[int]) -> np.ndarray:
    """sign(sum w_f * (+-1)_f) == [sum of w_f over the features whose bit is 1 > total / 2].
    Integer weights: every partial sum is an exact integer, whatever the order BLAS adds
    in, in float32 while the total stays below 2**24 (all but huge chunks), else float64."""
    import numpy as np

    dtype = np.float32 if 2 * sum(weights) < FLOAT32_EXACT else np.float64
    w = np.asarray(weights, dtype=dtype)
    ones = w @ np.unpackbits(matrix[ids], axis=1).astype(dtype)
    return np.packbits(ones * 2 > w.sum())


def words(text: str) -> list[str]:
    """Subtokens, lowercased, stop words and single characters dropped, stemmed.

    _WORD matches only ASCII letters and digits, so its matches in a text are its matches
    in each run of them: the text is cut into runs by bytes.translate + split (a third of
    the regex's time) and each distinct run's stems are memoised (code repeats its names)."""
    runs = text.encode("utf-8", "surrogatepass").translate(_RUN_BYTES).split()
    if len(_STEMS) > RUN_CACHE_LIMIT:
        _STEMS.clear()
    return list(chain.from_iterable(map(_STEMS.__getitem__, runs)))


class _RunStems(dict[bytes, tuple[str, ...]]):
    """A run of ASCII letters and digits -> its stems (the memo of `words`)."""

    def __missing__(self, run: bytes) -> tuple[str, ...]:
        found = self[run] = tuple(
            w[:STEM_CHARS]
            for w in map(str.lower, _WORD.findall(run.decode("ascii")))
            if len(w) > 1 and w not in _STOP
        )
        return found


_STEMS: Final = _RunStems()
# Every byte that is not an ASCII letter or digit becomes a space (UTF-8's multi-byte
# characters included: _WORD matches none of them either).
_RUN_BYTES: Final = bytes(c if chr(c).isascii() and chr(c).isalnum() else 32 for c in range(256))


def features(text: str) -> tuple[Counter[str], set[str]]:
    """(feature -> count, the header line's features) for one text."""
    toks = words(text)
    counts = Counter(toks)
    counts.update(map(" ".join, pairwise(toks)))
    head = _header(text)
    if not head:
        return counts, set()
    htoks = words(head)
    return counts, {*htoks, *(a + " " + b for a, b in pairwise(htoks))}


def _header(text: str) -> str:
    """The chunk's header line (see HEADER_LINES), "" when there is none."""
    lines = text.split("\n", HEADER_LINES)[:HEADER_LINES]
    for line in lines:
        if _DEFINITION.match(line):
            return line.strip()
    for line in lines:
        stripped = line.strip()
        if stripped and not stripped.startswith(_NOT_HEADER):
            return stripped
    return ""
