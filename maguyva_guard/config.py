"""The project's settings: `[tool.maguyva-guard]` in pyproject.toml, or `.maguyva-guard.toml`.

Both files are read from the repository root of the working tree. `.maguyva-guard.toml`
holds the same keys at its top level and wins; having both is an error rather than a silent
choice. Command-line flags override the file through `Config.merged`.

Every mistake is a FatalError that names the file, the table and the key, so a typo never
passes silently as a default ("unknown key 'presett' in [tool.maguyva-guard] of
pyproject.toml (did you mean 'preset'?)").
"""

from __future__ import annotations

import errno
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Final

from maguyva_guard import spec
from maguyva_guard.config_check import Invalid, check_key, check_semantic_key, show
from maguyva_guard.errors import FatalError
from maguyva_guard.pathglob import matches_any

PYPROJECT: Final = "pyproject.toml"
DOTFILE: Final = ".maguyva-guard.toml"
TOOL_TABLE: Final = "maguyva-guard"  # [tool.maguyva-guard]
MISSPELT_TABLE: Final = "maguyva_guard"  # meant as ours, surely: said, not ignored

EMBEDDED: Final = "embedded"
VOYAGE: Final = "voyage"

# Callers of callers: a signature change breaks depth 1, and depth 2 shows who relies on
# those. Deeper chains reach most of a real code base (NOTES) and drown the report.
DEFAULT_DEPTH: Final = 2
# The guard runs before a commit or on a pull request: the most thorough preset fits, since
# the index is already built and a missed caller costs more than a second.
DEFAULT_PRESET: Final = spec.THOROUGH
# Callers shown per changed symbol in text and Markdown; JSON and SARIF list them all.
# Fifty keeps a pull-request comment far below GitHub's 65,536-character limit.
DEFAULT_MAX_CALLERS: Final = 50


MAX_FILE_BYTES: Final = 1 << 20  # larger blobs are recorded, not parsed (configurable)


@dataclass(frozen=True)
class SemanticConfig:
    """The `semantic` table. None means "the backend's own default"."""

    backend: str = EMBEDDED
    model: str | None = None
    dimension: int | None = None  # bits of the packed binary vector
    base_url: str | None = None  # Voyage only: another endpoint (a proxy, a test server)
    timeout: float | None = None  # seconds a remote request may take


@dataclass(frozen=True)
class Config:
    preset: str = DEFAULT_PRESET
    depth: int = DEFAULT_DEPTH
    exclude: tuple[str, ...] = ()  # glob patterns over repository-relative "/" paths
    fail_on: str = "none"
    max_callers: int = DEFAULT_MAX_CALLERS  # 0 shows them all
    semantic: SemanticConfig = field(default_factory=SemanticConfig)
    max_file_size: int = MAX_FILE_BYTES  # larger files are indexed for text only
    source: str = ""  # the file the settings came from, "" for the defaults

    def merged(self, **overrides: Any) -> Config:
        """These settings with the command line's values on top; None means "not given"
        (and so does an empty `exclude`). A given `exclude` replaces the file's list.

        `semantic` takes a mapping of its keys (only those given). Values are checked like
        the file's, and a bad one is a FatalError naming the flag (`--depth`).
        """
        names = {f.name for f in fields(self)} - {"source"}
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in names:
                raise TypeError(f"Config.merged() got an unknown setting {key!r}")
            if value is None or (key == "exclude" and not value):
                continue  # click gives () for a multiple option that was not used
            if key == "semantic":
                changes[key] = _merge_semantic(self.semantic, value)
                continue
            try:
                changes[key] = check_key(key, value)
            except Invalid as exc:
                flag = "--" + key.replace("_", "-")
                raise FatalError(f"{flag} must be {exc}; got {show(value)}") from None
        return replace(self, **changes)

    def is_excluded(self, path: str) -> bool:
        """True when a repository-relative path matches one of the `exclude` globs."""
        return matches_any(path, self.exclude)


def load_config(repo_root: Path) -> Config:
    """The settings of the repository whose working tree is at `repo_root`."""
    dotfile, pyproject = repo_root / DOTFILE, repo_root / PYPROJECT
    if _present(dotfile):
        if _present(pyproject) and _has_tool_table(pyproject):
            raise FatalError(
                f"both {DOTFILE} and [tool.{TOOL_TABLE}] in {PYPROJECT} configure "
                "maguyva-guard; keep one of them"
            )
        return parse_config(_read(dotfile), DOTFILE)
    if _present(pyproject):
        return parse_config(_read(pyproject), PYPROJECT)
    return Config()


def parse_config(text: str, filename: str) -> Config:
    """The settings in a file's text; `filename` pyproject.toml reads [tool.maguyva-guard],
    any other name reads the top level (the layout of .maguyva-guard.toml)."""
    data = _parse_toml(text, filename)
    if Path(filename).name == PYPROJECT:
        tool = data.get("tool", {})
        table = tool.get(TOOL_TABLE, {}) if isinstance(tool, dict) else {}
        if isinstance(tool, dict) and MISSPELT_TABLE in tool:
            raise FatalError(f"[tool.{MISSPELT_TABLE}] in {filename} is not read: our table is"
                             f" [tool.{TOOL_TABLE}] (with a hyphen); rename it")
        where = f"[tool.{TOOL_TABLE}] of {filename}"
        sub_where = f"[tool.{TOOL_TABLE}.semantic] of {filename}"
        if not isinstance(table, dict):
            raise FatalError(f"tool.{TOOL_TABLE} in {filename} must be a table")
    else:
        table, where, sub_where = data, filename, f"[semantic] of {filename}"
    return _build(table, where, sub_where, filename)


