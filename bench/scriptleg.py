"""The Ruby, PHP and Lua leg (issue 19): hand verdicts as the oracle.

No Ruby, PHP or Lua toolchain is on this machine, and `ruby -c` / `php -l` only check syntax,
so the oracle is a reader. `python bench/scriptleg.py collect` fetches Debian packages
that ship their sources (ruby-thor 1.2.1: Thor's `lib/`; php-symfony-console 5.4: Symfony's
Console component; lua-penlight 1.13.1: Penlight's `pl/` modules), commits each into a git
repository under bench/.cache/repos, and draws
a seeded sample of methods whose name appears outside their definition. The change
appends a required parameter to the definition only. For each one it records what
maguyva-guard reports (`check --staged --format json`, depth-1 callers) and what
`git grep -w NAME` finds, each hit mapped to its enclosing definition (`<module>` outside
any), and lists every candidate of either tool, with its line, for a verdict.

Verdicts live in bench/verified_scripts.json, one row per candidate, in the format of
bench/verified.json: {project, scenario, path, symbol, real, why}. A caller is real when
the change would break that code: it calls that very method (not a same-named other one).
Every real caller is a grep hit (a call names the method), except calls by `send`/dynamic
names, which neither tool sees; so the union of both tools, judged, is the truth, and
recall is a ceiling on what a textual search could find.

`python bench/scriptleg.py score` scores both tools against the verdicts: precision,
recall, and false-safe scenarios (a real caller exists, the tool reports none).

    python bench/scriptleg.py collect [--scenarios 20] [--seed 1] [--project NAME]
    python bench/scriptleg.py score [--out bench/results]
"""

from __future__ import annotations

import argparse
import json
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
from bench.corpus import CACHE, REPOS, _git, commit_as_repo  # noqa: E402
from bench.scenarios import revert, scratch_clone  # noqa: E402
from maguyva_guard.extract.languages import language_for, module_name  # noqa: E402
from maguyva_guard.extract.symbols import extract  # noqa: E402

HERE = Path(__file__).resolve().parent
VERDICTS = HERE / "verified_scripts.json"
RAW = HERE / "results" / "scriptleg.json"
MODULE = "<module>"


@dataclass(frozen=True)
class Project:
    name: str
    deb: str  # Debian package, pinned
    root: str  # the folder inside the package that holds the sources
    suffix: str


PROJECTS = (
    Project("thor", "ruby-thor=1.2.1-2", "usr/share/rubygems-integration/all/gems/thor-1.2.1",
            ".rb"),
    Project("symfony-console", "php-symfony-console=5.4.53+dfsg-0+deb12u1",
            "usr/share/php/Symfony/Component/Console", ".php"),
    # The Lua 5.1 tree (the 5.2-5.4 trees link to the same files): `pl/utils.lua` is
    # `require "pl.utils"`.
    Project("penlight", "lua-penlight=1.13.1-3", "usr/share/lua/5.1", ".lua"),
)


@dataclass(frozen=True)
class Scenario:
    path: str
    qualname: str
    name: str
    line: int  # the definition's first line
    end: int

    @property
    def key(self) -> str:
        return f"{self.path}::{self.qualname}"


def ensure_repo(p: Project) -> Path:
    dest = REPOS / p.name
    if dest.exists():
        return dest
    debs = CACHE / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", p.deb], cwd=debs, check=True, capture_output=True)
    deb = next(debs.glob(p.deb.split("=")[0] + "_*.deb"))
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["dpkg-deb", "-x", str(deb), tmp], check=True)
        top = Path(tmp) / "repo"
        shutil.copytree(Path(tmp) / p.root, top)
        REPOS.mkdir(parents=True, exist_ok=True)
        commit_as_repo(top, dest, f"{p.deb} sources")
    return dest


def enclosing(defs, line: int) -> str:
    inner = None
    for d in defs:
        if d.line_start <= line <= d.line_end and (
                inner is None or d.line_end - d.line_start <= inner.line_end - inner.line_start):
            inner = d
    return inner.qualified_name if inner is not None else MODULE


