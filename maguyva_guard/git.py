"""All git access, read-only, through the `git` command.

Every command runs as `git --no-optional-locks -C ROOT -c core.quotepath=off ...` with
LC_ALL=C, so git never refreshes (writes) the user's index and its messages are stable.
GIT_INDEX_FILE is honoured: during `git commit -a` the hook must see git's temporary index.
Nothing here writes: no add, no checkout, no stash, no update-index, no config.
Outputs are read with -z wherever git offers it, so any path survives.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import IO, Any, NamedTuple, TypeVar

from maguyva_guard.errors import FatalError

# The id of the empty tree: the "base" of a repository's first commit.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
MODE_GITLINK = "160000"  # a submodule: not our code
MODE_SYMLINK = "120000"  # a symbolic link: its blob is a path, not code
_SKIPPED_MODES = frozenset({MODE_GITLINK, MODE_SYMLINK})
_STAGE_PREFERENCE = ("0", "2", "3", "1")  # during a conflict, index "ours" (stage 2) first
# Variables that would point git at another repository than the one we were asked about.
_LOCATION_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_PREFIX")
T = TypeVar("T")


class _Session:
    """One command's answers (session()): its lock guards the answers from its threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answers: dict[tuple[Any, ...], Any] = {}
        self.readers: dict[str, BlobReader] = {}


# The running command's session, in its own thread only: another thread of the process
# (an MCP server's next request) asks git itself, and so do worker threads.
_current: ContextVar[_Session | None] = ContextVar("maguyva_guard_git_session", default=None)


@contextmanager
def session() -> Iterator[None]:
    """One command's questions to the repository asked once: while it runs, where the
    repository is, what a revision names, the staged listing and a diff's files are
    answered from the first asking (a check asked each two to four times, one git process
    each), and blobs are read through one `cat-file` process. A command reads the
    repository as one snapshot anyway; whatever changes meanwhile is the next run's."""
    mine = _Session()
    token = _current.set(mine)
    try:
        yield
    finally:
        _current.reset(token)
        for reader in mine.readers.values():
            reader.close()


def in_session(func: Callable[..., T]) -> Callable[..., T]:
    """`func` run inside a session() (a command's core)."""
    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        with session():
            return func(*args, **kwargs)

    return wrapper


def _asked(key: tuple[Any, ...], compute: Callable[[], T]) -> T:
    """compute(), or its answer from earlier in the session (the key holds the working
    folder and GIT_INDEX_FILE: a relative path or another index is another question)."""
    current = _current.get()
    if current is None:
        return compute()
    key = (*key, os.getcwd(), os.environ.get("GIT_INDEX_FILE"))
    with current.lock:
        if key in current.answers:
            return current.answers[key]  # type: ignore[no-any-return]
    value = compute()
    with current.lock:
        current.answers[key] = value
    return value


@dataclass(frozen=True)
class RepoInfo:
    root: Path  # the top of the working tree
    git_dir: Path  # this worktree's git directory
    common_dir: Path  # shared by all worktrees: where the index database lives
    shallow: bool


class Entry(NamedTuple):
    """A file of a tree or of the staged index."""

    path: str
    mode: str
    blob: str
    size: int


class FileChange(NamedTuple):
    """One line of `git diff --raw`: status is A, M, D, T, R or C (score dropped)."""

    status: str
    old_path: str  # "" for an added file
    new_path: str  # "" for a deleted file
    old_blob: str  # the null id for an added file
    new_blob: str
    old_mode: str
    new_mode: str


class Hunk(NamedTuple):
    """A `@@ -old_start,old_count +new_start,new_count @@` header (counts may be 0)."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _LOCATION_VARS}
    env["LC_ALL"] = "C"
    env["GIT_OPTIONAL_LOCKS"] = "0"
    index_file = env.get("GIT_INDEX_FILE")
    if index_file and not os.path.isabs(index_file):
        # git hands hooks a path relative to the directory it runs them in; -C would move it.
        env["GIT_INDEX_FILE"] = os.path.abspath(index_file)
    return env


def _argv(repo: Path | str, args: Iterable[str]) -> list[str]:
    return ["git", "--no-optional-locks", "-C", str(repo), "-c", "core.quotepath=off", *args]


def run(repo: Path | str, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Run one git command; a failure becomes FatalError with git's own first line."""
    try:
        proc = subprocess.run(_argv(repo, args), capture_output=True, env=_env(), check=False)
    except FileNotFoundError:
        raise FatalError("git is not installed (or not on PATH)") from None
    if check and proc.returncode != 0:
        raise FatalError(_first_line(proc.stderr) or f"git {args[0]} failed")
    return proc


