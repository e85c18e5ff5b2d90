"""Real pull requests (issue 17): release-to-release diffs of real projects, checked whole.

    python bench/prs.py [--projects requests django ...] [--no-oracle] [--scores-only]
                        [--out bench/results]

Each project's consecutive published releases (PyPI sdists; the TypeScript, Java, Go and
Rust projects of bench/prlegs.py from npm, Maven Central, the Go proxy and crates.io, sources
as bench/tsleg.py and bench/compilerleg.py keep them) are committed in order into one
git repository under bench/.cache/prs/<project>, one commit per release, tagged with the
version (the files of each release come from the repository of that release, staged with
`git --work-tree`). Each pair of consecutive releases is one diff, checked with
`maguyva-guard check --base A --head B --format json`: cold (no index), and warm (after
`maguyva-guard index` completed the index, the check run twice, the second one timed).

Per diff: changed files by class, changed symbols, the headline (affected callers),
mentions, docs to review, how many affected entries came from fallback searches (the
target is none), cold and warm wall time; and, for every Python function or method whose
signature changed, depth-1 callers scored against jedi with lifted limits and the `goto`
sweep (bench/oracle.py), on the newer release's files. A constructor's callers are its
class's references that can call it: jedi's references to the class minus those inside a
type annotation, a `cast(T, ...)` or an `isinstance`/`issubclass` test. The compiled
projects' callers are scored against their compiler (bench/prlegs.py): a required
parameter appended to the changed definition in the newer release, every new error
elsewhere a caller. The Python projects of APART were added after the guard was tuned on
those of PYPI, to re-measure it on diffs it was not tuned on; each group's scores are
pooled apart.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import functools
import json
import platform
import shutil
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import measure, oracle, prlegs, scenarios  # noqa: E402
from bench.baselines import mg_bin  # noqa: E402
from bench.corpus import CACHE, _git, ensure_repo  # noqa: E402
from bench.oracle import Caller, Mapper  # noqa: E402
from bench.pysource import parse_or_none  # noqa: E402

# Three consecutive releases each: two diffs per project.
PYPI = {
    "requests": ("2.32.2", "2.32.3", "2.32.4"),
    "click": ("8.1.6", "8.1.7", "8.1.8"),
    "flask": ("3.0.2", "3.0.3", "3.1.0"),
    "attrs": ("24.1.0", "24.2.0", "24.3.0"),
    "jinja2": ("3.1.4", "3.1.5", "3.1.6"),
    "werkzeug": ("3.1.1", "3.1.2", "3.1.3"),
    "django": ("5.2.6", "5.2.7", "5.2.8"),
}
# Kept apart: real diffs the guard was not tuned on (scored the same way, pooled apart).
APART = {
    "httpx": ("0.27.2", "0.28.0", "0.28.1"),
    "urllib3": ("2.2.3", "2.3.0", "2.4.0"),
    "packaging": ("24.1", "24.2", "25.0"),
}
PYTHON = {**PYPI, **APART}
COMPILED = prlegs.PROJECTS
HISTORIES = CACHE / "prs"
TIMEOUT = 1800.0
FALLBACK_CAUSE = ":<module>"
MODULE = "<module>"


@dataclass
class DiffResult:
    project: str
    base: str
    head: str
    files: int = 0
    by_class: dict[str, int] = field(default_factory=dict)
    not_analysed: int = 0
    lower_bound_files: list[str] = field(default_factory=list)
    changed_symbols: int = 0
    affected: int = 0
    affected_from_fallbacks: int = 0
    mentions: int = 0
    docs_to_review: int = 0
    complete: bool = True
    summary: str = ""
    cold_seconds: float = 0.0
    warm_seconds: float = 0.0
    warm_query_seconds: float = 0.0
    warm_index_seconds: float = 0.0
    signature_changed: int = 0
    oracle_symbols: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tp_resolved: int = 0  # the same, counting exact and probable links only
    fp_resolved: int = 0
    possible_tp: int = 0  # possible (name-only) callers, listed apart: agreed with jedi
    possible_fp: int = 0
    unscored: list[str] = field(default_factory=list)  # signature changes with no oracle
    misses: list[str] = field(default_factory=list)
    fixture_fn: int = 0  # missed callers of a changed pytest fixture: tests that request it
    unnamed_fn: int = 0  # missed compiler callers whose errors' lines never name the method
    extras: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def precision_resolved(self) -> float | None:
        total = self.tp_resolved + self.fp_resolved
        return self.tp_resolved / total if total else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


# --- Corpora --------------------------------------------------------------------------------

def release_tree(project: str, version: str) -> Path:
    """A repository whose work tree holds the release's files."""
    if project in COMPILED:
        return prlegs.release_tree(project, version)
    return ensure_repo(project, version)