def candidates(texts: dict[str, str], defs: dict[str, tuple]) -> list[Scenario]:
    words: dict[str, int] = {}
    for text in texts.values():
        for w in re.findall(r"[A-Za-z_][A-Za-z0-9_?!]*", text):
            words[w] = words.get(w, 0) + 1
    out = []
    for path, found in sorted(defs.items()):
        names = [d.name for d in found]
        for d in found:
            if d.kind not in ("method", "function") or len(d.name) < 3 or \
                    d.name in ("initialize", "__construct") or names.count(d.name) > 1:
                continue
            if words.get(d.name, 0) > names.count(d.name):  # used somewhere besides here
                out.append(Scenario(path, d.qualified_name, d.name, d.line_start, d.line_end))
    return out


def change(text: str, s: Scenario, php: bool) -> str | None:
    """Append a required parameter to the definition's parameter list, or None."""
    lines = text.split("\n")
    head = lines[s.line - 1]
    extra = "$mgExtra" if php else "mg_extra"
    if re.search(rf"\b{re.escape(s.name)}\s*\(\s*\)", head):
        lines[s.line - 1] = re.sub(rf"(\b{re.escape(s.name)}\s*\()\s*\)", rf"\g<1>{extra})", head,
                                   count=1)
    elif re.search(rf"\b{re.escape(s.name)}\s*\(", head) and ")" in head:
        i = head.index(")", head.index(s.name))
        lines[s.line - 1] = head[:i] + f", {extra}" + head[i:]
    elif not php and re.search(rf"def\s+(self\.)?{re.escape(s.name)}\s*$", head):
        lines[s.line - 1] = head.rstrip() + f"({extra})"
    else:
        return None
    return "\n".join(lines)


def run_mg(clone: Path, s: Scenario) -> dict[tuple[str, str], str]:
    """Depth-1 callers, each with its confidence (the weakest when listed twice)."""
    run = measure.run([mg_bin(), "check", "--repo", str(clone), "--staged", "--format", "json"],
                      clone, 600.0)
    if run.returncode not in (0, 1):
        raise RuntimeError(run.stderr)
    out: dict[tuple[str, str], str] = {}
    for entry in json.loads(run.stdout).get("affected", []):
        key = (entry["path"], _local_name(entry["path"], entry["symbol"]))
        if entry.get("depth", 1) == 1 and key != (s.path, s.qualname):
            out[key] = "ambiguous" if "ambiguous" in (out.get(key), entry["confidence"]) \
                else entry["confidence"]
    return out


def _local_name(path: str, symbol: str) -> str:
    """A reported symbol without its module prefix (Lua's "pl.xml.match" is "match" in
    pl/xml.lua), as extract names the enclosing definitions of grep's hits."""
    prefix = module_name(path, language_for(path) or "")
    return symbol[len(prefix) + 1:] if prefix and symbol.startswith(prefix + ".") else symbol


def run_grep(clone: Path, s: Scenario, defs, suffix: str) -> dict[tuple[str, str], list[int]]:
    run = measure.run(["git", "grep", "-n", "-w", s.name, "--", f"*{suffix}"], clone, 60.0)
    out: dict[tuple[str, str], list[int]] = {}
    for row in run.stdout.splitlines():
        path, line, _ = row.split(":", 2)
        n = int(line)
        if path == s.path and s.line <= n <= s.end:
            continue
        if any(d.name == s.name and d.line_start == n for d in defs.get(path, ())):
            continue  # another definition of the name, not a use
        out.setdefault((path, enclosing(defs.get(path, ()), n)), []).append(n)
    return out


