"""Which file of this repository a trace's frame names.

A frame names its file as the runtime saw it: absolute (`/venv/lib/python3.12/site-packages/
django/db/models/query.py`, Go's module cache `.../uuid@v1.6.0/uuid.go`), relative
(`./src/main.rs`), a `file://` URL (ES modules), or only a file name with the class's
package beside it (Java: `com.acme.Pool.take(Pool.java:41)`). We compare path components
from the end: a repository path whose every component ends the frame's path matches
(`django/db/models/query.py`, `uuid.go`), as does one sharing at least MIN_SHARED trailing
components with it; among several, the longest shared tail wins, and a tie is not
guessed. A frame with no match (the standard library, `<stdin>`, `node:internal/...`) is
not in this repository and is not a result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from maguyva_guard.records import Frame

MIN_SHARED: Final = 2


def resolve_frames(frames: Iterable[Frame], files: Mapping[str, Any]) -> list[tuple[str, int]]:
    """(repository path, line) of each frame in this repository, in the frames' order."""
    frames = list(frames)
    if not frames:
        return []
    by_name: dict[str, list[str]] = {}
    for path in files:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    out = []
    for frame in frames:
        found = resolve(frame, by_name)
        if found is not None:
            out.append((found, frame.line))
    return out


def resolve(frame: Frame, by_name: Mapping[str, list[str]]) -> str | None:
    parts = _parts(frame)
    if not parts or parts[-1] not in by_name:
        return None
    best: list[tuple[int, str]] = []
    for path in by_name[parts[-1]]:
        repo_parts = path.split("/")
        shared = _shared_tail(parts, repo_parts)
        if shared == len(repo_parts) or shared >= MIN_SHARED:
            best.append((shared, path))
    if not best:
        return None
    best.sort(key=lambda sp: -sp[0])
    if len(best) > 1 and best[0][0] == best[1][0]:
        return None  # two files fit as well: do not guess
    return best[0][1]


def _parts(frame: Frame) -> list[str]:
    file = frame.file.replace("\\", "/").removeprefix("file://")
    if file.startswith(("<", "node:", "internal/")):
        return []
    parts = [p for p in file.split("/") if p not in ("", ".")]
    if len(parts) == 1 and frame.module and "." in frame.module:
        # Java/Kotlin: Pool.java in com.acme.Pool -> com/acme/Pool.java
        package = frame.module.split(".")[:-1]
        while package and package[-1][:1].isupper():  # nested and inner classes
            package.pop()
        parts = [*package, *parts]
    return parts


def _shared_tail(a: list[str], b: list[str]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n
