"""The TypeScript leg of the comparison (issue 8): `tsc --noEmit` as the oracle.

`python bench/tsleg.py` fetches a pinned TypeScript package from the npm registry with its
sources (rxjs 7.8.1: 260 `.ts` files under `src/`, with its tsconfig), commits the sources
into a git repository under bench/.cache/repos, and installs a pinned TypeScript compiler
into bench/.cache/ts-tools (both through npm). Scenarios: a seeded sample of functions and
class methods with required parameters only, no overloads, whose name appears in another
file; the change appends a required parameter (`mgExtra: string`) to the definition only.

The oracle is the compiler: every error `tsc --noEmit` reports after the change (and not
before it), outside the changed definition, is a caller. A call with one argument too few
fails (TS2554), and so does passing the function where a callback of the old shape is
expected (TS2345): both are what the change breaks. tsc misses uses it cannot type (an
`any` receiver), as jedi does for Python.

Errors and reported lines map to callers the same way for every tool: (file, innermost
enclosing function, method or class, dotted, or `<module>`), read with tree-sitter's
TypeScript grammar. A signature change breaks no import, and tsc flags none, so lines of
import and re-export statements are dropped from every tool's answer. Tools: maguyva-guard
`check --staged --format json` (depth-1 entries of `affected`), and `git grep -n -w NAME -- '*.ts'`.

    python bench/tsleg.py [--scenarios 30] [--seed 1] [--out bench/results]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import legcore, measure  # noqa: E402
from bench.corpus import CACHE, REPOS, _git, _unpack, commit_as_repo  # noqa: E402
from bench.legcore import MODULE, Scenario, append_parameter, node_name  # noqa: E402,F401

PACKAGE, VERSION = "rxjs", "7.8.1"
TYPESCRIPT = ("typescript@4.9.5", "tslib@2.6.2")  # rxjs 7.8 builds with TypeScript 4.x
TOOLS = CACHE / "ts-tools"
NPM = CACHE / "npm"
TSCONFIG = "src/tsconfig.base.json"
EXTRA = "mgExtra: string"
KEEP = ("src", "tsconfig.json", "package.json", "LICENSE.txt", "README.md")
_ERROR = re.compile(r"^(?P<path>[^(\s][^(]*)\((?P<line>\d+),(?P<col>\d+)\): error (?P<code>TS\d+)")
_SCOPES = {"function_declaration", "generator_function_declaration", "method_definition",
           "class_declaration", "abstract_class_declaration", "interface_declaration"}


def _npm(args: list[str], cwd: Path) -> str:
    return subprocess.run(["npm", *args, "--silent", "--no-audit", "--no-fund"], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout


def ensure_tools(tools: Path = TOOLS, packages: tuple[str, ...] = TYPESCRIPT) -> Path:
    tsc = tools / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        tools.mkdir(parents=True, exist_ok=True)
        (tools / "package.json").write_text('{"private": true}\n')
        _npm(["install", *packages], tools)
    return tsc


def ensure_repo(version: str = VERSION, package: str = PACKAGE,
                tsconfig: str | None = None) -> Path:
    """A package's sources from its npm tarball (no `dist/`: compiled output is not what a
    developer edits). `tsconfig`: written as `tsconfig.json` where the tarball has none
    (bench/prlegs.py's projects kept apart)."""
    dest = REPOS / f"{package}-{version}"
    if (dest / ".git").is_dir():
        return dest
    NPM.mkdir(parents=True, exist_ok=True)
    archive = NPM / f"{package}-{version}.tgz"
    if not archive.exists():
        _npm(["pack", f"{package}@{version}", "--pack-destination", str(NPM)], NPM)
    REPOS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=REPOS) as tmp:
        top = _unpack(archive, Path(tmp))  # npm's "package/"
        for item in top.iterdir():
            if item.name not in KEEP:
                shutil.rmtree(item) if item.is_dir() else item.unlink()
        if tsconfig is not None and not (top / "tsconfig.json").exists():
            (top / "tsconfig.json").write_text(tsconfig)
        commit_as_repo(top, dest, f"{package} {version} from npm")
    return dest


# --- enclosing symbols, with tree-sitter's TypeScript grammar ------------------------------

def _parser():
    from tree_sitter_language_pack import get_parser

    return get_parser("typescript")


_name = node_name


def _ts_scope(node) -> str | None:
    return _name(node) if node.type in _SCOPES else None


def _ts_import(node) -> bool:
    return node.type == "import_statement" or (
        node.type == "export_statement" and node.child_by_field_name("source") is not None)


class Scopes(legcore.Scopes):
    """Line -> innermost enclosing named function, method or class of one file."""

    def __init__(self, text: str, parser) -> None:
        super().__init__(text, parser, _ts_scope, _ts_import)


# --- scenarios ---------------------------------------------------------------------------

def _plain_parameters(params) -> bool:
    """Required, simple parameters only: appending a required one stays valid TypeScript."""
    for p in params.named_children:
        pattern = p.child_by_field_name("pattern")
        if p.type != "required_parameter" or p.child_by_field_name("value") is not None:
            return False
        if pattern is None or pattern.type in ("this", "rest_pattern"):
            return False
    return True