def history(project: str, versions: tuple[str, ...]) -> Path:
    """One repository, one commit per release in order, each tagged with its version."""
    dest = HISTORIES / project
    done = dest / ".git" / "mg-bench-complete"
    if done.exists():
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    _git(["init", "-q", "-b", "main"], dest)
    for version in versions:
        tree = release_tree(project, version)
        # The release's files exactly: drop the previous release's from the index first.
        _git(["rm", "-r", "-q", "--cached", "--ignore-unmatch", "."], dest)
        _git(["--work-tree", str(tree), "add", "-A", "-f", "."], dest)
        _git(["commit", "-q", "--no-verify", "--allow-empty", "-m", f"{project} {version}"],
             dest)
        _git(["tag", version], dest)
    done.write_text("ok\n")
    return dest


# --- One diff -------------------------------------------------------------------------------

def check(repo: Path, base: str, head: str, *extra: str) -> tuple[measure.Run, dict | None]:
    run = measure.run([mg_bin(), "check", "--repo", str(repo), "--base", base, "--head", head,
                       "--format", "json", *extra], repo, TIMEOUT)
    if run.returncode not in (0, 1):
        return run, None
    try:
        return run, json.loads(run.stdout)
    except json.JSONDecodeError:
        return run, None


def summarise(result: DiffResult, payload: dict) -> None:
    files = payload.get("files", [])
    result.files = len(files)
    for f in files:
        result.by_class[f["class"]] = result.by_class.get(f["class"], 0) + 1
    result.not_analysed = sum(1 for f in files if f["treatment"] == "not-analysed")
    result.lower_bound_files = [f"{f['path']} ({f['reason']})" for f in files
                                if f.get("lower_bound")]
    result.changed_symbols = len(payload["changed_symbols"])
    result.affected = len(payload["affected"])
    result.affected_from_fallbacks = sum(
        1 for a in payload["affected"] if any(b.endswith(FALLBACK_CAUSE) for b in a["because_of"]))
    result.mentions = len(payload.get("mentions", [])) + sum(
        payload.get("mentions_omitted", {}).values())
    result.docs_to_review = len(payload.get("docs_to_review", []))
    result.complete = payload["complete"]
    result.summary = payload["summary"]


