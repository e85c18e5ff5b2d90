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
from dataclasses import dataclass
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import measure  # noqa: E402
from bench.baselines import mg_bin  # noqa: E402
from bench.corpus import CACHE, REPOS, _git, _unpack, commit_as_repo  # noqa: E402
from bench.oracle import Caller  # noqa: E402
from bench.scenarios import revert, scratch_clone  # noqa: E402
from bench.scoring import Outcome, score  # noqa: E402
from bench.tables import table  # noqa: E402

PACKAGE, VERSION = "rxjs", "7.8.1"
TYPESCRIPT = ("typescript@4.9.5", "tslib@2.6.2")  # rxjs 7.8 builds with TypeScript 4.x
TOOLS = CACHE / "ts-tools"
NPM = CACHE / "npm"
TSCONFIG = "src/tsconfig.base.json"
EXTRA = "mgExtra: string"
MODULE = "<module>"
KEEP = ("src", "tsconfig.json", "package.json", "LICENSE.txt", "README.md")
_ERROR = re.compile(r"^(?P<path>[^(\s][^(]*)\((?P<line>\d+),(?P<col>\d+)\): error (?P<code>TS\d+)")
_SCOPES = {"function_declaration", "generator_function_declaration", "method_definition",
           "class_declaration", "abstract_class_declaration", "interface_declaration"}


def _npm(args: list[str], cwd: Path) -> str:
    return subprocess.run(["npm", *args, "--silent", "--no-audit", "--no-fund"], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout


def ensure_tools() -> Path:
    tsc = TOOLS / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        TOOLS.mkdir(parents=True, exist_ok=True)
        (TOOLS / "package.json").write_text('{"private": true}\n')
        _npm(["install", *TYPESCRIPT], TOOLS)
    return tsc


def ensure_repo(version: str = VERSION) -> Path:
    """rxjs's sources (no `dist/`: compiled output is not what a developer edits)."""
    dest = REPOS / f"{PACKAGE}-{version}"
    if (dest / ".git").is_dir():
        return dest
    NPM.mkdir(parents=True, exist_ok=True)
    archive = NPM / f"{PACKAGE}-{version}.tgz"
    if not archive.exists():
        _npm(["pack", f"{PACKAGE}@{version}", "--pack-destination", str(NPM)], NPM)
    REPOS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=REPOS) as tmp:
        top = _unpack(archive, Path(tmp))  # npm's "package/"
        for item in top.iterdir():
            if item.name not in KEEP:
                shutil.rmtree(item) if item.is_dir() else item.unlink()
        commit_as_repo(top, dest, f"{PACKAGE} {version} from npm")
    return dest


# --- enclosing symbols, with tree-sitter's TypeScript grammar ------------------------------

def _parser():
    from tree_sitter_language_pack import get_parser

    return get_parser("typescript")


def _name(node) -> str | None:
    name = node.child_by_field_name("name")
    return name.text.decode() if name is not None else None


class Scopes:
    """Line -> innermost enclosing named function, method or class of one file."""

    def __init__(self, text: str, parser) -> None:
        self.spans: list[tuple[int, int, str]] = []  # 1-based start, end, dotted name
        self.imports: set[int] = set()  # lines of import and re-export statements
        self.root = parser.parse(text.encode()).root_node
        self._walk(self.root, ())

    def _walk(self, node, outer: tuple[str, ...]) -> None:
        for child in node.children:
            if child.type == "import_statement" or (
                    child.type == "export_statement" and child.child_by_field_name("source")):
                self.imports.update(range(child.start_point[0] + 1, child.end_point[0] + 2))
            inner = outer
            if child.type in _SCOPES and _name(child):
                inner = (*outer, _name(child))
                self.spans.append((child.start_point[0] + 1, child.end_point[0] + 1,
                                   ".".join(inner)))
            self._walk(child, inner)

    def at(self, line: int) -> str:
        best = None
        for start, end, name in self.spans:
            if start <= line <= end and (best is None or start >= best[0]):
                best = (start, name)
        return best[1] if best else MODULE


# --- scenarios ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Scenario:
    path: str
    qualname: str
    name: str
    kind: str  # function | method
    start: int  # the definition's lines, 1-based
    end: int
    insert_at: int  # byte offset of the closing ")" of its parameters
    empty: bool  # no parameters yet

    @property
    def key(self) -> str:
        return f"{self.path}::{self.qualname}"


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
    data = text.encode()
    insert = (EXTRA if s.empty else ", " + EXTRA).encode()
    return (data[: s.insert_at] + insert + data[s.insert_at:]).decode()


# --- the oracle and the tools -------------------------------------------------------------

def tsc_errors(tsc: Path, clone: Path) -> tuple[set[tuple[str, int, str]], float]:
    # rxjs's tsconfig asks for incremental builds: a .tsbuildinfo left by one scenario
    # would report errors of the one before (seen: the same four files for unrelated
    # changes), so every run is a full one.
    run = measure.run([str(tsc), "--noEmit", "--incremental", "false", "--pretty", "false",
                       "-p", TSCONFIG], clone, 900.0)
    errors = set()
    for row in run.stdout.splitlines():
        m = _ERROR.match(row)
        if m:
            path = Path(os.path.normpath(clone / m["path"])).relative_to(clone).as_posix()
            errors.add((path, int(m["line"]), m["code"]))
    return errors, run.seconds


