"""Bad input is one clear line on stderr and exit 2; an unexpected failure is one line and
exit 3; never a traceback (CONTRACT.md). Each case runs the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import git

from maguyva_guard import cli
from maguyva_guard.cli import main
from maguyva_guard.commands import check as checking

FILES = {"app/__init__.py": "", "app/core.py": "def parse(x):\n    return x\n",
         "app/cli.py": "from app.core import parse\n\n\ndef main():\n    return parse(1)\n"}


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(FILES)


def run(*argv: str, env: dict[str, str] | None = None):
    result = CliRunner().invoke(main, list(argv), env=env, prog_name="maguyva-guard")
    assert "Traceback" not in result.output
    return result


def assert_one_line(result, code: int, *words: str) -> None:
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    prefix = "maguyva-guard: internal error: " if code == 3 else "maguyva-guard: error: "
    assert line.startswith(prefix), line
    for word in words:
        assert word in line, line


@pytest.mark.parametrize("argv, words", [
    (["check", "--base", "no-such-rev"], ["unknown revision: no-such-rev"]),
    (["check", "--base", "HEAD", "--head", "nope"], ["unknown revision: nope"]),
    (["check", "--base", "--output=/tmp/x"], ["unknown revision: --output=/tmp/x"]),
    (["check", "--head", "HEAD"], ["--head needs --base"]),
    (["check", "--staged", "--base", "HEAD"], ["--staged cannot be combined"]),
])
def test_unknown_revisions_and_bad_combinations(repo, argv, words):
    assert_one_line(run(*argv, "--repo", str(repo)), 2, *words)


@pytest.mark.parametrize("argv, words", [
    (["check", "--bogus"], ["No such option '--bogus'", "maguyva-guard check --help"]),
    (["check", "--format", "xml"], ["'--format'", "'xml' is not one of"]),
    (["check", "--depth", "abc"], ["'--depth'", "not a valid integer"]),
    (["check", "--depth", "0"], ["--depth must be an integer >= 1"]),
    (["check", "--base"], ["'--base' requires an argument"]),
    (["query"], ["Missing argument 'TEXT'", "maguyva-guard query --help"]),
    (["query", "x", "--limit", "0"], ["'--limit'"]),
    (["nosuch"], ["No such command 'nosuch'"]),
    (["--bogus"], ["No such option '--bogus'"]),
    (["index", "--rebuild=yes"], ["--rebuild"]),
])
def test_bad_flags_are_one_line_not_a_usage_block(repo, argv, words, monkeypatch):
    monkeypatch.chdir(repo)
    assert_one_line(run(*argv), 2, *words)


def test_help_and_version_still_work():
    assert run("check", "--help").stdout.startswith("Usage: maguyva-guard check")
    assert "version" in run("--version").stdout
    assert run().output.startswith("Usage: maguyva-guard")  # no arguments: the help


@pytest.mark.parametrize("config, words", [
    ("this is not toml\n", [".maguyva-guard.toml: invalid TOML", "line 1"]),
    ("presett = 'quick'\n", ["unknown key 'presett'", "did you mean 'preset'"]),
    ("depth = 'deep'\n", ["'depth'", "must be an integer"]),
    ("[semantic]\napi_key = 'sk-do-not-show'\n", ["unknown key 'api_key'", "VOYAGE_API_KEY"]),
    ("exclude = ['../outside']\n", ["'..' segment"]),
    ("exclude = ['/etc']\n", ["absolute path"]),
    ("exclude = ['~root/x']\n", ["home folder"]),
])
@pytest.mark.parametrize("command", [["check"], ["query", "who calls parse"]])
def test_a_bad_config_file_is_one_line(repo, config, words, command):
    (repo / ".maguyva-guard.toml").write_text(config)
    result = run(*command, "--repo", str(repo))
    assert_one_line(result, 2, *words)
    assert "sk-do-not-show" not in result.output


def test_a_config_file_that_links_outside_the_repository_is_not_read(repo, tmp_path):
    outside = tmp_path / "secret.toml"
    outside.write_text("depth = 'the secret value'\n")
    (repo / ".maguyva-guard.toml").symlink_to(outside)
    result = run("check", "--repo", str(repo))
    assert_one_line(result, 2, ".maguyva-guard.toml links to outside the repository")
    assert "secret value" not in result.output
    (repo / ".maguyva-guard.toml").unlink()
    (repo / "pyproject.toml").symlink_to(outside)
    assert_one_line(run("check", "--repo", str(repo)), 2, "pyproject.toml links to outside")
    (repo / "pyproject.toml").unlink()
    (repo / "conf").mkdir()
    (repo / "conf/guard.toml").write_text("depth = 1\n")
    (repo / ".maguyva-guard.toml").symlink_to("conf/guard.toml")  # inside: fine
    assert run("check", "--repo", str(repo)).exit_code == 0


@pytest.mark.parametrize("damage, words", [
    ("index folder is a file", ["cannot create the index folder"]),
    ("lock is a folder", ["cannot open the index lock"]),
])
@pytest.mark.parametrize("command", [["index"], ["check"], ["query", "who calls parse"]])
def test_an_index_that_cannot_be_opened_is_one_line(repo, damage, words, command):
    folder = repo / ".git" / "maguyva-guard"
    if damage == "index folder is a file":
        folder.write_text("not a folder")
    else:
        (folder / "lock").mkdir(parents=True)
    assert_one_line(run(*command, "--repo", str(repo)), 2, *words)


def test_a_corrupt_index_is_rebuilt_not_an_error(repo):
    """Unreadable content (not an unopenable file) is a cache to rebuild, with one line."""
    assert run("index", "--repo", str(repo)).exit_code == 0
    index = next((repo / ".git" / "maguyva-guard").glob("index-v*.sqlite"))
    index.write_bytes(b"\x00garbage" * 4096)
    git(repo, "commit", "-q", "--allow-empty", "-m", "touch")
    result = run("check", "--repo", str(repo), "--format", "json")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == "maguyva-guard: index was corrupt; rebuilding"
    assert json.loads(result.stdout)["stats"]["files_indexed"] == len(FILES)


def test_an_unexpected_exception_is_one_line_exit_3_without_secrets(repo, monkeypatch):
    def boom(*args: object, **kwargs: object) -> None:
        raise KeyError("sk-live-123 went missing")

    monkeypatch.setattr(checking, "run", boom)
    env = {"VOYAGE_API_KEY": "sk-live-123"}
    result = run("check", "--repo", str(repo), env=env)
    assert_one_line(result, cli.EXIT_INTERNAL, "KeyError", "went missing", "please report")
    assert "sk-live-123" not in result.output
    debug = CliRunner().invoke(main, ["check", "--repo", str(repo)],
                               env={**env, cli.DEBUG_VARIABLE: "1"})
    assert isinstance(debug.exception, KeyError)  # the traceback, for whoever asked for it


@pytest.mark.parametrize("url", ["javascript:alert(1)//", "file:///etc/passwd", "github.com/o/r",
                                 "https://github.com/o/r?x=1", "https://exa\nmple.com/o/r"])
def test_a_repo_url_that_is_not_a_plain_http_url_is_one_line(repo, url):
    assert_one_line(run("check", "--repo", str(repo), "--repo-url", url), 2,
                    "--repo-url must be an http:// or https:// URL")
