"""Real tracebacks and stack traces: failing snippets run against real installed code.

    python_traces(repo) / node_traces() / go_traces() -> (repo, [Trace])

- Python: Django 5.2.8 installed from PyPI into its own virtualenv (bench/.cache/venvs);
  each snippet runs there and fails inside Django. The printed traceback is what Python
  writes to stderr; the expected answer comes from `traceback.extract_tb` in the same
  process (the innermost frame inside the installed `django` package), not from parsing.
- Node.js: semver 7.6.3 and uuid 9.0.1 from npm (`npm pack`; the package's tarball is
  its corpus repository and is installed under node_modules). The stack is Node's own
  uncaught-error output; the expected frame comes from a second run of the same snippet
  with V8's structured call sites (`Error.prepareStackTrace`).
- Go: github.com/google/uuid v1.6.0 and github.com/Masterminds/semver/v3 v3.3.0 from the
  Go module proxy (the module's source from the module cache is its corpus repository).
  The panic is the runtime's output; the expected frame comes from a second run that
  recovers and walks `runtime.Callers`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.corpus import CACHE, REPOS, commit_as_repo


@dataclass(frozen=True)
class Trace:
    project: str
    language: str
    text: str
    path: str  # the innermost frame in the project, repository-relative
    line: int


DJANGO_SETUP = ("from django.conf import settings\n"
                "settings.configure(SECRET_KEY='x', INSTALLED_APPS=[], DEBUG=True)\n"
                "import django\ndjango.setup()\n")
PY_SNIPPETS = [
    ("from django.conf import settings\nsettings.INSTALLED_APPS\n", False),
    ("settings.configure()\n", True),
    ("from django.template import Engine\nEngine().from_string('{% if %}x{% endif %}')\n", True),
    ("from django.template import Engine\nEngine().from_string('{{ x|nofilter }}')\n", True),
    ("from django.template import Engine\nEngine().from_string('{% frobnicate %}')\n", True),
    ("from django.core.validators import validate_email\nvalidate_email('nobody')\n", True),
    ("from django.core.validators import URLValidator\nURLValidator()('foo')\n", True),
    ("from django.utils.module_loading import import_string\nimport_string('nodots')\n", False),
    ("from django.utils.module_loading import import_string\nimport_string('os.nope')\n", False),
    ("from django.core import signing\nsigning.loads('bad')\n", True),
    ("from django.http import HttpResponse\nHttpResponse(status=99999)\n", True),
    ("from django.http import QueryDict\nQueryDict('a=1')['a'] = '2'\n", True),
    ("from django.db import models\nclass Foo(models.Model):\n    pass\n", True),
    ("from django.core.paginator import Paginator\nPaginator([1, 2], 1).page(5)\n", False),
    ("from django.core.paginator import Paginator\nPaginator([1], 1).validate_number('x')\n",
     False),
    ("from django.utils.http import base36_to_int\nbase36_to_int('z' * 20)\n", False),
    ("from django.core.cache import caches\ncaches['nope']\n", True),
    ("from django.db import connections\nconnections['nope']\n", True),
    ("from django.template import Context\nContext().pop()\n", False),
    ("from django.conf.urls.static import static\nstatic('')\n", True),
    ("from django.core.files.storage import FileSystemStorage\n"
     "FileSystemStorage(location='/tmp').path('../x')\n", True),
    ("from django.urls import reverse\nreverse('nope')\n", False),
    ("from django.utils.dateparse import parse_duration\nfrom django.forms import "
     "DurationField\nDurationField().clean('xyz')\n", True),
    ("from django import forms\nforms.IntegerField().clean('abc')\n", True),
]
PY_WRAPPER = """import json, os, sys, traceback
import django
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(django.__file__)))
try:
{body}
except BaseException as exc:
    inner = [f for f in traceback.extract_tb(exc.__traceback__)
             if f.filename.startswith(os.path.join(ROOT, "django") + os.sep)]
    if inner:
        print(json.dumps({{"path": os.path.relpath(inner[-1].filename, ROOT),
                          "line": inner[-1].lineno}}))
    raise
