"""The Go, Rust and Java legs of the comparison (issue 19): the compiler as the oracle.

`python bench/compilerleg.py --lang go|rust|java` builds a pinned project from its registry
into a git repository under bench/.cache/repos (each has no dependencies outside the
standard library, so it compiles offline):

- go: github.com/spf13/pflag v1.1.0 from the Go module proxy (`go mod download`); the
  oracle is `go test -vet=off -run '^$' -gcflags=-e ./...`, which compiles the package with
  its tests and runs none; `-e` lifts the compiler's cap of 10 errors a package (`go vet`
  has the cap too: seen, 10 of FlagSet.StringP's 22 broken calls). A `package x_test` file
  is not compiled when its package fails, so callers there are missed by the oracle.
  Methods whose name an interface of the project declares (`Value.Type`) are left out:
  Go interfaces are implemented implicitly, so such a change breaks the conversions of the
  type to the interface, not the calls, and calls through the interface compile unchanged;
  so are methods of the standard library's everyday interfaces (`Error`, `String`, ...).
- rust: regex-syntax 0.8.12 from crates.io (`cargo fetch` through a scratch crate, then
  `cargo generate-lockfile`); the oracle is `cargo check --offline --lib --tests`.
- java: commons-cli 1.11.0's sources jar from Maven Central (`mvn dependency:get`); the
  oracle is `javac -Xmaxerrs 100000` over every `.java` file.

Scenarios: a seeded sample of functions and methods (with a body, not a constructor, a
trait implementation, an overload or a variadic) whose name appears in another file; the
change appends a parameter to the definition only. Every compiler error after the change,
not reported before it, outside the changed definition, is a caller; a change that breaks
its own definition (an interface or trait it implements) is skipped. Tools and mapping are
those of bench/legcore.py: maguyva-guard `check --staged --format json` (depth-1 entries)
and `git grep -n -w NAME`, every line mapped to its innermost enclosing function, method or
type with tree-sitter.

    python bench/compilerleg.py --lang go [--scenarios 30] [--seed 1] [--out bench/results]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import legcore, measure  # noqa: E402
from bench.corpus import CACHE, REPOS, _git, commit_as_repo  # noqa: E402
from bench.legcore import Scenario, node_name  # noqa: E402

_GO_ERR = re.compile(r"^(?:\./)?(?P<path>[^:\s]+\.go):(?P<line>\d+):\d+: (?P<code>.*)$")
_RS_ERR = re.compile(r"^(?P<path>[^:\s]+\.rs):(?P<line>\d+):\d+: error(?P<code>\[E\d+\])?:")
_JAVA_ERR = re.compile(r"^(?P<path>[^:\s]+\.java):(?P<line>\d+): error: (?P<code>.*)$")
_GENERICS = re.compile(r"<.*>|\[.*\]")


@dataclass(frozen=True)
class Lang:
    name: str
    package: str
    version: str
    glob: str
    grammar: str
    extra: str  # the appended parameter
    defs: tuple[str, ...]  # definition node types that make scenarios
    imports: tuple[str, ...]
    scope_name: Callable[[object], str | None]
    reject: Callable[[object], bool]  # definitions that make no clean scenario
    toolchain: str
    oracle: str


# --- scope names ----------------------------------------------------------------------

def _bare(type_text: str) -> str:
    return _GENERICS.sub("", type_text).lstrip("*&").strip()


def _go_scope(node) -> str | None:
    if node.type == "function_declaration":
        return node_name(node)
    if node.type == "method_declaration":
        recv = node.child_by_field_name("receiver")
        decl = recv.named_children[0] if recv is not None and recv.named_children else None
        rtype = decl.child_by_field_name("type") if decl is not None else None
        name = node_name(node)
        return f"{_bare(rtype.text.decode())}.{name}" if rtype is not None else name
    if node.type == "type_spec":
        return node_name(node)
    return None


def _rust_scope(node) -> str | None:
    if node.type in ("function_item", "trait_item", "mod_item", "struct_item", "enum_item"):
        return node_name(node)
    if node.type == "impl_item":
        t = node.child_by_field_name("type")
        return _bare(t.text.decode()) if t is not None else None
    return None


_JAVA_SCOPES = ("class_declaration", "interface_declaration", "enum_declaration",
                "record_declaration", "method_declaration", "constructor_declaration")


def _java_scope(node) -> str | None:
    return node_name(node) if node.type in _JAVA_SCOPES else None


# --- which definitions make scenarios ---------------------------------------------------

def _go_reject(node) -> bool:
    params = node.child_by_field_name("parameters")
    variadic = any(p.type == "variadic_parameter_declaration" for p in params.named_children)
    name = node_name(node) or ""
    return variadic or name in ("init", "main") or name.startswith(("Test", "Benchmark"))


def _rust_reject(node) -> bool:
    body = node.parent
    owner = body.parent if body is not None else None
    if owner is not None and owner.type == "trait_item":
        return True
    return owner is not None and owner.type == "impl_item" and \
        owner.child_by_field_name("trait") is not None


def _java_reject(node) -> bool:
    params = node.child_by_field_name("parameters")
    if any(p.type == "spread_parameter" for p in params.named_children):
        return True
    name = node_name(node)
    siblings = [c for c in node.parent.named_children
                if c.type == "method_declaration" and node_name(c) == name]
    return len(siblings) > 1  # an overload: calls may move to the other one silently


LANGS = {
    "go": Lang("go", "github.com/spf13/pflag", "v1.1.0", "*.go", "go", "mgExtra string",
               ("function_declaration", "method_declaration"), ("import_declaration",),
               _go_scope, _go_reject, "go (toolchain of the machine)",
               "go test -vet=off -run '^$' -gcflags=-e ./..."),
    "rust": Lang("rust", "regex-syntax", "0.8.12", "*.rs", "rust", "mg_extra: u8",
                 ("function_item",), ("use_declaration",), _rust_scope, _rust_reject,
                 "cargo", "cargo check --offline --lib --tests"),
    "java": Lang("java", "commons-cli:commons-cli", "1.11.0", "*.java", "java",
                 "String mgExtra", ("method_declaration",),
                 ("import_declaration", "package_declaration"), _java_scope, _java_reject,
                 "javac", "javac -Xmaxerrs 100000"),
}


def parser(lang: Lang):
    from tree_sitter_language_pack import get_parser

    return get_parser(lang.grammar)


def scopes_of(lang: Lang, text: str, p) -> legcore.Scopes:
    return legcore.Scopes(text, p, lang.scope_name, lambda n: n.type in lang.imports)


_GO_STD_INTERFACE_METHODS = frozenset({
    "Error", "String", "GoString", "Format", "Read", "Write", "Close", "Len", "Less", "Swap",
    "Unwrap", "Is", "As", "MarshalJSON", "UnmarshalJSON", "MarshalText", "UnmarshalText",
    "ServeHTTP"})


def _interface_methods(lang: Lang, texts: dict[str, str], p) -> set[str]:
    """Go: the method names interfaces declare (implemented implicitly): the project's own
    and the standard library's everyday ones."""
    if lang.name != "go":
        return set()
    names = set(_GO_STD_INTERFACE_METHODS)
    for text in texts.values():
        stack = [p.parse(text.encode()).root_node]
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            if node.type == "method_elem" and node_name(node):
                names.add(node_name(node))
    return names


