"""From a diff to the symbols it changes (design §7, steps 1 and 2).

Both sides of every changed file are parsed from their blobs (never from the working tree):
the old side for what was removed or renamed, the new side for what was added or changed.
A changed line belongs to the innermost definition around it, so a method's edit is the
method's, not its class's. A definition present on both sides is `signature_changed` when
its header differs (parameters, return type, decorators, visibility) and `modified` when
only its body does; an edit that only touches comments or blank lines changes nothing. A
removed definition whose body reappears under another name is `renamed`.

Changed lines outside every definition, and files without symbol support, become fallbacks
(design §7, step 4): the guard searches for what they mention instead.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from maguyva_guard import git
from maguyva_guard.extract.docstrings import docstring_lines
from maguyva_guard.extract.generic import LINE_COMMENTS
from maguyva_guard.extract.languages import LANGUAGES, language_for
from maguyva_guard.guard import files as changed_files
from maguyva_guard.guard import reexports
from maguyva_guard.guard.formatting import formatting_only
from maguyva_guard.records import (
    ADDED,
    CONSTANT,
    MODIFIED,
    REMOVED,
    RENAMED,
    SIGNATURE_CHANGED,
    ChangedSymbol,
    Definition,
    Fallback,
    FileSymbols,
)

NULL_BLOB = "0" * 40
# Placed symbols (paths and qualified names filled in) of a blob at a path, or None when
# the file is not code we can parse (binary, unknown language).
Parser = Callable[[str, str], FileSymbols | None]
# What a changed file is, from its change and its newest blob (guard.files.kind_of).
KindOf = Callable[[git.FileChange, bytes], changed_files.Kind]
PYTHON_SUFFIXES = (".py", ".pyi")

_COMMENT_LINE = re.compile(r"^\s*(#|//|/\*|\*|\*/)")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_STRING = re.compile(r"""(["'])((?:(?!\1).){4,80})\1""")
MAX_FALLBACK_QUERIES = 8  # per file: enough to find what a module-level edit mentions
MAX_FALLBACK_LINES = 2000  # changed lines read for those queries, per file


@dataclass(frozen=True)
class ChangeSet:
    changed: tuple[ChangedSymbol, ...]
    fallbacks: tuple[Fallback, ...]
    old_definitions: dict[tuple[str, str], Definition] = field(default_factory=dict)
    new_definitions: dict[tuple[str, str], Definition] = field(default_factory=dict)
    kinds: dict[str, changed_files.Kind] = field(default_factory=dict)  # path -> its kind
    version_only: frozenset[str] = frozenset()  # paths where only a version string changed
    oversized: tuple[str, ...] = ()  # paths over the size limit: neither diffed nor read


@dataclass
class _Side:
    path: str
    symbols: FileSymbols | None
    lines: list[str]
    changed: set[int]
    noise: set[int] = field(default_factory=set)  # docstring lines: they change no behaviour
    # Where lines were only deleted, the line before the deletion stands in for it (so that
    # the definition around it counts as changed); its own text did not change.
    points: set[int] = field(default_factory=set)

    def innermost(self) -> list[Definition]:
        """The innermost definition around each changed line, in order, without repeats."""
        if self.symbols is None:
            return []
        defs = sorted(self.symbols.definitions, key=lambda d: (d.line_start, -d.line_end))
        out: dict[str, Definition] = {}
        for line in sorted(self.changed):
            inner = None
            for d in defs:
                if d.line_start <= line <= d.line_end:
                    if inner is None or _size(d) <= _size(inner):
                        inner = d
            if inner is not None:
                out.setdefault(inner.qualified_name, inner)
        return list(out.values())

    def orphan_lines(self) -> list[int]:
        """Changed lines outside every definition that hold code (not blank, not comment)."""
        defs = self.symbols.definitions if self.symbols else ()
        spans = [(d.line_start, d.line_end) for d in defs]
        out = []
        for line in sorted(self.changed):
            text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
            if _is_noise(text) or line in self.noise or changed_files.is_version_line(text):
                continue
            if not any(a <= line <= b for a, b in spans):
                out.append(line)
        return out


def _size(d: Definition) -> int:
    return d.line_end - d.line_start


def _is_noise(line: str) -> bool:
    """Blank, comment and import lines: a change to them alone breaks no caller here."""
    text = line.strip()
    return not text or bool(_COMMENT_LINE.match(line)) or text.startswith(("import ", "from "))


@dataclass(frozen=True)
class Selection:
    """The changed files worth analysing, and those set aside before anything is read."""

    files: list[git.FileChange]
    oversized: tuple[str, ...] = ()  # a side over the size limit: neither diffed nor read
    formatting: tuple[str, ...] = ()  # whitespace or formatting only: no behaviour changed


def select(repo: str, files: list[git.FileChange], max_size: int | None,
           read: Callable[[list[str]], dict[str, bytes]]) -> Selection:
    """Set aside, before any parsing, the files over `max_size` bytes (their size comes from
    git's object header: a 200 MB generated file must not cost seconds and gigabytes before
    the limit applies) and the modified files whose change is formatting only (a
    reformatting commit of thousands of files must not parse them all)."""
    oversized = _oversized(repo, files, max_size)
    files = [f for f in files if (f.new_path or f.old_path) not in oversized]
    modified = [f for f in files if f.status == "M"]
    blobs = read([b for f in modified for b in (f.old_blob, f.new_blob)]) if modified else {}
    same = {f.new_path for f in modified if formatting_only(
        f.new_path, blobs.get(f.old_blob, b""), blobs.get(f.new_blob, b""))}
    kept = [f for f in files if f.status != "M" or f.new_path not in same]
    return Selection(kept, oversized, tuple(sorted(same)))


def compute(
    repo: str,
    base: str | None,
    head: str | None,
    parse: Parser,
    read: Callable[[list[str]], dict[str, bytes]],
    files: list[git.FileChange] | None = None,
    kind_of: KindOf | None = None,
    max_size: int | None = None,
    selection: Selection | None = None,
) -> ChangeSet:
    """The symbols changed between `base` and `head` (None: the staged index), in the files
    `select` keeps (given, or made here from `files` and `max_size`). The oversized paths
    are returned in the change set, to be named as not analysed.

    `kind_of` says what each changed file is: only code is parsed for symbols, only code
    and configuration fall back to searches for what they mention (prose and metadata
    cannot break a caller). Without it, a file is code when it parses."""
    if selection is None:
        if files is None:
            files = git.diff_files(repo, base, head)
        selection = select(repo, files, max_size, read)
    files = selection.files
    oversized = selection.oversized
    hunks = git.diff_hunks(repo, base, head, exclude=(*oversized, *selection.formatting))
    blobs = read([b for f in files for b in (f.old_blob, f.new_blob) if b != NULL_BLOB])
    changed: list[ChangedSymbol] = []
    fallbacks: list[Fallback] = []
    removed: list[tuple[_Side, Definition]] = []
    added: list[tuple[_Side, Definition]] = []
    olds: dict[tuple[str, str], Definition] = {}
    news: dict[tuple[str, str], Definition] = {}
    kinds: dict[str, changed_files.Kind] = {}
    versions: set[str] = set()
    for f in files:
        newest = blobs.get(f.new_blob) or blobs.get(f.old_blob) or b""
        kind = kind_of(f, newest) if kind_of else _default_kind(newest)
        kinds[f.new_path or f.old_path] = kind
        if kind.blocked or kind.kind not in (changed_files.CODE, changed_files.GENERATED,
                                             changed_files.CONFIG):
            continue
        file_hunks = hunks.get(f.new_path or f.old_path, [])
        old = _side(f.old_path, f.old_blob, blobs, parse, _old_lines(file_hunks, f.status))
        new = _side(f.new_path, f.new_blob, blobs, parse, _new_lines(file_hunks, f.status))
        new.points.update(h.new_start for h in file_hunks if not h.new_count)
        if _version_only(old, new):
            versions.add(f.new_path or f.old_path)
            continue
        for side in (old, new):
            side.noise |= reexports.import_lines(side.path, side.lines, side.changed)
        fallbacks.extend(_fallbacks(old, new, kind.kind == changed_files.CONFIG))
        gone = reexports.dropped(f.new_path, old.lines, old.changed, new.lines, new.symbols)
        if gone is not None and f.status == "M":
            fallbacks.append(gone)
        old_keys, new_keys = _keys(old), _keys(new)
        new_keys = _align_overloads(old_keys, new_keys)
        old_all = {k: d for d, k in old_keys.items()}
        new_all = {k: d for d, k in new_keys.items()}
        touched = {old_keys[d]: d for d in old.innermost()}
        touched_new = {new_keys[d]: d for d in new.innermost()}
        for key in dict.fromkeys([*touched, *touched_new]):
            o, n = old_all.get(key), new_all.get(key)
            if o is not None and n is not None:
                kind_of_change = _compare(old, o, new, n)
                if kind_of_change:
                    changed.append(_changed(n, kind_of_change))
                    olds[(o.path, o.qualified_name)] = o
                    news[(n.path, n.qualified_name)] = n
            elif n is not None:
                added.append((new, n))
            elif o is not None:
                removed.append((old, o))
    changed.extend(_pair_renames(removed, added, olds, news))
    return ChangeSet(tuple(changed), tuple(fallbacks), olds, news, kinds, frozenset(versions),
                     oversized)


def _default_kind(data: bytes) -> changed_files.Kind:
    if _is_binary(data):
        return changed_files.Kind(changed_files.BINARY)
    return changed_files.Kind(changed_files.CODE, parsed=True)


def _version_only(old: _Side, new: _Side) -> bool:
    """Every changed line that holds anything is a version string (on both sides)."""
    seen = False
    for side in (old, new):
        if not side.path or len(side.changed) == len(side.lines) > 1:
            return False  # an added or deleted file is more than a version bump
        for line in side.changed:
            text = side.lines[line - 1] if 0 < line <= len(side.lines) else ""
            if _is_noise(text):
                continue
            if not changed_files.is_version_line(text):
                return False
            seen = True
    return seen


def _oversized(repo: str, files: list[git.FileChange], max_size: int | None) -> tuple[str, ...]:
    if max_size is None:
        return ()
    sizes = git.blob_sizes(repo, {b for f in files for b in (f.old_blob, f.new_blob)
                                  if b != NULL_BLOB})
    return tuple(f.new_path or f.old_path for f in files
                 if max(sizes.get(f.old_blob, 0), sizes.get(f.new_blob, 0)) > max_size)


def _side(
    path: str, blob: str, blobs: dict[str, bytes], parse: Parser, changed: set[int] | None
) -> _Side:
    data = blobs.get(blob, b"") if path and blob != NULL_BLOB else b""
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    symbols = parse(blob, path) if data and not _is_binary(data) else None
    every = set(range(1, len(lines) + 1))
    noise = docstring_lines(data) if symbols and path.endswith(PYTHON_SUFFIXES) else set()
    if symbols is not None and (LANGUAGES[symbols.language].generic
                                or symbols.language in LINE_COMMENTS):  # Lua's `--` too
        starts = LINE_COMMENTS.get(symbols.language, ("//",))
        noise = {i for i, line in enumerate(lines, 1) if line.lstrip().startswith(starts)}
    return _Side(path, symbols, lines, every if changed is None else changed, noise)


def _old_lines(hunks: list[git.Hunk], status: str) -> set[int] | None:
    if status == "D":
        return None  # every line of a deleted file
    out: set[int] = set()
    for h in hunks:
        out.update(range(h.old_start, h.old_start + h.old_count) if h.old_count else [h.old_start])
    return out


def _new_lines(hunks: list[git.Hunk], status: str) -> set[int] | None:
    if status == "A":
        return None
    out: set[int] = set()
    for h in hunks:
        out.update(range(h.new_start, h.new_start + h.new_count) if h.new_count else [h.new_start])
    return out


def _is_binary(data: bytes) -> bool:
    return b"\0" in data[:8192]


def _keys(side: _Side) -> dict[Definition, str]:
    """Each definition's name inside its file ("Class.method"), whatever the file's module
    name. Several definitions of one name (typing overloads, per-platform variants) get
    "name#1", "name#2"... in line order, so each is matched with its own counterpart."""
    defs = sorted(side.symbols.definitions if side.symbols else (), key=lambda d: d.line_start)
    by_qn = {d.qualified_name: d for d in defs}
    seen: Counter[str] = Counter()
    out: dict[Definition, str] = {}
    for d in defs:
        base = _local(d, by_qn)
        out[d] = base if not seen[base] else f"{base}#{seen[base]}"
        seen[base] += 1
    return out


def _align_overloads(old_keys: dict[Definition, str],
                     new_keys: dict[Definition, str]) -> dict[Definition, str]:
    """The new side's keys, each overload ("name", "name#1"...) given the key of the old
    overload with the same signature, so that renaming or removing one overload of several
    (C#, C++, Swift, Java: `SetArgv()` beside `SetArgv(string[])`) is not read as a
    signature change of its sibling. The rest keep line order, as before."""
    def base(key: str) -> str:
        return key.split("#", 1)[0]

    old_groups: dict[str, list[Definition]] = {}
    for d, key in old_keys.items():
        old_groups.setdefault(base(key), []).append(d)
    new_groups: dict[str, list[Definition]] = {}
    for d, key in new_keys.items():
        new_groups.setdefault(base(key), []).append(d)
    out = dict(new_keys)
    for name, news in new_groups.items():
        olds = old_groups.get(name, [])
        if len(olds) < 2 and len(news) < 2:
            continue  # no overloads: the key is the name
        free = list(olds)
        given: dict[Definition, Definition] = {}
        for n in news:  # same signature first
            match = next((o for o in free if _normal(o.signature) == _normal(n.signature)),
                         None)
            if match is not None:
                given[n] = match
                free.remove(match)
        fresh = len(olds)
        for n in news:  # then line order, then keys the old side never had
            if n in given:
                out[n] = old_keys[given[n]]
            elif free:
                out[n] = old_keys[free.pop(0)]
            else:
                out[n] = name if not fresh else f"{name}#{fresh}"
                fresh += 1
    return out


def _local(d: Definition, by_qn: dict[str, Definition]) -> str:
    """The name of `d` inside its file ("Class.method"), whatever the file's module name."""
    parts = [d.name]
    parent = by_qn.get(d.parent) if d.parent else None
    while parent is not None and len(parts) < 50:
        parts.append(parent.name)
        parent = by_qn.get(parent.parent) if parent.parent else None
    if d.parent and parent is None and d.parent not in by_qn and len(parts) == 1:
        parts.append(d.parent.rsplit(".", 1)[-1])
    return ".".join(reversed(parts))


def _normal(text: str) -> str:
    return " ".join(text.split())


def _body(side: _Side, d: Definition, skip_header: bool = False) -> str:
    first = d.line_start
    if skip_header:
        first += max(d.signature.count("\n"), 0) + 1
    numbered = range(first, d.line_end + 1)
    lines = [side.lines[i - 1] for i in numbered if i not in side.noise and i <= len(side.lines)]
    markers = _comment_markers(side.path)
    code = [_strip_comment(line, markers) for line in lines if not _COMMENT_LINE.match(line)]
    return _normal("\n".join(code))


def _comment_markers(path: str) -> tuple[str, ...]:
    """What starts a trailing comment in this file's language: in Python `//` is floor
    division (`n // 2` -> `n // 3` is a change), in JavaScript `#` starts a private name."""
    language = language_for(path)
    if language == "python":
        return ("#",)
    if language is not None and (LANGUAGES[language].generic or language in LINE_COMMENTS):
        # (Lua left the generic tier but keeps its `--`)
        return tuple(m for m in LINE_COMMENTS.get(language, ("//",)) if m != '"')
    return ("//",) if language else ("#", "//")


def _strip_comment(line: str, markers: tuple[str, ...] = ("#", "//")) -> str:
    """Drop a trailing comment when no quote precedes it (approximate, cheap)."""
    for marker in markers:
        i = line.find(marker)
        if i >= 0 and "'" not in line[:i] and '"' not in line[:i] and "http:" not in line:
            line = line[:i]
    return line


def _compare(old: _Side, o: Definition, new: _Side, n: Definition) -> str:
    if o.kind == CONSTANT and o.name in changed_files.VERSION_NAMES:
        return ""  # a release number: no caller's behaviour depends on its value
    if _normal(o.signature) != _normal(n.signature):
        return SIGNATURE_CHANGED
    if _body(old, o) != _body(new, n):
        return MODIFIED
    return ""


def _changed(d: Definition, change: str, old: Definition | None = None) -> ChangedSymbol:
    return ChangedSymbol(
        path=d.path,
        name=d.name,
        qualified_name=d.qualified_name,
        kind=d.kind,
        change=change,
        line_start=d.line_start,
        line_end=d.line_end,
        old_name=old.name if old is not None and old.name != d.name else "",
        old_path=old.path if old is not None and old.path != d.path else "",
    )


def _pair_renames(
    removed: list[tuple[_Side, Definition]],
    added: list[tuple[_Side, Definition]],
    olds: dict[tuple[str, str], Definition],
    news: dict[tuple[str, str], Definition],
) -> Iterable[ChangedSymbol]:
    """A removed body that reappears under another name or in another file is a rename."""
    by_body: dict[tuple[str, str], tuple[_Side, Definition]] = {}
    for side, d in added:
        body = _body(side, d, skip_header=True)
        if body:
            by_body.setdefault((d.kind, body), (side, d))
    paired: set[tuple[str, str]] = set()
    for side, o in removed:
        match = by_body.pop((o.kind, _body(side, o, skip_header=True)), None)
        olds[(o.path, o.qualified_name)] = o
        if match is None:
            yield _changed(o, REMOVED)
            continue
        n = match[1]
        paired.add((n.path, n.qualified_name))
        news[(n.path, n.qualified_name)] = n
        yield _changed(n, RENAMED, old=o)
    for _, n in added:
        if (n.path, n.qualified_name) not in paired:
            news[(n.path, n.qualified_name)] = n
            yield _changed(n, ADDED)


def _fallbacks(old: _Side, new: _Side, config: bool = False) -> list[Fallback]:
    """Changed code that no symbol holds: search for what it mentions instead.

    Of a modified statement, only the terms that differ between its old and new lines are
    searched when there are any: `export { tap, TapObserver } from './tap'` replacing
    `export { tap } from './tap'` touched TapObserver, not `tap` nor the path (rxjs
    7.8.0 -> 7.8.1: 108 mentions of the unchanged `tap`)."""
    out = []
    sides = [s for s in ((new, old) if new.path else (old,)) if s.path and s.lines]
    terms = {id(s): _queries(_texts(s, _orphans(s)[0])) for s in sides}
    if len(sides) == 2 and all(terms.values()):
        new_terms, old_terms = terms[id(new)], terms[id(old)]
        differing = [q for q in new_terms if q not in old_terms] + \
            [q for q in old_terms if q not in new_terms]
        if differing:
            terms = {id(new): differing, id(old): differing}
    for side in sides:
        lines, reason = _orphans(side, config)
        queries = terms[id(side)]
        if queries:
            span = f"{lines[0]}-{lines[-1]}" if len(lines) > 1 else str(lines[0])
            out.append(Fallback(side.path, f"{reason} (lines {span})", tuple(queries)))
        if side is new and out:
            break  # the new side speaks for a modified file
    return out


def _orphans(side: _Side, config: bool = False) -> tuple[list[int], str]:
    """The changed lines of a side that no symbol holds, and why they are searched."""
    if side.symbols is None:
        lines = [i for i in sorted(side.changed - side.points) if 0 < i <= len(side.lines)
                 and not changed_files.is_version_line(side.lines[i - 1])]
        return lines, "configuration changed" if config else "no symbol support for this file type"
    return [i for i in side.orphan_lines() if i not in side.points], "module-level code changed"


def _texts(side: _Side, lines: list[int]) -> list[str]:
    return [side.lines[i - 1] for i in lines if 0 < i <= len(side.lines)]


def _queries(lines: list[str]) -> list[str]:
    """Exact-match queries from changed lines: quoted literals first, then identifiers.

    Only the first MAX_FALLBACK_LINES are read: a generated file can change a million
    lines, and scanning them all costs seconds for queries its first lines already give.
    Only terms that can name code are kept: identifiers that are not keywords or common
    English words, and literals without spaces that are not a plain word. Which of them
    the index knows is decided later (guard.mentions); this keeps MAX_FALLBACK_CANDIDATES.
    """
    lines = lines[:MAX_FALLBACK_LINES]
    found: dict[str, None] = {}
    for line in lines:
        for m in _STRING.finditer(line):
            if _CODE_LITERAL.match(m.group(2)) and not _PLAIN_WORD.match(m.group(2)):
                found.setdefault(f'"{m.group(2)}"', None)
    for line in lines:
        for word in _IDENTIFIER.findall(_STRING.sub(" ", line)):
            if word not in _KEYWORDS and word.lower() not in STOP_WORDS:
                found.setdefault(word, None)
    return list(found)[:MAX_FALLBACK_CANDIDATES]


MAX_FALLBACK_CANDIDATES = 40  # terms per file offered to guard.mentions, which keeps the known
_CODE_LITERAL = re.compile(r"^[\w.\-/:@$#]{4,80}$")
_PLAIN_WORD = re.compile(r"^[A-Za-z][a-z]*$")
# English words that are also valid identifiers: in prose-like code lines (messages,
# comments without a marker) they name nothing. Checked lower-cased.
STOP_WORDS = frozenset(
    """the and for with that this from are was were has have had not but you your all any
    can may must should would could will shall need needs use used using see also more
    most some such than then them they their there these those what when where which who
    why how here under over into onto upon about after before again only own same very
    just now new old one two three first last next each every both few other another
    version versions release released changes changed change note notes added removed
    fixed fix fixes bug bugs issue issues support supported web http https www com org
    html json yaml name names value values default true false none null yes
    """.split()
)


_KEYWORDS = frozenset(
    """and as assert async await break class continue def del elif else except finally for
    from global if import lambda nonlocal not pass raise return try while with yield None
    True False self cls const let var function return new this null true false undefined
    public private protected static final void int string func package type struct impl pub
    """.split()
)
