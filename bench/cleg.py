"""The C and C++ legs (issue 19): `gcc -fsyntax-only` / `g++ -fsyntax-only` as the oracle.

`python bench/cleg.py --leg c` takes Brotli 1.1.0's C sources from its PyPI sdist (the
`c/` tree: 32 translation units, headers under c/include and beside the sources);
`--leg cpp` takes LevelDB 1.20's C++ sources from the npm package leveldown 5.6.0
(deps/leveldb/leveldb-1.20: 66 translation units). Each is committed into a git repository
under bench/.cache/repos (nothing downloaded is committed here).

Scenarios: a seeded sample of functions (C) and free functions and methods (C++) with a
plain parameter list (not variadic), no overloads, whose name appears in another file. The
change appends a parameter (`int mg_extra`) to the definition and to every declaration of
it (the prototype in a header, the method's declaration in its class): what a developer
who changes a signature does. A change that breaks its own definition or declarations
(a parameter after one with a default, say) is skipped.

The oracle is the compiler: every error that `-fsyntax-only` reports after the change and
not before, in a translation unit that can see the function's name (its own text or a
header it includes, from `-MM`), outside the changed definition and declarations, is a
caller. Errors and tool answers map to callers the same way: (file, innermost enclosing
function, else class or struct, else `<module>`), read with tree-sitter's C or C++ grammar.
Tools: maguyva-guard `check --staged --format json` (depth-1 entries of `affected`), and
`git grep -n -w NAME` over the C/C++ files.

    python bench/cleg.py --leg c|cpp [--scenarios 30] [--seed 1] [--out bench/results]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import measure  # noqa: E402
from bench.baselines import mg_bin  # noqa: E402
from bench.corpus import REPOS, _git, _unpack, commit_as_repo, download_sdist  # noqa: E402
from bench.oracle import Caller  # noqa: E402
from bench.scenarios import scratch_clone  # noqa: E402
from bench.scoring import Outcome, score  # noqa: E402
from bench.tables import table  # noqa: E402
from bench.tsleg import NPM, _npm  # noqa: E402

MODULE = "<module>"
EXTRA = "int mg_extra"


@dataclass(frozen=True)
class Leg:
    name: str  # c | cpp
    package: str  # what it is and where it comes from
    grammar: str
    compiler: tuple[str, ...]
    extensions: tuple[str, ...]  # the files of the language (sources and headers)
    units: tuple[str, ...]  # folders whose sources are the translation units
    unit_suffix: str
    repo: str


LEGS = {
    "c": Leg("c", "Brotli 1.1.0 (PyPI sdist, its c/ tree)", "c",
             ("gcc", "-fsyntax-only", "-Ic/include"), (".c", ".h"), ("c",), ".c",
             "brotli-c-1.1.0"),
    "cpp": Leg("cpp", "LevelDB 1.20 (npm leveldown 5.6.0, deps/leveldb)", "cpp",
               ("g++", "-std=c++11", "-fsyntax-only", "-I.", "-Iinclude",
                "-DLEVELDB_PLATFORM_POSIX", "-DOS_LINUX"),
               (".cc", ".h"), ("db", "table", "util", "helpers"), ".cc", "leveldb-1.20"),
}
_ERROR = re.compile(r"^(?P<path>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: ")
_FUNCTION_SCOPES = {"function_definition"}
_TYPE_SCOPES = {"class_specifier", "struct_specifier"}


def ensure_repo(leg: Leg) -> Path:
    dest = REPOS / leg.repo
    if (dest / ".git").is_dir():
        return dest
    REPOS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=REPOS) as tmp:
        if leg.name == "c":
            top = _unpack(download_sdist("Brotli", "1.1.0"), Path(tmp))
            keep = ("c", "LICENSE", "README.md")
        else:
            NPM.mkdir(parents=True, exist_ok=True)
            archive = NPM / "leveldown-5.6.0.tgz"
            if not archive.exists():
                _npm(["pack", "leveldown@5.6.0", "--pack-destination", str(NPM)], NPM)
            top = _unpack(archive, Path(tmp)) / "deps" / "leveldb" / "leveldb-1.20"
            keep = ("db", "table", "util", "helpers", "include", "port", "LICENSE", "README.md")
        for item in top.iterdir():
            if item.name not in keep:
                shutil.rmtree(item) if item.is_dir() else item.unlink()
        shutil.rmtree(top / "port" / "win", ignore_errors=True)
        commit_as_repo(top, dest, f"{leg.package}")
    return dest


# --- enclosing symbols, with tree-sitter ---------------------------------------------------

def parser(grammar: str):
    from tree_sitter_language_pack import get_parser

    return get_parser(grammar)


def declarator_name(node) -> str | None:
    """The name a function definition or declaration declares ("f", "DBImpl::Write")."""
    d = node.child_by_field_name("declarator")
    while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
        d = d.child_by_field_name("declarator") or (d.named_children[-1]
                                                    if d.named_children else None)
    if d is None or d.type != "function_declarator":
        return None
    inner = d.child_by_field_name("declarator")
    return inner.text.decode() if inner is not None else None


class Scopes:
    """Line -> innermost enclosing function (else class or struct) of one file."""

    def __init__(self, text: str, ts_parser) -> None:
        self.functions: list[tuple[int, int, str]] = []
        self.types: list[tuple[int, int, str]] = []
        self.root = ts_parser.parse(text.encode()).root_node
        stack = [self.root]
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            span = (node.start_point[0] + 1, node.end_point[0] + 1)
            if node.type in _FUNCTION_SCOPES:
                name = declarator_name(node)
                if name:
                    self.functions.append((*span, f"{name}@{span[0]}"))
            elif node.type in _TYPE_SCOPES and node.child_by_field_name("body") is not None:
                name = node.child_by_field_name("name")
                if name is not None:
                    self.types.append((*span, name.text.decode()))

    def at(self, line: int) -> str:
        for spans in (self.functions, self.types):
            best = None
            for start, end, name in spans:
                if start <= line <= end and (best is None or start >= best[0]):
                    best = (start, name)
            if best:
                return best[1]
        return MODULE


# --- scenarios ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Site:
    """One place to change: a definition or a declaration's parameter list."""

    path: str
    start: int  # lines of the definition or declaration, 1-based
    end: int
    params_start: int  # byte offsets of "(" and ")"
    params_end: int
    void: bool  # `(void)`: the parameter list is replaced
    empty: bool  # `()`


