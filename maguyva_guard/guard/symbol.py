"""The guard without a diff: what would break if this one symbol changed, and who calls it.

`impact(store, "pkg.mod.parse")` answers as `check` would for a change inside the body of
`pkg.mod.parse`: the same callers (the graph decides membership, the fused score of both
guard intents ranks them), the same depth, confidence, chain and risk, and the same honesty
(ambiguous or name-only callers make the list a lower bound). The store must be up to date.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from maguyva_guard import spec
from maguyva_guard.errors import FatalError
from maguyva_guard.guard import impact as guard
from maguyva_guard.guard import model, risk
from maguyva_guard.index.store import Store
from maguyva_guard.records import MODIFIED, Affected, ChangedSymbol, Definition

CANDIDATES_NAMED: Final = 5  # definitions named in an "ambiguous symbol" error


def find(store: Store, symbol: str) -> list[Definition]:
    """The definitions `symbol` names: its full qualified name, else a whole-segment suffix
    of one ("QuerySet.filter", "filter"), as the graph reads a query's terms."""
    symbol = symbol.strip()
    exact = store.definitions(qualified_name=symbol)
    if exact:
        return exact
    name = symbol.rsplit(".", 1)[-1]
    return [d for d in store.definitions(name=name)
            if d.qualified_name == symbol or d.qualified_name.endswith("." + symbol)]


def resolve(store: Store, symbol: str) -> Definition:
    """The one definition `symbol` names; FatalError when it names none or several."""
    if not symbol.strip():
        raise FatalError("the symbol is empty")
    found = sorted(find(store, symbol), key=lambda d: (d.qualified_name, d.path, d.line_start))
    if not found:
        raise FatalError(f"no definition of {symbol!r} in the index "
                         f"({len(store.files())} files of the staged view)")
    names = list(dict.fromkeys(d.qualified_name for d in found))
    if len(found) > 1:
        shown = ", ".join(f"{d.qualified_name} ({d.path}:{d.line_start})"
                          for d in found[:CANDIDATES_NAMED])
        more = f" and {len(found) - CANDIDATES_NAMED} more" if len(found) > CANDIDATES_NAMED else ""
        hint = "a qualified name" if len(names) > 1 else "another name (same qualified name)"
        raise FatalError(f"{symbol!r} names {len(found)} definitions: {shown}{more}; "
                         f"give {hint}")
    return found[0]


def impact(store: Store, symbol: str, *, preset: str = spec.THOROUGH, depth: int = 2,
           semantic_config: object | None = None) -> model.ImpactReport:
    """The report `check` would give for an edit inside `symbol`'s body (head: the staged
    view). Raises FatalError for a symbol that names no definition or several."""
    if depth < 1:
        raise FatalError(f"the depth must be at least 1, not {depth}")
    target = resolve(store, symbol)
    changed = ChangedSymbol(path=target.path, name=target.name,
                            qualified_name=target.qualified_name, kind=target.kind,
                            change=MODIFIED, line_start=target.line_start,
                            line_end=target.line_end)
    recorders = guard.recorders_for(store, semantic_config)
    found = guard.callers_of(store, changed, target, preset=preset, depth=depth,
                             recorders=recorders, config=semantic_config)
    cent = guard.centralities(store, found.keys())
    everything = sorted(
        (_with_centrality(a, cent) for a in found.values()),
        key=lambda a: (-a.score, -a.centrality, a.depth, a.path, a.line),
    )
    affected, possible = guard._split_possible(everything)
    return model.ImpactReport(
        repo=".", base=None, head=model.STAGED,
        changed_symbols=risk.assess((changed,), [*affected, *possible]), affected=tuple(affected),
        stats=model.Stats(files_indexed=len(store.files())), possible=tuple(possible),
    )


def _with_centrality(a: Affected, cent: dict[tuple[str, str], float]) -> Affected:
    return replace(a, centrality=round(cent.get((a.path, a.symbol), 0.0), 4))
