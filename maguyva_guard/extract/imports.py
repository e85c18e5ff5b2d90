"""Import statements flattened to one record per bound name.

The query files capture each import statement whole (@reference.import); its shape differs
too much between languages for captures alone (Rust nests use-lists to any depth), so each
registry row names one of the flatteners below as its `import_style`.

Targets as produced (documented for the store and the graph):
- python: dotted, relative ones keep their dots ("..x.y", ".y"); `import a.b` binds "a".
- js: the module specifier as written ("./m", "react"); name "default", "*" or the export.
  A side-effect import (`import "./m"`) has name "*" and alias "".
- go: the import path; name = the package's last path segment without a version suffix.
- rust: the "::" path of the leaf ("std::collections::HashMap"); wildcards end in "::*".
- java: the dotted name ("a.b.C", "a.b.*", static members included).
- c (C and C++): `#include "x.h"` has name "*", alias "" and the file as written ("x.h");
  `#include <x.h>` keeps its brackets ("<x.h>"). C++ `using namespace a::b;` has name "*",
  alias "*" and target "a::b::*"; `using a::B;` binds B to "a::B".
- ruby: `require "x"` / `require_relative "x"` / `load "x.rb"`: name "*", alias "" (the
  file's constants become visible), target "x" for require, "./x" for require_relative.
- php: `use A\\B\\C as D` is name "C", target "A.B.C", alias "D" (dots for backslashes).
- lua: `local x = require "a.b"` (or `x = require("a.b")`) is name "", target "a.b",
  alias "x" (x is what the module returns); a bare `require "a.b"` is name "*", alias ""
  (the globals it defines become visible).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, NamedTuple

from tree_sitter import Node

from maguyva_guard.extract.source_text import normalize, text


class ImportRef(NamedTuple):
    name: str
    target: str
    alias: str
    node: Node  # where it is written: its line, and the position that decides its scope


_GO_VERSION: Final = re.compile(r"^v\d+$")


def read_imports(style: str, source: bytes, node: Node) -> list[ImportRef]:
    """Every (name, target, alias) an import statement binds; [] for shapes we do not know."""
    reader = _READERS.get(style)
    return reader(source, node) if reader is not None else []


def _python(source: bytes, node: Node) -> list[ImportRef]:
    found = []
    module = ""
    if node.type == "import_from_statement":
        module_node = node.child_by_field_name("module_name")
        module = normalize(text(source, module_node)) if module_node is not None else ""
        if any(child.type == "wildcard_import" for child in node.named_children):
            found.append(ImportRef("*", _join(module, "*"), "*", node))
    for child in node.children_by_field_name("name"):
        path_node, alias_node = child, None
        if child.type == "aliased_import":
            path_node = child.child_by_field_name("name") or child
            alias_node = child.child_by_field_name("alias")
        path = normalize(text(source, path_node))
        target = _join(module, path) if module else path
        if alias_node is not None:
            alias = text(source, alias_node)
        else:  # `import a.b` binds "a"; `from m import b` binds "b"
            alias = path.split(".")[0] if not module else path
        found.append(ImportRef(path.rsplit(".", 1)[-1], target, alias, child))
    return found


def _join(module: str, name: str) -> str:
    return module + name if module.endswith(".") else f"{module}.{name}"


def _js(source: bytes, node: Node) -> list[ImportRef]:
    if node.type == "variable_declarator":
        return _js_require(source, node)
    source_node = node.child_by_field_name("source")
    found: list[ImportRef] = []
    for child in node.named_children:
        if child.type == "import_require_clause":  # TS: import x = require("m")
            module = _unquote(text(source, child.child_by_field_name("source") or child))
            for ident in child.named_children[:1]:
                found.append(ImportRef("default", module, text(source, ident), ident))
    if source_node is None:
        return found
    module = _unquote(text(source, source_node))
    for child in node.named_children:
        if child.type == "import_clause":
            found.extend(_js_clause(source, child, module))
        elif child.type == "export_clause":
            for spec in child.named_children:
                found.extend(_js_specifier(source, spec, module))
        elif child.type == "namespace_export":
            found.append(ImportRef("*", module, _first_identifier(source, child), child))
    if not found:  # `import "./m"` (side effect) or `export * from "./m"`
        alias = "*" if node.type == "export_statement" else ""
        found.append(ImportRef("*", module, alias, node))
    return found


def _js_clause(source: bytes, clause: Node, module: str) -> list[ImportRef]:
    found = []
    for child in clause.named_children:
        if child.type == "identifier":
            found.append(ImportRef("default", module, text(source, child), child))
        elif child.type == "namespace_import":
            found.append(ImportRef("*", module, _first_identifier(source, child), child))
        elif child.type == "named_imports":
            for spec in child.named_children:
                found.extend(_js_specifier(source, spec, module))
    return found


def _js_specifier(source: bytes, spec: Node, module: str) -> list[ImportRef]:
    # Both `import {a as b}` and `export {a as b} from` bind the alias, else the name.
    name_node = spec.child_by_field_name("name")
    if name_node is None:
        return []
    name = _unquote(text(source, name_node))
    alias_node = spec.child_by_field_name("alias")
    alias = _unquote(text(source, alias_node)) if alias_node is not None else name
    return [ImportRef(name, module, alias, spec)]


def _js_require(source: bytes, node: Node) -> list[ImportRef]:
    call = node.child_by_field_name("value")
    args = call.child_by_field_name("arguments") if call is not None else None
    pattern = node.child_by_field_name("name")
    if args is None or pattern is None or not args.named_children:
        return []
    module = _unquote(text(source, args.named_children[0]))
    if pattern.type == "identifier":
        return [ImportRef("default", module, text(source, pattern), pattern)]
    found = []
    for child in pattern.named_children:  # const {a, b: c} = require("m")
        if child.type == "shorthand_property_identifier_pattern":
            name = text(source, child)
            found.append(ImportRef(name, module, name, child))
        elif child.type == "pair_pattern":
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
            if key is not None and value is not None:
                found.append(ImportRef(text(source, key), module, text(source, value), child))
    return found


def _go(source: bytes, node: Node) -> list[ImportRef]:
    path_node = node.child_by_field_name("path")
    if path_node is None:
        return []
    path = _unquote(text(source, path_node))
    segments = [s for s in path.split("/") if s]
    if len(segments) > 1 and _GO_VERSION.match(segments[-1]):
        segments.pop()  # github.com/a/b/v2 is package b
    package = segments[-1].split(".v")[0] if segments else path  # gopkg.in/yaml.v3 is yaml
    name_node = node.child_by_field_name("name")
    alias = text(source, name_node) if name_node is not None else package
    return [ImportRef(package, path, alias, node)]


def _rust(source: bytes, node: Node) -> list[ImportRef]:
    argument = node.child_by_field_name("argument")
    return _rust_tree(source, argument, "") if argument is not None else []


def _rust_tree(source: bytes, node: Node, prefix: str) -> list[ImportRef]:
    kind = node.type
    if kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        inner = prefix + (normalize(text(source, path)) + "::" if path is not None else "")
        listed = node.child_by_field_name("list")
        return _rust_tree(source, listed, inner) if listed is not None else []
    if kind == "use_list":
        found = []
        for child in node.named_children:
            found.extend(_rust_tree(source, child, prefix))
        return found
    if kind == "use_as_clause":
        path = node.child_by_field_name("path")
        alias = node.child_by_field_name("alias")
        if path is None:
            return []
        leaf = _rust_leaf(prefix + normalize(text(source, path)), node)
        return [leaf._replace(alias=text(source, alias))] if alias is not None else [leaf]
    if kind == "use_wildcard":
        return [ImportRef("*", prefix + normalize(text(source, node)), "*", node)]
    return [_rust_leaf(prefix + normalize(text(source, node)), node)]


def _rust_leaf(target: str, node: Node) -> ImportRef:
    if target.endswith("::self"):  # `use a::{self}` imports a itself
        target = target[: -len("::self")]
    name = target.rsplit("::", 1)[-1]
    return ImportRef(name, target, name, node)


def _java(source: bytes, node: Node) -> list[ImportRef]:
    path_node = next((c for c in node.named_children if c.type != "asterisk"), None)
    if path_node is None:
        return []
    path = normalize(text(source, path_node))
    if any(child.type == "asterisk" for child in node.named_children):
        return [ImportRef("*", path + ".*", "*", node)]
    name = path.rsplit(".", 1)[-1]
    return [ImportRef(name, path, name, node)]


def _c(source: bytes, node: Node) -> list[ImportRef]:
    if node.type == "preproc_include":
        path = node.child_by_field_name("path")
        if path is None:
            return []
        written = text(source, path).strip()
        target = _unquote(written) if written.startswith('"') else written
        return [ImportRef("*", target, "", node)]
    named = next((c for c in node.named_children), None)  # a using_declaration
    if named is None:
        return []
    target = normalize(text(source, named))
    if any(child.type == "namespace" for child in node.children):
        return [ImportRef("*", target + "::*", "*", node)]
    name = target.rsplit("::", 1)[-1]
    return [ImportRef(name, target, name, node)]


def _ruby(source: bytes, node: Node) -> list[ImportRef]:
    method = node.child_by_field_name("method")
    args = node.child_by_field_name("arguments")
    if method is None or args is None or not args.named_children:
        return []
    target = _unquote(text(source, args.named_children[0]))
    if text(source, method) == "require_relative" and not target.startswith("."):
        target = "./" + target
    return [ImportRef("*", target, "", node)]


def _php(source: bytes, node: Node) -> list[ImportRef]:
    group_prefix = ""
    found = []
    for child in node.named_children:
        if child.type == "namespace_name":  # `use A\{B, C}`: the group's prefix
            group_prefix = _php_path(text(source, child))
        elif child.type == "namespace_use_group":
            for clause in child.named_children:
                found.extend(_php_clause(source, clause, group_prefix))
        elif child.type == "namespace_use_clause":
            found.extend(_php_clause(source, child, ""))
    return found


def _php_clause(source: bytes, clause: Node, prefix: str) -> list[ImportRef]:
    alias_node = clause.child_by_field_name("alias")
    path_node = next((c for c in clause.named_children if c != alias_node), None)
    if path_node is None:
        return []
    path = _php_path(text(source, path_node))
    target = f"{prefix}.{path}" if prefix else path
    name = target.rsplit(".", 1)[-1]
    alias = text(source, alias_node) if alias_node is not None else name
    return [ImportRef(name, target, alias, clause)]


def _php_path(value: str) -> str:
    return normalize(value).strip("\\").replace("\\", ".")


def _lua(source: bytes, node: Node) -> list[ImportRef]:
    if node.type == "function_call":
        call, alias = node, ""
    else:  # an assignment: `local x = require "a.b"`
        names = next(c for c in node.named_children if c.type == "variable_list")
        values = next(c for c in node.named_children if c.type == "expression_list")
        call, alias = values.named_children[0], text(source, names.named_children[0])
    args = call.child_by_field_name("arguments")
    literal = args if args is not None and args.type == "string" else (
        args.named_children[0] if args is not None and args.named_children else None)
    if literal is None:
        return []
    return [ImportRef("" if alias else "*", _unquote(text(source, literal)), alias, node)]


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'`":
        return value[1:-1]
    return value


def _first_identifier(source: bytes, node: Node) -> str:
    return next((text(source, c) for c in node.named_children if c.type == "identifier"), "")


_READERS: Final[dict[str, Callable[[bytes, Node], list[ImportRef]]]] = {
    "python": _python,
    "js": _js,
    "go": _go,
    "rust": _rust,
    "java": _java,
    "c": _c,
    "ruby": _ruby,
    "php": _php,
    "lua": _lua,
}