@dataclass(frozen=True)
class Scenario:
    name: str  # the function's own name
    key: str  # path::declared name of the definition
    kind: str  # function | method
    sites: tuple[Site, ...]  # the definition first

    def changed(self, path: str, line: int) -> bool:
        return any(s.path == path and s.start <= line <= s.end for s in self.sites)


def _function_declarator(node):
    d = node.child_by_field_name("declarator")
    while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
        d = d.child_by_field_name("declarator") or (d.named_children[-1]
                                                    if d.named_children else None)
    return d if d is not None and d.type == "function_declarator" else None


def _site(path: str, node) -> tuple[Site | None, str] | None:
    """The site of a function's definition or declaration and the name it declares; the
    site is None when the parameter list cannot take one more parameter plainly."""
    fd = _function_declarator(node)
    if fd is None:
        return None
    params = fd.child_by_field_name("parameters")
    inner = fd.child_by_field_name("declarator")
    if params is None or inner is None:
        return None
    text = params.text.decode()
    if "..." in text or "=" in text:
        return None, inner.text.decode()  # variadic, or defaults (the next needs one too)
    body = " ".join(text[1:-1].split())
    site = Site(path, node.start_point[0] + 1, node.end_point[0] + 1, params.start_byte,
                params.end_byte - 1, body == "void", body == "")
    return site, inner.text.decode()


def _sites(texts: dict[str, str], ts_parser):
    """(declared name, kind: definition|declaration|unchangeable, class or "", Site) of
    every function."""
    for path, text in sorted(texts.items()):
        root = ts_parser.parse(text.encode()).root_node
        stack = [(root, "")]
        while stack:
            node, owner = stack.pop()
            if node.type in ("class_specifier", "struct_specifier"):
                name = node.child_by_field_name("name")
                owner = name.text.decode() if name is not None else owner
            if node.type in ("function_definition", "declaration", "field_declaration"):
                found = _site(path, node)
                if found is not None:
                    site, declared = found
                    kind = "definition" if node.type == "function_definition" else "declaration"
                    yield declared, kind if site is not None else "unchangeable", owner, site
                    if kind == "definition":
                        continue
            stack.extend((child, owner) for child in node.children)


def candidates(texts: dict[str, str], grammar: str) -> list[Scenario]:
    ts_parser = parser(grammar)
    files_with: dict[str, set[str]] = {}
    for path, text in texts.items():
        for w in set(re.findall(r"[A-Za-z_]\w*", text)):
            files_with.setdefault(w, set()).add(path)
    by_name: dict[str, list[tuple[str, str, str, Site]]] = {}
    for declared, kind, owner, site in _sites(texts, ts_parser):
        short = declared.rsplit("::", 1)[-1]
        if not re.fullmatch(r"[A-Za-z_]\w*", short):
            continue  # an operator, a destructor
        full = declared if "::" in declared else (f"{owner}::{short}" if owner else short)
        by_name.setdefault(short, []).append((full, kind, owner, site))
    found = []
    for short, entries in sorted(by_name.items()):
        definitions = [e for e in entries if e[1] == "definition"]
        fulls = {e[0] for e in entries}
        if any(e[1] == "unchangeable" for e in entries):
            continue
        if len(definitions) != 1 or len(fulls) != 1 or len(short) < 4:
            continue  # overloaded, defined twice (two programs), or too short to matter
        if len(files_with.get(short, ())) < 2 or short == (definitions[0][2] or None):
            continue  # used in no other file, or a constructor
        full, _, owner, site = definitions[0]
        declarations = [e[3] for e in entries if e[1] == "declaration"]
        kind = "method" if "::" in full else "function"
        found.append(Scenario(short, f"{site.path}::{full}", kind, (site, *declarations)))
    return found