def score_signatures(result: DiffResult, payload: dict, tree: Path,
                     cache: oracle.OracleCache) -> None:
    """Depth-1 callers of each Python function or method whose signature changed, against
    jedi (lifted limits, goto sweep) on the newer release's files."""
    texts = scenarios.read_tracked(tree)
    mapper = Mapper(texts)
    for sym in payload["changed_symbols"]:
        if sym["change"] != "signature_changed":
            continue
        result.signature_changed += 1
        scope = _scope_of(sym, texts)
        if scope is None:
            continue
        result.oracle_symbols += 1
        # A constructor's callers are the class's: jedi's references to the name `__init__`
        # miss every `Headers(...)`, so the oracle asks for the class.
        asked = _class_of(scope, texts[sym["path"]]) if scope.qualname.endswith(".__init__") \
            else scope
        key = cache.key(sym["path"], asked.qualname, asked.name_line)
        found = cache.get(key)
        if found is None:
            refs, seconds = oracle.timed_references(str(tree), sym["path"], asked.name_line,
                                                    asked.name_col)
            found = ([oracle.Reference(*r) for r in refs], seconds)
            cache.put(key, *found)
            cache.save()
        refs = found[0]
        if asked is not scope:  # a constructor: the class's references that can call it
            refs = [r for r in refs if not _type_only(texts.get(r.path, ""), r.line, r.col)]
        truth = set(mapper.callers(refs, exclude=Caller(sym["path"], scope.qualname)))
        truth.discard(Caller(sym["path"], asked.qualname))
        ours, resolved = _ours(payload, sym["qualified_name"], mapper)
        result.tp += len(truth & ours)
        result.fp += len(ours - truth)
        result.fn += len(truth - ours)
        result.tp_resolved += len(truth & resolved)
        result.fp_resolved += len(resolved - truth)
        maybe, _ = _ours({"affected": payload.get("possible", [])}, sym["qualified_name"],
                         mapper)
        result.possible_tp += len(truth & (maybe - ours))
        result.possible_fp += len(maybe - ours - truth)
        name = sym["qualified_name"]
        result.misses += [f"{name}: {c.path} {c.symbol}" for c in sorted(truth - ours)]
        if _is_fixture(texts[sym["path"]], scope):
            result.fixture_fn += len(truth - ours)
        result.extras += [f"{name}: {c.path} {c.symbol}" for c in sorted(ours - truth)]


def _ours(payload: dict, changed: str, mapper: Mapper) -> tuple[set[Caller], set[Caller]]:
    """Depth-1 callers of one changed symbol in the report, all and resolved only (exact or
    probable). An entry may depend on several changed symbols at several depths: its
    `links` say how it depends on this one."""
    ours: set[Caller] = set()
    resolved: set[Caller] = set()
    for a in payload["affected"]:
        link = next((k for k in a.get("links", []) if k["changed_symbol"] == changed
                     and k["depth"] == 1), None)
        if link is None or not a["path"].endswith(".py"):
            continue
        enc = mapper.enclosing(a["path"])
        caller = Caller(a["path"], enc.resolve(a["symbol"], a["line"]) if enc else MODULE)
        ours.add(caller)
        if link["confidence"] != "ambiguous":
            resolved.add(caller)
    return ours, resolved


def _is_fixture(text: str, scope) -> bool:
    """Whether a definition is decorated as a pytest fixture: jedi's pytest plugin counts
    every test that names it as a parameter as a reference."""
    lines = text.splitlines()[scope.start - 1: scope.name_line]
    return any(line.lstrip().startswith(("@pytest.fixture", "@fixture")) for line in lines)


def _type_only(text: str, line: int, col: int) -> bool:
    """Whether a reference to a class at (line, col) (1-based line, 0-based column) only
    names its type: inside an annotation, a `cast(T, ...)`'s type, or the class argument
    of `isinstance`/`issubclass`. A constructor's signature change cannot break those;
    jedi's references to the class include them (werkzeug: `headers: ds.Headers | list`
    was a "caller" of `Headers.__init__`)."""
    spans = _type_spans(text)
    return any((a, b) <= (line, col) < (c, d) for a, b, c, d in spans)


@functools.lru_cache(maxsize=256)
def _type_spans(text: str) -> tuple[tuple[int, int, int, int], ...]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ()
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            found.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
            found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else \
                getattr(node.func, "id", "")
            if name in ("isinstance", "issubclass") and len(node.args) == 2:
                found.append(node.args[1])
            elif name == "cast" and node.args:
                found.append(node.args[0])
    return tuple((n.lineno, n.col_offset, n.end_lineno or n.lineno, n.end_col_offset or 0)
                 for n in found)


def _class_of(scope, text: str):  # -> pysource.Scope
    owner = scope.qualname.rsplit(".", 1)[0]
    return next((s for s in parse_or_none(text) or [] if s.qualname == owner), scope)


