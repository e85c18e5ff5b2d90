"""Java overloads of one arity told apart by their arguments' static types.

commons-cli's CommandLine declares `getOptionValue(char)`, `(String)`, `(Option)` and
`(OptionGroup)`: counting arguments cannot tell `getOptionValue(option)` (with `final
Option option` a parameter) from a call of the `char` one, and its 1.10.0 release diff
scored 72% precision for that. javac chooses by the arguments' static types; where the
text shows them, so does this module:
- a literal (`"a"` a String, `'c'` a char, `1` an int, `1L`, `1.0`, `true`, `null`),
  `new T(...)`, a cast `(T) x`, `String.valueOf(..)`, `x.toString()`, a string
  concatenation;
- a name the calling method declares (a parameter or local `final Option option`) or its
  class declares as a field (with a modifier: `private final Options options;`);
- `recv.m(...)` where `recv` resolves to a class of the project whose `m` declares one
  return type (`optionGroup.getSelected()`: String).

The call is left to a sibling only when one of its arguments' types cannot be passed to
the target's parameter there (Java's widening, boxing and, between classes of the
project, their declared bases; a class or interface outside the project is never ruled
out) and a sibling of that arity accepts every argument whose type shows. Anything else
stays the target's caller: unknown is never read as "another overload".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from maguyva_guard.records import Definition, Reference
from maguyva_guard.retrievers import overloads
from maguyva_guard.retrievers.resolution_base import CLASS_KINDS, ResolverAPI, closing_bracket

TypeOf = Callable[[str], "str | None"]  # an argument's text -> its static type, or None
IsSubtype = Callable[[str, str], "bool | None"]  # (class, maybe its base) -> known answer

_WIDENS: Final[dict[str, frozenset[str]]] = {
    "byte": frozenset({"byte", "short", "int", "long", "float", "double"}),
    "short": frozenset({"short", "int", "long", "float", "double"}),
    "char": frozenset({"char", "int", "long", "float", "double"}),
    "int": frozenset({"int", "long", "float", "double"}),
    "long": frozenset({"long", "float", "double"}),
    "float": frozenset({"float", "double"}),
    "double": frozenset({"double"}),
    "boolean": frozenset({"boolean"}),
}
_BOX: Final = {"byte": "Byte", "short": "Short", "char": "Character", "int": "Integer",
               "long": "Long", "float": "Float", "double": "Double", "boolean": "Boolean"}
_UNBOX: Final = {v: k for k, v in _BOX.items()}
_OBJECTS: Final = frozenset({"Object", "Serializable", "Comparable", "Constable",
                             "ConstantDesc"})
_STRING_SUPERS: Final = _OBJECTS | {"String", "CharSequence"}
_LITERALS: Final = (
    (re.compile(r'^"(?:[^"\\]|\\.)*"$'), "String"),
    (re.compile(r"^'(?:[^'\\]|\\.[^']*)'$"), "char"),
    (re.compile(r"^-?\d[\d_]*[lL]$"), "long"),
    (re.compile(r"^-?(?:\d[\d_]*\.\d*|\.\d+)(?:[eE][-+]?\d+)?[dD]?$|^-?\d+[dD]$"), "double"),
    (re.compile(r"^-?\d[\d_]*\.?\d*[fF]$"), "float"),
    (re.compile(r"^-?(?:0[xX][\da-fA-F_]+|\d[\d_]*)$"), "int"),
    (re.compile(r"^(?:true|false)$"), "boolean"),
    (re.compile(r"^null$"), "null"),
)
_NEW: Final = re.compile(r"^new\s+([A-Za-z_][\w.]*)\s*(?:<[^()]*>)?\s*\(")
_CAST: Final = re.compile(r"^\(\s*([A-Za-z_][\w.]*)\s*\)\s*[\w(\"']")
_STRINGS: Final = re.compile(r"^String\.(?:valueOf|format|join)\s*\(|\.toString\(\s*\)$")
_GENERIC: Final = re.compile(r"^[A-Z]\w?$")
_MODIFIERS: Final = "private|protected|public|static|final|transient|volatile"


def literal_type(arg: str) -> str | None:
    """The static type an argument shows by itself, without looking anything up."""
    arg = arg.strip()
    for pattern, kind in _LITERALS:
        if pattern.match(arg):
            return kind
    m = _NEW.match(arg)
    if m is not None:
        return m.group(1).rsplit(".", 1)[-1]
    m = _CAST.match(arg)
    if m is not None:
        return m.group(1).rsplit(".", 1)[-1]
    if _STRINGS.search(arg) or _concatenates_string(arg):
        return "String"
    return None


def _concatenates_string(arg: str) -> bool:
    """`"a" + x` / `x + "a"` at the top level: a String."""
    return bool(re.match(r'^"(?:[^"\\]|\\.)*"\s*\+', arg)) or \
        bool(re.search(r'\+\s*"(?:[^"\\]|\\.)*"$', arg))


def declared_type(name: str, lines: list[str]) -> str | None:
    """The type `lines` declare for `name` (a parameter, local or field), the nearest
    declaration above the end first; arrays and varargs keep `[]`."""
    pattern = re.compile(
        rf"(?:^|[(,;{{]|\bfinal)\s*(?:@\w+\s+)*(?:(?:{_MODIFIERS})\s+)*"
        rf"([A-Za-z_][\w.]*)\s*(<[^;=()]*>)?\s*"
        rf"(\[\]|\.\.\.)?\s+{re.escape(name)}\s*(?=[=,;:)]|$)")
    for line in reversed(lines):
        for m in pattern.finditer(line):
            kind = m.group(1).rsplit(".", 1)[-1]
            if kind in ("return", "new", "throw", "else", "case", "final"):
                continue
            return kind + ("[]" if m.group(3) else "")
    return None


def parameter_types(signature: str, name: str) -> list[str]:
    """A Java method's parameter types as javac sees them for choosing (generic arguments
    dropped, `T...` as `T[]`); "" where none shows."""
    at = re.search(rf"(?<![\w$]){re.escape(name)}\s*\(", signature)
    if at is None:
        return []
    params = _inside(signature, at.end() - 1)
    out = []
    for p in _split(params):
        p = re.sub(r"@\w+(?:\([^)]*\))?\s*|\bfinal\s+", "", p).strip()
        p = re.sub(r"<[^<>]*(?:<[^<>]*>[^<>]*)*>", "", p)
        words = p.replace("...", "[] ").split()
        out.append(words[-2] if len(words) >= 2 else "")
    return out


def type_parameters(signature: str, name: str) -> frozenset[str]:
    """The method's own type parameters (`public <T> T get(` -> {T})."""
    m = re.search(rf"<([^<>()]*)>\s*[\w.<>\[\], ?]*\s+{re.escape(name)}\s*\(", signature)
    if m is None:
        return frozenset()
    return frozenset(p.split()[0] for p in m.group(1).split(",") if p.strip())


