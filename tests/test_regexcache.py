"""The command line's cache of compiled regular expressions (maguyva_guard/regexcache.py):
a second run builds its patterns from the file without parsing one, with the same report;
a damaged file or code the engine refuses is compiled again; every cached pattern equals
the one `re` compiles."""

from __future__ import annotations

import _sre
import json
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import CALLED_CONFIG, edit

# The CLI as `maguyva-guard` runs it, counting the patterns `re` parses (on stderr).
RUN = """
import re, sys
parsed = [0]
parse = re._parser.parse
def counting(*args, **kwargs):
    parsed[0] += 1
    return parse(*args, **kwargs)
re._parser.parse = counting
sys.argv = ["maguyva-guard", *sys.argv[1:]]
from maguyva_guard.entry import main
try:
    main()
finally:
    print("parsed", parsed[0], file=sys.stderr)
"""


def _env(cache: Path) -> dict[str, str]:
    env = {**os.environ, "MAGUYVA_GUARD_REGEX_CACHE": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _check(repo: Path, cache: Path, *args: str) -> tuple[str, int]:
    done = subprocess.run([sys.executable, "-c", RUN, "check", "--repo", str(repo), "--staged",
                           *args], capture_output=True, text=True, env=_env(cache))
    assert done.returncode == 0, done.stderr
    parsed = int(done.stderr.strip().splitlines()[-1].removeprefix("parsed "))
    return done.stdout, parsed


def _staged(make_repo) -> Path:
    repo = make_repo(CALLED_CONFIG)
    edit(repo, "pkg/config.py", "def parse_config(path):", "def parse_config(path, strict):")
    return repo


def _timeless(report: str) -> str:  # the text report's last line says how long it took
    return "\n".join(line for line in report.splitlines() if " took " not in line)


def test_a_second_check_parses_no_pattern_and_reports_the_same(make_repo, tmp_path):
    repo, cache = _staged(make_repo), tmp_path / "regex.marshal"
    first, parsed_first = _check(repo, cache)
    assert "pkg/cli.py" in first and cache.exists()
    assert parsed_first > 100  # the modules' patterns and the names'
    second, parsed_second = _check(repo, cache)
    assert parsed_second == 0
    assert _timeless(second) == _timeless(first)
    json_first, _ = _check(repo, tmp_path / "json.marshal", "--format", "json")
    json_second, parsed = _check(repo, tmp_path / "json.marshal", "--format", "json")
    assert parsed == 0 and _untimed(json.loads(json_second)) == _untimed(json.loads(json_first))


def _untimed(value: object) -> object:
    """A JSON report without its timings (keys ending in "seconds")."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if not k.endswith("seconds")}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def test_every_cached_pattern_equals_the_one_re_compiles(make_repo, tmp_path):
    repo, cache = _staged(make_repo), tmp_path / "regex.marshal"
    _check(repo, cache)
    rows = marshal.loads(cache.read_bytes())
    assert len(rows) > 100
    for pattern, flags, args in rows:
        assert _sre.compile(*args) == re._compiler.compile(pattern, flags), pattern


def test_a_damaged_cache_file_is_compiled_again_and_rewritten(make_repo, tmp_path):
    repo, cache = _staged(make_repo), tmp_path / "regex.marshal"
    clean, _ = _check(repo, tmp_path / "clean.marshal")
    cache.write_bytes(b"\x00not a marshal file")
    report, parsed = _check(repo, cache)
    assert parsed > 100 and _timeless(report) == _timeless(clean)
    assert len(marshal.loads(cache.read_bytes())) == parsed


def test_code_the_engine_refuses_is_compiled_again(tmp_path):
    cache = tmp_path / "regex.marshal"
    good = "(a)(b+)c"
    cache.write_bytes(marshal.dumps([(good, 0, (good, 32, [999, 1, 2], 2, {}, (None,) * 3))]))
    code = ("import re\nfrom maguyva_guard import regexcache\nregexcache.install()\n"
            f"print(re.compile({good!r}).match('abbc').group(2))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env(cache), check=True)
    assert done.stdout == "bb\n"
    ((pattern, flags, args),) = marshal.loads(cache.read_bytes())
    assert _sre.compile(*args) == re.compile(good)


def test_an_empty_variable_leaves_re_untouched(tmp_path):
    code = ("import re\ncompile = re._compiler.compile\nfrom maguyva_guard import regexcache\n"
            "regexcache.install()\nprint(re._compiler.compile is compile)")
    env = {**_env(tmp_path), "MAGUYVA_GUARD_REGEX_CACHE": ""}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    assert done.stdout == "True\n"
