"""The immutable records that flow between the modules.

Lines are 1-based and inclusive everywhere. Paths are relative to the repository root,
with forward slashes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final, NamedTuple

# Definition kinds.
FUNCTION = "function"
METHOD = "method"
CLASS = "class"
CONSTANT = "constant"
INTERFACE = "interface"  # Java/TS interfaces, Go interfaces, Rust traits
TYPE = "type"  # structs, enums, type aliases, records

# Reference kinds.
CALL = "call"  # f(), obj.f(), mod.f(), new C(), C::f()
IMPORT = "import"  # import / use / require lines
INHERIT = "inherit"  # base classes, extends, implements
DECORATOR = "decorator"  # @f, @f(...), Java/TS annotations
ANNOTATION = "annotation"  # type annotations (including Python string annotations)
STRING = "string"  # a string literal naming a dotted path, e.g. mock.patch("pkg.mod.f")
USE = "use"  # any other use of an identifier worth indexing (f passed as a value)

# The enclosing symbol of top-level code (JSON `symbol`, report lines, fusion keys).
MODULE_SYMBOL: Final = "<module>"


class Confidence(StrEnum):
    """How sure a graph edge is, surest first."""

    EXACT = "exact"  # every step followed a static binding
    PROBABLE = "probable"  # a step leaned on a heuristic
    AMBIGUOUS = "ambiguous"  # several definitions share the name; the receiver is unknown


EXACT: Final = Confidence.EXACT
PROBABLE: Final = Confidence.PROBABLE
AMBIGUOUS: Final = Confidence.AMBIGUOUS
# Surest first: a chain is as sure as its weakest step (the highest rank).
CONFIDENCE_RANK: Final[dict[str, int]] = {c: rank for rank, c in enumerate(Confidence)}


@dataclass(frozen=True)
class Definition:
    """A symbol defined in a file."""

    path: str
    name: str
    qualified_name: str  # module path + nesting, e.g. "pkg.mod.Class.method"
    kind: str  # one of the definition kinds above
    line_start: int
    line_end: int
    signature: str = ""  # the header text: "def f(a, b=1) -> int" (decorators included)
    doc: str = ""  # docstring or leading comment, first paragraph
    parent: str = ""  # qualified name of the enclosing definition, "" at module level
    bases: tuple[str, ...] = ()  # for classes: base classes / implemented interfaces, as written


class Span(NamedTuple):
    """Where a definition is, without the rest of its record (text hits' enclosing symbol)."""

    qualified_name: str
    kind: str
    line_start: int
    line_end: int


@dataclass(frozen=True)
class Reference:
    """A use of a name in a file: a call, an import, a base class, an annotation..."""

    path: str
    name: str  # the last identifier referred to: "get" in requests.get(...)
    kind: str  # one of the reference kinds above
    line: int
    scope: str  # qualified name of the enclosing definition, "" for module level
    receiver: str = ""  # text before the final "." / "::" ("self", "os.path", "super()")
    # For imports: the dotted path imported ("a.b.c"; relative ones keep their leading dots,
    # "..pkg.mod"), and the local name it is bound to (`import a.b as c` binds "c";
    # `from a import b` binds "b"; `import a.b` binds "a").
    target: str = ""
    alias: str = ""


@dataclass(frozen=True)
class Chunk:
    """A piece of code to embed: a symbol's body, long bodies split."""

    path: str
    symbol: str  # qualified name of the enclosing definition, "" for module-level code
    line_start: int
    line_end: int
    text: str


@dataclass(frozen=True)
class FileSymbols:
    """Everything extracted from one file."""

    language: str
    definitions: tuple[Definition, ...] = ()
    references: tuple[Reference, ...] = ()
    chunks: tuple[Chunk, ...] = ()
    parse_errors: int = 0  # count of ERROR nodes tree-sitter recovered from


@dataclass(frozen=True)
class Hit:
    """One result of one retriever: a place in a file, with the modality's raw score."""

    path: str
    line_start: int
    line_end: int
    symbol: str  # qualified name of the enclosing definition, "<module>" for top-level code
    score: float  # the modality's raw score; never compared across modalities
    modality: str
    kind: str = ""  # the enclosing symbol's kind, when known
    depth: int = 0  # graph hits: distance from the target (1 = direct caller)
    confidence: str = ""  # graph hits: exact, probable or ambiguous
    via: tuple[str, ...] = field(default_factory=tuple)  # graph hits: the chain from the target
    # graph hits: "conforms" where the caller hands an instance of the changed method's
    # class to a declared type with a member of its name (TypeScript), "" for a reference
    reason: str = ""


# --- The guard's report (docs/json.md `check --format json`) --------------------------------

class ChangeKind(StrEnum):
    """What happened to a changed symbol (JSON `changed_symbols[].change`)."""

    ADDED = "added"
    REMOVED = "removed"
    MODIFIED = "modified"
    RENAMED = "renamed"
    SIGNATURE_CHANGED = "signature_changed"


ADDED: Final = ChangeKind.ADDED
REMOVED: Final = ChangeKind.REMOVED
MODIFIED: Final = ChangeKind.MODIFIED
RENAMED: Final = ChangeKind.RENAMED
SIGNATURE_CHANGED: Final = ChangeKind.SIGNATURE_CHANGED
CHANGE_KINDS: Final = tuple(ChangeKind)


class RiskLevel(StrEnum):
    """How risky a change is (guard/risk.py decides; `--fail-on` compares), weakest first."""

    NONE = "none"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


RISK_LEVELS: Final = tuple(RiskLevel)  # weakest first: the order `--fail-on` compares by


@dataclass(frozen=True)
class ChangedSymbol:
    path: str
    name: str
    qualified_name: str
    kind: str
    change: str  # one of CHANGE_KINDS
    line_start: int  # on the new side; on the old side for a removed symbol
    line_end: int
    old_name: str = ""  # for renamed: the name on the old side
    old_path: str = ""  # when the file moved or the symbol was removed
    risk: str = "none"  # none, low, medium, high


@dataclass(frozen=True)
class Contribution:
    """One modality's share of a fused score (design §5): what the report's "found by" shows."""

    modality: str
    rank: int  # 0-based position in that modality's list
    weight: float
    boost: float
    value: float  # weight * 1/(k + rank + 1) * boost


@dataclass(frozen=True)
class Link:
    """How an affected entry depends on ONE changed symbol. An entry may depend on several
    changed symbols, directly on one and through a chain on another, resolved for one and
    by name only for another: its own depth and confidence are those of its best link."""

    changed: str  # the changed symbol's qualified name, as in `because_of`
    depth: int
    confidence: str
    via: tuple[str, ...] = ()
    reason: str = ""  # "conforms" (records.Hit), "" for a reference naming the symbol


@dataclass(frozen=True)
class Affected:
    path: str
    symbol: str  # qualified name of the enclosing function/method/class, or "<module>"
    line: int
    kind: str
    score: float
    centrality: float
    depth: int
    because_of: tuple[str, ...]  # qualified names of the changed symbols
    modalities: tuple[str, ...]
    fusion_strategy: str  # "direct" or "rrf"
    confidence: str = EXACT  # exact, probable, ambiguous (the weakest edge on the chain)
    via: tuple[str, ...] = ()  # the chain from the changed symbol to this caller
    contributions: tuple[Contribution, ...] = ()
    links: tuple[Link, ...] = ()  # one per changed symbol in `because_of` (graph callers)


@dataclass(frozen=True)
class Fallback:
    path: str
    reason: str
    queries: tuple[str, ...]


# --- Every changed file accounted for (issue 17) ----------------------------------------

@dataclass(frozen=True)
class ChangedFile:
    """One changed path and what the guard did with it (check JSON `files`)."""

    path: str
    kind: str  # code, docs, metadata, config, generated, data, binary, submodule
    treatment: str  # analysed, analysed-no-behaviour-change, not-analysed
    reason: str
    changed_symbols: int = 0
    lower_bound: bool = False  # code may hide in it that was not analysed


@dataclass(frozen=True)
class Mention:
    """A place that names something a change touched, found by a fallback search: never a
    caller, never counted in the summary or the risk."""

    path: str
    line: int
    symbol: str
    because_of: str  # "<path>:<module>" of the change it was searched for
    term: str  # the identifier or literal that matched


@dataclass(frozen=True)
class DocMention:
    """Documentation that names a changed or removed symbol: it may need an update."""

    path: str
    line: int
    symbol: str  # the changed symbol's qualified name
    term: str  # the name found


@dataclass(frozen=True)
class Frame:
    """One frame of a pasted traceback or stack trace, as printed (search/stacks.py): the
    file as the trace names it (absolute, relative, or only a file name), its 1-based line,
    and the function. `module` is the Java/Kotlin class or Go package path, when printed."""

    file: str
    line: int
    function: str = ""
    module: str = ""
