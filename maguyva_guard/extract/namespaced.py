"""Import flatteners for C#, Kotlin, Scala and Swift (import styles of the same names).

Their names live in namespaces (C#), packages (Kotlin, Scala) or modules (Swift) that need
not match folders, so besides the `import`/`using` lines each file also records the
namespace it declares, as a star import with the empty alias: "the file sees every name of
its own package". Targets (documented for the store and the graph):
- an explicit import: the dotted name ("a.b.C"), alias the bound name (`import a.b.C as D`,
  `using D = a.b.C;`);
- an opened package or namespace: name "*", target "a.b.*", alias "*" (`import a.b.*`,
  `import a.b._`, `using a.b;`, `using static a.b.C;`, Swift `import Module`);
- the file's own package: name "*", target "a.b.*", alias "" (`package a.b`,
  `namespace a.b`); a C# namespace nested in `namespace Outer` also opens "Outer.*".
"""

from __future__ import annotations

from typing import Final

from tree_sitter import Node

from maguyva_guard.extract import imports
from maguyva_guard.extract.imports import ImportRef
from maguyva_guard.extract.source_text import normalize, text

OWN_PACKAGE: Final = ""  # the alias of a file's own package record


def csharp(source: bytes, node: Node) -> list[ImportRef]:
    if node.type != "using_directive":
        return _csharp_namespace(source, node)
    names = [c for c in node.named_children if c.type in ("identifier", "qualified_name")]
    if not names:
        return []
    path = normalize(text(source, names[-1]))
    if len(names) == 2:  # using Alias = A.B.C;
        return [ImportRef(path.rsplit(".", 1)[-1], path, text(source, names[0]), node)]
    return [ImportRef("*", path + ".*", "*", node)]  # using A.B; using static A.B.C;


def _csharp_namespace(source: bytes, node: Node) -> list[ImportRef]:
    name = node.child_by_field_name("name")
    if name is None:
        return []
    parts = [normalize(text(source, name))]
    parent = node.parent
    while parent is not None:
        if parent.type == "namespace_declaration":
            outer = parent.child_by_field_name("name")
            if outer is not None:
                parts.insert(0, normalize(text(source, outer)))
        parent = parent.parent
    full = ".".join(parts)
    found = [ImportRef("*", full + ".*", OWN_PACKAGE, name)]
    segments = full.split(".")
    for cut in range(len(segments) - 1, 0, -1):  # names of enclosing namespaces are visible
        found.append(ImportRef("*", ".".join(segments[:cut]) + ".*", "*", name))
    return found


def kotlin(source: bytes, node: Node) -> list[ImportRef]:
    path_node = next((c for c in node.named_children if c.type == "identifier"), None)
    if path_node is None:
        return []
    path = normalize(text(source, path_node))
    if node.type == "package_header":
        return [ImportRef("*", path + ".*", OWN_PACKAGE, path_node)]
    kinds = {c.type: c for c in node.named_children}
    if "wildcard_import" in kinds:
        return [ImportRef("*", path + ".*", "*", node)]
    name = path.rsplit(".", 1)[-1]
    alias = kinds.get("import_alias")
    bound = text(source, alias.named_children[-1]) if alias is not None else name
    return [ImportRef(name, path, bound, node)]


def scala(source: bytes, node: Node) -> list[ImportRef]:
    if node.type == "package_clause":
        name = node.child_by_field_name("name")
        if name is None:
            return []
        return [ImportRef("*", normalize(text(source, name)) + ".*", OWN_PACKAGE, name)]
    found: list[ImportRef] = []
    path: list[str] = []
    for child in node.children:
        kind = child.type
        if kind == "identifier":
            path.append(text(source, child))
        elif kind == ",":
            found.extend(_scala_leaf(path, node))
            path = []
        elif kind == "namespace_wildcard":
            found.append(ImportRef("*", ".".join(path) + ".*", "*", node))
            path = []
        elif kind == "as_renamed_identifier":
            found.extend(_scala_selector(source, path, child))
            path = []
        elif kind == "namespace_selectors":
            for selector in child.named_children:
                found.extend(_scala_selector(source, path, selector))
            path = []
    found.extend(_scala_leaf(path, node))
    return found


def _scala_leaf(path: list[str], node: Node) -> list[ImportRef]:
    if len(path) < 2:
        return []
    return [ImportRef(path[-1], ".".join(path), path[-1], node)]


def _scala_selector(source: bytes, path: list[str], selector: Node) -> list[ImportRef]:
    prefix = ".".join(path)
    if selector.type == "namespace_wildcard":
        word = text(source, selector)
        return [ImportRef("*", prefix + ".*", "*", selector)] if word in ("_", "*") else []
    if selector.type == "identifier":
        name = text(source, selector)
        return [ImportRef(name, f"{prefix}.{name}", name, selector)]
    name_node = selector.child_by_field_name("name")
    alias_node = selector.child_by_field_name("alias")
    if name_node is None or alias_node is None or alias_node.type == "wildcard":
        return []  # `x => _` hides x
    name = text(source, name_node)
    return [ImportRef(name, f"{prefix}.{name}", text(source, alias_node), selector)]


def swift(source: bytes, node: Node) -> list[ImportRef]:
    path_node = next((c for c in node.named_children if c.type == "identifier"), None)
    if path_node is None:
        return []
    path = normalize(text(source, path_node))
    if "." not in path:  # import Module: all its public names
        return [ImportRef("*", path + ".*", "*", node)]
    name = path.rsplit(".", 1)[-1]  # import struct Module.Type
    return [ImportRef(name, path, name, node)]


READERS: Final = {"csharp": csharp, "kotlin": kotlin, "scala": scala, "swift": swift}


def read_imports(style: str, source: bytes, node: Node) -> list[ImportRef]:
    """imports.read_imports, with these four styles too."""
    reader = READERS.get(style)
    return reader(source, node) if reader is not None else imports.read_imports(style, source,
                                                                                node)