def candidates(lang: Lang, texts: dict[str, str]) -> list[Scenario]:
    p = parser(lang)
    words: dict[str, set[str]] = {}
    for path, text in texts.items():
        for w in set(re.findall(r"[A-Za-z_]\w*", text)):
            words.setdefault(w, set()).add(path)
    interface_methods = _interface_methods(lang, texts, p)
    found = []
    for path, text in sorted(texts.items()):
        if path.endswith("_test.go"):
            continue
        scopes = scopes_of(lang, text, p)
        stack = [scopes.root]
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            if node.type not in lang.defs:
                continue
            name, params = node_name(node), node.child_by_field_name("parameters")
            if not name or params is None or node.child_by_field_name("body") is None:
                continue
            if len(name) < 4 or len(words.get(name, ())) < 2 or lang.reject(node):
                continue
            if node.type == "method_declaration" and name in interface_methods:
                continue
            line = node.start_point[0] + 1
            qual = scopes.at(line)
            kind = "method" if "." in qual else "function"
            found.append(Scenario(path, qual, name, kind, line, node.end_point[0] + 1,
                                  params.end_byte - 1, not params.named_children))
    return found


# --- corpora --------------------------------------------------------------------------

def _run(cmd: list[str], cwd: Path, env: dict | None = None) -> str:
    return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}).stdout


def _fetch_go(lang: Lang, into: Path) -> Path:
    info = json.loads(_run(["go", "mod", "download", "-json", f"{lang.package}@{lang.version}"],
                           into, {"GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"}))
    top = into / "src"
    shutil.copytree(info["Dir"], top)
    for d, _dirs, files in os.walk(top):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(Path(d) / f, 0o644)
    return top


def _fetch_rust(lang: Lang, into: Path) -> Path:
    probe = into / "probe"
    _run(["cargo", "init", "-q", "--name", "probe", str(probe)], into)
    _run(["cargo", "add", "-q", f"{lang.package}@={lang.version}"], probe)
    meta = json.loads(_run(["cargo", "metadata", "--format-version", "1"], probe))
    (pkg,) = [p for p in meta["packages"] if p["name"] == lang.package]
    top = into / "src"
    shutil.copytree(Path(pkg["manifest_path"]).parent, top)
    _run(["cargo", "generate-lockfile", "-q"], top)  # pinned, so that checks run offline
    return top


