"""Real release diffs in TypeScript, Java, Go and Rust, scored against a compiler (issue 17).

bench/prs.py checks each diff between consecutive published releases whole; for a Python
project it scores the callers of every signature-changed symbol against jedi. This module
does the same for compiled languages, with the oracles of bench/tsleg.py and
bench/compilerleg.py: for every function or method whose signature changed in the diff, a
required parameter is appended to its definition in the newer release (the release whose
callers the check reports) and every new compiler error outside the definition is a
depth-1 caller, mapped to its enclosing symbol as bench/legcore.py maps every tool's lines.
The check's depth-1 entries linked to that symbol, mapped the same way, are scored against
them (import lines dropped from both, as in the legs).

A symbol is not scored when the appended parameter breaks its own definition (a TypeScript
parameter list ending in an optional or rest parameter: then `mgExtra: never` is put first
instead, which no argument satisfies), or gives it a sibling overload's parameter types
(javac then reports the clash and checks no call), when it is a TypeScript overload set, or
a Go method whose name an interface declares (calls through the interface compile unchanged). tsc's
and javac's errors that a class no longer fits its interface or base class are not
callers (CONFORMANCE); Java constructors are scored too.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import tempfile
from collections.abc import Callable
from fnmatch import fnmatch
from pathlib import Path

from bench import compilerleg, legcore, tsleg
from bench.legcore import Scenario, node_name
from bench.oracle import Caller
from bench.scenarios import revert, scratch_clone

# Project -> (language, three consecutive releases: two diffs).
PROJECTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "rxjs": ("typescript", ("7.8.0", "7.8.1", "7.8.2")),
    "commons-cli": ("java", ("1.9.0", "1.10.0", "1.11.0")),
    "pflag": ("go", ("v1.0.9", "v1.0.10", "v1.1.0")),
    "regex-syntax": ("rust", ("0.8.10", "0.8.11", "0.8.12")),
    # Kept apart: added after the guard's Java overload typing was built on commons-cli.
    # (jopt-simple 5.0.2 -> 5.0.4 and jcommander 1.78 -> 1.82 were tried first: no
    # signature changed in them.)
    "commons-codec": ("java", ("1.17.1", "1.17.2", "1.18.0")),
    # Kept apart: added after the guard's structural conformance was built on rxjs
    # (6.9.1 -> 6.10.0 changes the method Reaction.getDisposer_ and makeObservable; 6.13.x
    # was tried first: its three changed functions were scored 100% / 100% before).
    "mobx": ("typescript", ("6.9.1", "6.10.0", "6.10.1")),
}
APART = frozenset({"commons-codec", "mobx"})  # scores pooled apart
# A project whose registry name is not its leg's (bench/compilerleg.py's LANGS).
PACKAGES = {"commons-codec": "commons-codec:commons-codec"}
TS_DEFS = ("function_declaration", "method_definition")


@dataclasses.dataclass(frozen=True)
class TsProject:
    """How a TypeScript project's sources are type-checked: its compiler and config."""

    tsconfig: str  # relative to the release's tree
    tools: Path  # where the compiler is installed
    typescript: tuple[str, ...]  # npm packages installed there
    written: str | None = None  # a tsconfig.json written where the tarball ships none


# mobx ships its sources without a tsconfig: a plain strict one (errors already there
# before a change are the baseline, left out of every scenario's).
MOBX_TSCONFIG = """{
  "compilerOptions": {"target": "ES2020", "module": "ESNext", "moduleResolution": "node",
                      "lib": ["ESNext", "DOM"], "strict": true, "noEmit": true,
                      "skipLibCheck": true, "downlevelIteration": true,
                      "noImplicitAny": false, "noImplicitThis": false},
  "include": ["src"]
}
"""
TS_PROJECTS = {
    "rxjs": TsProject(tsleg.TSCONFIG, tsleg.TOOLS, tsleg.TYPESCRIPT),
    "mobx": TsProject("tsconfig.json", tsleg.CACHE / "ts-tools-5", ("typescript@5.4.5",),
                      MOBX_TSCONFIG),
}
TS_FIRST = "mgExtra: never"  # put first when appending would break the definition itself
# tsc's "this class no longer fits its base type or interface" (reported at the method's
# own name, or at the class): a method that implements an interface (Subscriber.next of
# Observer) cannot gain a parameter without them; they name no call, so they are dropped.
CONFORMANCE = frozenset({"TS2416", "TS2420", "TS2415"})
JAVAC_CONFORMANCE = "does not override"  # javac's @Override and abstract-method errors
# The appended `String mgExtra` gives the definition a sibling overload's parameter types
# (commons-cli: `getOptionValue(char)` becomes `getOptionValue(char, String)`): javac
# reports the clash at the sibling and stops before it checks any call. The change broke
# the definition itself: not scored.
JAVAC_CLASH = "is already defined in"
# Definitions scored beyond the legs' (which leave constructors out of their samples).
MORE_DEFS = {"java": ("constructor_declaration",)}