def _first_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    line = text.splitlines()[0] if text else ""
    return line.removeprefix("fatal: ").removeprefix("error: ")


def repo_info(path: Path | str) -> RepoInfo:
    """Where the repository containing `path` lives; FatalError for a bare or no repository."""
    info = _asked(("repo_info", str(path)), lambda: _repo_info(path))
    if _current.get() is not None:  # asked again by its root (every stage past the CLI does)
        _asked(("repo_info", str(info.root)), lambda: info)
    return info


def _repo_info(path: Path | str) -> RepoInfo:
    if not os.path.isdir(path):
        raise FatalError(f"not a directory: {path}")
    args = ("rev-parse", "--is-bare-repository", "--is-inside-work-tree", "--is-shallow-repository",
            "--path-format=absolute", "--absolute-git-dir", "--git-common-dir", "--show-toplevel")
    proc = run(path, *args, check=False)
    lines = proc.stdout.decode("utf-8", "surrogateescape").split("\n")
    if lines and lines[0] == "true":
        raise FatalError(f"a bare repository has no working tree to guard: {path}")
    if proc.returncode != 0 and len(lines) > 1 and lines[1] == "false":
        raise FatalError(f"not inside a working tree (inside a .git directory?): {path}")
    if proc.returncode != 0 or len(lines) < 6:
        raise FatalError(f"not a git repository: {path}")
    git_dir, common_dir, root = lines[3:6]
    if len(lines) > 7:  # a newline inside a path: ask for each path alone
        git_dir, common_dir, root = (_one_path(path, flag) for flag in (
            "--absolute-git-dir", "--git-common-dir", "--show-toplevel"))
    return RepoInfo(root=Path(root), git_dir=Path(git_dir), common_dir=Path(common_dir),
                    shallow=lines[2] == "true")


def _one_path(path: Path | str, flag: str) -> str:
    """One path git prints, which may hold newlines: only the last one is git's."""
    proc = run(path, "rev-parse", "--path-format=absolute", flag)
    return proc.stdout.decode("utf-8", "surrogateescape").removesuffix("\n")


def resolve(repo: Path | str, rev: str) -> str:
    """The commit id a revision names; FatalError("unknown revision: X") if none."""
    return _asked(("resolve", str(repo), rev), lambda: _resolve(repo, rev))


def _resolve(repo: Path | str, rev: str) -> str:
    proc = run(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}",
               check=False)
    if proc.returncode != 0:
        raise FatalError(f"unknown revision: {rev}")
    return proc.stdout.decode().strip()


def tree_id(repo: Path | str, rev: str) -> str:
    """The id of a revision's tree (the same content always has the same tree id)."""
    proc = run(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{tree}}",
               check=False)
    if proc.returncode != 0:
        raise FatalError(f"unknown revision: {rev}")
    return proc.stdout.decode().strip()


