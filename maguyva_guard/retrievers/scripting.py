"""Ruby and PHP: how their receivers, constants and autoloaded classes resolve; and the
generic tier, where nothing resolves and a call matches every definition of its name.

Both languages name classes by their nesting, not by their file (the registry gives their
files no module prefix), so a class is found by its qualified name across the repository:

- Ruby: constants are global once their file is loaded, and most projects load them through
  an autoloader rather than `require`, so a capitalised name that the file does not bind is
  looked up among the repository's top-level definitions of that name. A class reopened in
  several files is one class: all its blocks are returned, and its bases (superclass,
  `include`d modules) are the union of theirs.
- PHP: a class is visible in its own namespace (PSR-4: its folder) and through `use`;
  `self::`/`static::` are the enclosing class, `parent::` its base, `$this->` the instance.
  PSR-4 maps a namespace prefix to a folder; composer.json's "autoload" map is read when
  the repository has one, else the namespace's trailing segments are matched against paths.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from maguyva_guard.records import CLASS, INTERFACE, TYPE, Definition

if TYPE_CHECKING:
    from maguyva_guard.retrievers.resolution_base import SymbolSource


# A file, and the names still to look up inside it (importpaths.Target's fields).
Found = tuple[str, tuple[str, ...]]

# A bare name no import binds may be a global of another file (or a method of an object):
# its same-named definitions, ambiguous. (Lua: luamods.py.)
SCRIPT_LANGUAGES: Final = frozenset({"ruby", "php", "lua"})
_CLASS_KINDS: Final = frozenset({CLASS, INTERFACE, TYPE})
_RUBY_SUFFIXES: Final = (".rb", ".rake", ".gemspec", "Rakefile", "Gemfile")
_LUA_ROOTS: Final = ("", "lua/", "src/", "lib/")
_PHP_RECEIVERS: Final = {"self": "self", "static": "self", "parent": "super"}


def receiver(language: str | None, written: str) -> str:
    """A receiver as the resolver reads it: PHP's `$this->a` is `this.a`, `A\\B` is `A.B`,
    `static::`/`self::` are the class itself and `parent::` its base."""
    if language != "php":
        return written
    if written in _PHP_RECEIVERS:
        return _PHP_RECEIVERS[written]
    return written.replace("$", "").replace("?->", ".").replace("->", ".").lstrip(
        "\\").replace("\\", ".")


def php_declared_type(lines: list[str], var: str) -> str | None:
    """The class a PHP variable or property `var` is declared with among `lines`: a typed
    parameter or property (`InputOption $option`, `private Command $cmd` in a promoted
    constructor, `?Foo $foo`), or `$var = new Foo(...)`; dotted ("App.Foo" for `\\App\\Foo`).
    None when no line declares it with a class (scalars and `self` are no classes here)."""
    name = re.escape(var)
    typed = re.compile(rf"(?<![\w$\\])\??(\\?[A-Z][\w\\]*)\s+(?:&\s*)?(?:\.\.\.)?\${name}\b")
    built = re.compile(rf"\${name}\s*=\s*new\s+(\\?[A-Z][\w\\]*)")
    for line in lines:
        if "$" + var not in line:
            continue
        m = typed.search(line) or built.search(line)
        if m is not None:
            return m.group(1).lstrip("\\").replace("\\", ".")
    return None


def generic_candidates(source: SymbolSource, path: str, name: str,
                       language_of: Callable[[str], str | None]) -> tuple[Definition, ...]:
    """A call in a generic-tier file: every definition of that name in a file of the same
    language (nothing is resolved there: no imports, no receivers)."""
    language = language_of(path)
    return tuple(d for d in source.definitions(name=name) if language_of(d.path) == language)


def ruby_constant(source: SymbolSource, scope: str, name: str) -> Definition | None:
    """A Ruby constant used in `scope`: the class or module of that name nested in the
    enclosing namespaces first ("Shop.Cart.total" tries Shop.Cart.X, Shop.X, then X), as
    Ruby's lexical constant lookup does; any block of it when it is reopened."""
    parts = scope.split(".") if scope else []
    for cut in range(len(parts), -1, -1):
        qualified = ".".join([*parts[:cut], name])
        found = [d for d in source.definitions(qualified_name=qualified)
                 if d.kind in _CLASS_KINDS and d.path.endswith(_RUBY_SUFFIXES)]
        if found:
            return found[0]
    return None


def ruby_require(paths: frozenset[str], importer: str, target: str) -> Found | None:
    """The file a `require`/`require_relative` names: relative to the importer for
    `require_relative`, else under a load-path folder (lib/, the root, any folder whose
    path ends with the name)."""
    name = target if target.endswith(".rb") else target + ".rb"
    if target.startswith("."):
        candidate = posixpath.normpath(posixpath.join(posixpath.dirname(importer), name))
        return (candidate, ()) if candidate in paths else None
    for prefix in ("lib/", ""):
        if prefix + name in paths:
            return (prefix + name, ())
    suffix = "/lib/" + name
    found = sorted(p for p in paths if p.endswith(suffix))
    return (found[0], ()) if len(found) == 1 else None


def lua_require(paths: frozenset[str], target: str) -> Found | None:
    """The file Lua's `require(target)` loads: a/b.lua or a/b/init.lua (package.path's
    usual `?.lua;?/init.lua`) under the root or a source folder (lua/, src/, lib/), else
    the one file whose path ends with it (a rock's sources under `<name>/`)."""
    stem = target.replace(".", "/")
    wanted = (stem + ".lua", stem + "/init.lua")
    for root in _LUA_ROOTS:
        for name in wanted:
            if root + name in paths:
                return (root + name, ())
    for name in wanted:
        found = sorted(p for p in paths if p.endswith("/" + name))
        if len(found) == 1:
            return (found[0], ())
    return None


def composer_roots(text: str) -> list[tuple[str, str]]:
    """composer.json's PSR-4 map as (namespace prefix "App.Models.", folder "src/Models/"),
    longest prefix first; [] when it has none or is not JSON."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    roots = []
    for section in ("autoload", "autoload-dev"):
        block = data.get(section) if isinstance(data, dict) else None
        psr4 = block.get("psr-4") if isinstance(block, dict) else None
        if not isinstance(psr4, dict):
            continue
        for prefix, folders in psr4.items():
            dotted = prefix.strip("\\").replace("\\", ".")
            for folder in folders if isinstance(folders, list) else [folders]:
                if isinstance(folder, str):
                    folder = folder.strip("/")
                    roots.append((dotted + "." if dotted else "", folder + "/" if folder else ""))
    return sorted(roots, key=lambda r: -len(r[0]))


def php_class_file(paths: frozenset[str], roots: list[tuple[str, str]],
                   dotted: str) -> Found | None:
    """The file of a PHP class "App.Models.User" by PSR-4 (with the class name still to look
    up in it); else the path ending with the longest run of its trailing segments
    that only one file has."""
    for prefix, folder in roots:
        if dotted.startswith(prefix):
            candidate = folder + dotted[len(prefix):].replace(".", "/") + ".php"
            if candidate in paths:
                return (candidate, (dotted.rsplit(".", 1)[-1],))
    parts = dotted.split(".")
    for cut in range(len(parts)):
        suffix = "/".join(parts[cut:]) + ".php"
        found = [p for p in paths if p == suffix or p.endswith("/" + suffix)]
        if len(found) == 1:
            return (found[0], (parts[-1],))
        if found:
            return None  # several files fit as well: not settled
    return None
