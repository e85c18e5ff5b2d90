"""Receivers whose type the code shows to be outside the repository (Python).

A call `x.get(...)` on a receiver of unknown type matches every repository method named
`get` by name only (ambiguous). When the code says what `x` is and that is not a
repository class, the call reaches none of them: `environ: WSGIEnvironment` (a name
imported from outside), `options: dict[str, str]`, `**kwargs`, `x = {}`, `x = []`,
`x = "..."`, `x = dict(...)`. On werkzeug 3.1.1 -> 3.1.2 such receivers (mostly `environ`)
were about a third of the 97 `.get(...)` call sites counted as ambiguous callers of
`TypeConversionDict.get`.

Abstract types (`Mapping`, `Iterable`, a Protocol: anything from typing, collections.abc,
abc) and unions are not foreign: a repository class may implement them and be passed.
"""

from __future__ import annotations

import functools
import re

from maguyva_guard.extract.languages import language_for as language_of
from maguyva_guard.retrievers import rusttypes
from maguyva_guard.retrievers.resolution_base import CLASS_KINDS, SELF_NAMES, ResolverAPI

# Concrete builtin types (and typing's aliases of them): no repository method runs on one.
BUILTIN_TYPES = frozenset(
    "dict list str bytes bytearray set frozenset tuple int float bool complex "
    "Dict List Set FrozenSet Tuple DefaultDict".split())
# A receiver that is one of these classes itself (`str.split(s)`) calls the builtin's method.
# Not `type`: `type.__call__(cls, ...)` makes an object of `cls`, running its own methods.
BUILTIN_CLASSES = frozenset(
    "dict list str bytes bytearray set frozenset tuple int float bool complex object".split())
# Modules whose names are abstract types a repository class may implement.
ABSTRACT_MODULES = ("typing", "typing_extensions", "collections.abc", "abc")
_LITERAL = r"(?:\{|\[|[rbuf]*['\"]|(?:dict|list|set|tuple|str|bytes|frozenset)\()"


class Foreign:
    """Whether a receiver's type is shown to lie outside the repository."""

    def foreign_receiver(self: ResolverAPI, path: str, scope: str, receiver: str) -> bool:
        """`receiver` is a bare local, parameter or module name, or `self.attr`, whose
        annotation or assigned literal names a type outside the repository."""
        if language_of(path) == "rust":
            return rusttypes.std_typed(self, path, scope, receiver)
        if language_of(path) != "python":
            return False
        head, _, attr = receiver.partition(".")
        if head in SELF_NAMES and attr and "." not in attr:
            cls = self.enclosing_class(path, scope)
            if cls is None:
                return False
            body = self.lines(path)[cls.line_start - 1 : cls.line_end]
            return bool(_binding(self, path, scope, rf"self\.{re.escape(attr)}", body, attr))
        if attr or not head.isidentifier():
            return False
        fs = self.scope(path)
        d = fs.by_qualified.get(scope)
        while d is not None:
            if d.kind not in CLASS_KINDS:
                body = self.lines(path)[d.line_start - 1 : d.line_end]
                if re.search(rf"\*\*{re.escape(head)}\b", d.signature):
                    return True  # `**kwargs` is a dict
                found = _binding(self, path, scope, re.escape(head), [d.signature, *body], head)
                if found is not None:
                    return found
                if re.search(rf"[(,*]\s*{re.escape(head)}\b", d.signature):
                    return False  # a parameter of unknown type
            d = fs.by_qualified.get(d.parent) if d.parent else None
        bound = _binding(self, path, scope, re.escape(head), self.top_lines(path), head)
        if bound is None and head in BUILTIN_CLASSES:
            # `str.split.__doc__`, `dict.get(d, k)`: the builtin class itself, unshadowed
            return self.lookup_name(path, scope, head) is None
        return bool(bound)


def _binding(r: ResolverAPI, path: str, scope: str, name: str, lines: list[str],
             needle: str) -> bool | None:
    """True: the first line binding `name` shows a foreign type; False: it shows something
    else (a repository class, a call, a union); None: no line binds it."""
    for line in lines:
        if needle not in line:
            continue
        annotated, any_annotation, assigned = _binding_patterns(name)
        m = annotated.search(line)
        if m is not None:
            return _foreign_name(r, path, scope, m.group(1))
        if any_annotation.search(line):
            return False  # a union, an Optional, a string annotation we do not read
        m = assigned.search(line)
        if m is not None:
            return re.match(_LITERAL, line[m.start(1):]) is not None
    return None


@functools.lru_cache(maxsize=4096)
def _binding_patterns(name: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """`_binding`'s three patterns for `name`, compiled once per name and only when a line
    names it: compiled on every call, re's own cache (512 patterns) overflowed and each
    compile cost a Django release diff's check about a tenth of its resolution time."""
    return (re.compile(rf"(?<![\w.]){name}\s*:\s*['\"]?([A-Za-z_][\w.]*)\s*(\[[^=]*\])?['\"]?"
                       r"\s*(?=[,)=]|$)"),
            re.compile(rf"(?<![\w.]){name}\s*:(?!=)"),
            re.compile(rf"(?<![\w.=!<>]){name}\s*=(?!=)\s*(\S)"))


def _foreign_name(r: ResolverAPI, path: str, scope: str, annotation: str) -> bool:
    head, _, rest = annotation.partition(".")
    if not rest:
        if head in BUILTIN_TYPES:
            return r.lookup_name(path, scope, head) is None  # not shadowed by a class
        imp = r.scope(path).bound_imports.get(head)
        if imp is None or r.import_entity(path, imp) is not None:
            return False
        module = r.absolute_import(path, imp.target).rsplit(".", 1)[0] \
            if imp.name not in ("", "*") else imp.target
        return not _abstract(module) and not _abstract(imp.target)
    imp = r.scope(path).bound_imports.get(head)  # `t.Dict[...]`, `collections.OrderedDict`
    if imp is None or r.import_entity(path, imp) is not None:
        return False
    last = annotation.rsplit(".", 1)[1]
    if _abstract(imp.target):
        return last in BUILTIN_TYPES
    return True


def _abstract(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in ABSTRACT_MODULES)
