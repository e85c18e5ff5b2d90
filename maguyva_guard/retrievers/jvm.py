"""Java constructors, and values passed and invoked in Java, Kotlin and Scala.

Constructors: which `new A(...)` and which subclasses run a given constructor of A.

A Java constructor is named after its class, and the graph treats a change to it as a
change to every `new A(...)` (graph.py, as for C#). Two things are Java's own:
- overloads: `new A()` runs `A()`, not `A(int)`; where the class declares several
  constructors, a site is kept when its argument count fits the constructor's parameters
  (a varargs constructor fits any count from its fixed ones up);
- the default constructor chain: a subclass that declares no constructor gets one that
  calls `super()`, so `class B extends A {}` and every `new B()` run A's no-argument
  constructor, and no other.

Values passed and invoked: `apply(this::target)` where `apply(Function f)` calls
`f.apply(x)`: the passing site is a use of `target`, and the call that breaks is the one
through the parameter, one hop on (as retrievers/passing.py does for Python).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from maguyva_guard.records import CALL, FUNCTION, METHOD, Definition, Reference
from maguyva_guard.retrievers import jvmoverloads
from maguyva_guard.retrievers.resolution_base import (
    CLASS_KINDS,
    Entity,
    ResolverAPI,
    closing_bracket,
)


def is_constructor(d: Definition) -> bool:
    """A Java or C# constructor: a member named after the class that holds it."""
    return bool(d.parent) and d.name == d.parent.rsplit(".", 1)[-1]


def parameter_count(signature: str) -> tuple[int, bool]:
    """How many parameters `signature` declares, and whether the last is varargs."""
    start = signature.find("(")
    end = signature.rfind(")")
    if start < 0 or end < start:
        return 0, False
    inside = signature[start + 1 : end]
    parts = _split_top(inside, "([{<", ")]}>")  # `Map<K, V> m` is one parameter
    return len(parts), bool(parts) and "..." in parts[-1]


def argument_count(line: str, class_name: str) -> int | None:
    """The arguments of the first `new ClassName(...)` of `line`; None when the call does
    not close on that line (the count is unknown, and the site is kept)."""
    at = line.find(f"new {class_name}")
    if at < 0:
        return None
    start = line.find("(", at)
    if start < 0:
        return None
    depth = 0
    for i in range(start, len(line)):
        c = line[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return len(_split_top(line[start + 1 : i], "([{", ")]}"))
    return None


def fits(constructor: Definition, arguments: int | None) -> bool:
    """Whether a call with `arguments` arguments may run `constructor`."""
    if arguments is None:
        return True
    count, varargs = parameter_count(constructor.signature)
    return arguments >= count - 1 if varargs else arguments == count


def _split_top(text: str, opening: str, closing: str) -> list[str]:
    """`text` split at its top-level commas (not inside brackets or generics); [] when blank."""
    if not text.strip():
        return []
    parts, depth, last = [], 0, 0
    for i, c in enumerate(text):
        if c in opening:
            depth += 1
        elif c in closing:
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[last:i])
            last = i + 1
    parts.append(text[last:])
    return parts


# --- values passed and invoked (Java, Kotlin, Scala) ---------------------------------------

PASSING_LANGUAGES = frozenset({"java", "kotlin", "scala"})
_CALL_OPEN = re.compile(r"([A-Za-z_][\w.]*)\s*(?:\[[^\]]*\]\s*)?\(")
_MODIFIERS = re.compile(r"@\w+(?:\([^)]*\))?|\b(?:final|val|var|vararg|implicit|using)\b")


def invoked_parameters(resolver: ResolverAPI, use: Reference) -> Iterator[Reference]:
    """Calls of the parameter that `use` (a method passed as a value: `this::target`,
    `::target`, `target`) binds, in the called method's own body: `f.apply(x)` in Java,
    `f(x)` or `f.invoke(x)` in Kotlin, `f(x)` or `f.apply(x)` in Scala (one hop)."""
    lines = resolver.lines(use.path)
    if not 0 < use.line <= len(lines):
        return
    line = lines[use.line - 1]
    value = re.compile(rf"\s*(?:[\w.]*::)?{re.escape(use.name)}\s*")
    for m in _CALL_OPEN.finditer(line):
        args = _arguments(line, m.end())
        position = next((i for i, a in enumerate(args or ()) if value.fullmatch(a)), None)
        if position is None:
            continue
        e = resolver.callee(use.path, use.scope, m.group(1))
        fn = e.definition if e is not None else None
        if fn is None or fn.kind not in (FUNCTION, METHOD):
            continue
        names = parameter_names(fn.signature)
        if position < len(names):
            yield from _calls_of(resolver, fn, names[position])


def parameter_names(signature: str) -> list[str]:
    """The parameter names of a Java (`Type name`), Kotlin or Scala (`name: Type`) header."""
    start = signature.find("(")
    end = closing_bracket(signature, start) if start >= 0 else -1
    if end < 0:
        return []
    names = []
    for part in _split_top(signature[start + 1 : end], "([{<", ")]}>"):
        part = _MODIFIERS.sub(" ", part).split("=")[0]
        head = part.split(":")[0] if ":" in part else part
        words = re.findall(r"[A-Za-z_]\w*", head)
        names.append(words[-1] if words else "")
    return names