"""


def python_traces(repo: Path) -> list[Trace]:
    venv = CACHE / "venvs" / "django-5.2.8"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "django==5.2.8"], check=True)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (snippet, setup) in enumerate(PY_SNIPPETS):
            body = (DJANGO_SETUP if setup else "") + snippet
            script = Path(tmp) / f"snippet_{i}.py"
            script.write_text(PY_WRAPPER.format(body="".join(
                f"    {line}\n" for line in body.splitlines())))
            run = subprocess.run([str(python), str(script)], capture_output=True, text=True,
                                 cwd=tmp, timeout=60)
            if run.returncode == 0 or not run.stdout.strip():
                continue  # did not fail inside Django: not a case
            truth = json.loads(run.stdout.strip().splitlines()[-1])
            out.append(Trace("django 5.2.8", "python", run.stderr, truth["path"], truth["line"]))
    return out


NODE_SNIPPETS = {
    "semver": ["new (require('semver').SemVer)('x')", "new (require('semver').SemVer)(1)",
               "new (require('semver').SemVer)('1.2.3'.repeat(100))",
               "require('semver').compare('1.2.3', 'nope')",
               "new (require('semver').Comparator)('>=>1')"],
    "uuid": ["require('uuid').parse('x')", "require('uuid').v5('a', 'not-a-namespace')",
             "require('uuid').stringify([1, 2])", "require('uuid').v4({}, [], 100)"],
}
NODE_TRUTH = """Error.prepareStackTrace = (e, sites) => sites;
try {{ {snippet}; }} catch (e) {{
  const s = (Array.isArray(e.stack) ? e.stack : []).find(
    c => (c.getFileName() || '').includes('/node_modules/{pkg}/'));
  if (s) console.log(JSON.stringify({{file: s.getFileName(), line: s.getLineNumber()}}));
}}
"""
NODE_VERSIONS = {"semver": "7.6.3", "uuid": "9.0.1"}


def node_traces() -> list[tuple[Path, list[Trace]]]:
    out = []
    for pkg, snippets in NODE_SNIPPETS.items():
        version = NODE_VERSIONS[pkg]
        repo = _npm_repo(pkg, version)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund",
                            str(CACHE / "npm" / f"{pkg}-{version}.tgz")], cwd=tmp, check=True,
                           capture_output=True)
            traces = []
            prefix = str(Path(tmp).resolve() / "node_modules" / pkg) + "/"
            for i, snippet in enumerate(snippets):
                (Path(tmp) / f"s{i}.js").write_text(snippet + ";\n")
                (Path(tmp) / f"t{i}.js").write_text(NODE_TRUTH.format(snippet=snippet, pkg=pkg))
                run = subprocess.run(["node", f"s{i}.js"], cwd=tmp, capture_output=True,
                                     text=True, timeout=60)
                truth = subprocess.run(["node", f"t{i}.js"], cwd=tmp, capture_output=True,
                                       text=True, timeout=60).stdout.strip()
                if run.returncode == 0 or not truth:
                    continue
                found = json.loads(truth)
                traces.append(Trace(f"{pkg} {version} (npm)", "javascript", run.stderr,
                                    found["file"].removeprefix(prefix), found["line"]))
        out.append((repo, traces))
    return out


def _npm_repo(pkg: str, version: str) -> Path:
    dest = REPOS / f"npm-{pkg}-{version}"
    if (dest / ".git").is_dir():
        return dest
    tgz = CACHE / "npm" / f"{pkg}-{version}.tgz"
    if not tgz.exists():
        tgz.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "pack", "--silent", f"{pkg}@{version}"], cwd=tgz.parent,
                       check=True, capture_output=True)
    with tempfile.TemporaryDirectory(dir=REPOS) as tmp, tarfile.open(tgz) as tf:
        tf.extractall(tmp, filter="data")
        commit_as_repo(Path(tmp) / "package", dest, f"{pkg} {version} npm")
    return dest


GO_MODULES = {"github.com/google/uuid": "v1.6.0", "github.com/Masterminds/semver/v3": "v3.3.0"}
GO_SNIPPETS = {
    "github.com/google/uuid": ['uuid.MustParse("x")',
                               'uuid.MustParse("zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz")',
                               'uuid.Must(uuid.Parse("{12345678-1234"))'],
    "github.com/Masterminds/semver/v3": ['semver.MustParse("x")',
                                         'semver.MustParse("1.2.3.4.5")',
                                         'semver.MustParse("")'],
}
GO_MAIN = """package main

