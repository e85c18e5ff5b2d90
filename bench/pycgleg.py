"""Small programs written by others to exercise call-graph construction (issue 24): PyCG's
micro-benchmark, scored on false "no callers" answers.

`python bench/pycgleg.py` downloads PyCG's sdist from PyPI (pycg 0.0.8, which ships its
`micro-benchmark/snippets/<category>/<case>/` folders: a few Python files and the expected
call graph, `callgraph.json`, written by PyCG's authors) into bench/.cache/pycg. For every
function or method a snippet defines and some other function (or the module) calls in the
expected graph, the scenario appends a required parameter to that definition; each snippet
becomes a git repository and `maguyva-guard check --staged --format json` answers. Truth:
the callers `callgraph.json` lists (dotted `module.function`, the module itself for
module-level code). Scored: caller precision and recall (depth-1 entries of `affected`),
and the answers with no affected caller where the graph has some, split into those that
said "complete" (a false "no impact") and those that said "lower bound".

    python bench/pycgleg.py [--out bench/results] [--only CATEGORY ...]
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import measure  # noqa: E402
from bench.baselines import mg_bin  # noqa: E402
from bench.corpus import CACHE, _git  # noqa: E402

PACKAGE, VERSION = "pycg", "0.0.8"
HOME = CACHE / "pycg"
EXTRA = "mg_extra"


def ensure_suite() -> Path:
    """The snippets folder of PyCG's sdist (downloaded once through pip)."""
    root = HOME / f"{PACKAGE}-{VERSION}" / "micro-benchmark" / "snippets"
    if root.is_dir():
        return root
    HOME.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                    ":all:", "-d", str(HOME), f"{PACKAGE}=={VERSION}"], check=True,
                   capture_output=True)
    with tarfile.open(HOME / f"{PACKAGE}-{VERSION}.tar.gz") as tar:
        tar.extractall(HOME, filter="data")
    return root


