"""Rust types read from declarations: what a function returns and which receivers are
shown to be of a type outside the crate.

On regex-syntax (bench/compilerleg.py --lang rust) most wrong callers were name-only
matches of methods that the standard library shares with the crate (`x.is_empty()`,
`s.as_bytes()`, `self.items.len()`): the receiver's type was not read, so every method of
that name was a candidate. Here:

- a function's declared return type (`-> Self`, `-> &mut Builder`, `-> hir::Hir`) types
  `let x = Type::new(..)` and chained calls (`ParserBuilder::new().build()`);
- a receiver declared with a primitive or standard-library type (`x: &str`,
  `items: Vec<ClassSetItem>`, `let n = 0`, `let s = String::new()`) reaches no method of
  the crate: the call is no caller of anything here (it is left out, not guessed).
A receiver of unknown type stays a name-only match (ambiguous or probable, as before).
"""

from __future__ import annotations

import re
from typing import Final

from maguyva_guard.records import INHERIT, Definition
from maguyva_guard.retrievers.edgecache import DEFS, FILE
from maguyva_guard.retrievers.resolution_base import CLASS_KINDS, MAX_HOPS, Entity, ResolverAPI

# Types of the language and its standard library whose methods are not the crate's.
STD_TYPES: Final = frozenset(
    "str String char bool u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 "
    "Vec VecDeque HashMap HashSet BTreeMap BTreeSet BinaryHeap Cow Path PathBuf OsStr "
    "OsString Formatter Arguments Range RangeInclusive Duration Instant".split())
# `-> Self`, `-> &'a mut Type<..>`, `-> crate::a::Type`: the type named first.
_RETURNS: Final = re.compile(
    r"->\s*(?:&\s*(?:'\w+\s*)?(?:mut\s+)?)?((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)\s*(?:<[^{]*>)?\s*"
    r"(?:where\b.*)?$")
_REFERENCE: Final = r"(?:&\s*(?:'\w+\s*)?(?:mut\s+)?)?"
_LITERAL: Final = re.compile(
    r"""\s*(?:b?["']|r#*"|-?\d|\[|vec!|format!|String::|Vec::|true\b|false\b)""")


def declared_return(r: ResolverAPI, fn: Definition, hops: int) -> Entity | None:
    """An instance of the type a Rust function declares it returns (probable): `Self` is
    the type of the `impl` block; a generic wrapper (`Result<T>`, `Option<T>`) says
    nothing about the method called on it and gives None."""
    if hops > MAX_HOPS:
        return None
    m = _RETURNS.search(fn.signature.replace("\n", " "))
    if m is None:
        return None
    name = m.group(1)
    if name != "Self" and name.rsplit("::", 1)[-1] in STD_TYPES:
        return None
    return instance_of_type(r, fn, name, hops)


def instance_of_type(r: ResolverAPI, fn: Definition, name: str, hops: int) -> Entity | None:
    """A probable instance of the type `name` as written in `fn`'s signature: `Self` is the
    type of the `impl` block, another name is resolved from `fn`'s scope to a crate type."""
    if name == "Self":
        cls = r.enclosing_class(fn.path, fn.qualified_name)
        return Entity("instance", path=cls.path, definition=cls, sure=False) if cls else None
    e = r.resolve_expression(fn.path, fn.qualified_name, name, hops + 1)
    if e is None or e.definition is None or e.definition.kind not in CLASS_KINDS:
        return None
    return Entity("instance", path=e.path, definition=e.definition, sure=False)


# `let x = <expression with a call>;` (group 1): x is what the chain gives; `if let
# Some(x) = <expression>` / `while let Ok(x) = ..` (group 2): what its Option or Result holds.
UNWRAPPED: Final = "rust-unwrapped"
UNWRAPPED_PATTERN: Final = (
    r"\blet\s+(?:mut\s+)?{name}\s*(?::[^=]+)?=\s*&?(?:mut\s+)?([^;=]*\([^;]*?)\s*;?\s*$"
    r"|\b(?:if|while)\s+let\s+(?:Some|Ok)\(\s*(?:ref\s+)?(?:mut\s+)?{name}\s*\)\s*=\s*&?"
    r"([^;{=]*\([^;{]*?)\s*\{?\s*$")
def std_typed(r: ResolverAPI, path: str, scope: str, receiver: str) -> bool:
    """Whether `receiver` (a local, a parameter, or `self.field`) is declared with a
    primitive or standard-library type, or bound to a literal, that the crate does not
    define itself."""
    if _LITERAL.match(receiver):
        return True  # `"x".as_bytes()`, `0.max(n)`
    head, _, attr = receiver.partition(".")
    if head.isidentifier() and attr and "(" in attr and not _CONVERTS.search(attr) and \
            _primitive(r, path, scope, head):
        return True  # `ch.encode_utf8(&mut buf).as_bytes()`: a primitive's methods give std
    if head == "self" and attr and "." not in attr:
        cls = r.enclosing_class(path, scope)
        if cls is None:
            return False
        body = r.lines(cls.path)[cls.line_start - 1 : cls.line_end]
        return _declared_std(r, path, scope, re.escape(attr), body, attr)
    if attr or not head.isidentifier() or head == "self":
        return False
    fs = r.scope(path)
    d = fs.by_qualified.get(scope)
    while d is not None and d.kind not in CLASS_KINDS:
        lines = [d.signature, *r.lines(path)[d.line_start : d.line_end]]
        if _declared_std(r, path, scope, re.escape(head), lines, head):
            return True
        d = fs.by_qualified.get(d.parent) if d.parent else None
    return False


