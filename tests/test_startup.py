"""What the pre-commit hook's `check` imports: only what a text report needs. The hook pays
every import on every commit, so the other formats' renderers, the MCP server's pager, the
hook installer and the tests' selection load only when asked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import CALLED_CONFIG, edit

# Imported by a text check before they were loaded lazily; none serves it.
NOT_FOR_TEXT = (
    "maguyva_guard.report.html",
    "maguyva_guard.report.sarif",
    "maguyva_guard.report.mermaid",
    "maguyva_guard.report.graphview",
    "maguyva_guard.report.tests_json",
    "maguyva_guard.commands.paging",
    "maguyva_guard.integrations.hookinstall",
    "maguyva_guard.guard.testpicker",
    "maguyva_guard.guard.tests_to_run",
    "mcp",
    "concurrent.futures",  # the working tree's comparison runs in a thread; the CLI skips it
)

RUN = """
import json, sys
from maguyva_guard import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _modules_after(repo: Path, *args: str) -> tuple[str, set[str]]:
    done = subprocess.run([sys.executable, "-c", RUN, "check", "--repo", str(repo), *args],
                          capture_output=True, text=True, check=True)
    return done.stdout, set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_a_text_check_imports_no_other_format_nor_mcp_nor_tests(make_repo):
    repo = make_repo(CALLED_CONFIG)
    edit(repo, "pkg/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    out, modules = _modules_after(repo, "--staged")
    assert "pkg/cli.py" in out  # the check ran and found the caller
    assert sorted(m for m in NOT_FOR_TEXT if m in modules) == []


def test_a_json_check_imports_the_tests_selection_it_reports(make_repo):
    repo = make_repo(CALLED_CONFIG)
    edit(repo, "pkg/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    out, modules = _modules_after(repo, "--staged", "--format", "json")
    assert "tests" in json.loads(out)
    assert {"maguyva_guard.guard.tests_to_run", "maguyva_guard.report.tests_json"} <= modules
    assert "maguyva_guard.report.html" not in modules