def _scope_of(sym: dict, texts: dict[str, str]):  # -> pysource.Scope | None
    if not sym["path"].endswith(".py") or sym["kind"] not in ("function", "method"):
        return None
    scopes = parse_or_none(texts.get(sym["path"], "")) or []
    fitting = [s for s in scopes if s.kind != "class"
               and (sym["qualified_name"] == s.qualname
                    or sym["qualified_name"].endswith("." + s.qualname))]
    if not fitting:
        return None
    best = max(len(s.qualname) for s in fitting)
    fitting = [s for s in fitting if len(s.qualname) == best]
    if len({s.qualname for s in fitting}) == 1:
        # `@overload` stubs, then the implementation: the last definition is the one that
        # runs (jedi asked at a stub finds the stubs only: werkzeug's Headers.get).
        return max(fitting, key=lambda s: s.start)
    return min(fitting, key=lambda s: abs(s.start - sym["line_start"]))


def run_diff(project: str, repo: Path, base: str, head: str, with_oracle: bool,
             cache: oracle.OracleCache | None, scores_only: bool = False) -> DiffResult:
    result = DiffResult(project, base, head)
    shutil.rmtree(repo / ".git" / "maguyva-guard", ignore_errors=True)
    cold, payload = check(repo, base, head)
    if payload is None:
        result.error = (cold.stderr.strip().splitlines() or ["no JSON"])[-1][:300]
        return result
    result.cold_seconds = round(cold.seconds, 2)
    if scores_only:  # callers only: no index, no warm runs (their seconds stay 0)
        summarise(result, payload)
        score(result, payload, project, head, with_oracle, cache)
        return result
    # Warm: the index complete (the semantic vectors are embedded within a time budget per
    # check, the rest on later runs; `index` embeds them all), then the same check again.
    measure.run([mg_bin(), "index", "--repo", str(repo)], repo, TIMEOUT)
    check(repo, base, head)
    warm, warm_payload = check(repo, base, head)
    result.warm_seconds = round(warm.seconds, 2)
    if warm_payload is not None:
        stats = warm_payload["stats"]
        result.warm_query_seconds = stats["query_seconds"]
        result.warm_index_seconds = stats["index_seconds"]
    summarise(result, payload)
    score(result, payload, project, head, with_oracle, cache)
    return result


def score(result: DiffResult, payload: dict, project: str, head: str, with_oracle: bool,
          cache: oracle.OracleCache | None) -> None:
    if with_oracle and project in COMPILED:
        prlegs.score_signatures(result, payload, project, head)
    elif with_oracle and cache is not None:
        score_signatures(result, payload, release_tree(project, head), cache)


# --- Report ---------------------------------------------------------------------------------

COLUMNS = ("project", "diff", "files", "by class", "changed symbols", "affected",
           "from fallbacks", "mentions", "docs to review", "lower bound", "cold s", "warm s",
           "sig. changed (scored)", "caller P", "caller P resolved", "caller R")
CLASS_ORDER = ("code", "generated", "config", "docs", "metadata", "data", "binary", "submodule")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def row(r: DiffResult) -> str:
    if r.error:
        return f"| {r.project} | {r.base} → {r.head} | failed: {r.error} |" + " |" * 13
    classes = ", ".join(f"{c} {r.by_class[c]}" for c in CLASS_ORDER if r.by_class.get(c))
    cells = (r.project, f"{r.base} → {r.head}", str(r.files), classes, str(r.changed_symbols),
             str(r.affected), str(r.affected_from_fallbacks), str(r.mentions),
             str(r.docs_to_review), "yes" if not r.complete else "no",
             f"{r.cold_seconds:.2f}", f"{r.warm_seconds:.2f}",
             f"{r.signature_changed} ({r.oracle_symbols})", _pct(r.precision),
             _pct(r.precision_resolved), _pct(r.recall))
    return "| " + " | ".join(cells) + " |"


