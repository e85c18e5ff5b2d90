"""The text report's template is compiled once and kept beside the package's .pyc files
(report/templated.py): a later run renders from the kept code, with the same report."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import CALLED_CONFIG, edit

from maguyva_guard.report import templated

# A text check in a fresh process; stderr's last line: how many templates Jinja compiled.
RUN = """
import sys
import jinja2
compiled = [0]
compile_ = jinja2.Environment.compile
def counting(self, *args, **kwargs):
    compiled[0] += 1
    return compile_(self, *args, **kwargs)
jinja2.Environment.compile = counting
from maguyva_guard import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
finally:
    print(compiled[0], file=sys.stderr)
"""


def _text_check(repo, env) -> tuple[str, int]:
    done = subprocess.run([sys.executable, "-c", RUN, "check", "--repo", str(repo),
                           "--staged"], capture_output=True, text=True, env=env, check=True)
    return done.stdout, int(done.stderr.strip().splitlines()[-1])


def _timeless(report: str) -> str:  # the report's last line says how long it took
    return "\n".join(line for line in report.splitlines() if " took " not in line)


def test_a_second_text_check_renders_without_compiling_the_template(make_repo):
    repo = make_repo(CALLED_CONFIG)
    edit(repo, "pkg/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cache = templated._bytecode_cache()
    for kept in Path(cache.directory).glob("*.jinja.*.cache"):
        kept.unlink(missing_ok=True)  # (another test's run compiles it again)
    first, compiled_first = _text_check(repo, env)
    second, compiled = _text_check(repo, env)
    assert "pkg/cli.py" in second
    assert (compiled_first, compiled) == (1, 0)
    assert _timeless(second) == _timeless(first)

