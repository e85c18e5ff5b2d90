"""Callers in real Kotlin, Scala, C# and Swift code, judged by hand (issue 19):
maguyva-guard beside `git grep -w`, on sources from the registries reachable here.

`python bench/managed.py run` downloads pinned sources (sources jars from Maven Central:
okhttp 4.12.0 for Kotlin, cats-core_3 2.10.0 for Scala; C#: pythonnet 3.0.5's sdist from
PyPI, whose src/runtime is the .NET side of Python.NET; Swift: @capacitor/ios 8.5.2 from
npm, Capacitor's iOS runtime) into bench/.cache, commits each into a git repository
under bench/.cache/repos, and draws a seeded sample of methods and functions (name of four
letters or more, written in another file too, on at most MAX_LINES lines in all: every
site of the sample is read by hand, and a name on 150 lines cannot be). Each change
renames the definition (its name on its first line gets a suffix) and stages it; the tools
answer:
- maguyva-guard `check --staged --format json`: the depth-1 entries of `affected`, each a
  site (path, line) with its confidence;
- `git grep -n -w NAME`: every line of another place that names it.
Both are written to bench/results/managed.json, each site with its text.

No compiler is the oracle here: a site is a caller when a hand verdict in
bench/verified_managed.json says so (real: renaming the target breaks that line, because
it uses that very definition, not a same-named other one). `python bench/managed.py todo`
lists the sites without a verdict; `python bench/managed.py score` reports, per language,
caller precision and recall at the level of (file, enclosing symbol), and the false-safe
count: scenarios with a real caller where maguyva-guard reported none.

    python bench/managed.py run [--scenarios 20] [--seed 1]
    python bench/managed.py todo | score
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import measure  # noqa: E402
from bench.baselines import mg_bin  # noqa: E402
from bench.corpus import CACHE, REPOS, _git, commit_as_repo  # noqa: E402
from bench.scenarios import scratch_clone  # noqa: E402
from maguyva_guard.extract.symbols import extract  # noqa: E402

MAVEN = "https://repo1.maven.org/maven2"
PROJECTS = {  # language -> (project, where its sources come from, file extension)
    "kotlin": ("okhttp-4.12.0",
               "com/squareup/okhttp3/okhttp/4.12.0/okhttp-4.12.0-sources.jar", ".kt"),
    "scala": ("cats-core-2.10.0",
              "org/typelevel/cats-core_3/2.10.0/cats-core_3-2.10.0-sources.jar", ".scala"),
    "csharp": ("pythonnet-3.0.5", "pypi:pythonnet==3.0.5", ".cs"),
    "swift": ("capacitor-ios-8.5.2", "npm:@capacitor/ios@8.5.2", ".swift"),
}
# The keyword before a definition's name on its first line (C# has none: `int Name(`).
DEF_WORD = {"kotlin": "fun", "scala": "def", "swift": "func", "csharp": ""}
RESULTS = Path(__file__).resolve().parent / "results"
VERDICTS = Path(__file__).resolve().parent / "verified_managed.json"
# `MG_MANAGED_RAW=path` keeps a run apart (a "before" run of another checkout, whose
# maguyva-guard `MG_CHECKOUT=dir` puts first on the check's PYTHONPATH).
RAW = Path(os.environ.get("MG_MANAGED_RAW", RESULTS / "managed.json"))
SUFFIX = "Mg"
MAX_LINES = 25  # lines naming the candidate in the whole project
MODULE = "<module>"


def ensure_repo(language: str) -> Path:
    project, jar_path, _ = PROJECTS[language]
    return ensure_sources(project, jar_path)


def ensure_sources(project: str, jar_path: str) -> Path:
    """A sources jar from Maven Central (or a PyPI sdist, an npm tarball) committed as a
    git repository under bench/.cache/repos/<project>."""
    dest = REPOS / project
    if (dest / ".git").is_dir():
        return dest
    if jar_path.startswith(("pypi:", "npm:")):
        return _package_repo(project, jar_path, dest)
    jar = CACHE / "maven" / jar_path.rsplit("/", 1)[-1]
    if not jar.exists():
        jar.parent.mkdir(parents=True, exist_ok=True)
        urllib.request.urlretrieve(f"{MAVEN}/{jar_path}", jar)  # noqa: S310 - Maven Central
    REPOS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=REPOS) as tmp:
        top = Path(tmp) / project
        with zipfile.ZipFile(jar) as zf:
            zf.extractall(top)
        commit_as_repo(top, dest, f"{project} sources jar from Maven Central")
    return dest


def _package_repo(project: str, source: str, dest: Path) -> Path:
    """A PyPI sdist or an npm tarball, fetched by its client, unpacked and committed."""
    kind, _, spec = source.partition(":")
    store = CACHE / kind
    store.mkdir(parents=True, exist_ok=True)
    if not any(store.glob(f"*{spec.rsplit('@', 1)[-1].rsplit('=', 1)[-1]}.t*gz")):
        if kind == "pypi":
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                            "--no-binary", ":all:", "-d", str(store), spec], check=True)
        else:
            subprocess.run(["npm", "pack", "-q", spec], cwd=store, check=True)
    version = spec.rsplit("@", 1)[-1].rsplit("=", 1)[-1]
    archive = next(store.glob(f"*{version}.t*gz"))
    REPOS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=REPOS) as tmp:
        top = Path(tmp) / project
        top.mkdir()
        with tarfile.open(archive) as tf:
            tf.extractall(top, filter="data")
        commit_as_repo(top, dest, f"{project} from {kind}")
    return dest


class Scopes:
    """Line -> innermost enclosing definition (qualified, as the check names it)."""

    def __init__(self, text: str, language: str) -> None:
        self.defs = extract(text.encode(), language).definitions

    def at(self, line: int) -> str:
        best = None
        for d in self.defs:
            if d.line_start <= line <= d.line_end and (best is None or d.line_start >= best[0]):
                best = (d.line_start, d.qualified_name)
        return best[1] if best else MODULE


def candidates(texts: dict[str, str], language: str) -> list[dict]:
    words: dict[str, set[str]] = {}
    lines: dict[str, int] = {}
    for path, text in texts.items():
        for row in text.splitlines():
            for w in set(re.findall(r"[A-Za-z_]\w*", row)):
                lines[w] = lines.get(w, 0) + 1
        for w in set(re.findall(r"[A-Za-z_]\w*", text)):
            words.setdefault(w, set()).add(path)
    found = []
    for path, text in sorted(texts.items()):
        for d in extract(text.encode(), language).definitions:
            if d.kind not in ("method", "function") or len(d.name) < 4:
                continue
            if d.name in ("constructor", "this", "init") or len(words.get(d.name, ())) < 2:
                continue
            if d.parent and d.name == d.parent.rsplit(".", 1)[-1]:
                continue  # a C# constructor: renaming it is no rename of a method
            if lines.get(d.name, 0) > MAX_LINES:
                continue
            first = text.splitlines()[d.line_start - 1]
            if not re.search(_definition_line(language, d.name), first):
                continue
            found.append({"path": path, "qualname": d.qualified_name, "name": d.name,
                          "start": d.line_start, "end": d.line_end})
    return found


def _definition_line(language: str, name: str) -> str:
    """The pattern of a definition's first line; group 1 ends just before the name."""
    word = DEF_WORD[language]
    if not word:  # C#: `public int Name(` / `Name<T>(`, not a call (`return Name(`)
        return rf"^(\s*(?:[\w<>\[\],.?]+\s+)+){re.escape(name)}(?=\s*(?:<[^>]*>)?\s*\()"
    return rf"(\b{word}\s+(?:[\w.<>, ]+\.)?){re.escape(name)}\b"


