"""Java constructors: which `new A(...)` and which subclasses run a given constructor of A.

A Java constructor is named after its class, and the graph treats a change to it as a
change to every `new A(...)` (graph.py, as for C#). Two things are Java's own:
- overloads: `new A()` runs `A()`, not `A(int)`; where the class declares several
  constructors, a site is kept when its argument count fits the constructor's parameters
  (a varargs constructor fits any count from its fixed ones up);
- the default constructor chain: a subclass that declares no constructor gets one that
  calls `super()`, so `class B extends A {}` and every `new B()` run A's no-argument
  constructor, and no other.
"""

from __future__ import annotations

from maguyva_guard.records import Definition


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
