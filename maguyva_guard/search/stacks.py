"""Pasted tracebacks and stack traces: which format, the final error, the frames.

    parse_trace(text) -> Trace | None

Five formats, each as its runtime prints it:
- Python: `Traceback (most recent call last):`, `  File "x.py", line 12, in f` frames
  (outermost first), then `Class: message`. Of chained tracebacks ("During handling of the
  above exception...") the last one is the error that escaped: its frames and message.
- JavaScript / TypeScript (V8: Node, Chrome): `Class: message` then `    at f (file:12:5)`
  frames, innermost first; Node's source excerpt above the message is skipped.
- Go: `panic: message` then `goroutine N [running]:` and pairs of a function line and a
  tab-indented `/path/file.go:12 +0x1d` line, innermost first (runtime frames included).
- Java / Kotlin: `Exception in thread "main" pkg.Class: message`, `\tat pkg.C.m(C.java:41)`
  frames, innermost first; of `Caused by:` blocks the last is the root cause, thrown
  first: its message and frames (they are the innermost).
- Rust: `thread 'main' panicked at src/main.rs:4:5:` then the message (1.73+), or the older
  `panicked at 'message', src/main.rs:4:5`; with RUST_BACKTRACE the numbered frames and
  their `at file:line:col` lines. The panic location is the innermost frame.

Frames come back innermost first, in the trace's own words (search/frames resolution to the
repository's files happens in the retriever, which knows the files).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from maguyva_guard.records import Frame

PYTHON, JAVASCRIPT, GO, JAVA, RUST = (
    "python traceback", "javascript stack", "go panic", "java stack", "rust panic")


@dataclass(frozen=True)
class Trace:
    kind: str
    error_class: str  # as printed ("ValueError", "java.lang.IllegalStateException"), or ""
    message: str
    frames: tuple[Frame, ...]  # innermost first


_PY_START = re.compile(r"^\s*Traceback \(most recent call last\):", re.M)
_PY_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<fn>.+))?$')
_PY_NOISE = re.compile(r"^\s*[\^~\s]+$")  # 3.11+ position markers
_ERROR_LINE = re.compile(
    r"^(?P<cls>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:\s*\[[\w-]+\])?:\s?(?P<msg>.*)$")
_JS_FRAME = re.compile(
    r"^\s*at\s+(?:(?P<fn>.+?)\s+\()?(?:file://)?(?P<file>[^()\s]+?):(?P<line>\d+)(?::\d+)?\)?$")
_GO_PANIC = re.compile(r"^panic: (?P<msg>.*?)(?: \[recovered\])?$", re.M)
_GO_FRAME = re.compile(r"^\t(?P<file>\S+\.go):(?P<line>\d+)(?: \+0x[0-9a-f]+)?$")
_JAVA_HEAD = re.compile(
    r'^(?:Exception in thread "[^"]*"\s+|Caused by:\s+)?(?P<cls>[\w$]+(?:\.[\w$]+)+)'
    r"(?::\s?(?P<msg>.*))?$")
_JAVA_FRAME = re.compile(
    r"^\s*at\s+(?P<fn>[\w$.<>/]+)\((?P<file>[\w$.-]+\.(?:java|kt|kts|scala|groovy)):"
    r"(?P<line>\d+)\)")
_RUST_NEW = re.compile(r"panicked at (?P<file>[^\s:']+):(?P<line>\d+):\d+:\s*$", re.M)
_RUST_OLD = re.compile(r"panicked at '(?P<msg>.*)', (?P<file>[^\s:]+):(?P<line>\d+):\d+", re.M)
_RUST_AT = re.compile(r"^\s+at (?P<file>\S+?):(?P<line>\d+)(?::\d+)?$")
_RUST_FN = re.compile(r"^\s*\d+:\s+(?P<fn>\S+)")


def parse_trace(text: str) -> Trace | None:
    """The trace in `text`, or None when it holds no trace we know."""
    for parse in (_python, _java, _javascript, _go, _rust):
        trace = parse(text)
        if trace is not None:
            return trace
    return None


def _python(text: str) -> Trace | None:
    starts = [m.end() for m in _PY_START.finditer(text)]
    if not starts:
        return None
    lines = text[starts[-1]:].splitlines()
    frames: list[Frame] = []
    rest_at = 0
    for i, line in enumerate(lines):
        m = _PY_FRAME.match(line)
        if m:
            frames.append(Frame(m["file"], int(m["line"]), (m["fn"] or "").strip()))
            rest_at = i + 1
    tail = [ln for ln in lines[rest_at:] if ln.strip() and not _PY_NOISE.match(ln)]
    # The code line under the last frame is indented; the error line is not.
    tail = [ln for ln in tail if not ln.startswith((" ", "\t"))] or tail[-1:]
    cls, message = _error_line("\n".join(tail).strip())
    return Trace(PYTHON, cls, message, tuple(reversed(frames)))


def _javascript(text: str) -> Trace | None:
    lines = text.splitlines()
    frames = [Frame(m["file"], int(m["line"]), (m["fn"] or "").strip())
              for line in lines if (m := _JS_FRAME.match(line))]
    if not frames:
        return None
    first_at = next(i for i, ln in enumerate(lines) if _JS_FRAME.match(ln))
    head = [ln.strip() for ln in lines[:first_at] if ln.strip()]
    error = next((ln for ln in reversed(head) if _ERROR_LINE.match(ln.removeprefix("Uncaught "))),
                 head[-1] if head else "")
    cls, message = _error_line(error.removeprefix("Uncaught "))
    return Trace(JAVASCRIPT, cls, message, tuple(frames))


def _go(text: str) -> Trace | None:
    panic = _GO_PANIC.search(text)
    if panic is None or "goroutine " not in text:
        return None
    lines = text.splitlines()
    frames = []
    for i, line in enumerate(lines):
        m = _GO_FRAME.match(line)
        if m and i > 0:
            fn = re.sub(r"\(.*\)$", "", lines[i - 1].strip())
            frames.append(Frame(m["file"], int(m["line"]), fn))
    message = panic["msg"].strip()
    cls = ""
    wrapped = re.match(r"^(?P<cls>[\w.*]+)\{(?P<msg>.*)\}$", message)  # panic(err) of a struct
    if wrapped:
        cls = wrapped["cls"]
    return Trace(GO, cls, message, tuple(frames))


def _java(text: str) -> Trace | None:
    lines = text.splitlines()
    if not any(_JAVA_FRAME.match(ln) for ln in lines):
        return None
    blocks: list[tuple[str, str, list[Frame]]] = []
    for line in lines:
        stripped = line.strip()
        frame = _JAVA_FRAME.match(line)
        if frame and blocks:
            fn = frame["fn"]
            module = fn.rsplit(".", 1)[0] if "." in fn else ""
            blocks[-1][2].append(Frame(frame["file"], int(frame["line"]), fn, module))
        elif not frame and (head := _JAVA_HEAD.match(stripped)):
            blocks.append((head["cls"], (head["msg"] or "").strip(), []))
    if not blocks:
        return None
    cls, message, frames = blocks[-1]  # the root cause: thrown first, innermost frames
    return Trace(JAVA, cls, message, tuple(frames))


def _rust(text: str) -> Trace | None:
    new, old = _RUST_NEW.search(text), _RUST_OLD.search(text)
    if new is None and old is None:
        return None
    frames: list[Frame] = []
    if new is not None:
        after = text[new.end():].lstrip("\n").splitlines()
        message = after[0].strip() if after else ""
        frames.append(Frame(new["file"], int(new["line"]), "panic"))
    else:
        assert old is not None
        message = old["msg"]
        frames.append(Frame(old["file"], int(old["line"]), "panic"))
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _RUST_AT.match(line)
        if m and i > 0 and (fn := _RUST_FN.match(lines[i - 1])):
            frames.append(Frame(m["file"], int(m["line"]), fn["fn"]))
    return Trace(RUST, "", message, tuple(frames))


def _error_line(line: str) -> tuple[str, str]:
    """("ValueError", "bad value") from "ValueError: bad value"; ("", line) otherwise."""
    m = _ERROR_LINE.match(line)
    if m and (m["cls"][0].isupper() or "." in m["cls"]):
        return m["cls"], m["msg"].strip()
    return "", line.strip()