def conformance(code: str) -> bool:
    """Whether a compiler error only says a class no longer fits its base type."""
    return code in CONFORMANCE or JAVAC_CONFORMANCE in code


def _lang(language: str, version: str, project: str = "") -> compilerleg.Lang:
    lang = compilerleg.LANGS[language]
    return dataclasses.replace(lang, version=version,
                               package=PACKAGES.get(project, lang.package))


def release_tree(project: str, version: str) -> Path:
    """A repository whose work tree holds the release's files (sources as the legs keep
    them)."""
    language = PROJECTS[project][0]
    if language == "typescript":
        return tsleg.ensure_repo(version, project, TS_PROJECTS[project].written)
    return compilerleg.ensure_repo(_lang(language, version, project))


def oracle_name(project: str) -> str:
    language = PROJECTS[project][0]
    return "tsc --noEmit" if language == "typescript" else compilerleg.LANGS[language].oracle


@dataclasses.dataclass
class Oracle:
    """One release's leg: its texts, scopes, compiler and definition node types."""

    leg: legcore.Leg
    texts: dict[str, str]
    parser: object
    defs: tuple[str, ...]
    skip: Callable[[object], str]  # a definition node -> why it cannot be scored, or ""


def oracle_for(project: str, version: str, tree: Path) -> Oracle:
    language = PROJECTS[project][0]
    if language == "typescript":
        glob, parser, defs = "*.ts", tsleg._parser(), TS_DEFS
        make = functools.partial(tsleg.Scopes, parser=parser)
        ts = TS_PROJECTS[project]
        tsc = tsleg.ensure_tools(ts.tools, ts.typescript)
        compile_ = functools.partial(tsleg.tsc_errors, tsc, tsconfig=ts.tsconfig)
        prepare = functools.partial(tsleg.link_tools, tools=ts.tools)
        extra = tsleg.EXTRA
    else:
        lang = _lang(language, version, project)
        glob, parser = lang.glob, compilerleg.parser(lang)
        defs = (*lang.defs, *MORE_DEFS.get(language, ()))
        make = functools.partial(compilerleg.scopes_of, lang, p=parser)
        compile_ = functools.partial(compilerleg.compile_errors, lang)
        prepare, extra = (lambda clone: None), lang.extra
    files = compilerleg._git(["ls-files", glob], tree).split()
    texts = {f: (tree / f).read_text(encoding="utf-8", errors="replace") for f in files}
    interface = compilerleg._interface_methods(_lang(language, version, project), texts, parser) \
        if language == "go" else set()

    @functools.cache
    def scopes(path: str) -> legcore.Scopes:
        return make(texts.get(path, ""))

    def skip(node) -> str:
        if language == "typescript" and tsleg._overloaded(node, node_name(node) or ""):
            return "an overload set"
        if node.type == "method_declaration" and node_name(node) in interface:
            return "a method an interface declares"
        return ""

    leg = legcore.Leg(f"pr-{language}", glob, scopes,
                      lambda text, s: legcore.append_parameter(text, s, extra), compile_,
                      prepare)
    return Oracle(leg, texts, parser, defs, skip)