def collect(args: argparse.Namespace) -> int:
    rows = []
    chosen = [p for p in PROJECTS if args.project in (None, p.name)]
    if args.project is not None and RAW.exists():  # keep the other projects' rows
        rows = [r for r in json.loads(RAW.read_text())["rows"] if r["project"] != args.project]
    for p in chosen:
        corpus = ensure_repo(p)
        files = [f for f in _git(["ls-files"], corpus).split() if language_for(f)]
        texts = {f: (corpus / f).read_text("utf-8", "replace") for f in files}
        defs = {f: extract(t.encode(), language_for(f) or "").definitions
                for f, t in texts.items()}
        found = candidates(texts, defs)
        random.Random(args.seed).shuffle(found)
        with tempfile.TemporaryDirectory(prefix="mg-scriptleg-") as tmp:
            clone = scratch_clone(corpus, Path(tmp) / "clone")
            measure.run([mg_bin(), "index"], clone, 600.0)
            taken = 0
            for s in found:
                if taken == args.scenarios:
                    break
                new = change(texts[s.path], s, p.suffix == ".php")
                if new is None:
                    continue
                (clone / s.path).write_text(new, "utf-8")
                subprocess.run(["git", "add", "--", s.path], cwd=clone, check=True)
                mg = run_mg(clone, s)
                grep = run_grep(clone, s, defs, p.suffix)
                revert(clone, s)
                taken += 1
                cands = []
                for key in sorted(set(mg) | set(grep)):
                    lines = grep.get(key, [])
                    src = texts.get(key[0], "").split("\n")
                    cands.append({"path": key[0], "symbol": key[1], "mg": key in mg,
                              "confidence": mg.get(key, ""),
                                  "grep": key in grep, "lines": lines,
                                  "text": [src[n - 1].strip() for n in lines[:4]]})
                rows.append({"project": p.name, "scenario": s.key, "name": s.name,
                             "candidates": cands})
                print(f"  {p.name} [{taken}] {s.key}: mg={len(mg)} grep={len(grep)}",
                      file=sys.stderr)
    RAW.write_text(json.dumps({"seed": args.seed, "rows": rows}, indent=1) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--scenarios", type=int, default=20)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--project", choices=[p.name for p in PROJECTS], default=None)
    s = sub.add_parser("score")
    s.add_argument("--out", type=Path, default=HERE / "results")
    args = ap.parse_args(argv)
    return collect(args) if args.command == "collect" else score(args)


def score(args: argparse.Namespace) -> int:
    raw = json.loads(RAW.read_text())
    verdicts = {(v["project"], v["scenario"], v["path"], v["symbol"]): v["real"]
                for v in json.loads(VERDICTS.read_text())["verdicts"]}
    lines = ["# Ruby, PHP and Lua leg: hand verdicts as the oracle", "",
             f"Seed {raw['seed']}; `python bench/scriptleg.py collect` then `score`. Truth: "
             "every candidate either tool reported, read and judged (bench/verified_scripts"
             ".json). Callers are (file, enclosing definition); depth 1 only.", "",
             "| project | scenarios | real callers | tool | reported | right | precision | "
             "recall | false-safe scenarios |", "|---|---|---|---|---|---|---|---|---|"]
    summary = {}
    for project in sorted({r["project"] for r in raw["rows"]}):
        rows = [r for r in raw["rows"] if r["project"] == project]
        for tool in ("mg", "mg-sure", "grep"):
            real = reported = right = false_safe = 0
            missing = 0
            for r in rows:
                truth = set()
                for c in r["candidates"]:
                    key = (project, r["scenario"], c["path"], c["symbol"])
                    if key not in verdicts:
                        missing += 1
                    elif verdicts[key]:
                        truth.add((c["path"], c["symbol"]))
                said = {(c["path"], c["symbol"]) for c in r["candidates"] if _said(c, tool)}
                real += len(truth)
                reported += len(said)
                right += len(said & truth)
                false_safe += bool(truth) and not said
            if missing:
                raise SystemExit(f"{project}: {missing} candidates without a verdict")
            precision = right / reported if reported else None
            recall = right / real if real else None
            name = {"mg": "maguyva-guard (all)", "mg-sure": "maguyva-guard, exact/probable only",
                    "grep": "git grep -w"}[tool]
            summary[f"{project}/{tool}"] = {"precision": precision, "recall": recall,
                                            "false_safe": false_safe, "real": real}
            lines.append(f"| {project} | {len(rows)} | {real} | {name} | {reported} | {right} "
                         f"| {_pct(precision)} | {_pct(recall)} | {false_safe} |")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scriptleg.md").write_text("\n".join(lines) + "\n")
    (args.out / "scriptleg-score.json").write_text(json.dumps(summary, indent=1) + "\n")
    print("\n".join(lines))
    return 0


def _said(candidate: dict, tool: str) -> bool:
    if tool == "mg-sure":
        return candidate["mg"] and candidate.get("confidence") in ("exact", "probable")
    return bool(candidate[tool])


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


if __name__ == "__main__":
    sys.exit(main())
