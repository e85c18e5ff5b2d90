"""The index file: opening it, checking it, rebuilding it, and the one-writer lock.

An index of another format, or one whose content SQLite finds damaged (SQLITE_CORRUPT,
SQLITE_NOTADB, or a failed `PRAGMA quick_check`), is moved aside and rebuilt with one line on
stderr. Any other failure (a full disk, no permission, a file that cannot be opened) says
nothing about the index, which is left exactly where it is: one line, exit 2.

The flock next to the index keeps two runs from rebuilding or updating it at once; the
commands hold it for their whole run (Store.open(exclusive=True)), since each may switch the
index's current view. The kernel drops an flock when its process dies, so a killed run never
leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

from maguyva_guard.errors import FatalError
from maguyva_guard.index.quick import file_stat

LOCK_WAIT_SECONDS = 120.0  # how long a second run waits (for a whole run, maybe a cold build)
LOCK_POLL_SECONDS = 0.05
HOLDER_COMMAND_CHARS = 120  # the holder's command line, as the lock messages show it
LOCK_NAME = "lock"  # the flock file next to the index (kept by a rebuild: others wait on it)
JOB_LOCK_NAME = "background.lock"  # held by the background job (index/background.py): kept too
WRITE_CACHE_KIB = 65536  # SQLite page cache per connection, at most
# SQLite's primary result codes (sqlite3.h) that mean the file's content is damaged. Every
# other code (SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_IOERR, SQLITE_PERM, ...)
# is about the place the file lives in, and rebuilding would throw a good index away.
CORRUPTION_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


_lock_wait = LOCK_WAIT_SECONDS  # this process's wait; a git hook waits less (wait_at_most)


def wait_at_most(seconds: float) -> float:
    """Wait at most `seconds` for the index lock in this process (a hook: a few seconds, so
    that a suspended run does not hold every commit); returns the previous limit."""
    global _lock_wait
    previous, _lock_wait = _lock_wait, seconds
    return previous


class IndexLock:
    """A re-entrant (within one object) exclusive flock on `path`.

    Its holder writes its process id into the lock file, so that a run that has to wait,
    or gives up, can say which process holds the index (a suspended run is easy to miss)."""

    def __init__(self, path: Path, wait_seconds: float | None = None) -> None:
        self.path = path
        self.wait_seconds = _lock_wait if wait_seconds is None else wait_seconds
        self._fd: int | None = None
        self._depth = 0

    def __enter__(self) -> IndexLock:
        if self._depth == 0:
            self._fd = _acquire(self.path, self.wait_seconds)
        self._depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _acquire(path: Path, wait_seconds: float) -> int:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise FatalError(f"cannot open the index lock {path}: {exc.strerror}") from None
    deadline = time.monotonic() + wait_seconds
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            _sign(fd)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise FatalError(
                    f"another maguyva-guard run{holder(path)} kept the index locked for"
                    f" {wait_seconds:g} s ({path}); try again when it has finished"
                ) from None
            if not told:
                print(f"maguyva-guard: waiting for another maguyva-guard run{holder(path)}...",
                      file=sys.stderr)
                told = True
            time.sleep(LOCK_POLL_SECONDS)


def _sign(fd: int) -> None:
    """Write our process id into the lock file we now hold (best effort)."""
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass


def holder(path: Path) -> str:
    """" (pid N: its command line)" of the process that signed the lock file, "" if unknown.
    The command is read from /proc where there is one, shortened, non-printables as '?'."""
    try:
        pid = int(path.read_text().strip())
        os.kill(pid, 0)  # still there (a signal 0 only asks)
    except (OSError, ValueError):
        return ""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return f" (pid {pid})"
    command = raw.rstrip(b"\0").replace(b"\0", b" ").decode("utf-8", "replace")
    command = "".join(c if c.isprintable() else "?" for c in command)
    if len(command) > HOLDER_COMMAND_CHARS:
        command = command[: HOLDER_COMMAND_CHARS - 3] + "..."
    return f" (pid {pid}: {command})" if command else f" (pid {pid})"


def connect(path: Path) -> sqlite3.Connection:
    """Autocommit connection (the store opens its transactions itself) in WAL mode."""
    conn = sqlite3.connect(path, timeout=LOCK_WAIT_SECONDS, isolation_level=None,
                           check_same_thread=False)
    _switch_to_wal(conn)
    conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable enough for a cache
    # A cold build inserts into several B-trees at once; with the default 2 MB cache their
    # pages spill and are re-read. The pages are only allocated when used.
    conn.execute(f"PRAGMA cache_size = -{WRITE_CACHE_KIB}")
    return conn


def _switch_to_wal(conn: sqlite3.Connection) -> None:
    """`PRAGMA journal_mode=WAL`, waiting for other connections like any other statement.

    Switching a new file's journal mode needs an exclusive lock, and SQLite reports
    "database is locked" at once instead of calling the busy handler when another
    connection (a reader's probe, another run's open) holds any lock: so retry it here.
    """
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(LOCK_POLL_SECONDS)


def open_checked(path: Path, version: int, schema: str, rebuild: bool) -> sqlite3.Connection:
    """Connect to the index at `path` (format `version`), discarding what is stale or corrupt.

    Indexes of other versions in the same folder are deleted (a cache is not worth keeping);
    a corrupt one is kept once as `<name>.corrupt` for a bug report. `rebuild` empties the
    whole folder (the other modules' caches too, e.g. the semantic vectors): from scratch.
    """
    if rebuild:
        _clear_folder(path.parent, keep=(LOCK_NAME, JOB_LOCK_NAME))
    had_old = _discard_other_versions(path)
    reason = "old format" if had_old and not path.exists() else None
    state = _state(path, version) if path.exists() else "empty"
    if rebuild or state in ("old format", "corrupt"):
        if state == "corrupt":
            _fs(os.replace, path, path.with_name(path.name + ".corrupt"))
        _remove_with_journal(path)
        reason = state if state in ("old format", "corrupt") else reason
        state = "empty"
    if reason not in (None, "empty") and not rebuild:  # --rebuild: nothing to explain
        print(f"maguyva-guard: index was {reason}; rebuilding", file=sys.stderr)
    try:
        conn = connect(path)
        if state == "ok":
            return conn
        # The version is written in the same transaction as the tables, so a run killed
        # half-way leaves an empty file (taken as new), never tables without a version.
        conn.executescript(f"BEGIN; {schema}; PRAGMA user_version = {version}; COMMIT;")
    except sqlite3.Error as exc:
        raise FatalError(f"cannot open the index {path}: {exc}") from None
    return conn


def _state(path: Path, version: int) -> str:
    """"ok", "empty" (no tables yet), "old format" or "corrupt".

    `PRAGMA quick_check` reads the whole file (about 0.2 s for Django's index), so it runs
    only when the file changed since a run last closed it cleanly (see mark_clean): SQLite's
    own writes cannot corrupt it, something else must have touched it.
    """
    try:
        conn = sqlite3.connect(path, timeout=LOCK_WAIT_SECONDS)
        try:
            found = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if not tables:
                return "empty"
            if found != version:
                return "old format"
            if _stamp(path) == _read_stamp(path):
                return "ok"
            ok = conn.execute("PRAGMA quick_check").fetchone()[0]
            return "ok" if ok == "ok" else "corrupt"
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if is_corruption(exc):
            return "corrupt"
        raise FatalError(f"cannot open the index {path}: {exc}; it is left as it is") from None


def is_corruption(exc: sqlite3.Error) -> bool:
    """True only when SQLite says the file's content is damaged (see CORRUPTION_CODES)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in CORRUPTION_CODES


def mark_clean(path: Path) -> None:
    """After closing the index: remember its size and times, so the next run may skip the
    integrity check. Best effort: without the mark the next run merely checks."""
    try:
        _stamp_path(path).write_text(_stamp(path))
    except OSError:
        pass


def _stamp(path: Path) -> str:
    """The database file's identity and times with its write-ahead log's size (the same
    stat the no-change stamp of quick.py keeps)."""
    return file_stat(path)


def _read_stamp(path: Path) -> str | None:
    try:
        return _stamp_path(path).read_text()
    except OSError:
        return None


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".clean")


def _clear_folder(folder: Path, keep: tuple[str, ...]) -> None:
    for entry in folder.iterdir():
        if entry.name not in keep and entry.is_file():
            _fs(entry.unlink, missing_ok=True)


def _discard_other_versions(path: Path) -> bool:
    found = False
    for old in path.parent.glob("index-v*.sqlite"):
        if old.name != path.name:
            _remove_with_journal(old)
            found = True
    return found


def _remove_with_journal(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal", ".clean"):
        _fs(Path(f"{path}{suffix}").unlink, missing_ok=True)


def _fs(action: Callable[..., object], *args: object, **kwargs: object) -> None:
    """A file operation on the index folder; failing (no permission, a read-only
    filesystem) is one line, the files as they were."""
    try:
        action(*args, **kwargs)
    except OSError as exc:
        where = exc.filename or (args[0] if args else "the index folder")
        raise FatalError(f"cannot change {where}: {exc.strerror}") from None