def _rename(text: str, s: dict, language: str) -> str:
    lines = text.splitlines(keepends=True)
    row = s["start"] - 1
    lines[row] = re.sub(_definition_line(language, s["name"]), rf"\g<1>{s['name']}{SUFFIX}",
                        lines[row], count=1)
    return "".join(lines)


def _checkout_env() -> dict[str, str] | None:
    checkout = os.environ.get("MG_CHECKOUT")
    return {**os.environ, "PYTHONPATH": checkout} if checkout else None


def _site(clone: Path, path: str, line: int) -> str:
    rows = (clone / path).read_text(encoding="utf-8").splitlines()
    return rows[line - 1].strip() if 0 < line <= len(rows) else ""


def run_language(language: str, n: int, seed: int) -> list[dict]:
    corpus = ensure_repo(language)
    ext = PROJECTS[language][2]
    files = _git(["ls-files", f"*{ext}"], corpus).split()
    texts = {p: (corpus / p).read_text(encoding="utf-8") for p in files}
    found = candidates(texts, language)
    random.Random(seed).shuffle(found)
    rows = []
    with tempfile.TemporaryDirectory(prefix="mg-managed-") as tmp:
        clone = scratch_clone(corpus, Path(tmp) / "clone")
        index = measure.run([mg_bin(), "index"], clone, 900.0, env=_checkout_env())
        print(f"{language}: index {index.seconds:.1f} s ({index.cpu_seconds:.1f} s CPU)",
              file=sys.stderr)
        for s in found[:n]:
            (clone / s["path"]).write_text(_rename(texts[s["path"]], s, language), encoding="utf-8")
            subprocess.run(["git", "add", "--", s["path"]], cwd=clone, check=True)
            run = measure.run([mg_bin(), "check", "--repo", str(clone), "--staged",
                               "--format", "json"], clone, 600.0, env=_checkout_env())
            report = json.loads(run.stdout) if run.returncode in (0, 1) else {}
            mg = [{"path": a["path"], "line": a.get("line") or 0, "symbol": a["symbol"],
                   "confidence": a.get("confidence", ""),
                   "text": _site(clone, a["path"], a.get("line") or 0)}
                  for a in report.get("affected", []) if a.get("depth", 1) == 1]
            subprocess.run(["git", "reset", "-q", "--", s["path"]], cwd=clone, check=True)
            subprocess.run(["git", "checkout", "-q", "--", s["path"]], cwd=clone, check=True)
            grep = []
            out = _git(["grep", "-n", "-w", s["name"], "--", f"*{ext}"], clone) \
                if s["name"] in "".join(texts.values()) else ""
            for row in out.splitlines():
                path, line, text = row.split(":", 2)
                if path == s["path"] and s["start"] <= int(line) <= s["end"]:
                    continue
                grep.append({"path": path, "line": int(line), "text": text.strip()})
            rows.append({"language": language, "project": PROJECTS[language][0],
                         "key": f"{s['path']}::{s['qualname']}", "name": s["name"],
                         "ok": bool(report), "seconds": round(run.seconds, 2),
                         "cpu_seconds": round(run.cpu_seconds, 2), "maguyva_guard": mg,
                         "grep": grep})
            print(f"  {s['path']}::{s['qualname']}: mg={len(mg)} grep={len(grep)}",
                  file=sys.stderr)
    return rows


