"""Error messages as a program prints them, rendered from real projects' raise and log sites.

    messages(repo, package_dirs) -> [Message]

Each Python file under the package is walked with `ast`: a `raise X(<string expression>)`
or a log call (`logger.error(...)`, `log.warning(...)`, `logging.info(...)`,
`warnings.warn(...)`) whose first argument builds a string from literals is a site. The
expression is rendered as the program would at run time: f-string fields, `%`
conversions, `.format` fields and `+` operands are filled with plausible values (a word,
`'a repr'` for `!r`/`%r`, a number for `%d`), gettext calls are looked through. Sites with
little literal text (under MIN_LITERAL characters) or a multi-line message are left out.

`half_prefixed` pastes every other message with its class in front, as a traceback's last
line shows it (`ValueError: ...`; for every other class site, the module-qualified name
when the class is imported with `from module import X`), or, for a log site, the
`logging` module's default prefix (`ERROR:root:`). The labels of a message are every site
whose template renders the same text (a message raised from two places is found when
either is first).
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass, replace
from pathlib import Path

MIN_LITERAL = 12
_WORDS = ("title", "default", "user_id", "config.json", "example.com", "utf-8", "main")
_NUMBERS = ("3", "42", "1024")
_GETTEXT = frozenset("_ gettext gettext_lazy ngettext pgettext gettext_noop".split())
_LOG_METHODS = frozenset("debug info warning warn error exception critical".split())
_LOGGERS = re.compile(r"^(?:log|logger|_log|_logger|LOG|LOGGER|logging|warnings|\w+_logger)$")
_PERCENT = re.compile(r"%(?:\((?P<name>[^)]*)\))?[#0+\- ]*(?:\d+|\*)?(?:\.\d+)?"
                      r"(?P<conv>[sdifrxXoeEgGc%])")
_FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{(?P<field>[^{}]*)\}")
HOLE = "\0"


@dataclass(frozen=True)
class Message:
    text: str  # as pasted
    message: str  # without the prefix
    prefix: str  # the class or log prefix (half_prefixed puts it in front of every other)
    path: str  # the site's file
    line: int
    end_line: int
    template: str  # the rendered text with HOLE for each value (for labels)
    labels: tuple[str, ...] = ()


class _Renderer:
    """Renders a string expression; `holes` marks values with HOLE instead."""

    def __init__(self, holes: bool) -> None:
        self.holes = holes

    def value(self, node: ast.AST, conversion: str = "s") -> str:
        if self.holes:
            return HOLE
        seed = int(hashlib.sha1(ast.dump(node).encode()).hexdigest(), 16)
        if conversion in "dixXo":
            return _NUMBERS[seed % len(_NUMBERS)]
        if conversion in "feEgG":
            return "1.5"
        word = _WORDS[seed % len(_WORDS)]
        return f"'{word}'" if conversion == "r" else word

    def render(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            out = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out.append(str(part.value))
                elif isinstance(part, ast.FormattedValue):
                    out.append(self.value(part.value, "r" if part.conversion == 114 else "s"))
            return "".join(out)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            left = self.render(node.left)
            return None if left is None else self.percent(left, node.right)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            parts = [self.render(n) for n in (node.left, node.right)]
            if all(p is None for p in parts):
                return None
            return "".join(p if p is not None else self.value(n)
                           for p, n in zip(parts, (node.left, node.right), strict=True))
        if isinstance(node, ast.Call):
            name = _call_name(node.func)
            if name in _GETTEXT and node.args:
                return self.render(node.args[0])
            if name.endswith(".format") and isinstance(node.func, ast.Attribute):
                base = self.render(node.func.value)
                return None if base is None else self.format(base, node)
        return None

    def percent(self, template: str, args: ast.AST) -> str:
        def fill(m: re.Match[str]) -> str:
            return "%" if m["conv"] == "%" else self.value(ast.Constant(m.group(0)), m["conv"])
        return _PERCENT.sub(fill, template)

    def format(self, template: str, call: ast.Call) -> str:
        def fill(m: re.Match[str]) -> str:
            if m.group(0) in ("{{", "}}"):
                return m.group(0)[0]
            field = m["field"] or ""
            return self.value(ast.Constant(field), "r" if field.endswith("!r") else "s")
        return _FORMAT_FIELD.sub(fill, template)


def _call_name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return f"{_call_name(func.value)}.{func.attr}"
    return ""


def _imports(tree: ast.Module) -> dict[str, str]:
    return {a.asname or a.name: f"{n.module}.{a.name}" for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.module and n.level == 0 for a in n.names}


def _sites(tree: ast.Module) -> list[tuple[ast.AST, ast.AST, str, str]]:
    """(node, string expression, class name, kind) of each raise and log site."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            cls = _call_name(node.exc.func)
            if cls and (cls[0].isupper() or "." in cls):
                out.append((node, node.exc.args[0], cls, "raise"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _LOG_METHODS and node.args \
                and _LOGGERS.match(_call_name(node.func.value)):
            owner = _call_name(node.func.value)
            if owner == "warnings" and len(node.args) > 1:  # printed as "Category: message"
                out.append((node, node.args[0], _call_name(node.args[1]), "raise"))
            else:
                out.append((node, node.args[0], owner, "log"))
    return out


def messages(repo: Path, package_dirs: list[str]) -> list[Message]:
    found: list[Message] = []
    for top in package_dirs:
        for file in sorted((repo / top).rglob("*.py")):
            rel = file.relative_to(repo).as_posix()
            if "/tests/" in f"/{rel}" or "/test_" in rel:
                continue
            try:
                tree = ast.parse(file.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError):
                continue
            imports = _imports(tree)
            for node, expr, cls, kind in _sites(tree):
                made = _message(node, expr, cls, kind, rel, imports, len(found))
                if made is not None:
                    found.append(made)
    return _labelled(found)


def _message(node: ast.AST, expr: ast.AST, cls: str, kind: str, rel: str,
             imports: dict[str, str], n: int) -> Message | None:
    text = _Renderer(holes=False).render(expr)
    template = _Renderer(holes=True).render(expr)
    if text is None or template is None or "\n" in text.strip():
        return None
    literal = template.replace(HOLE, "")
    if len(literal.strip()) < MIN_LITERAL or len(literal.split()) < 2:
        return None
    text = text.strip()
    if kind == "raise":
        name = cls.rsplit(".", 1)[-1]
        prefix = f"{imports.get(name, name) if n % 2 == 0 else name}: "
    else:
        prefix = "ERROR:root:"
    line = getattr(node, "lineno", 0)
    end = getattr(node, "end_lineno", line) or line
    return Message(text, text, prefix, rel, line, end, template.strip())


def half_prefixed(chosen: list[Message]) -> list[Message]:
    """Every other message pasted with its prefix in front; the others bare."""
    return [replace(m, text=m.prefix + m.message) if i % 2 == 0 else replace(m, prefix="")
            for i, m in enumerate(chosen)]


def _labelled(found: list[Message]) -> list[Message]:
    by_template: dict[str, set[str]] = {}
    for m in found:
        by_template.setdefault(m.template, set()).add(m.path)
    unique: dict[str, Message] = {}
    for m in found:
        if m.text not in unique:
            unique[m.text] = Message(m.text, m.message, m.prefix, m.path, m.line, m.end_line,
                                     m.template, tuple(sorted(by_template[m.template])))
    return list(unique.values())