def scenario(o: Oracle, sym: dict) -> tuple[Scenario | None, object]:
    """The definition of a changed symbol in the newer release, as a leg's scenario."""
    path, short = sym["path"], sym["qualified_name"].rsplit(".", 1)[-1]
    if path not in o.texts or sym["kind"] not in ("function", "method"):
        return None, None
    scopes = o.leg.scopes(path)
    nodes, stack = [], [scopes.root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type in o.defs and node_name(node) == short \
                and node.child_by_field_name("parameters") is not None:
            nodes.append(node)
    if o.leg.glob == "*.ts":
        # The definition at the symbol's lines: mobx's `interface IAtom { reportChanged():
        # void }` is no method_definition, and the class Atom's `reportChanged() {..}`
        # 50 lines below is another symbol (calls through an IAtom are not its callers).
        last = sym.get("line_end", sym["line_start"])
        nodes = [n for n in nodes
                 if n.start_point[0] + 1 <= last and n.end_point[0] + 1 >= sym["line_start"]]
    if not nodes:
        return None, None
    node = min(nodes, key=lambda n: abs(n.start_point[0] + 1 - sym["line_start"]))
    params = node.child_by_field_name("parameters")
    line = node.start_point[0] + 1
    qual = scopes.at(line)
    return Scenario(path, qual, short, sym["kind"], line, node.end_point[0] + 1,
                    params.end_byte - 1, not params.named_children), node


def _first(s: Scenario, node) -> tuple[Scenario, str]:
    """The TypeScript fallback: `mgExtra: never` as the first parameter."""
    params = node.child_by_field_name("parameters")
    extra = TS_FIRST + (", " if params.named_children else "")
    return dataclasses.replace(s, insert_at=params.start_byte + 1, empty=True), extra


def broken_callers(o: Oracle, clone: Path, baseline: set, s: Scenario,
                   node) -> frozenset[Caller] | None:
    """The compiler's callers of `s` (None: the change broke its own definition)."""
    errors = broken_errors(o, clone, baseline, s, node)
    return None if errors is None else legcore.oracle(errors, s, o.leg.scopes)


def broken_errors(o: Oracle, clone: Path, baseline: set, s: Scenario,
                  node) -> set[legcore.Error] | None:
    """The compiler's new errors once `s` gains a parameter (None: the change broke its
    own definition)."""
    tries = [(s, o.leg.change(o.texts[s.path], s))]
    if o.leg.glob == "*.ts":
        first, extra = _first(s, node)
        tries.append((first, legcore.append_parameter(o.texts[s.path], first, extra)))
    try:
        for _s, text in tries:
            (clone / s.path).write_text(text, encoding="utf-8")
            errors, _seconds = o.leg.compile(clone)
            new = {e for e in errors - baseline if not conformance(e[2])}
            if not any(p == s.path and s.start <= line <= s.end for p, line, _ in new) \
                    and not any(JAVAC_CLASH in code for _p, _line, code in new):
                return new
        return None
    finally:
        revert(clone, s)


def naming(o: Oracle, errors: set[legcore.Error], s: Scenario) -> frozenset[Caller]:
    """The callers with an error on a line that names the method. tsc also flags, at lines
    that do not, every place an instance of its class is passed where an interface it no
    longer fits is expected (structural typing: rxjs's `source.subscribe(subscriber)` once
    Subscriber.next takes two parameters): no call, the same conformance as CONFORMANCE's,
    reported at the use instead of the class."""
    word = re.compile(rf"(?<![\w$]){re.escape(s.name)}(?![\w$])")
    named = set()
    for path, line, _code in errors:
        lines = o.texts.get(path, "").splitlines()
        if 0 < line <= len(lines) and word.search(lines[line - 1]):
            named |= legcore.oracle({(path, line, _code)}, s, o.leg.scopes)
    return frozenset(named)


def answer(o: Oracle, entries: list[dict], changed: str,
           s: Scenario) -> tuple[set[Caller], set[Caller]]:
    """The check's depth-1 entries linked to `changed`, mapped to enclosing symbols: all
    of them, and those whose link is exact or probable."""
    out, resolved = set(), set()
    for a in entries:
        link = next((k for k in a.get("links", []) if k["changed_symbol"] == changed
                     and k["depth"] == 1), None)
        if link is None or not fnmatch(a["path"], o.leg.glob):
            continue
        line = a.get("line") or 0
        scopes = o.leg.scopes(a["path"])
        if line in scopes.imports:
            continue  # a signature change breaks no import: no compiler flags one
        caller = Caller(a["path"], scopes.at(line))
        # Lines inside the changed definition are left out, as legcore.oracle leaves them
        # out (an overload of the same name calling it is a caller of it).
        if a["path"] != s.path or not s.start <= line <= s.end:
            out.add(caller)
            if link["confidence"] != "ambiguous":
                resolved.add(caller)
    return out, resolved


def score_signatures(result, payload: dict, project: str, head: str) -> None:
    """Fill a bench/prs.py DiffResult's caller scores for one diff of a compiled project."""
    wanted = [sym for sym in payload["changed_symbols"] if sym["change"] == "signature_changed"]
    result.signature_changed += len(wanted)
    if not wanted:
        return
    tree = release_tree(project, head)
    o = oracle_for(project, head, tree)
    with tempfile.TemporaryDirectory(prefix=f"mg-prlegs-{project}-") as tmp:
        clone = scratch_clone(tree, Path(tmp) / "clone")
        o.leg.prepare(clone)
        baseline, _ = o.leg.compile(clone)
        for sym in wanted:
            name = sym["qualified_name"]
            s, node = scenario(o, sym)
            why = o.skip(node) if s is not None else \
                "no definition found" if sym["kind"] in ("function", "method") else \
                f"a {sym['kind']}, not a function or method"
            errors = None if why else broken_errors(o, clone, baseline, s, node)
            truth = None if errors is None else legcore.oracle(errors, s, o.leg.scopes)
            if s is None or truth is None or errors is None:
                result.unscored.append(f"{name}: {why or 'the change broke its own definition'}")
                continue
            result.oracle_symbols += 1
            ours, resolved = answer(o, payload["affected"], name, s)
            maybe = answer(o, payload.get("possible", []), name, s)[0] - ours
            result.tp += len(truth & ours)
            result.fp += len(ours - truth)
            result.fn += len(truth - ours)
            result.tp_resolved += len(truth & resolved)
            result.fp_resolved += len(resolved - truth)
            result.possible_tp += len(truth & maybe)
            result.possible_fp += len(maybe - truth)
            result.unnamed_fn += len(truth - ours - naming(o, errors, s))
            result.misses += [f"{name}: {c.path} {c.symbol}" for c in sorted(truth - ours)]
            result.extras += [f"{name}: {c.path} {c.symbol}" for c in sorted(ours - truth)]
