"""Resolve a reference to the definitions it can mean, the way the language does.

The graph retriever asks one question: does this reference (a call, an import, a base
class, a decorator, an annotation...) refer to that definition? Answering it by name alone
is what `git grep` does, and gets about three callers in four right. Here a reference is
resolved through the file's own bindings: its definitions, its imports (with aliases,
relative imports and re-exports through `__init__`), `self`/`cls`/`super()` through the
class and its bases, module-qualified names, constructor calls, local variables whose
type shows in the function (`obj = ClassName(...)`, `obj: ClassName`), and what a function
returns (`obj = make()` with `def make() -> ClassName` or `return ClassName(...)`).

Each answer carries how sure it is:
- exact: every step followed a static binding;
- probable: a step leaned on a heuristic (a local variable's inferred type, or a method name
  that only one class hierarchy in the repository defines);
- ambiguous: the receiver's type is unknown and several definitions share the name. Such a
  reference is kept, marked, so that an impact answer can say it is a lower bound.

Resolution is lazy and per file: only files that mention the target's name are looked at,
which is what keeps a query fast on a large repository without a whole-program pass.

The resolver is composed of six parts, one job each: modnames.py (module names from
paths), bindings.py (what a name means where), namespaces.py (packages of C#, Kotlin,
Scala, Swift), inference.py (types guessed from code),
foreign.py (receivers shown to be of a type outside the repository; Rust's in
rusttypes.py, with Rust's declared return types, and rustchains.py) and
policy.py (how each kind of reference is resolved); resolution_base.py holds what they share.
"""

from __future__ import annotations

from collections.abc import Callable

from maguyva_guard.index.edgestore import EdgeRows
from maguyva_guard.records import Definition, Reference
from maguyva_guard.retrievers.bindings import Bindings
from maguyva_guard.retrievers.edgecache import (
    ATTR,
    Answers,
    EdgeCache,
    RecordingSource,
    Tracker,
    ViewQuestions,
)
from maguyva_guard.retrievers.foreign import Foreign
from maguyva_guard.retrievers.inference import Inference
from maguyva_guard.retrievers.modnames import ModuleNaming
from maguyva_guard.retrievers.namespaces import Namespaces
from maguyva_guard.retrievers.policy import Policy
from maguyva_guard.retrievers.resolution_base import (
    ATTRIBUTE,
    CLASS_KINDS,
    Entity,
    FileScope,
    Resolution,
    SymbolSource,
)

__all__ = ["ATTRIBUTE", "CLASS_KINDS", "Entity", "FileScope", "Resolution", "Resolver",
           "SymbolSource"]


class Resolver(Policy, Inference, Foreign, Bindings, Namespaces, ModuleNaming):
    """Resolves references in one view of the repository (one set of files)."""

    def __init__(self, source: SymbolSource,
                 data_attribute: Callable[[str], bool] | None = None):
        self.source = source
        self.view = source
        self.tracker: Tracker | None = None  # set with the edge cache (use_edge_cache)
        self.edges: EdgeCache | None = None
        # Whether some class assigns `self.<name> = ...` (the graph asks the text index).
        self.data_attribute = data_attribute or (lambda name: False)
        self._scopes: dict[str, FileScope] = {}
        self._texts: dict[str, list[str]] = {}
        self._globals: dict[tuple[str, str], Entity | None] = {}
        self._resolved: dict[Reference, Resolution] = {}
        # method name -> (its definitions in classes, how many class hierarchies hold them)
        self._members: dict[tuple[str, str], tuple[Definition, ...]] = {}
        self._one_hierarchy: dict[str, bool] = {}
        self._returns: dict[tuple[str, str], Entity | None] = {}
        self._top: dict[str, list[str]] = {}
        self._namespaced: dict[tuple[str, str, str], Entity | None] = {}

    def use_edge_cache(self, rows: EdgeRows) -> EdgeCache:
        """Answer references from the index's edge cache where still valid, and note the
        questions of every new answer so it can be kept (edgecache.py). Before any use."""
        tracker = self.tracker = Tracker()
        view, attribute = self.view, self.data_attribute
        self.source = RecordingSource(view, tracker)

        def data_attribute(name: str) -> bool:
            tracker.ask((ATTR, name))
            return attribute(name)

        self.data_attribute = data_attribute
        answers = Answers(ViewQuestions(view.files, view.definitions,
                                        lambda: self.all_modules,
                                        lambda: self.all_module_of_path, attribute))
        self.edges = EdgeCache(rows, answers, tracker)
        return self.edges


def keep_module_names(repo: str) -> None:
    """Build and keep the module-name maps of the index's current view (modcache.py), so
    that the first check after `index` reads them instead of building them."""
    from maguyva_guard.index.store import Store

    with Store.open(repo) as store:
        Resolver(store).all_modules  # noqa: B018 (read for its side effect: the file)