_PRIMITIVES: Final = frozenset(
    "str String char bool u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64".split())
_CONVERTS: Final = re.compile(r"\b(?:parse|into|try_into|from|collect)\b")


def _primitive(r: ResolverAPI, path: str, scope: str, var: str) -> bool:
    """A parameter or local declared with a primitive type (`ch: char`, `s: &str`)."""
    fs = r.scope(path)
    d = fs.by_qualified.get(scope)
    declared = re.compile(rf"(?<![\w.:]){re.escape(var)}\s*:\s*{_REFERENCE}(\w+)\b(?!\s*[<:])")
    while d is not None and d.kind not in CLASS_KINDS:
        for line in (d.signature, *r.lines(path)[d.line_start : d.line_end]):
            m = declared.search(line) if var in line else None
            if m is not None:
                return m.group(1) in _PRIMITIVES
        d = fs.by_qualified.get(d.parent) if d.parent else None
    return False


def _declared_std(r: ResolverAPI, path: str, scope: str, name: str, lines: list[str],
                  needle: str) -> bool:
    """The first line in `lines` that declares or binds `name` shows a std type or a
    literal."""
    declared = re.compile(
        rf"(?<![\w.:]){name}\s*:\s*{_REFERENCE}(?:\[\s*)?((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)")
    bound = re.compile(rf"\blet\s+(?:mut\s+)?{name}\s*=(?!=)")
    for line in lines:
        if needle not in line:
            continue
        m = declared.search(line)
        if m is not None:
            last = m.group(1).rsplit("::", 1)[-1]
            return last in STD_TYPES and r.lookup_name(path, scope, last) is None
        m = bound.search(line)
        if m is not None:
            return _LITERAL.match(line[m.end():]) is not None
    return False


def implemented(r: ResolverAPI, cls: Definition) -> tuple[str, ...]:
    """The traits `impl Trait for Type` blocks of `cls`'s file implement for it, as written
    (their default methods are its methods). Impls in other files are not looked for.
    Memoised per file: every hierarchy walk asks it."""
    memo: dict[str, dict[str, tuple[str, ...]]] = r.__dict__.setdefault("_rust_impls", {})
    if r.tracker is not None:  # the memo read stands for reading the file (edgecache.py)
        r.tracker.ask((FILE, cls.path))
    found = memo.get(cls.path)
    if found is None:
        by_type: dict[str, list[str]] = {}
        for ref in r.scope(cls.path).references:
            if ref.kind == INHERIT and ref.scope:
                written = f"{ref.receiver}::{ref.name}" if ref.receiver else ref.name
                by_type.setdefault(ref.scope, []).append(written)
        found = memo[cls.path] = {k: tuple(v) for k, v in by_type.items()}
    return found.get(cls.qualified_name, ())


def resolving(r: ResolverAPI, path: str, line: int) -> None:
    """Note the line whose reference is being resolved: a Rust local may be bound by
    several `let`s in one function (one per `match` arm, of different types), and the one
    that counts is the nearest above the use."""
    r.__dict__["_rust_line"] = (path, line)


def resolving_line(r: ResolverAPI, path: str) -> int:
    at = r.__dict__.get("_rust_line")
    return at[1] if at is not None and at[0] == path else 0


def impl_member(r: ResolverAPI, cls: Definition, name: str, hops: int) -> Definition | None:
    """Rust: method `name` of type `cls` from an `impl` block in another file of the crate
    (`impl Shape { fn area(..) }` in area.rs for the struct of shape.rs), where that file's
    name for the type resolves to `cls`. The extractor qualifies such a method by the
    impl's file (`area.Shape.area`), so the type's own children do not hold it."""
    if r.tracker is not None:  # a later definition of `name` may change the answer
        r.tracker.ask((DEFS, name))
    for d in r.source.definitions(name=name):
        if d.path == cls.path or not d.parent or d.parent.rsplit(".", 1)[-1] != cls.name \
                or not d.path.endswith(".rs"):
            continue
        e = r.resolve_expression(d.path, "", cls.name, hops + 1)
        if e is not None and e.definition is not None and \
                (e.definition.path, e.definition.qualified_name) == (cls.path, cls.qualified_name):
            return d
    return None


def impl_type(r: ResolverAPI, method: Definition) -> Definition | None:
    """The type an `impl` block of another file names (the inverse of impl_member)."""
    e = r.resolve_expression(method.path, "", method.parent.rsplit(".", 1)[-1], 1)
    d = e.definition if e is not None else None
    return d if d is not None and d.kind in CLASS_KINDS else None