def change(text: str, sites: list[Site]) -> str:
    """`text` with EXTRA appended to the parameter lists of `sites` (all in this file)."""
    data = text.encode()
    for s in sorted(sites, key=lambda s: -s.params_start):
        if s.void:
            data = data[: s.params_start + 1] + EXTRA.encode() + data[s.params_end:]
        else:
            insert = (EXTRA if s.empty else ", " + EXTRA).encode()
            data = data[: s.params_end] + insert + data[s.params_end:]
    return data.decode()


# --- the oracle and the tools -------------------------------------------------------------

def units(leg: Leg, files: list[str]) -> list[str]:
    return [f for f in files if f.endswith(leg.unit_suffix)
            and f.split("/")[0] in leg.units]


def dependencies(leg: Leg, clone: Path, unit: str) -> set[str]:
    run = subprocess.run([leg.compiler[0], *leg.compiler[1:], "-MM", unit], cwd=clone,
                         capture_output=True, text=True)
    words = run.stdout.replace("\\\n", " ").split()
    return {os.path.normpath(w) for w in words[1:] if not w.startswith("/")}


def compile_errors(leg: Leg, clone: Path, chosen: list[str]) -> tuple[set[tuple[str, int]], float]:
    """(file, line) of every error the compiler reports over `chosen` units; CPU seconds."""
    errors: set[tuple[str, int]] = set()
    cpu = 0.0
    for unit in chosen:
        run = measure.run([*leg.compiler, unit], clone, 300.0)
        cpu += run.cpu_seconds
        for row in run.stderr.splitlines():
            m = _ERROR.match(row)
            if m:
                errors.add((os.path.normpath(m["path"]), int(m["line"])))
    return errors, cpu


def run_mg(clone: Path, s: Scenario, scopes) -> tuple[tuple[Caller, ...], measure.Run, bool]:
    run = measure.run([mg_bin(), "check", "--repo", str(clone), "--staged", "--format", "json"],
                      clone, 600.0)
    if run.returncode not in (0, 1):
        return (), run, False
    seen: dict[Caller, None] = {}
    for entry in json.loads(run.stdout).get("affected", []):
        line = entry.get("line") or 0
        if entry.get("depth", 1) != 1 or s.changed(entry["path"], line):
            continue
        seen.setdefault(Caller(entry["path"], scopes(entry["path"]).at(line)), None)
    return tuple(seen), run, True


