"""Lua: what `require` loads, what a module returns, and the tables `setmetatable` types.

- `require "a.b"` loads a/b.lua or a/b/init.lua: scripting.lua_require (importpaths.py
  reads it, and must not import this module, which builds the resolver's entities).
- A module returns one value: `return M` at its end binds `local x = require "a.b"` to the
  table M (a class-like definition of lua.scm), so `x.f()` is M's `f`; a module that ends
  with `return { f = f }` or returns nothing stays the module itself, whose top-level
  functions are its members.
- `local assert_arg = utils.assert_arg` (or `local map, reduce = seq.map, seq.reduce`) at
  the top of a file keeps a function in a local: a bare `assert_arg(...)` calls it.
- `local o = setmetatable({}, M)` (or `return setmetatable(o, M)`) is an instance of M:
  `o:m()` calls M's `m`. With `M.new` returning such a value (or `self` bound that way),
  `local c = Cart.new()` types `c` through Inference.return_type.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from maguyva_guard.records import CLASS, FUNCTION

if TYPE_CHECKING:
    from maguyva_guard.records import Definition
    from maguyva_guard.retrievers.resolution_base import Entity, ResolverAPI, SymbolSource

_RETURNED: Final = re.compile(r"return\s+([A-Za-z_]\w*)\s*;?\s*(?:--.*)?$")
_ALIAS: Final = re.compile(r"local\s+([A-Za-z_][\w\s,]*?)\s*=\s*(.+?)\s*;?\s*(?:--.*)?$")
_DOTTED: Final = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
# `setmetatable({...}, M)` / `setmetatable(o, { __index = M })` -> M
METATABLE: Final = re.compile(
    r"\bsetmetatable\s*\(.*,\s*(?:\{\s*__index\s*=\s*)?([A-Za-z_][\w.]*)\s*\}?\s*\)")


def globals_named(source: SymbolSource, name: str) -> tuple[Definition, ...]:
    """The global functions of that name in the repository's Lua files (`function f()` at
    the top of a file; a `local function` is seen by its own file only)."""
    return tuple(d for d in source.definitions(name=name)
                 if d.path.endswith(".lua") and not d.parent and d.kind == FUNCTION
                 and not d.signature.startswith("local"))


def exported(r: ResolverAPI, path: str) -> Entity | None:
    """The table a Lua module returns (`return M` on its last line of code, M a top-level
    definition of the file), or None when it returns something else."""
    from maguyva_guard.retrievers.resolution_base import Entity

    for line in reversed(r.lines(path)):
        code = line.strip()
        if not code or code.startswith("--"):
            continue
        m = _RETURNED.fullmatch(code) if not line[:1].isspace() else None
        if m is None:
            return None
        d = r.scope(path).children.get(("", m.group(1)))
        return Entity("definition", path=path, definition=d) if d is not None else None
    return None


def aliased(r: ResolverAPI, path: str, name: str, hops: int) -> Entity | None:
    """What a top-level `local name = a.b` (or `local x, name = a.x, a.name`) binds `name`
    to, when the value is a dotted name the resolver settles; None otherwise."""
    for line in r.lines(path):
        if not line.startswith("local ") or name not in line:
            continue
        m = _ALIAS.match(line)
        names = [n.strip() for n in m.group(1).split(",")] if m else []
        if name not in names:
            continue
        values = [v.strip() for v in m.group(2).split(",")] if m else []
        value = values[names.index(name)] if len(values) == len(names) else ""
        if not _DOTTED.fullmatch(value):
            return None  # a call, a literal, several values: not an alias
        return r.resolve_expression(path, "", value, hops + 1)
    return None


def metatable_instance(r: ResolverAPI, path: str, scope: str, line: str, var: str | None,
                       hops: int) -> Entity | None:
    """An instance of M when `line` binds `var` to `setmetatable(..., M)` (or, with var
    None, returns it); None otherwise."""
    from maguyva_guard.retrievers.resolution_base import Entity

    head = r"\breturn\s+" if var is None else rf"(?<![\w.]){re.escape(var)}\s*=\s*"
    if re.search(head + r"setmetatable\s*\(", line) is None:
        return None
    m = METATABLE.search(line)
    e = r.resolve_expression(path, scope, m.group(1), hops + 1) if m else None
    if e is None or e.definition is None or e.definition.kind != CLASS:
        return None
    return Entity("instance", path=e.path, definition=e.definition, sure=False)
