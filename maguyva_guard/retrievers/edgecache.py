"""Resolved reference edges that persist across checks, invalidated exactly.

A resolution (resolve.py) reads the view of the repository only by asking it questions:
what a file holds (its blob), which files define a name, what a dotted module name is a
path of, whether some class stores an attribute as data, the set of paths. Every such
question goes through here while a resolution runs (`Tracker`), with the questions of the
memoised sub-answers it re-uses (each memo keeps the questions it asked), so that an
answer's questions are all the questions its computation depends on. The answer is then
kept in the index with those questions and their answers in this view (`EdgeCache.save`);
a later check uses it only when every question has the same answer in its own view
(`EdgeCache.lookup`), else resolves again and keeps the new answer beside the old one.

Why that is exact: the resolver's code is fixed (its digest is part of the key), a
resolution is a deterministic function of the answers it read, and a file's records and
text are a function of its blob. Same answers, same resolution; one answer different, the
cached one is not used. What cannot be tracked this way is never kept: an answer that met
a memo still being worked out (a cycle: its value depends on the order of questions), C
and C++ (their own memos), PHP (composer.json read once for all files), and the generic
tier (names only, cheap anyway).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from maguyva_guard.extract.languages import language_for
from maguyva_guard.index.edgestore import EdgeRow, EdgeRows
from maguyva_guard.records import Definition, Reference
from maguyva_guard.retrievers.resolution_base import Resolution

# The questions a resolution asks of the view: (kind, argument).
FILE = "file"  # a path's blob ("" when absent)
PATHS = "paths"  # a digest of every path of the view (import paths of other languages)
MODULE = "module"  # the path a dotted Python module name is ("" when none)
MODNAME = "modname"  # the dotted module name of a path
DEFS = "defs"  # the (path, blob) of every definition of a name
QDEFS = "qdefs"  # the same for a qualified name
ATTR = "attr"  # whether some class stores `self.<name> = ...`
Question = tuple[str, str]

# Reference languages whose resolution reads the view only through questions.
CACHED_LANGUAGES = frozenset({
    "python", "javascript", "typescript", "tsx", "go", "java", "rust", "ruby",
    "csharp", "kotlin", "scala", "swift",
})


@dataclass
class Frame:
    deps: set[Question] = field(default_factory=set)
    tainted: bool = False  # met a memo still being worked out: not to be kept


class Tracker:
    """The questions asked while answers are worked out, one frame per answer in progress
    (a frame's questions also count for the frames below it)."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []
        self.memo: dict[tuple[Any, ...], tuple[frozenset[Question], bool]] = {}

    def ask(self, question: Question) -> None:
        if self.frames:
            self.frames[-1].deps.add(question)

    def taint(self) -> None:
        if self.frames:
            self.frames[-1].tainted = True

    @contextmanager
    def computing(self, key: tuple[Any, ...] | None = None) -> Iterator[Frame]:
        """A frame for one answer; with `key`, the memo entry it fills keeps its questions."""
        frame = Frame()
        self.frames.append(frame)
        try:
            yield frame
        finally:
            self.frames.pop()
            if self.frames:
                below = self.frames[-1]
                below.deps |= frame.deps
                below.tainted |= frame.tainted
            if key is not None:
                self.memo[key] = (frozenset(frame.deps), frame.tainted)

    def reused(self, key: tuple[Any, ...]) -> None:
        """A memo entry read again: its questions count for the answer in progress. An entry
        without them is still being worked out (a cycle): the answer is not kept."""
        found = self.memo.get(key)
        if found is None:
            self.taint()
        elif self.frames:
            top = self.frames[-1]
            top.deps |= found[0]
            top.tainted |= found[1]


class RecordingSource:
    """The index as resolution reads it, each read noted as the question it asks."""

    def __init__(self, inner: Any, tracker: Tracker) -> None:
        self.inner = inner
        self.tracker = tracker

    def files(self) -> Mapping[str, object]:
        self.tracker.ask((PATHS, ""))
        return self.inner.files()  # type: ignore[no-any-return]

    def definitions(self, name: str | None = None,
                    qualified_name: str | None = None) -> list[Definition]:
        if name is not None and qualified_name is None:
            self.tracker.ask((DEFS, name))
        elif qualified_name is not None and name is None:
            self.tracker.ask((QDEFS, qualified_name))
        else:
            self.tracker.taint()
        return self.inner.definitions(name=name, qualified_name=qualified_name)  # type: ignore[no-any-return]

    def definitions_in(self, path: str) -> list[Definition]:
        self.tracker.ask((FILE, path))
        return self.inner.definitions_in(path)  # type: ignore[no-any-return]

    def references_in(self, path: str) -> list[Reference]:
        self.tracker.ask((FILE, path))
        return self.inner.references_in(path)  # type: ignore[no-any-return]

    def imports_in(self, path: str) -> list[Reference]:
        self.tracker.ask((FILE, path))
        return self.inner.imports_in(path)  # type: ignore[no-any-return]

    def text(self, path: str) -> str:
        self.tracker.ask((FILE, path))
        return self.inner.text(path)  # type: ignore[no-any-return]


class RecordedMap(Mapping[str, str]):
    """A name map of the view (module names, paths) whose look-ups are questions."""

    def __init__(self, inner: Mapping[str, str], kind: str, tracker: Tracker) -> None:
        self.inner, self.kind, self.tracker = inner, kind, tracker

    def __getitem__(self, key: str) -> str:
        self.tracker.ask((self.kind, key))
        return self.inner[key]

    def get(self, key: str, default: Any = None) -> Any:
        self.tracker.ask((self.kind, key))
        return self.inner.get(key, default)

    def __contains__(self, key: object) -> bool:
        self.tracker.ask((self.kind, str(key)))
        return key in self.inner

    def __iter__(self) -> Iterator[str]:
        self.tracker.ask((PATHS, ""))  # the whole map: every path counts
        return iter(self.inner)

    def __len__(self) -> int:
        self.tracker.ask((PATHS, ""))
        return len(self.inner)


@dataclass(frozen=True)
class ViewQuestions:
    """How to answer each kind of question in the current view (the same functions when
    an answer is kept and when it is checked: one definition of "the same answer")."""

    files: Callable[[], Mapping[str, Any]]
    definitions: Callable[..., list[Definition]]
    modules: Callable[[], Mapping[str, str]]
    module_of_path: Callable[[], Mapping[str, str]]
    data_attribute: Callable[[str], bool]


class Answers:
    """Questions answered in the current view, each once per check."""

    def __init__(self, view: ViewQuestions) -> None:
        self.view = view
        self._known: dict[Question, str] = {}

    def __call__(self, q: Question) -> str:
        found = self._known.get(q)
        if found is None:
            found = self._known[q] = self._answer(*q)
        return found

    def _answer(self, kind: str, arg: str) -> str:
        v = self.view
        if kind == FILE:
            info = v.files().get(arg)
            return str(getattr(info, "blob", "")) if info is not None else ""
        if kind == PATHS:
            return hashlib.sha1("\n".join(v.files()).encode()).hexdigest()
        if kind == MODULE:
            return v.modules().get(arg, "")
        if kind == MODNAME:
            return v.module_of_path().get(arg, "")
        if kind in (DEFS, QDEFS):
            defs = v.definitions(name=arg) if kind == DEFS else v.definitions(
                qualified_name=arg)
            return ";".join(sorted({f"{d.path}:{self((FILE, d.path))}" for d in defs}))
        if kind == ATTR:
            return "1" if v.data_attribute(arg) else "0"
        raise ValueError(kind)


class EdgeCache:
    """The resolutions kept in the index for one view: looked up before a reference is
    resolved, and the new ones written once the check's questions are all asked."""

    def __init__(self, rows: EdgeRows, answers: Answers, tracker: Tracker) -> None:
        self.rows, self.answers, self.tracker = rows, answers, tracker
        self.resolved = 0  # references resolved by this check
        self.reused = 0  # references answered from the index
        self._valid: dict[int, frozenset[Question] | None] = {}
        self._results: dict[int, Resolution] = {}
        self._files: dict[str, str] = {}
        self._pending: list[tuple[tuple[str, str], frozenset[Question], Resolution]] = []

    def site(self, ref: Reference) -> tuple[str, str] | None:
        """The key of a reference: its referring file (the resolver's code, the path, its
        blob) and the reference in it; None when it is never kept."""
        file = self._files.get(ref.path)
        if file is None:
            if language_for(ref.path) not in CACHED_LANGUAGES:
                file = ""
            else:
                key = "\x1f".join((self.rows.code, ref.path, self.answers((FILE, ref.path))))
                file = hashlib.sha1(key.encode()).hexdigest()
            self._files[ref.path] = file
        if not file:
            return None
        fields = (ref.name, ref.kind, str(ref.line), ref.scope, ref.receiver, ref.target,
                  ref.alias)
        return file, "\x1f".join(fields)

    def resolve(self, ref: Reference, compute: Callable[[Reference], Resolution]) -> Resolution:
        site = self.site(ref)
        if site is not None:
            for deps, result in self.rows.candidates(*site):
                if self._still_valid(deps) is not None:
                    found = self._result(result)
                    if found is not None:
                        self.reused += 1
                        return found
        with self.tracker.computing() as frame:
            found = compute(ref)
        self.resolved += 1
        if site is not None and not frame.tainted:
            self._pending.append((site, frozenset(frame.deps), found))
        return found

    def _result(self, result: int) -> Resolution | None:
        """A kept answer, decoded once per check (many references share one)."""
        found = self._results.get(result)
        if found is None:
            text = self.rows.result(result)
            if text is None:
                return None
            found = self._results[result] = decode(text)
        return found

    def _still_valid(self, deps: int) -> frozenset[Question] | None:
        """The questions of a deps row when each has the same answer in this view."""
        if deps not in self._valid:
            text = self.rows.questions(deps)
            asked = json.loads(text) if text else None
            ok = asked is not None and all(self.answers((k, a)) == v for k, a, v in asked)
            self._valid[deps] = frozenset((k, a) for k, a, _ in asked) if ok and asked \
                else None
        return self._valid[deps]

    def save(self) -> bool:
        """Write the answers resolved since the last save (best effort: see edgestore)."""
        rows = []
        texts: dict[frozenset[Question], str] = {}
        results: dict[Resolution, str] = {}
        for (file, site), deps, found in self._pending:
            text = texts.get(deps)
            if text is None:
                asked = [[k, a, self.answers((k, a))] for k, a in sorted(deps)]
                text = texts[deps] = json.dumps(asked, separators=(",", ":"))
            result = results.get(found)
            if result is None:
                result = results[found] = encode(found)
            rows.append(EdgeRow(file, site, text, result))
        self._pending.clear()
        return self.rows.save(rows)


def encode(resolution: Resolution) -> str:
    defs = [[d.path, d.name, d.qualified_name, d.kind, d.line_start, d.line_end, d.signature,
             d.doc, d.parent, list(d.bases)] for d in resolution.definitions]
    return json.dumps([resolution.confidence, defs], separators=(",", ":"))


def decode(text: str) -> Resolution:
    confidence, defs = json.loads(text)
    return Resolution(tuple(Definition(p, n, q, k, s, e, sig, doc, parent, tuple(bases))
                            for p, n, q, k, s, e, sig, doc, parent, bases in defs), confidence)


_CODE: list[str] = []


def code_digest() -> str:
    """A digest of the code an answer depends on: resolution and the records it reads."""
    if not _CODE:
        root = Path(__file__).resolve().parent.parent
        h = hashlib.sha1()
        for p in sorted([*root.joinpath("retrievers").glob("*.py"),
                         *root.joinpath("extract").glob("*.py"), root / "records.py"]):
            h.update(p.name.encode() + b"\0" + p.read_bytes())
        _CODE.append(h.hexdigest())
    return _CODE[0]