def run_grep(leg: Leg, clone: Path, s: Scenario, scopes):
    globs = [f"*{e}" for e in leg.extensions]
    run = measure.run(["git", "grep", "-n", "-w", s.name, "--", *globs], clone, 60.0)
    seen: dict[Caller, None] = {}
    for row in run.stdout.splitlines():
        path, line, _ = row.split(":", 2)
        if not s.changed(path, int(line)):
            seen.setdefault(Caller(path, scopes(path).at(int(line))), None)
    return tuple(seen), run, run.returncode in (0, 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--leg", choices=sorted(LEGS), required=True)
    ap.add_argument("--scenarios", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    ap.add_argument("--max-minutes", type=float, default=0.0,
                    help="start no scenario after this long (0: no limit); the results say "
                         "how many ran")
    args = ap.parse_args(argv)
    leg = LEGS[args.leg]
    started = time.monotonic()

    corpus = ensure_repo(leg)
    files = _git(["ls-files", *[f"*{e}" for e in leg.extensions]], corpus).split()
    texts = {p: (corpus / p).read_text(encoding="utf-8", errors="replace") for p in files}
    ts_parser = parser(leg.grammar)
    cache: dict[str, Scopes] = {}

    def scopes(path: str) -> Scopes:
        if path not in cache:
            cache[path] = Scopes(texts.get(path, ""), ts_parser)
        return cache[path]

    found = candidates(texts, leg.grammar)
    random.Random(args.seed).shuffle(found)
    with tempfile.TemporaryDirectory(prefix=f"mg-cleg-{leg.name}-") as tmp:
        clone = scratch_clone(corpus, Path(tmp) / "clone")
        all_units = units(leg, files)
        deps = {u: dependencies(leg, clone, u) | {u} for u in all_units}
        baseline, base_cpu = compile_errors(leg, clone, all_units)
        index = measure.run([mg_bin(), "index"], clone, 900.0)
        outcomes: dict[str, list[Outcome]] = {"grep": [], "maguyva-guard:default": []}
        rows, compiler_cpu, skipped, mg_cpu = [], [], 0, []
        for s in found:
            if len(rows) == args.scenarios or (
                    args.max_minutes and time.monotonic() - started > 60 * args.max_minutes):
                break
            mentioning = {p for p, t in texts.items() if re.search(rf"\b{s.name}\b", t)}
            chosen = [u for u in all_units if deps[u] & mentioning]
            paths = sorted({site.path for site in s.sites})
            for path in paths:
                (clone / path).write_text(change(texts[path], [x for x in s.sites
                                                              if x.path == path]))
            errors, cpu = compile_errors(leg, clone, chosen)
            new = errors - baseline
            truth = frozenset(Caller(p, scopes(p).at(line)) for p, line in new
                              if not s.changed(p, line))
            if any(s.changed(p, line) for p, line in new):
                skipped += 1  # the change broke its own definition or declarations
            elif truth:
                subprocess.run(["git", "add", "--", *paths], cwd=clone, check=True)
                compiler_cpu.append(cpu)
                row = {"key": s.key, "kind": s.kind, "units_compiled": len(chosen),
                       "oracle": sorted([c.path, c.symbol] for c in truth), "tools": {}}
                for tool in outcomes:
                    callers, run, ok = (run_grep(leg, clone, s, scopes) if tool == "grep"
                                        else run_mg(clone, s, scopes))
                    outcomes[tool].append(Outcome(truth, callers, ok, run.seconds,
                                                  run.max_rss_mb))
                    if tool != "grep":
                        mg_cpu.append(run.cpu_seconds)
                    row["tools"][tool] = {"callers": sorted([c.path, c.symbol] for c in callers),
                                          "seconds": round(run.seconds, 3),
                                          "cpu_seconds": round(run.cpu_seconds, 3), "ok": ok}
                rows.append(row)
                print(f"  [{len(rows)}/{args.scenarios}] {s.key}: compiler={len(truth)}, " +
                      ", ".join(f"{t}={len(r['callers'])}" for t, r in row["tools"].items()),
                      file=sys.stderr, flush=True)
            subprocess.run(["git", "reset", "-q", "--", *paths], cwd=clone, check=True)
            subprocess.run(["git", "checkout", "-q", "--", *paths], cwd=clone, check=True)

    write_results(args, leg, rows, found, skipped, baseline, base_cpu, compiler_cpu, mg_cpu,
                  index, {t: score(o) for t, o in outcomes.items()})
    return 0


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2] if values else 0.0


def write_results(args, leg: Leg, rows, found, skipped, baseline, base_cpu, compiler_cpu,
                  mg_cpu, index, scores) -> None:
    load = os.getloadavg()[0]
    md = "\n".join([
        f"# {leg.name.upper()} leg: {leg.package}, `{' '.join(leg.compiler)}` as the oracle",
        "",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} cores "
        f"shared (load average {load:.1f} at the end), Python {platform.python_version()}. "
        f"Command: `python bench/cleg.py --leg {leg.name} --scenarios {args.scenarios} "
        f"--seed {args.seed}" + (f" --max-minutes {args.max_minutes:g}" if args.max_minutes
                                 else "") + "`.",
        "",
        f"{len(rows)} scenarios (`{EXTRA}` appended to a function's definition and its "
        f"declarations), {len(found)} candidates, {skipped} skipped (the change broke its own "
        f"definition or declarations). {len(baseline)} compiler errors before any change "
        f"({base_cpu:.1f} s CPU for every unit). Oracle: new errors outside the changed "
        f"definition and declarations, mapped to enclosing functions; "
        f"{sum(len(r['oracle']) for r in rows)} callers in all. Compiler median "
        f"{_median(compiler_cpu):.2f} s CPU a scenario (the units that can see the name); "
        f"maguyva-guard median {_median(mg_cpu):.2f} s CPU a check; index "
        f"{index.seconds:.1f} s wall once.",
        "",
        table(scores, {}),
        "",
    ])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"cleg-{leg.name}.md").write_text(md)
    (args.out / f"cleg-{leg.name}.json").write_text(json.dumps(
        {"package": leg.package, "compiler": list(leg.compiler), "seed": args.seed,
         "scenarios": rows}, indent=1) + "\n")
    print(md)


if __name__ == "__main__":
    sys.exit(main())
