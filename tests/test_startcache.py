"""The command line's cache of what every run compiles (maguyva_guard/startcache.py): a
second run builds its patterns and dataclass methods from the file without parsing or
compiling one, with the same report; a damaged file or code the regular expression engine
refuses is compiled again; every cached pattern and code object equals a fresh compile."""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's C engine: no stubs
import json
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import CALLED_CONFIG, edit

# The CLI as `maguyva-guard` runs it, counting the patterns `re` parses and the sources
# compiled (on stderr's last line).
RUN = """
import builtins, re, sys
parsed, compiled = [0], [0]
parse, compile_ = re._parser.parse, builtins.compile
def parsing(*args, **kwargs):
    parsed[0] += 1
    return parse(*args, **kwargs)
def compiling(source, *args, **kwargs):
    compiled[0] += isinstance(source, str) and "__create_fn__" in source
    return compile_(source, *args, **kwargs)
re._parser.parse, builtins.compile = parsing, compiling
sys.argv = ["maguyva-guard", *sys.argv[1:]]
from maguyva_guard.entry import main
try:
    main()
finally:
    print("parsed", parsed[0], compiled[0], file=sys.stderr)
"""


def _env(cache: Path) -> dict[str, str]:
    env = {**os.environ, "MAGUYVA_GUARD_START_CACHE": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _check(repo: Path, cache: Path, *args: str) -> tuple[str, int, int]:
    """The report, the patterns parsed and the dataclass methods compiled."""
    done = subprocess.run([sys.executable, "-c", RUN, "check", "--repo", str(repo), "--staged",
                           *args], capture_output=True, text=True, env=_env(cache))
    assert done.returncode == 0, done.stderr
    _, parsed, compiled = done.stderr.strip().splitlines()[-1].split()
    return done.stdout, int(parsed), int(compiled)


def _staged(make_repo) -> Path:
    repo = make_repo(CALLED_CONFIG)
    edit(repo, "pkg/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    return repo


def _timeless(report: str) -> str:  # the text report's last line says how long it took
    return "\n".join(line for line in report.splitlines() if " took " not in line)


def test_a_second_check_compiles_nothing_and_reports_the_same(make_repo, tmp_path):
    repo, cache = _staged(make_repo), tmp_path / "start.marshal"
    first, parsed_first, compiled_first = _check(repo, cache)
    assert "pkg/cli.py" in first and cache.exists()
    assert parsed_first > 100  # the modules' patterns and the names'
    assert compiled_first > 100  # the dataclasses' methods
    second, parsed_second, compiled_second = _check(repo, cache)
    assert (parsed_second, compiled_second) == (0, 0)
    assert _timeless(second) == _timeless(first)
    json_first, _, _ = _check(repo, tmp_path / "json.marshal", "--format", "json")
    json_second, parsed, compiled = _check(repo, tmp_path / "json.marshal", "--format", "json")
    assert parsed == compiled == 0
    assert _untimed(json.loads(json_second)) == _untimed(json.loads(json_first))


def _untimed(value: object) -> object:
    """A JSON report without its timings (keys ending in "seconds")."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if not k.endswith("seconds")}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def test_every_cached_pattern_and_code_equals_a_fresh_compile(make_repo, tmp_path):
    repo, cache = _staged(make_repo), tmp_path / "start.marshal"
    _check(repo, cache)
    data = marshal.loads(cache.read_bytes())
    assert len(data["patterns"]) > 100 and len(data["codes"]) > 100
    for pattern, flags, raw in data["patterns"]:
        assert _sre.compile(*marshal.loads(raw)) == re._compiler.compile(pattern, flags), pattern
    for source, raw in data["codes"].items():
        assert marshal.loads(raw) == compile(source, "<string>", "exec", dont_inherit=True), source


def test_a_damaged_cache_file_is_compiled_again_and_rewritten(make_repo, tmp_path):
    repo, cache = _staged(make_repo), tmp_path / "start.marshal"
    clean, _, _ = _check(repo, tmp_path / "clean.marshal")
    cache.write_bytes(b"\x00not a marshal file")
    report, parsed, compiled = _check(repo, cache)
    assert parsed > 100 and compiled > 100 and _timeless(report) == _timeless(clean)
    data = marshal.loads(cache.read_bytes())
    assert (len(data["patterns"]), len(data["codes"])) == (parsed, compiled)


def test_code_the_engine_refuses_is_compiled_again(tmp_path):
    cache = tmp_path / "start.marshal"
    good = "(a)(b+)c"
    cache.write_bytes(marshal.dumps({"patterns": [
        (good, 0, marshal.dumps((good, 32, [999, 1, 2], 2, {}, (None,) * 3)))], "codes": {}}))
    code = ("import re\nfrom maguyva_guard import startcache\nstartcache.install()\n"
            f"print(re.compile({good!r}).match('abbc').group(2))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env(cache), check=True)
    assert done.stdout == "bb\n"
    (raw,) = [a for p, _, a in marshal.loads(cache.read_bytes())["patterns"] if p == good]
    assert _sre.compile(*marshal.loads(raw)) == re.compile(good)


def test_an_empty_variable_leaves_re_and_dataclasses_untouched(tmp_path):
    code = ("import re, dataclasses\ncompile = re._compiler.compile\n"
            "from maguyva_guard import startcache\nstartcache.install()\n"
            "print(re._compiler.compile is compile, hasattr(dataclasses, 'exec'))")
    env = {**_env(tmp_path), "MAGUYVA_GUARD_START_CACHE": ""}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    assert done.stdout == "True False\n"