def _calls_of(resolver: ResolverAPI, fn: Definition, param: str) -> Iterator[Reference]:
    call = re.compile(rf"(?<![\w.]){re.escape(param)}\s*(?:\.\s*\w+\s*)?\(")
    lines = resolver.lines(fn.path)[fn.line_start - 1 : fn.line_end]
    for number, text in enumerate(lines, start=fn.line_start):
        if number == fn.line_start:  # the header: only what follows its parameter list
            at = text.find("(")
            close = closing_bracket(text, at) if at >= 0 else -1
            text = text[close + 1:] if close >= 0 else ""
        m = call.search(text)
        if m is not None and not text.lstrip().startswith(("//", "*", "/*")):
            yield Reference(fn.path, param, CALL, number, fn.qualified_name)


def _arguments(line: str, start: int) -> list[str] | None:
    """The top-level arguments of the call whose `(` ends at `start`, if on this line."""
    close = closing_bracket(line, start - 1)
    return None if close < 0 else _split_top(line[start:close], "([{", ")]}")


_EXPLICIT: Final = {word: re.compile(rf"(?<![\w.]){word}\s*\(") for word in ("super", "this")}


def explicit_constructor_calls(resolver: ResolverAPI, target: Definition, cls: Definition,
                               subclasses: list[Definition]) -> Iterator[Reference]:
    """Java: `super(...)` in the constructors of `cls`'s direct subclasses and `this(...)`
    in `cls`'s other constructors run constructor `target` where their arguments fit it
    (or fit no other constructor of `cls`): each such constructor is a caller."""
    others = [d for d in resolver.scope(target.path).definitions
              if d.parent == target.parent and d.name == target.name and d != target]
    for owner, word in [(cls, "this"), *((sub, "super") for sub in subclasses)]:
        lines = resolver.lines(owner.path)
        for d in resolver.scope(owner.path).definitions:
            if d.parent != owner.qualified_name or d.name != owner.name or d == target:
                continue
            for number in range(d.line_start, min(d.line_end, len(lines)) + 1):
                m = _EXPLICIT[word].search(lines[number - 1])
                if m is None:
                    continue
                found = _arguments(lines[number - 1], m.end())
                arguments = None if found is None else len(found)
                ref = Reference(d.path, target.name, CALL, number, d.qualified_name)
                if found and jvmoverloads.typed_elsewhere(
                        resolver, ref, target, others, found, lines[d.line_start - 1 : number]):
                    break  # `super(size)` with `int size`: the `(int)` one, not `(char[])`
                if fits(target, arguments) or not any(fits(o, arguments) for o in others):
                    yield ref
                break


# `items.forEach(x -> ...)` / `this.items.forEach((x) -> ...)`: x is an item of `items`
_FOR_EACH: Final = (r"(?<![\w.])(?:this\.)?(?P<items>[A-Za-z_]\w*)\.forEach\("
                     r"\s*\(?\s*{name}\s*\)?\s*->")
# `Set<Rule.Phoneme> items` (a field, parameter or local): a collection of one class
_COLLECTION: Final = (r"(?<![\w.])(?:java\.util\.)?(?:Collection|Iterable|List|ArrayList|"
                      r"LinkedList|Set|HashSet|LinkedHashSet|TreeSet|SortedSet|NavigableSet|"
                      r"Queue|Deque|ArrayDeque)\s*<\s*(?:\?\s+extends\s+)?"
                      r"(?P<item>[A-Za-z_][\w.]*)\s*>\s+{name}\s*[=;,)]")


def for_each_item(r: ResolverAPI, path: str, fn: str, lines: list[str], var: str,
                  hops: int) -> Entity | None:
    """Java: an instance of the class of `var`, the parameter of a lambda passed to
    `items.forEach(...)` where `items` is declared a collection of one class of the project
    (commons-codec's `phonemes.forEach(ph -> ph.append(str))` with `Set<Rule.Phoneme>
    phonemes`), in the function `fn` or as a field of its class (probable)."""
    pattern = re.compile(_FOR_EACH.replace("{name}", re.escape(var)))
    m = next((found for line in lines if (found := pattern.search(line))), None)
    if m is None:
        return None
    declared = re.compile(_COLLECTION.replace("{name}", re.escape(m.group("items"))))
    d = r.scope(path).by_qualified.get(fn)
    cls = r.enclosing_class(path, fn)
    where = [*(r.lines(path)[d.line_start - 1 : d.line_end] if d is not None else []),
             *(r.lines(path)[cls.line_start - 1 : cls.line_end] if cls is not None else [])]
    item = next((found.group("item") for line in where if (found := declared.search(line))),
                None)
    if item is None:
        return None
    e = r.resolve_expression(path, cls.qualified_name if cls is not None else fn, item,
                             hops + 1)
    if e is None or e.definition is None or e.definition.kind not in CLASS_KINDS:
        return None
    return Entity("instance", path=e.path, definition=e.definition, sure=False)
