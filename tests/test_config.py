"""Configuration: [tool.maguyva-guard] / .maguyva-guard.toml, every mistake one clear line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from maguyva_guard import config_check
from maguyva_guard.config import (
    DEFAULT_DEPTH,
    DEFAULT_MAX_CALLERS,
    Config,
    SemanticConfig,
    load_config,
    parse_config,
)
from maguyva_guard.errors import FatalError


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def write(repo: Path, name: str, text: str) -> None:
    (repo / name).write_text(text, encoding="utf-8")


def test_defaults_without_any_file(repo: Path) -> None:
    cfg = load_config(repo)
    assert cfg == Config()
    assert (cfg.preset, cfg.depth, cfg.fail_on) == ("thorough", DEFAULT_DEPTH, "none")
    assert cfg.max_callers == DEFAULT_MAX_CALLERS == 50
    assert cfg.max_file_size == 1 << 20
    assert cfg.exclude == () and cfg.semantic == SemanticConfig(backend="embedded")


def test_pyproject_table_is_read(repo: Path) -> None:
    write(repo, "pyproject.toml", """\
[project]
name = "x"

[tool.maguyva-guard]
preset = "default"
depth = 3
exclude = ["vendor/", "*.min.js"]
fail_on = "medium"
max_callers = 5
max_file_size = 2048