def _fetch_java(lang: Lang, into: Path) -> Path:
    group, artifact = lang.package.split(":")
    _run(["mvn", "-q", "dependency:get",
          f"-Dartifact={lang.package}:{lang.version}:jar:sources"], into)
    jar = (Path.home() / ".m2" / "repository" / group.replace(".", "/") / artifact /
           lang.version / f"{artifact}-{lang.version}-sources.jar")
    top = into / "src"
    with zipfile.ZipFile(jar) as zf:
        zf.extractall(top)
    return top


def ensure_repo(lang: Lang) -> Path:
    dest = REPOS / f"{lang.name}-{lang.package.replace('/', '_').replace(':', '_')}-" \
                   f"{lang.version}"
    if (dest / ".git").is_dir():
        return dest
    REPOS.mkdir(parents=True, exist_ok=True)
    fetch = {"go": _fetch_go, "rust": _fetch_rust, "java": _fetch_java}[lang.name]
    with tempfile.TemporaryDirectory(dir=REPOS) as tmp:
        top = fetch(lang, Path(tmp))
        commit_as_repo(top, dest, f"{lang.package} {lang.version} from its registry")
    return dest


# --- the compilers --------------------------------------------------------------------

def _errors(rows: str, pattern: re.Pattern, clone: Path) -> set[legcore.Error]:
    out = set()
    for row in rows.splitlines():
        m = pattern.match(row.strip())
        if m:
            path = Path(os.path.normpath(clone / m["path"])).relative_to(clone).as_posix()
            out.add((path, int(m["line"]), m["code"] or ""))
    return out


def compile_errors(lang: Lang, clone: Path) -> tuple[set[legcore.Error], float]:
    if lang.name == "go":
        os.environ.update(GOTOOLCHAIN="local", GOFLAGS="-mod=mod")
        run = measure.run(["go", "test", "-vet=off", "-count=1", "-run", "^$", "-gcflags=-e",
                           "./..."], clone, 900.0)
        return _errors(run.stdout + run.stderr, _GO_ERR, clone), run.seconds
    if lang.name == "rust":
        os.environ["CARGO_TARGET_DIR"] = str(CACHE / "cargo-target" / lang.package)
        run = measure.run(["cargo", "check", "--offline", "--lib", "--tests", "-q",
                           "--message-format", "short"], clone, 900.0)
        return _errors(run.stdout + run.stderr, _RS_ERR, clone), run.seconds
    files = _git(["ls-files", lang.glob], clone).split()
    with tempfile.TemporaryDirectory(prefix="mg-javac-") as out:
        run = measure.run(["javac", "-d", out, "-Xmaxerrs", "100000", "-nowarn", "-proc:none",
                           *files], clone, 900.0)
    return _errors(run.stdout + run.stderr, _JAVA_ERR, clone), run.seconds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", choices=sorted(LANGS), required=True)
    ap.add_argument("--scenarios", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = ap.parse_args(argv)
    lang = LANGS[args.lang]
    corpus = ensure_repo(lang)
    files = _git(["ls-files", lang.glob], corpus).split()
    texts = {f: (corpus / f).read_text(encoding="utf-8", errors="replace") for f in files}
    p, cache = parser(lang), {}

    def scopes(path: str) -> legcore.Scopes:
        if path not in cache:
            cache[path] = scopes_of(lang, texts.get(path, ""), p)
        return cache[path]

    found = candidates(lang, texts)
    random.Random(args.seed).shuffle(found)
    leg = legcore.Leg(f"{lang.name}leg", lang.glob, scopes,
                      lambda text, s: legcore.append_parameter(text, s, lang.extra),
                      lambda clone: compile_errors(lang, clone))
    res = legcore.run_leg(leg, corpus, texts, found, args.scenarios)
    lines = sum(t.count("\n") for t in texts.values())
    md = "\n".join([
        *legcore.header(f"{lang.name.capitalize()} leg: {lang.package} {lang.version}, "
                        f"`{lang.oracle}` as the oracle",
                        f"python bench/compilerleg.py --lang {lang.name} --scenarios "
                        f"{args.scenarios} --seed {args.seed}", lang.toolchain),
        f"{len(files)} files, {lines} lines. {len(res.rows)} scenarios (`{lang.extra}` "
        f"appended to a function or method), {len(found)} candidates, {res.skipped} skipped "
        f"(the change broke its own definition), {res.no_callers} without a compiler error "
        f"elsewhere. {res.baseline} errors before any change. Oracle: new errors outside the "
        f"definition, mapped to enclosing symbols; {sum(len(r['oracle']) for r in res.rows)} "
        f"callers in all. Compiler median {legcore.median(res.compile_seconds):.2f} s a "
        f"scenario (whole project, wall); maguyva-guard index {res.index_seconds:.1f} s once.",
        "",
        legcore.score_table(res),
        "",
    ])
    legcore.write(args.out, leg.name, md, {"package": f"{lang.package}@{lang.version}",
                                           "oracle": lang.oracle, "seed": args.seed}, res)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