def _overloaded(node, name: str) -> bool:
    """Whether an overload signature of `name` stands beside the definition (in the class
    body, or among the file's statements, each maybe wrapped in `export`)."""
    scope = node.parent.parent if node.parent.type == "export_statement" else node.parent
    for sibling in scope.children:
        decl = sibling.child_by_field_name("declaration") \
            if sibling.type == "export_statement" else sibling
        if decl is not None and decl.type in ("function_signature", "method_signature") \
                and _name(decl) == name:
            return True
    return False


def candidates(texts: dict[str, str]) -> list[Scenario]:
    parser = _parser()
    words: dict[str, set[str]] = {}
    for path, text in texts.items():
        for w in set(re.findall(r"[A-Za-z_$][\w$]*", text)):
            words.setdefault(w, set()).add(path)
    found = []
    for path, text in sorted(texts.items()):
        scopes = Scopes(text, parser)
        stack = [scopes.root]
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            if node.type not in ("function_declaration", "method_definition"):
                continue
            name = _name(node)
            params = node.child_by_field_name("parameters")
            if not name or params is None or node.child_by_field_name("body") is None:
                continue
            if name == "constructor" or name.startswith("#") or len(name) < 4:
                continue
            if _overloaded(node, name) or not _plain_parameters(params):
                continue
            if len(words.get(name, ())) < 2:  # used in no other file
                continue
            line = node.start_point[0] + 1
            qual = scopes.at(line) if node.type == "method_definition" else name
            found.append(Scenario(path, qual, name, "method" if node.type ==
                                  "method_definition" else "function", line,
                                  node.end_point[0] + 1, params.end_byte - 1,
                                  not params.named_children))
    return found


def change(text: str, s: Scenario) -> str:
    return append_parameter(text, s, EXTRA)


# --- the oracle and the tools -------------------------------------------------------------

def tsc_errors(tsc: Path, clone: Path,
               tsconfig: str = TSCONFIG) -> tuple[set[tuple[str, int, str]], float]:
    # rxjs's tsconfig asks for incremental builds: a .tsbuildinfo left by one scenario
    # would report errors of the one before (seen: the same four files for unrelated
    # changes), so every run is a full one.
    run = measure.run([str(tsc), "--noEmit", "--incremental", "false", "--pretty", "false",
                       "-p", tsconfig], clone, 900.0)
    errors = set()
    for row in run.stdout.splitlines():
        m = _ERROR.match(row)
        if m:
            path = Path(os.path.normpath(clone / m["path"])).relative_to(clone).as_posix()
            errors.add((path, int(m["line"]), m["code"]))
    return errors, run.seconds


def link_tools(clone: Path, tools: Path = TOOLS) -> None:
    """The compiler's node_modules beside a clone's sources (git does not see it)."""
    (clone / "node_modules").symlink_to(tools / "node_modules")
    (clone / ".git" / "info" / "exclude").write_text("node_modules\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenarios", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = ap.parse_args(argv)

    tsc = ensure_tools()
    corpus = ensure_repo()
    files = _git(["ls-files", "*.ts"], corpus).split()
    texts = {p: (corpus / p).read_text(encoding="utf-8") for p in files}
    parser = _parser()
    cache: dict[str, Scopes] = {}

    def scopes(path: str) -> Scopes:
        if path not in cache:
            cache[path] = Scopes(texts.get(path, ""), parser)
        return cache[path]

    found = candidates(texts)
    random.Random(args.seed).shuffle(found)

    leg = legcore.Leg("tsleg", "*.ts", scopes, change, lambda clone: tsc_errors(tsc, clone),
                      link_tools)
    res = legcore.run_leg(leg, corpus, texts, found, args.scenarios)
    md = "\n".join([
        *legcore.header(f"TypeScript leg: {PACKAGE} {VERSION}, `tsc --noEmit` as the oracle",
                        f"python bench/tsleg.py --scenarios {args.scenarios} --seed {args.seed}",
                        TYPESCRIPT[0]),
        f"{len(res.rows)} scenarios (a required parameter appended to a function or method "
        f"with required parameters only, no overloads), {len(found)} candidates, "
        f"{res.skipped} skipped (the change broke its own definition). {res.baseline} tsc "
        f"errors before any change. Oracle: tsc errors after the change, outside the "
        f"definition, mapped to enclosing symbols; "
        f"{sum(len(r['oracle']) for r in res.rows)} callers in all. tsc median "
        f"{legcore.median(res.compile_seconds):.2f} s a scenario (whole project); "
        f"maguyva-guard index {res.index_seconds:.1f} s once.",
        "",
        legcore.score_table(res),
        "",
    ])
    legcore.write(args.out, "tsleg", md, {"package": f"{PACKAGE}@{VERSION}",
                                          "typescript": TYPESCRIPT[0], "seed": args.seed}, res)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