[tool.maguyva-guard.semantic]
backend = "voyage"
model = "voyage-code-3"
dimension = 1024
base_url = "http://127.0.0.1:8080/v1/"
timeout = 2.5
""")
    cfg = load_config(repo)
    assert cfg.source == "pyproject.toml"
    assert (cfg.preset, cfg.depth, cfg.fail_on, cfg.max_callers) == ("default", 3, "medium", 5)
    assert cfg.exclude == ("vendor", "*.min.js")
    assert cfg.max_file_size == 2048
    assert cfg.semantic == SemanticConfig(
        "voyage", "voyage-code-3", 1024, "http://127.0.0.1:8080/v1", 2.5
    )


def test_pyproject_without_our_table_gives_defaults(repo: Path) -> None:
    write(repo, "pyproject.toml", '[tool.ruff]\nline-length = 100\n')
    assert load_config(repo).depth == DEFAULT_DEPTH


def test_dotfile_uses_top_level_keys(repo: Path) -> None:
    write(repo, ".maguyva-guard.toml", 'preset = "quick"\n[semantic]\ndimension = 2048\n')
    write(repo, "pyproject.toml", "this is [not toml\n")  # not ours to judge: the dotfile wins
    cfg = load_config(repo)
    assert (cfg.preset, cfg.semantic.dimension) == ("quick", 2048)
    assert cfg.source == ".maguyva-guard.toml"


def test_both_files_configuring_us_is_an_error(repo: Path) -> None:
    write(repo, ".maguyva-guard.toml", 'preset = "quick"\n')
    write(repo, "pyproject.toml", '[tool.maguyva-guard]\npreset = "default"\n')
    with pytest.raises(FatalError, match="keep one of them"):
        load_config(repo)


PY = "[tool.maguyva-guard] of pyproject.toml"
SEM = "[tool.maguyva-guard.semantic] of pyproject.toml"

# (the table's body, the one-line message expected)
ERRORS = [
    ('presett = "quick"', f"unknown key 'presett' in {PY} (did you mean 'preset'?)"),
    ("colour = true", f"unknown key 'colour' in {PY}"),
    ('preset = "fast"', f'\'preset\' in {PY} must be one of quick, default, thorough; got "fast"'),
    ("depth = 0", f"'depth' in {PY} must be an integer >= 1 and <= 8; got 0"),
    ("depth = 9", f"'depth' in {PY} must be an integer >= 1 and <= 8; got 9"),
    ('depth = "2"', f"'depth' in {PY} must be an integer >= 1 and <= 8; got \"2\""),
    ("depth = true", f"'depth' in {PY} must be an integer >= 1 and <= 8; got true"),
    ("depth = 2.0", f"'depth' in {PY} must be an integer >= 1 and <= 8; got 2.0"),
    ('fail_on = "severe"', f"'fail_on' in {PY} must be one of none, low, medium, high; got"),
    ("max_callers = -1", f"'max_callers' in {PY} must be an integer >= 0 and <= 1000000; got -1"),
    ("max_file_size = 0",
     f"'max_file_size' in {PY} must be an integer >= 1 and <= 1073741824; got 0"),
    ('exclude = "vendor"', f"'exclude' in {PY} must be a list of glob patterns"),
    ("exclude = [1]", f"'exclude' in {PY} must be a list of glob patterns"),
    ('exclude = ["../secrets"]', "'../secrets' has a '..' segment"),
    ('exclude = ["a/../../b"]', "has a '..' segment"),
    ('exclude = ["a\\\\..\\\\b"]', "has a '..' segment"),
    ('exclude = ["/etc/passwd"]', "'/etc/passwd' is an absolute path"),
    ('exclude = ["C:/x"]', "is an absolute path"),
    ('exclude = ["~/x"]', "names a home folder"),
    ('exclude = [""]', "is empty"),
    ('exclude = ["./"]', "must name something below the repository root"),
    ("semantic = 1", f"'semantic' in {PY} must be a table; got 1"),
    ('semantic = {backend = "openai"}', f"'backend' in {SEM} must be one of embedded, voyage"),
    ('semantic = {modle = "x"}', f"unknown key 'modle' in {SEM} (did you mean 'model'?)"),
    ('semantic = {api_key = "k"}', "read from VOYAGE_API_KEY in the environment"),
    ('semantic = {backend = "voyage", dimension = 100}', "must be one of 256, 512, 1024, 2048"),
    ("semantic = {dimension = 100}", "must be a positive multiple of 64 bits <= 65536; got 100"),
    ('semantic = {base_url = "javascript:alert(1)"}', "must be an http:// or https:// URL"),
    ("semantic = {timeout = 0}",
     f"'timeout' in {SEM} must be a number of seconds > 0 and <= 3600; got 0"),
    ('semantic = {model = ""}', f"'model' in {SEM} must be a non-empty string"),
]


@pytest.mark.parametrize(("body", "message"), ERRORS)
def test_config_errors_name_the_key(repo: Path, body: str, message: str) -> None:
    write(repo, "pyproject.toml", f"[tool.maguyva-guard]\n{body}\n")
    with pytest.raises(FatalError) as exc:
        load_config(repo)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_dotfile_errors_name_the_dotfile(repo: Path) -> None:
    write(repo, ".maguyva-guard.toml", "presett = 1\n")
    with pytest.raises(FatalError, match=r"^unknown key 'presett' in \.maguyva-guard\.toml"):
        load_config(repo)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("[tool.maguyva-guard]\ndepth = \n", "(at line 2, column 9)"),
        ("[tool.maguyva-guard]\npreset = 'quick\n", "line 2"),
        ("[tool.maguyva-guard\n", "(at line 1"),
        ("a = 1\nb = [", "line 2"),
    ],
)
def test_malformed_toml_names_file_and_line(repo: Path, text: str, where: str) -> None:
    write(repo, "pyproject.toml", text)
    with pytest.raises(FatalError) as exc:
        load_config(repo)
    assert str(exc.value).startswith("pyproject.toml: invalid TOML: ")
    assert where in str(exc.value)


def test_tool_entry_that_is_not_a_table(repo: Path) -> None:
    write(repo, "pyproject.toml", '[tool]\n"maguyva-guard" = 3\n')
    with pytest.raises(FatalError, match="must be a table"):
        load_config(repo)


def test_non_utf8_file(repo: Path) -> None:
    (repo / ".maguyva-guard.toml").write_bytes(b'preset = "\xff"\n')
    with pytest.raises(FatalError, match="not UTF-8"):
        load_config(repo)


def test_parse_config_takes_text_from_the_caller() -> None:
    cfg = parse_config('[tool.maguyva-guard]\ndepth = 4\n', "pyproject.toml")
    assert cfg.depth == 4
    assert parse_config("depth = 5\n", ".maguyva-guard.toml").depth == 5


def test_flags_override_the_file_and_none_is_ignored() -> None:
    cfg = parse_config('preset = "quick"\ndepth = 3\n[semantic]\nbackend = "voyage"\n', "x.toml")
    out = cfg.merged(preset=None, depth=1, fail_on="high", exclude=("build/",),
                     semantic={"timeout": 3, "model": None})
    assert (out.preset, out.depth, out.fail_on, out.exclude) == ("quick", 1, "high", ("build",))
    assert out.semantic == SemanticConfig(backend="voyage", timeout=3.0)
    assert cfg.depth == 3  # frozen: merged returns a new Config
    assert out.merged(exclude=()).exclude == ("build",)  # click's "not given"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"depth": 0}, "--depth must be an integer >= 1 and <= 8; got 0"),
        ({"fail_on": "x"}, "--fail-on must be one of none, low, medium, high"),
        ({"max_callers": -2}, "--max-callers must be an integer >= 0"),
        ({"exclude": ("../up",)}, "--exclude must be a list of globs inside the repository"),
        ({"semantic": {"dimension": 10}}, "'dimension' in the command line's semantic settings"),
    ],
)
def test_bad_flags_name_the_flag(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(FatalError) as exc:
        Config().merged(**overrides)
    assert message in str(exc.value)


def test_merged_rejects_unknown_settings() -> None:
    with pytest.raises(TypeError):
        Config().merged(presett="quick")


EXCLUDE = ("vendor/", "*.min.js", "./docs/*", "**/fixtures", "tests/data_*.json")


@pytest.mark.parametrize(
    ("path", "excluded"),
    [
        ("vendor/lib/x.py", True),
        ("vendor", True),
        ("src/vendor/x.py", False),  # anchored at the root
        ("app.min.js", True),
        ("web/static/app.min.js", True),  # "*" crosses "/"
        ("docs/a/b.md", True),
        ("fixtures/a.py", True),
        ("pkg/fixtures/deep/a.py", True),
        ("tests/data_1.json", True),
        ("tests/test_x.py", False),
        ("src/app.js", False),
        ("Vendor/x.py", False),  # case-sensitive, as git paths are
    ],
)
def test_exclude_globs(path: str, excluded: bool) -> None:
    cfg = Config().merged(exclude=EXCLUDE)
    assert cfg.is_excluded(path) is excluded


def test_check_numbers_are_named() -> None:
    assert config_check.MAX_DEPTH == 8
    assert config_check.VOYAGE_DIMENSIONS == (256, 512, 1024, 2048)


# --- Through the command line: the README's example, both spellings, ranges, odd paths ---

SOURCE = {"app/__init__.py": "", "app/core.py": "def parse(x):\n    return x\n"}


def cli(repo: Path, *argv: str):  # noqa: ANN201 - click's Result
    from click.testing import CliRunner

    from maguyva_guard.cli import main

    result = CliRunner().invoke(main, [*argv, "--repo", str(repo)], prog_name="maguyva-guard")
    assert "Traceback" not in result.output
    return result


def one_line(result, *words: str) -> str:  # noqa: ANN001
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("maguyva-guard: error: "), line
    for word in words:
        assert word in line, line
    return line


def readme_example() -> str:
    """The first TOML block of the README's Configuration section, verbatim."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Configuration", 1)[1]
    return section.split("```toml\n", 1)[1].split("```", 1)[0]