def oracle(new_errors: set, s: Scenario, scopes) -> frozenset[Caller]:
    """The callers the compiler says the change breaks (errors it did not report before)."""
    out = set()
    for path, line, _code in new_errors:
        if path == s.path and s.start <= line <= s.end:
            continue  # inside the changed definition itself
        out.add(Caller(path, scopes(path).at(line)))
    return frozenset(out)


def run_mg(clone: Path, s: Scenario, scopes) -> tuple[tuple[Caller, ...], measure.Run, bool]:
    run = measure.run([mg_bin(), "check", "--repo", str(clone), "--staged", "--format", "json"],
                      clone, 600.0)
    if run.returncode not in (0, 1):
        return (), run, False
    seen: dict[Caller, None] = {}
    for entry in json.loads(run.stdout).get("affected", []):
        if entry.get("depth", 1) != 1 or not entry["path"].endswith(".ts"):
            continue
        line = entry.get("line") or 0
        if line in scopes(entry["path"]).imports:
            continue  # a signature change breaks no import: tsc never flags one
        c = Caller(entry["path"], scopes(entry["path"]).at(line))
        if c != Caller(s.path, s.qualname):
            seen.setdefault(c, None)
    return tuple(seen), run, True


def run_grep(clone: Path, s: Scenario, scopes) -> tuple[tuple[Caller, ...], measure.Run, bool]:
    run = measure.run(["git", "grep", "-n", "-w", s.name, "--", "*.ts"], clone, 60.0)
    seen: dict[Caller, None] = {}
    for row in run.stdout.splitlines():
        path, line, _ = row.split(":", 2)
        if (path == s.path and s.start <= int(line) <= s.end) or \
                int(line) in scopes(path).imports:
            continue
        seen.setdefault(Caller(path, scopes(path).at(int(line))), None)
    return tuple(seen), run, run.returncode in (0, 1)


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
    with tempfile.TemporaryDirectory(prefix="mg-tsleg-") as tmp:
        clone = scratch_clone(corpus, Path(tmp) / "clone")
        (clone / "node_modules").symlink_to(TOOLS / "node_modules")
        (clone / ".git" / "info" / "exclude").write_text("node_modules\n")
        baseline, base_seconds = tsc_errors(tsc, clone)
        index = measure.run([mg_bin(), "index"], clone, 600.0)
        outcomes: dict[str, list[Outcome]] = {"grep": [], "maguyva-guard:default": []}
        rows, tsc_seconds, skipped = [], [], 0
        for s in found:
            if len(rows) == args.scenarios:
                break
            file = clone / s.path
            file.write_text(change(texts[s.path], s), encoding="utf-8")
            errors, seconds = tsc_errors(tsc, clone)
            new = errors - baseline
            truth = oracle(new, s, scopes)
            if any(p == s.path and s.start <= line <= s.end for p, line, _ in new):
                skipped += 1  # the change broke its own definition: not a clean scenario
            elif truth:
                subprocess.run(["git", "add", "--", s.path], cwd=clone, check=True)
                tsc_seconds.append(seconds)
                row = {"key": s.key, "kind": s.kind,
                       "oracle": sorted([c.path, c.symbol] for c in truth), "tools": {}}
                for tool, fn in (("grep", run_grep), ("maguyva-guard:default", run_mg)):
                    callers, run, ok = fn(clone, s, scopes)
                    outcomes[tool].append(Outcome(truth, callers, ok, run.seconds,
                                                  run.max_rss_mb))
                    row["tools"][tool] = {"callers": sorted([c.path, c.symbol] for c in callers),
                                          "seconds": round(run.seconds, 3), "ok": ok}
                rows.append(row)
                print(f"  [{len(rows)}/{args.scenarios}] {s.key}: tsc={len(truth)}, " +
                      ", ".join(f"{t}={len(r['callers'])}" for t, r in row["tools"].items()),
                      file=sys.stderr)
            revert(clone, s)

    scores = {t: score(o) for t, o in outcomes.items()}
    median_tsc = sorted(tsc_seconds)[len(tsc_seconds) // 2] if tsc_seconds else None
    md = "\n".join([
        f"# TypeScript leg: {PACKAGE} {VERSION}, `tsc --noEmit` as the oracle",
        "",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {TYPESCRIPT[0]}. Command: "
        f"`python bench/tsleg.py --scenarios {args.scenarios} --seed {args.seed}`.",
        "",
        f"{len(rows)} scenarios (a required parameter appended to a function or method with "
        f"required parameters only, no overloads), {len(found)} candidates, {skipped} "
        f"skipped (the change broke its own definition). {len(baseline)} tsc errors before "
        f"any change. Oracle: tsc errors after the change, outside the definition, mapped "
        f"to enclosing symbols; {sum(len(r['oracle']) for r in rows)} callers in all. "
        f"tsc median {median_tsc or 0:.2f} s a scenario (whole project); maguyva-guard index "
        f"{index.seconds:.1f} s once.",
        "",
        table(scores, {}),
        "",
    ])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "tsleg.md").write_text(md)
    (args.out / "tsleg.json").write_text(json.dumps(
        {"package": f"{PACKAGE}@{VERSION}", "typescript": TYPESCRIPT[0], "seed": args.seed,
         "scenarios": rows}, indent=1) + "\n")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