def _spellings(table: Mapping[str, Any], where: str) -> list[tuple[str, str, Any]]:
    """(key as written, key as we name it, value): `fail-on` is `fail_on`. TOML's `[tool.*]`
    tables use hyphens (the README does), Python names underscores: both are accepted."""
    seen: dict[str, str] = {}
    found = []
    for written, value in table.items():
        key = written.replace("-", "_")
        if key in seen:
            raise FatalError(f"both '{seen[key]}' and '{written}' in {where}; keep one of them")
        seen[key] = written
        found.append((written, key, value))
    return found


def _build(table: dict[str, Any], where: str, sub_where: str, filename: str) -> Config:
    values: dict[str, Any] = {}
    for written, key, value in _spellings(table, where):
        if key == "semantic":
            if not isinstance(value, dict):
                raise FatalError(f"'semantic' in {where} must be a table; got {show(value)}")
            values[key] = _semantic(value, sub_where)
            continue
        _known(written, key, _TOP_KEYS, where)
        try:
            values[key] = check_key(key, value)
        except Invalid as exc:
            raise FatalError(f"'{written}' in {where} must be {exc}; got {show(value)}") from None
    return Config(source=filename, **values)


def _semantic(table: Mapping[str, Any], where: str) -> SemanticConfig:
    values: dict[str, Any] = {}
    for written, key, value in _spellings(table, where):
        _known(written, key, _SEMANTIC_KEYS, where)
        try:
            values[key] = check_semantic_key(key, value, table.get("backend", EMBEDDED))
        except Invalid as exc:
            raise FatalError(f"'{written}' in {where} must be {exc}; got {show(value)}") from None
    return SemanticConfig(**values)


def _merge_semantic(current: SemanticConfig, overrides: Mapping[str, Any]) -> SemanticConfig:
    if not isinstance(overrides, Mapping):
        raise TypeError("Config.merged(semantic=...) takes a mapping of the flags given")
    given = {k: v for k, v in overrides.items() if v is not None}
    merged = {f.name: getattr(current, f.name) for f in fields(current)} | given
    table = {k: v for k, v in merged.items() if v is not None}
    return _semantic(table, "the command line's semantic settings")


def _known(written: str, key: str, allowed: tuple[str, ...], where: str) -> None:
    if key in allowed:
        return
    import difflib  # only on the error path

    hint = ""
    if key in ("api_key", "apikey", "key", "token"):
        hint = " (the Voyage key is read from VOYAGE_API_KEY in the environment, never a file)"
    elif close := difflib.get_close_matches(key, allowed, n=1):
        spelled = close[0].replace("_", "-") if "-" in written else close[0]
        hint = f" (did you mean '{spelled}'?)"
    raise FatalError(f"unknown key '{written}' in {where}{hint}")


_TOP_KEYS: Final = tuple(f.name for f in fields(Config) if f.name != "source")
_SEMANTIC_KEYS: Final = tuple(f.name for f in fields(SemanticConfig))


def _present(path: Path) -> bool:
    """Whether a settings file is there. Something there that is not a regular file (a
    folder, a FIFO, a device, a symlink loop or a link to nothing) is one line: ignoring it
    would silently drop the settings the user meant, and reading a FIFO would hang."""
    try:
        path.lstat()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise FatalError(f"cannot read {path.name}: {exc.strerror}") from None
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        kind = {errno.ELOOP: "a symlink loop", errno.ENOENT: "a link to nothing"}.get(
            exc.errno or 0, f"unreadable ({exc.strerror})")
        raise FatalError(f"{path.name} is {kind}, not a file; fix or remove it") from None
    if stat.S_ISREG(mode):
        return True
    kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket")
    raise FatalError(f"{path.name} is {kind}, not a file; fix or remove it")


def _read(path: Path) -> str:
    """The text of a settings file at the repository root (`path.parent`). A link that
    leads out of the repository is refused: a cloned repository must not make us read, and
    echo in an error, a file of the machine."""
    try:
        if not path.resolve().is_relative_to(path.parent.resolve()):
            raise FatalError(f"{path.name} links to outside the repository; not reading it")
        return path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise FatalError(f"cannot read {path.name}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise FatalError(f"{path.name} is not UTF-8 text (byte {exc.start})") from None


def _parse_toml(text: str, filename: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # The message ends with "(at line L, column C)", which is what the user needs, or
        # with "(at end of document)", to which we add the line.
        message = str(exc).replace(
            "(at end of document)", f"(at end of document, line {max(1, len(text.splitlines()))})"
        )
        raise FatalError(f"{filename}: invalid TOML: {message}") from None


def _has_tool_table(pyproject: Path) -> bool:
    """Whether pyproject.toml configures us; a broken pyproject.toml is not our business
    when .maguyva-guard.toml is there."""
    try:
        data = tomllib.loads(_read(pyproject))
    except (FatalError, tomllib.TOMLDecodeError):
        return False
    tool = data.get("tool")
    return isinstance(tool, dict) and TOOL_TABLE in tool