def test_the_readmes_configuration_example_is_accepted_verbatim(make_repo) -> None:
    repo = make_repo(SOURCE)
    (repo / "pyproject.toml").write_text(readme_example(), encoding="utf-8")
    result = cli(repo, "check", "--format", "json")
    assert result.exit_code == 0, result.output
    cfg = load_config(repo)
    assert (cfg.preset, cfg.depth, cfg.fail_on, cfg.max_callers, cfg.max_file_size) == (
        "thorough", 2, "none", 50, 1048576)
    assert cfg.exclude == ("docs/**", "vendor")
    assert cfg.semantic.backend == "embedded"


@pytest.mark.parametrize(("hyphen", "attr", "value"), [
    ('fail-on = "high"', "fail_on", "high"),
    ("max-callers = 7", "max_callers", 7),
    ("max-file-size = 4096", "max_file_size", 4096),
])
def test_hyphenated_keys_mean_the_underscored_ones(repo: Path, hyphen: str, attr: str,
                                                  value: object) -> None:
    write(repo, "pyproject.toml", f"[tool.maguyva-guard]\n{hyphen}\n"
                                  '[tool.maguyva-guard.semantic]\nbase-url = "http://h:1/"\n'
                                  'backend = "voyage"\n')
    cfg = load_config(repo)
    assert getattr(cfg, attr) == value
    assert cfg.semantic.base_url == "http://h:1"