import (
\t"encoding/json"
\t"fmt"
\t"os"
\t"runtime"
\t"strings"

\t{alias} "{module}"
)

func main() {{
\tif os.Getenv("TRUTH") != "" {{
\t\tdefer func() {{
\t\t\trecover()
\t\t\tpcs := make([]uintptr, 64)
\t\t\tframes := runtime.CallersFrames(pcs[:runtime.Callers(0, pcs)])
\t\t\tfor {{
\t\t\t\tf, more := frames.Next()
\t\t\t\tif i := strings.Index(f.File, "{marker}"); i >= 0 {{
\t\t\t\t\tfile := f.File[i+len("{marker}"):]
\t\t\t\t\tout, _ := json.Marshal(map[string]any{{"file": file, "line": f.Line}})
\t\t\t\t\tfmt.Println(string(out))
\t\t\t\t\treturn
\t\t\t\t}}
\t\t\t\tif !more {{
\t\t\t\t\treturn
\t\t\t\t}}
\t\t\t}}
\t\t}}()
\t}}
\t_ = {snippet}
}}
"""


def go_traces() -> list[tuple[Path, list[Trace]]]:
    out = []
    cache = Path(subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True,
                                check=True).stdout.strip())
    for module, version in GO_MODULES.items():
        alias = "semver" if "semver" in module else "uuid"
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "go.mod").write_text("module snippet\n\ngo 1.21\n")
            subprocess.run(["go", "get", f"{module}@{version}"], cwd=tmp, check=True,
                           capture_output=True)
            source = cache / f"{_escape(module)}@{version}"
            repo = _go_repo(module, version, source)
            traces = []
            for snippet in GO_SNIPPETS[module]:
                (Path(tmp) / "main.go").write_text(GO_MAIN.format(
                    alias=alias, module=module, snippet=snippet,
                    marker=f"{_escape(module)}@{version}/"))
                build = subprocess.run(["go", "build", "-o", "snippet", "."], cwd=tmp,
                                       capture_output=True, text=True)
                if build.returncode != 0:
                    print(f"go build failed: {build.stderr[-300:]}", file=sys.stderr)
                    continue
                run = subprocess.run(["./snippet"], cwd=tmp, capture_output=True, text=True)
                truth = subprocess.run(["./snippet"], cwd=tmp, capture_output=True, text=True,
                                       env={**os.environ, "TRUTH": "1"}).stdout.strip()
                if run.returncode == 0 or not truth:
                    continue
                found = json.loads(truth)
                traces.append(Trace(f"{module} {version} (Go)", "go", run.stderr,
                                    found["file"], found["line"]))
        out.append((repo, traces))
    return out


def _escape(module: str) -> str:
    return "".join(f"!{c.lower()}" if c.isupper() else c for c in module)


def _go_repo(module: str, version: str, source: Path) -> Path:
    dest = REPOS / f"go-{module.replace('/', '-')}-{version}"
    if (dest / ".git").is_dir():
        return dest
    with tempfile.TemporaryDirectory(dir=REPOS) as tmp:
        top = Path(tmp) / "src"
        shutil.copytree(source, top)
        for path in top.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)  # the module cache is read-only
        commit_as_repo(top, dest, f"{module} {version} Go module")
    return dest