def render(results: list[DiffResult], meta: dict) -> str:
    lines = ["# Real release diffs (bench/prs.py)", "",
             f"Run {meta['date']} on {meta['machine']}; `{meta['command']}`.", "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += [row(r) for r in results]
    lines.append("")
    for title in dict.fromkeys(group(r.project) for r in results):
        lines += [pooled(title, [r for r in results if group(r.project) == title]), ""]
    for r in results:
        if r.lower_bound_files or r.misses or r.extras or r.unscored or not r.complete:
            lines.append(f"## {r.project} {r.base} → {r.head}")
            lines.append("")
            lines.append(f"- summary: {r.summary}")
            lines += [f"- not analysed: {f}" for f in r.lower_bound_files[:10]]
            lines += [f"- signature change not scored: {u}" for u in r.unscored[:10]]
            lines += [f"- missed (the oracle has it): {m}" for m in r.misses[:15]]
            lines += [f"- extra (the oracle lacks it): {m}" for m in r.extras[:15]]
            lines.append("")
    return "\n".join(lines) + "\n"


def group(project: str) -> str:
    if project in COMPILED:
        apart = " of the projects kept apart" if project in prlegs.APART else ""
        return f"{COMPILED[project][0].capitalize()} symbols{apart} vs " \
            f"`{prlegs.oracle_name(project)}`"
    if project in APART:
        return "Python symbols of the projects kept apart vs jedi"
    return "Python symbols vs jedi"


def pooled(title: str, results: list[DiffResult]) -> str:
    tp, fp, fn = (sum(getattr(r, k) for r in results) for k in ("tp", "fp", "fn"))
    tpr, fpr = (sum(getattr(r, k) for r in results) for k in ("tp_resolved", "fp_resolved"))
    ptp, pfp = (sum(getattr(r, k) for r in results) for k in ("possible_tp", "possible_fp"))
    fixtures = sum(r.fixture_fn for r in results)
    apart = (f" {fixtures} of the missed callers are tests that request a changed pytest "
             f"fixture by parameter name (without them: recall "
             f"{_pct(tp / (tp + fn - fixtures))})." if fixtures and tp + fn > fixtures else "")
    unnamed = sum(r.unnamed_fn for r in results)
    if unnamed and tp + fn > unnamed:
        apart += (f" {unnamed} of the missed callers have no error on a line that names the "
                  f"method: the compiler flags an instance of its class passed where an "
                  f"interface it no longer fits is expected, no call (without them: recall "
                  f"{_pct(tp / (tp + fn - unnamed))}).")
    return (f"Pooled depth-1 callers of signature-changed {title}: "
            f"precision {_pct(tp / (tp + fp) if tp + fp else None)}, "
            f"recall {_pct(tp / (tp + fn) if tp + fn else None)} "
            f"({tp} agreed, {fp} extra, {fn} missed); counting exact and probable links only, "
            f"precision {_pct(tpr / (tpr + fpr) if tpr + fpr else None)} "
            f"({tpr} agreed, {fpr} extra). Possible callers (name matches on a receiver "
            f"of unknown type, listed apart, never affected): {ptp} of them agree with the "
            f"oracle, {pfp} do not.{apart}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", nargs="*", default=[*PYPI, *COMPILED])
    parser.add_argument("--no-oracle", action="store_true")
    parser.add_argument("--scores-only", action="store_true",
                        help="one cold check a diff: caller scores, no warm timings")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    results: list[DiffResult] = []
    for project in args.projects:
        versions = PYTHON[project] if project in PYTHON else COMPILED[project][1]
        repo = history(project, versions)
        cache = None if args.no_oracle else oracle.OracleCache(f"prs-{project}")
        for base, head in zip(versions, versions[1:], strict=False):
            result = run_diff(project, repo, base, head, not args.no_oracle, cache,
                              args.scores_only)
            print(row(result), flush=True)
            results.append(result)
    meta = {"date": datetime.date.today().isoformat(),
            "machine": f"{platform.machine()}, {_cores()} cores, "
                       f"Python {platform.python_version()}",
            "command": "python bench/prs.py " + " ".join(argv if argv is not None
                                                         else sys.argv[1:])}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "prs.md").write_text(render(results, meta))
    (args.out / "prs.json").write_text(json.dumps(
        {"meta": meta, "diffs": [asdict(r) for r in results]}, indent=1) + "\n")
    print(render(results, meta))
    return 0


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


if __name__ == "__main__":
    sys.exit(main())