def test_one_key_in_both_spellings_is_one_line(repo: Path) -> None:
    write(repo, ".maguyva-guard.toml", 'fail-on = "high"\nfail_on = "low"\n')
    with pytest.raises(FatalError, match="^both 'fail-on' and 'fail_on' in .maguyva-guard.toml"):
        load_config(repo)


@pytest.mark.parametrize(("body", "key"), [
    ("max_file_size = 9223372036854775808", "max_file_size"),
    ("max-file-size = 9223372036854775807", "max-file-size"),
    ("max_callers = 9223372036854775808", "max_callers"),
    ("depth = 9223372036854775808", "depth"),
    ("semantic = {dimension = 9223372036854775808}", "dimension"),
    ("semantic = {timeout = 1e300}", "timeout"),
    ("semantic = {timeout = inf}", "timeout"),
])
def test_every_numeric_setting_is_range_checked(make_repo, body: str, key: str) -> None:
    repo = make_repo(SOURCE)
    (repo / ".maguyva-guard.toml").write_text(body + "\n")
    (repo / "app/core.py").write_text("def parse(x, y):\n    return x\n")
    subprocess.run(["git", "-C", str(repo), "add", "app/core.py"], check=True)
    one_line(cli(repo, "check"), f"'{key}' in ", ".maguyva-guard.toml must be", "<=")


def _make_odd(path: Path, kind: str) -> None:
    import os
    import stat

    if kind == "a folder":
        path.mkdir()
    elif kind == "a FIFO":
        os.mkfifo(path)
    elif kind == "a symlink loop":
        path.symlink_to(path.name)
    elif kind == "a link to nothing":
        path.symlink_to("missing.toml")
    else:
        if os.geteuid() != 0:
            pytest.skip("creating a device node needs root")
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # like /dev/null


@pytest.mark.parametrize("name", [".maguyva-guard.toml", "pyproject.toml"])
@pytest.mark.parametrize("kind", ["a folder", "a FIFO", "a symlink loop", "a link to nothing",
                                  "a device"])
def test_a_config_path_that_is_not_a_file_is_one_line(make_repo, name: str, kind: str) -> None:
    repo = make_repo(SOURCE)
    _make_odd(repo / name, kind)
    one_line(cli(repo, "check"), f"{name} is {kind}", "not a file")


def test_an_underscore_tool_table_is_one_line(make_repo) -> None:
    repo = make_repo(SOURCE)
    (repo / "pyproject.toml").write_text('[tool.maguyva_guard]\nfail_on = "high"\n')
    one_line(cli(repo, "check"), "[tool.maguyva_guard] in pyproject.toml",
             "[tool.maguyva-guard]")