def accepts(param: str, arg: str, generic: frozenset[str], is_subtype: IsSubtype) -> bool:
    """Whether an argument of static type `arg` can be passed to a parameter `param`
    (True wherever that is not known to be impossible)."""
    if not param or not arg or param == arg or param in generic or _GENERIC.match(param) \
            or _GENERIC.match(arg):
        return True
    if arg == "null":
        return param not in _WIDENS
    if arg in _WIDENS:  # a primitive: widening, or boxing then a supertype of its box
        return param in _WIDENS[arg] if param in _WIDENS else \
            param in (_BOX[arg], "Number", *_OBJECTS)
    if param in _WIDENS:  # a reference to a primitive: only a box unboxes
        unboxed = _UNBOX.get(arg)
        return unboxed is not None and param in _WIDENS[unboxed]
    if arg.endswith("[]") or param.endswith("[]"):
        if arg.endswith("[]") and param.endswith("[]"):
            return accepts(param[:-2], arg[:-2], generic, is_subtype) and \
                (param[:-2] in _WIDENS) == (arg[:-2] in _WIDENS)
        return arg.endswith("[]") and param in ("Object", "Cloneable", "Serializable")
    if arg == "String":
        return param in _STRING_SUPERS
    if arg in _UNBOX:
        return param in (arg, "Number", *_OBJECTS)
    if param == "Object":
        return True
    if param == "String" or param in _UNBOX:
        return False  # final classes: no other class is one
    return is_subtype(arg, param) is not False


def fits_sibling_only(target: Definition, siblings: list[Definition], args: list[str],
                      type_of: TypeOf, is_subtype: IsSubtype) -> bool:
    """Whether a call with `args` cannot be the target's (an argument whose type shows is
    not accepted there) and some sibling of that arity accepts all of them."""
    kinds = [type_of(a) for a in args]
    if all(k is None for k in kinds):
        return False

    def takes(d: Definition) -> bool:
        params = parameter_types(d.signature, d.name)
        if len(params) != len(args) or any(p.endswith("[]") and "..." in d.signature
                                           for p in params[-1:]):
            return False
        generic = type_parameters(d.signature, d.name)
        return all(k is None or accepts(p, k, generic, is_subtype)
                   for p, k in zip(params, kinds, strict=True))

    mine = parameter_types(target.signature, target.name)
    if len(mine) != len(args) or takes(target):
        return False
    return any(takes(s) for s in siblings)


def _inside(text: str, at: int) -> str:
    end = closing_bracket(text, at)
    return text[at + 1 : end] if end >= 0 else text[at + 1 :]