def _load(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def _verdicts() -> dict[tuple[str, str, int], dict]:
    return {(v["scenario"], v["path"], v["line"]): v for v in _load(VERDICTS).get("verdicts", [])}


def todo() -> int:
    verdicts = _verdicts()
    for row in _load(RAW).get("scenarios", []):
        sites = {(s["path"], s["line"]): s for s in row["grep"]}
        for s in row["maguyva_guard"]:
            sites.setdefault((s["path"], s["line"]), s)
        for (path, line), s in sorted(sites.items()):
            if (row["key"], path, line) not in verdicts:
                mark = next((m["confidence"] for m in row["maguyva_guard"]
                             if (m["path"], m["line"]) == (path, line)), "-")
                print(f"{row['key']}\t{path}:{line}\t[{mark}]\t{s['text'][:140]}")
    return 0


def _caller(path: str, line: int, language: str, scopes: dict[str, Scopes]) -> str:
    from maguyva_guard.extract.languages import module_name, qualify

    if path not in scopes:
        text = (ensure_repo(language) / path).read_text(encoding="utf-8")
        scopes[path] = Scopes(text, language)
    local = scopes[path].at(line)
    return MODULE if local == MODULE else qualify(module_name(path, language), local)


def score() -> int:
    verdicts = _verdicts()
    scopes: dict[str, Scopes] = {}
    table: dict[str, dict[str, int]] = {}
    for row in _load(RAW).get("scenarios", []):
        lang = row["language"]
        t = table.setdefault(lang, {"scenarios": 0, "tp": 0, "fp": 0, "fn": 0,
                                    "grep_tp": 0, "grep_fp": 0, "false_safe": 0,
                                    "ambiguous": 0, "sure_tp": 0, "sure_fp": 0})
        sites = [(s["path"], s["line"]) for s in row["grep"]] + \
            [(s["path"], s["line"]) for s in row["maguyva_guard"]]
        judged = {site: verdicts.get((row["key"], *site)) for site in sites}
        if any(v is None for v in judged.values()):
            continue  # not every site judged: the scenario is left out, not guessed
        t["scenarios"] += 1
        real = {(p, _caller(p, ln, lang, scopes)) for (p, ln), v in judged.items()
                if v is not None and v["real"]}
        found = {(s["path"], s["symbol"]) for s in row["maguyva_guard"]}
        t["ambiguous"] += sum(1 for s in row["maguyva_guard"] if s["confidence"] == "ambiguous")
        grep = {(s["path"], _caller(s["path"], s["line"], lang, scopes)) for s in row["grep"]}
        sure = {(s["path"], s["symbol"]) for s in row["maguyva_guard"]
                if s["confidence"] != "ambiguous"}
        t["sure_tp"] += len(sure & real)
        t["sure_fp"] += len(sure - real)
        for path, symbol in sorted(real - found):
            print(f"missed\t{row['key']}\t{path}\t{symbol}", file=sys.stderr)
        t["tp"] += len(found & real)
        t["fp"] += len(found - real)
        t["fn"] += len(real - found)
        t["grep_tp"] += len(grep & real)
        t["grep_fp"] += len(grep - real)
        t["false_safe"] += bool(real) and not found
    lines = ["| language | project | scenarios judged | tool | caller precision | caller "
             "recall | false-safe |", "|---|---|---|---|---|---|---|"]
    for lang, t in sorted(table.items()):
        real = t["tp"] + t["fn"]
        for tool, tp, fp in (("maguyva-guard", t["tp"], t["fp"]),
                             ("maguyva-guard, exact/probable only", t["sure_tp"],
                              t["sure_fp"]),
                             ("git grep -w", t["grep_tp"], t["grep_fp"])):
            precision = f"{tp / (tp + fp):.0%}" if tp + fp else "-"
            recall = f"{tp / real:.0%}" if real else "-"
            safe = str(t["false_safe"]) if tool == "maguyva-guard" else "-"
            lines.append(f"| {lang} | {PROJECTS[lang][0]} | {t['scenarios']} | {tool} | "
                         f"{precision} ({tp}/{tp + fp}) | {recall} ({tp}/{real}) | {safe} |")
    runs = _load(RAW).get("scenarios", [])
    cpu = sorted(r["cpu_seconds"] for r in runs)
    md = [
        "# Kotlin, Scala, C# and Swift callers, hand-judged "
        "(`python bench/managed.py run` then `score`)",
        "",
        f"Sources jars from Maven Central: {', '.join(p for p, _, _ in PROJECTS.values())}; "
        f"{len(runs)} seeded renames (seed {_load(RESULTS / 'managed.json').get('seed')}), "
        f"every site that git grep -w or maguyva-guard names judged by hand "
        f"(bench/verified_managed.json says what counts). A caller is (file, enclosing "
        f"symbol). maguyva-guard check median {cpu[len(cpu) // 2] if cpu else 0:.2f} s CPU a "
        f"change; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores when "
        "scored.",
        "",
        *lines,
        "",
    ]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "managed.md").write_text("\n".join(md))
    print("\n".join(md))
    print(json.dumps(table))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("run", "todo", "score"))
    ap.add_argument("--scenarios", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--languages", default=",".join(PROJECTS))
    args = ap.parse_args(argv)
    if args.command == "todo":
        return todo()
    if args.command == "score":
        return score()
    chosen = args.languages.split(",")
    # The other languages' rows (and their hand verdicts) stay as they were.
    rows = [r for r in _load(RAW).get("scenarios", [])
            if r["language"] not in chosen]
    for language in chosen:
        rows.extend(run_language(language, args.scenarios, args.seed))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RAW).write_text(json.dumps(
        {"seed": args.seed, "projects": {k: v[0] for k, v in PROJECTS.items()},
         "scenarios": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
