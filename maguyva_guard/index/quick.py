"""`maguyva-guard index` when nothing changed, answered without the engine.

A no-change `index` used to cost about 0.1 s of CPU before it could say so: importing
click, the indexer, git and SQLite modules, one `git ls-files`, the extractor fingerprint,
the config and a read of the whole vectors file. Here, standard library only:

- `inputs(repo)` is taken by `index` BEFORE it reads git (a change made while it runs then
  shows as a different stamp, never as the same one): the git index file's digest (its
  whole bytes: the staged listing is a function of them, split index and all), the config
  files' bytes and the extractor fingerprint;
- `save(...)` writes them, with what `index` printed and the stat of the index database
  and of the vectors file, into the index folder, after the database was closed cleanly
  and while the writer lock is still held;
- `answer(repo)` recomputes the inputs and compares: the same inputs, and the database and
  vectors file untouched since (any write by a check or a query changes their stat), give
  the line `index` would print. Anything it cannot vouch for (another working tree of the
  same repository, GIT_INDEX_FILE, a repository owned by someone else, a missing stamp)
  gives None, and the full path runs, which writes a new stamp.

May import: the standard library and index.schema only (entry.py imports it before the CLI).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import NamedTuple

from maguyva_guard.index.schema import INDEX_DIRNAME, index_filename

STAMP_NAME = "unchanged.json"  # in the index folder, which --rebuild empties
CONFIG_FILES = (".maguyva-guard.toml", "pyproject.toml")  # config.DOTFILE, config.PYPROJECT
# The sources whose change changes what is extracted from a blob (indexer: records parsed
# by another version are dropped): (folder under the package, file suffix).
EXTRACTOR_SOURCES = (("extract", ".py"), ("extract/queries", ".scm"),
                     ("extract/queries/generic", ".scm"))
# Environment that changes which repository or which git index the full path would read.
UNSURE_ENV = ("GIT_INDEX_FILE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM")


class Place(NamedTuple):
    root: Path  # the top of the working tree
    git_dir: Path
    index_dir: Path  # <common dir>/maguyva-guard


def fingerprint(package: Path, version: str) -> str:
    """A digest of the package version and of the extraction code and queries (the same
    files, in the same order, as a sorted glob of `extract/*.py` and the query folders)."""
    h = hashlib.sha1(version.encode())
    for folder, suffix in EXTRACTOR_SOURCES:
        try:
            names = sorted(e.name for e in os.scandir(package / folder)
                           if e.name.endswith(suffix) and e.is_file())
        except OSError:
            continue
        for name in names:
            h.update(f"{folder}/{name}".encode() + b"\0" + (package / folder / name).read_bytes())
    return h.hexdigest()


def locate(start: str) -> Place | None:
    """The repository around `start` as git would find it, without running git; None when
    unsure (inside a .git folder, a repository owned by another user, an odd .git file)."""
    if any(os.environ.get(name) for name in UNSURE_ENV) or not os.path.isdir(start):
        return None
    here = Path(os.path.realpath(start))
    for folder in (here, *here.parents):
        dotgit = folder / ".git"
        if dotgit.is_dir():
            git_dir = dotgit
        elif dotgit.is_file():
            text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
            if not text.startswith("gitdir: "):
                return None
            git_dir = Path(os.path.realpath(folder / text.removeprefix("gitdir: ")))
        else:
            continue
        if here == git_dir or git_dir in here.parents or not git_dir.is_dir():
            return None
        if hasattr(os, "getuid") and git_dir.stat().st_uid != os.getuid():
            return None  # git's safe.directory question: let git answer it
        common = git_dir
        if (git_dir / "commondir").is_file():
            pointer = (git_dir / "commondir").read_text(encoding="utf-8").strip()
            common = Path(os.path.realpath(git_dir / pointer))
        return Place(folder, git_dir, common / INDEX_DIRNAME)
    return None


def inputs(place: Place) -> dict[str, str]:
    """What the full path reads that decides its answer for an unchanged view."""
    import maguyva_guard

    index = place.git_dir / "index"
    config = hashlib.sha1()
    for name in CONFIG_FILES:
        config.update(name.encode() + b"\0" + (_read(place.root / name) or b"\0absent") + b"\0")
    return {
        "root": str(place.root),
        "git_dir": str(place.git_dir),
        "git_index": hashlib.sha1(_read(index) or b"\0absent").hexdigest(),
        "config": config.hexdigest(),
        "extractor": fingerprint(Path(maguyva_guard.__file__).parent, maguyva_guard.__version__),
    }


def file_stat(path: Path) -> str:
    """A file's identity and times ("" when missing), with its write-ahead log's size for
    the database (dbfile's clean mark is this stat too)."""
    try:
        st = path.stat()
    except OSError:
        return ""
    wal = Path(f"{path}-wal")
    wal_size = wal.stat().st_size if wal.exists() else 0
    return f"{st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {wal_size}"


class Counts(NamedTuple):
    files: int
    symbols: int
    references: int


def summary(counts: Counts, parsed: int, seconds: float) -> str:
    """The line `index` prints."""
    return (f"indexed {counts.files:,} files ({parsed:,} parsed) · {counts.symbols:,} symbols"
            f" · {counts.references:,} references · {seconds:.2f} s")


def save(place: Place, taken: dict[str, str], counts: Counts, vectors: Path) -> None:
    """Remember an `index` run's inputs and answer (best effort: without it the next run
    takes the full path)."""
    stamp = {**taken, "database": file_stat(place.index_dir / index_filename()),
             "vectors": str(vectors), "vectors_stat": file_stat(vectors),
             "counts": list(counts)}
    target = place.index_dir / STAMP_NAME
    try:
        partial = target.with_name(f"{STAMP_NAME}.{os.getpid()}")
        partial.write_text(json.dumps(stamp), encoding="utf-8")
        os.replace(partial, target)
    except OSError:
        pass


def forget(index_dir: Path) -> None:
    """Drop the stamp (an `index` that could not vouch for its answer)."""
    try:
        (index_dir / STAMP_NAME).unlink(missing_ok=True)
    except OSError:
        pass


def answer(repo: str) -> Counts | None:
    """What `index` would count, if nothing it reads changed since the stamp; else None."""
    place = locate(repo)
    if place is None:
        return None
    try:
        stamp = json.loads((place.index_dir / STAMP_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stamp, dict) or not stamp.get("database"):
        return None
    if stamp["database"] != file_stat(place.index_dir / index_filename()):
        return None
    vectors = Path(str(stamp.get("vectors", "")))
    if not stamp.get("vectors_stat") or stamp["vectors_stat"] != file_stat(vectors):
        return None
    now = inputs(place)
    if any(stamp.get(key) != value for key, value in now.items()):
        return None
    counts = stamp.get("counts")
    if not isinstance(counts, list) or len(counts) != 3 \
            or not all(isinstance(n, int) for n in counts):
        return None
    return Counts(*counts)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def print_line(line: str) -> None:
    """As the CLI prints it (click.echo to stderr, characters the stream cannot show
    escaped)."""
    reconfigure = getattr(sys.stderr, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