def _split(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


# `recv.method(...)` and nothing after it: its declared return type is the argument's.
_MEMBER_CALL: Final = re.compile(
    r"^(?:(?P<recv>[A-Za-z_][\w.]*)\.)?(?P<name>[A-Za-z_]\w*)\s*\((?P<args>.*)\)$")
_FIELD_LINE: Final = re.compile(r"^\s*(?:@\w+\s+)*(?:private|protected|public|static|final)\b"
                                r"[^(]*$")


def other_overload(r: ResolverAPI, ref: Reference, target: Definition,
                   siblings: list[Definition], line: str, before: list[str]) -> bool:
    """Whether the Java call `ref` (on `line`; `before`: the calling method's lines up to
    it) is a sibling overload's by its arguments' static types (see the module's doc)."""
    text = overloads._parenthesised(line, target.name)
    if text is None or overloads.call_arguments(line, target.name) is None:
        return False
    args = [a.strip() for a in overloads._split(text) if a.strip()]
    return typed_elsewhere(r, ref, target, siblings, args, before)


def typed_elsewhere(r: ResolverAPI, ref: Reference, target: Definition,
                    siblings: list[Definition], args: list[str], before: list[str]) -> bool:
    """Whether a call at `ref` with the arguments `args` (as written) is a sibling's by
    their static types (`before`: the calling method's lines up to the call)."""
    args = [a.strip() for a in args if a.strip()]
    if not args or not siblings:
        return False

    def type_of(arg: str) -> str | None:
        return literal_type(arg) or _named_type(r, ref, arg, before)

    def is_subtype(cls: str, base: str) -> bool | None:
        return _is_subtype(r, ref, cls, base)

    return fits_sibling_only(target, siblings, args, type_of, is_subtype)


def _named_type(r: ResolverAPI, ref: Reference, arg: str, before: list[str]) -> str | None:
    """A name's declared type, or the declared return type of `recv.m(...)` / `m(...)`."""
    if re.fullmatch(r"[A-Za-z_]\w*", arg):
        return _variable_type(r, ref, arg, before)
    m = _MEMBER_CALL.match(arg)
    if m is None or _inside(arg, m.start("args") - 1) != m.group("args"):
        return None  # not one call: `a(x).b(y)`
    recv = m.group("recv") or "this"
    cls = r.enclosing_class(ref.path, ref.scope) if recv == "this" else None
    if cls is None:  # the receiver's class: as declared here (overloads share one scope)
        written = _variable_type(r, ref, recv, before) \
            if re.fullmatch(r"[A-Za-z_]\w*", recv) else None
        e = r.resolve_expression(ref.path, ref.scope, written or recv)
        cls = e.definition if e is not None else None  # an instance, or a static call
    if cls is None or cls.kind not in CLASS_KINDS:
        return None
    method = r.class_member(cls, m.group("name"))
    if method is None:
        return None
    returns = {_return_type(d) for d in r.scope(method.path).definitions
               if d.qualified_name == method.qualified_name}
    return returns.pop() if len(returns) == 1 else None


def _variable_type(r: ResolverAPI, ref: Reference, name: str, before: list[str]) -> str | None:
    """The type the calling method declares for `name`, else its class as a field."""
    found = declared_type(name, before)
    if found is None:
        cls = r.enclosing_class(ref.path, ref.scope)
        if cls is not None:
            body = r.lines(ref.path)[cls.line_start - 1 : cls.line_end]
            found = declared_type(name, [t for t in body if _FIELD_LINE.match(t)])
    return found


def _return_type(d: Definition) -> str | None:
    m = re.search(rf"([A-Za-z_][\w.]*)\s*(?:<[^()]*>)?\s*(\[\])?\s+{re.escape(d.name)}\s*\(",
                  d.signature)
    if m is None or m.group(1) in ("new", "return"):
        return None
    return m.group(1).rsplit(".", 1)[-1] + ("[]" if m.group(2) else "")


def _is_subtype(r: ResolverAPI, ref: Reference, cls: str, base: str) -> bool | None:
    """Whether the project's class `cls` is or extends `base` (None: not known, as where
    `cls` is no class of the project, or a base outside it may be `base`)."""
    e = r.resolve_expression(ref.path, ref.scope, cls)
    d = e.definition if e is not None else None
    if d is None or d.kind not in CLASS_KINDS:
        return None
    target = r.resolve_expression(ref.path, ref.scope, base)
    in_project = target is not None and target.definition is not None
    seen, todo, outside = set(), [d], False
    while todo:
        c = todo.pop()
        if (c.path, c.qualified_name) in seen:
            continue
        seen.add((c.path, c.qualified_name))
        if c.name == base:
            return True
        found = r.bases(c)
        written = [b.split("<")[0].rsplit(".", 1)[-1].strip() for b in c.bases]
        if base in written:
            return True
        outside = outside or len(found) < len(written)
        todo.extend(found)
    return False if in_project or not outside else None