def head_commit(repo: Path | str) -> str | None:
    """HEAD's commit id, or None in a repository with no commit yet (an unborn HEAD)."""
    def ask() -> str | None:
        proc = run(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
        return proc.stdout.decode().strip() if proc.returncode == 0 else None

    return _asked(("head_commit", str(repo)), ask)


def merge_base(repo: Path | str, a: str, b: str) -> str | None:
    """The best common ancestor, or None (unrelated histories, or a shallow clone's cut)."""
    proc = run(repo, "merge-base", "--end-of-options", a, b, check=False)
    if proc.returncode == 1:
        return None
    if proc.returncode != 0:
        raise FatalError(_first_line(proc.stderr) or "git merge-base failed")
    return proc.stdout.decode().strip()


def _decode(raw: bytes) -> str:
    """A repository path as text. Bytes that are not UTF-8 become "\\xNN": SQLite stores
    only valid UTF-8, and every caller here uses paths as names, reading blobs by id."""
    return raw.decode("utf-8", "backslashreplace")


def ls_tree(repo: Path | str, rev: str) -> dict[str, Entry]:
    """Every regular file of a revision's tree: path -> Entry (submodules, symlinks skipped)."""
    out = run(repo, "ls-tree", "-r", "-z", "--full-tree", "-l", "--end-of-options", rev).stdout
    entries: dict[str, Entry] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, blob, size = meta.decode().split()
        if kind != "blob" or mode in _SKIPPED_MODES:
            continue
        path = _decode(raw_path)
        entries[path] = Entry(path, mode, blob, int(size))
    return entries


def ls_index_raw(repo: Path | str) -> bytes:
    """`git ls-files -s -z` as git prints it: a cheap fingerprint of the staged view."""
    return _asked(("ls_index_raw", str(repo)),
                  lambda: run(repo, "ls-files", "-s", "-z").stdout)


def ls_index(repo: Path | str, sizes: bool = True, raw: bytes | None = None) -> dict[str, Entry]:
    """The staged index (GIT_INDEX_FILE honoured): path -> Entry.

    Sizes come from one `cat-file --batch-check`; with sizes=False they are -1 (cheaper
    when the caller only needs sizes of blobs it has not seen yet: see blob_sizes). `raw`
    is ls_index_raw's output, when the caller has it already. With sizes=False the answer
    may be shared with an earlier call on the same listing: callers must not modify it.
    """
    out = ls_index_raw(repo) if raw is None else raw
    if not sizes:
        for listing, parsed in _last_index:
            if listing == out:
                return parsed
    entries = _parse_index(out)
    if not sizes:
        _last_index[:] = [(out, entries)]
        return entries
    size_of = blob_sizes(repo, {e.blob for e in entries.values()})
    return {p: e._replace(size=size_of.get(e.blob, -1)) for p, e in entries.items()}


# The last listing ls_index parsed (sizes=False) and its entries: a check reads the staged
# index twice (the index update, then the naming roots of the report), and parsing it costs
# about 0.2 s a time at 100,000 files. Keyed by git's whole output, compared byte for byte,
# so a changed index is parsed again.
_last_index: list[tuple[bytes, dict[str, Entry]]] = []


def _parse_index(out: bytes) -> dict[str, Entry]:
    """`git ls-files -s -z` output -> path -> Entry (size -1)."""
    staged: dict[str, tuple[str, str, str]] = {}  # path -> (stage, mode, blob)
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, blob, stage = meta.decode().split()
        if mode in _SKIPPED_MODES:
            continue
        path = _decode(raw_path)
        prior = staged.get(path)
        if prior is None or _STAGE_PREFERENCE.index(stage) < _STAGE_PREFERENCE.index(prior[0]):
            staged[path] = (stage, mode, blob)
    return {p: Entry(p, m, b, -1) for p, (_, m, b) in staged.items()}


def worktree_changes(repo: Path | str) -> tuple[list[str], list[str]]:
    """What the staged index does not hold: tracked files whose working-tree content differs
    from it (`git diff --name-only`, which refreshes stat data in memory only), and untracked,
    not ignored paths (an untracked folder as one "dir/" entry). Both run at once: each
    walks the working tree, about 0.1 s on Django."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        diff = pool.submit(run, repo, "diff", "--name-only", "--no-renames", "-z")
        others = pool.submit(run, repo, "ls-files", "--others", "--exclude-standard",
                             "--directory", "--no-empty-directory", "-z")
        unstaged, untracked = diff.result().stdout, others.result().stdout
    return ([_decode(p) for p in unstaged.split(b"\0") if p],
            [_decode(p) for p in untracked.split(b"\0") if p])


def blob_sizes(repo: Path | str, blobs: Iterable[str]) -> dict[str, int]:
    """Sizes of many objects through one `cat-file --batch-check`; missing ones are left out."""
    ids = "".join(f"{b}\n" for b in blobs)
    if not ids:
        return {}
    proc = subprocess.run(_argv(repo, ["cat-file", "--batch-check=%(objectname) %(objectsize)"]),
                          input=ids.encode(), capture_output=True, env=_env(), check=False)
    sizes: dict[str, int] = {}
    for line in proc.stdout.decode().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes


class BlobReader:
    """One `git cat-file --batch` process for many reads (spawning git per blob is slow).

    `read(obj)` takes a blob id or "rev:path" and returns the bytes, or None if missing.
    `read_many(ids)` streams many at once (a writer thread feeds git while we read).
    """

    def __init__(self, repo: Path | str) -> None:
        self._proc = subprocess.Popen(_argv(repo, ["cat-file", "--batch"]), stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, env=_env())
        self._lock = threading.Lock()

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._proc.stdin and not self._proc.stdin.closed:
            self._proc.stdin.close()
        self._proc.wait()
        if self._proc.stdout:
            self._proc.stdout.close()

    def read(self, obj: str) -> bytes | None:
        assert self._proc.stdin and self._proc.stdout
        with self._lock:
            self._proc.stdin.write(obj.encode("utf-8", "surrogateescape") + b"\n")
            self._proc.stdin.flush()
            return _read_object(self._proc.stdout)

    def read_many(self, ids: Iterable[str]) -> Iterator[tuple[str, bytes | None]]:
        """(id, content or None) for each id, in order."""
        wanted = list(ids)
        assert self._proc.stdin and self._proc.stdout
        stdin, stdout = self._proc.stdin, self._proc.stdout

        def feed() -> None:
            stdin.write(b"".join(i.encode() + b"\n" for i in wanted))
            stdin.flush()

        with self._lock:
            writer = threading.Thread(target=feed, daemon=True)
            writer.start()
            try:
                for obj in wanted:
                    yield obj, _read_object(stdout)
            finally:
                writer.join()


def _read_object(stdout: IO[bytes]) -> bytes | None:
    header = stdout.readline()
    if not header:
        raise FatalError("git cat-file stopped unexpectedly")
    parts = header.split()
    if len(parts) != 3:  # "<id> missing" or "<id> ambiguous"
        return None
    size = int(parts[2])
    data = stdout.read(size)
    stdout.read(1)  # the newline git puts after each object
    return data


def read_blobs(repo: Path | str, ids: Iterable[str]) -> dict[str, bytes]:
    """Many blobs by id through one cat-file process (the session's, in one); missing ids
    are left out."""
    current = _current.get()
    if current is None:
        with BlobReader(repo) as reader:
            return {i: data for i, data in reader.read_many(ids) if data is not None}
    with current.lock:
        shared = current.readers.get(str(repo))
        if shared is None:
            shared = current.readers[str(repo)] = BlobReader(repo)
    return {i: data for i, data in shared.read_many(ids) if data is not None}


def _diff_args(base: str | None, head: str | None) -> list[str]:
    """`--cached BASE` for the staged side (head None), else `BASE HEAD`; no base: empty tree."""
    base = base or EMPTY_TREE
    return ["--cached", base] if head is None else [base, head]


def diff_files(repo: Path | str, base: str | None, head: str | None = None) -> list[FileChange]:
    """Changed files between base and head (None: the staged index), renames detected."""
    return list(_asked(("diff_files", str(repo), base, head),
                       lambda: tuple(_diff_files(repo, base, head))))


def _diff_files(repo: Path | str, base: str | None, head: str | None) -> list[FileChange]:
    out = run(repo, "diff", "-M", "-z", "--raw", "--no-abbrev", "--no-ext-diff",
              *_diff_args(base, head), "--").stdout
    fields = out.split(b"\0")
    changes: list[FileChange] = []
    i = 0
    while i < len(fields) and fields[i]:
        old_mode, new_mode, old_blob, new_blob, status = fields[i].decode().lstrip(":").split()
        status = status[0]
        paths = 2 if status in "RC" else 1
        names = [_decode(f) for f in fields[i + 1 : i + 1 + paths]]
        old_path = names[0] if status != "A" else ""
        new_path = names[-1] if status != "D" else ""
        changes.append(FileChange(status, old_path, new_path, old_blob, new_blob,
                                  old_mode, new_mode))
        i += 1 + paths
    return changes


def diff_hunks(repo: Path | str, base: str | None, head: str | None = None,
               paths: Iterable[str] = (), exclude: Iterable[str] = ()) -> dict[str, list[Hunk]]:
    """Changed line ranges per file: new path -> hunks (the old path for a deleted file).

    Explicit prefixes because a user's diff.noprefix=true would otherwise change the
    headers; no external diff drivers or textconv, so the lines are the blob's own lines.
    Files without text hunks (binary, pure renames, mode changes) are absent, and so are
    the `exclude`d paths (files too large to read: git does not even diff them).
    """
    args = ["diff", "-M", "-U0", "--no-color", "--no-ext-diff", "--no-textconv",
            "--src-prefix=a/", "--dst-prefix=b/", *_diff_args(base, head), "--", *paths,
            *(f":(exclude,literal){p}" for p in exclude)]
    hunks: dict[str, list[Hunk]] = {}
    old_path = new_path = ""
    current: list[Hunk] | None = None
    for line in run(repo, *args).stdout.split(b"\n"):
        if line.startswith(b"diff --git "):
            old_path = new_path = ""
            current = None
        elif line.startswith(b"--- ") and current is None:
            old_path = _patch_path(line[4:], b"a/")
        elif line.startswith(b"+++ ") and current is None:
            new_path = _patch_path(line[4:], b"b/")
            current = hunks.setdefault(new_path or old_path, [])
        elif line.startswith(b"@@ ") and current is not None:
            current.append(_parse_hunk(line))
    return hunks


def _parse_hunk(line: bytes) -> Hunk:
    old, new = line.split(b" ")[1:3]  # b"-12,3" b"+12"
    old_start, _, old_count = old[1:].partition(b",")
    new_start, _, new_count = new[1:].partition(b",")
    return Hunk(int(old_start), int(old_count or 1), int(new_start), int(new_count or 1))


def _patch_path(raw: bytes, prefix: bytes) -> str:
    """A `---`/`+++` path: "" for /dev/null, C-quoted paths unquoted, prefix removed."""
    raw = raw.rstrip(b"\t")  # git appends a tab after a path that contains a space
    if raw == b"/dev/null":
        return ""
    if raw.startswith(b'"') and raw.endswith(b'"'):
        raw = _unquote_c(raw[1:-1])
    return _decode(raw.removeprefix(prefix))


_C_ESCAPES = {ord("a"): 7, ord("b"): 8, ord("t"): 9, ord("n"): 10, ord("v"): 11, ord("f"): 12,
              ord("r"): 13, ord('"'): 34, ord("\\"): 92}


def _unquote_c(raw: bytes) -> bytes:
    """Undo git's quote_c_style: backslash escapes and three-digit octal bytes."""
    out = bytearray()
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch != 0x5C or i + 1 >= len(raw):  # not a backslash
            out.append(ch)
            i += 1
        elif raw[i + 1] in _C_ESCAPES:
            out.append(_C_ESCAPES[raw[i + 1]])
            i += 2
        else:
            out.append(int(raw[i + 1 : i + 4], 8))
            i += 4
    return bytes(out)


class GrepLine(NamedTuple):
    path: str
    line: int
    text: str


def grep_words(repo: Path | str, rev: str | None, words: Iterable[str],
               pathspecs: Iterable[str]) -> list[GrepLine]:
    """Lines naming any of `words` (whole words, fixed strings) in the files of `pathspecs`,
    in a revision's tree or (rev None) the staged index; binary files skipped."""
    return grep_words_started(repo, rev, words, pathspecs).result()


class StartedGrep:
    """A `git grep` left running while the caller does other work (git reads and inflates
    the blobs on the other core); `result()` waits for it, `close()` stops it unread."""

    def __init__(self, repo: Path | str, rev: str | None, args: list[str]) -> None:
        self.rev = rev
        self.proc: subprocess.Popen[bytes] | None = None
        if args:
            try:
                self.proc = subprocess.Popen(_argv(repo, args), stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE, env=_env())
            except FileNotFoundError:
                raise FatalError("git is not installed (or not on PATH)") from None

    def result(self) -> list[GrepLine]:
        if self.proc is None:
            return []
        stdout, stderr = self.proc.communicate()
        if self.proc.returncode not in (0, 1):
            raise FatalError(_first_line(stderr) or "git grep failed")
        return _grep_lines(stdout, self.rev)

    def close(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            self.proc.communicate()


def grep_words_started(repo: Path | str, rev: str | None, words: Iterable[str],
                       pathspecs: Iterable[str]) -> StartedGrep:
    """`grep_words`, started now and read later (StartedGrep.result())."""
    words = list(words)
    if not words:
        return StartedGrep(repo, rev, [])
    args = ["grep", "-z", "-n", "-I", "-w", "-F", "--no-color", "--full-name"]
    for w in words:
        args += ["-e", w]
    args += ["--cached"] if rev is None else [rev]
    return StartedGrep(repo, rev, [*args, "--", *pathspecs])


def _grep_lines(stdout: bytes, rev: str | None) -> list[GrepLine]:
    prefix = b"" if rev is None else rev.encode() + b":"
    out = []
    for record in stdout.split(b"\n"):
        fields = record.split(b"\0", 2)
        if len(fields) != 3 or not fields[1].isdigit():
            continue
        path = fields[0][len(prefix):] if prefix and fields[0].startswith(prefix) else fields[0]
        out.append(GrepLine(_decode(path), int(fields[1]), fields[2].decode("utf-8", "replace")))
    return out