def module_of(rel: str) -> str:
    return rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def definitions(case: Path) -> dict[str, tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function and method of the snippet: dotted name -> (file, node)."""
    out: dict[str, tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for path in sorted(case.rglob("*.py")):
        rel = path.relative_to(case).as_posix()
        try:
            tree = ast.parse(path.read_text())
        except SyntaxError:
            continue
        todo: list[tuple[str, ast.AST]] = [(module_of(rel), tree)]
        while todo:
            prefix, node = todo.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}.{child.name}"
                    if not isinstance(child, ast.ClassDef):
                        out.setdefault(name, (rel, child))
                    todo.append((name, child))
                elif not isinstance(child, ast.expr):
                    todo.append((prefix, child))
    return out


def with_parameter(text: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The source with a required parameter appended to `node`'s parameters (None where
    that cannot be one: after `**kwargs`)."""
    if node.args.kwarg is not None:
        return None
    lines = text.splitlines(keepends=True)
    start = sum(len(x) for x in lines[: node.lineno - 1]) + node.col_offset
    at = text.find("(", text.find(f"def {node.name}", start))
    depth = 0
    for i in range(at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                inside = text[at + 1 : i].strip()
                sep = "" if not inside or inside.endswith(",") else ", "
                return text[:i] + sep + EXTRA + text[i:]
    return None


def truth_for(graph: dict[str, list[str]]) -> dict[str, set[str]]:
    callers: dict[str, set[str]] = {}
    for caller, callees in graph.items():
        for callee in callees:
            if callee != caller:
                callers.setdefault(callee, set()).add(caller)
    return callers


def answer(repo: Path) -> tuple[set[str], bool, bool, float]:
    """Callers maguyva-guard reports (dotted, the module for module level), complete, ok."""
    run = measure.run([mg_bin(), "check", "--repo", str(repo), "--staged", "--format", "json",
                       "--depth", "1"], repo, 300.0)
    if run.returncode not in (0, 1):
        return set(), False, False, run.seconds
    payload = json.loads(run.stdout)
    found = set()
    for entry in payload.get("affected", []):
        if entry.get("depth", 1) != 1:
            continue
        symbol = entry.get("symbol") or ""
        found.add(symbol if symbol and symbol != "<module>" else module_of(entry["path"]))
    return found, bool(payload.get("complete")), True, run.seconds


def run_case(case: Path, workdir: Path) -> list[dict]:
    graph = json.loads((case / "callgraph.json").read_text())
    defs = definitions(case)
    rows = []
    for callee, callers in sorted(truth_for(graph).items()):
        if callee not in defs:
            continue  # a class, a builtin or outside the snippet
        rel, node = defs[callee]
        text = (case / rel).read_text()
        changed = with_parameter(text, node)
        if changed is None:
            continue
        repo = workdir / f"{case.parent.name}-{case.name}-{len(rows)}"
        subprocess.run(["cp", "-r", str(case), str(repo)], check=True)
        _git(["init", "-q", "-b", "main"], repo)
        _git(["add", "-A"], repo)
        _git(["commit", "-q", "-m", "snippet"], repo)
        (repo / rel).write_text(changed)
        _git(["add", "-A"], repo)
        found, complete, ok, seconds = answer(repo)
        found.discard(callee)
        rows.append({"case": f"{case.parent.name}/{case.name}", "callee": callee,
                     "truth": sorted(callers), "found": sorted(found), "complete": complete,
                     "ok": ok, "seconds": round(seconds, 3)})
    return rows


def summary(rows: list[dict]) -> dict:
    tp = sum(len(set(r["truth"]) & set(r["found"])) for r in rows)
    reported = sum(len(r["found"]) for r in rows)
    expected = sum(len(r["truth"]) for r in rows)
    empty = [r for r in rows if not r["found"]]
    return {"scenarios": len(rows), "cases": len({r["case"] for r in rows}),
            "caller_precision": tp / reported if reported else None,
            "caller_recall": tp / expected if expected else None,
            "no_callers": len(empty),
            "no_callers_complete": sum(1 for r in empty if r["complete"]),
            "no_callers_lower_bound": sum(1 for r in empty if not r["complete"]),
            "crashes": sum(1 for r in rows if not r["ok"])}


def markdown(s: dict, rows: list[dict], command: str) -> str:
    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.0f}%"

    load = os.getloadavg()[0]
    out = [f"# PyCG's call-graph micro-benchmark ({PACKAGE} {VERSION} from PyPI)", "",
           f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; "
           f"{os.cpu_count()} cores (load average {load:.1f}), Python "
           f"{platform.python_version()}. Command: `{command}`.", "",
           f"{s['scenarios']} signature changes (a required parameter appended to a function "
           f"or method the expected call graph says is called) in {s['cases']} snippets.", "",
           "| tool | n | caller P | caller R | no callers | of which complete "
           "| of which lower bound | crash |", "|---|---|---|---|---|---|---|---|",
           f"| maguyva-guard | {s['scenarios']} | {pct(s['caller_precision'])} | "
           f"{pct(s['caller_recall'])} | {s['no_callers']} | {s['no_callers_complete']} | "
           f"{s['no_callers_lower_bound']} | {s['crashes']} |", "",
           "Answers with no affected caller where the graph has some:", ""]
    out += [f"- {r['case']} `{r['callee']}` ({'complete' if r['complete'] else 'lower bound'})"
            f": expected {', '.join(r['truth'])}" for r in rows if not r["found"]]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--only", nargs="*", default=[], help="categories (folder names)")
    parser.add_argument("--stem", default="pycgleg")
    args = parser.parse_args(argv)
    root = ensure_suite()
    cases = sorted(p.parent for p in root.glob("*/*/callgraph.json")
                   if not args.only or p.parent.parent.name in args.only)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="mg-pycg-") as tmp:
        for case in cases:
            rows.extend(run_case(case, Path(tmp)))
            print(f"  {case.parent.name}/{case.name}: {len(rows)} scenarios so far",
                  file=sys.stderr, flush=True)
    s = summary(rows)
    command = "python bench/pycgleg.py " + " ".join(sys.argv[1:] if argv is None else argv)
    md = markdown(s, rows, command.strip())
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.stem}.md").write_text(md)
    (args.out / f"{args.stem}.json").write_text(json.dumps({"summary": s, "rows": rows},
                                                           indent=1) + "\n")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
