"""`install-hook` / `uninstall-hook`: put a plain git hook from hooks/ in place, and take it away.

Installing a hook is the one write into the repository's git directory that the user asks
for; everything else in maguyva-guard only reads. The rules that keep it safe:

- The hooks folder is git's own answer (`git rev-parse --git-path hooks`), so
  `core.hooksPath` (relative to the top of the working tree) and worktrees (hooks live in
  the common directory) behave exactly as they do for git.
- A hook we did not write is never overwritten. With --force it is moved aside to
  `<hook>.pre-maguyva-guard`, and our script runs it first, with the same arguments and
  input, and fails when it fails.
- Ours is recognised by a marker line; uninstall removes only ours and renames the saved
  hook back (a rename: same bytes, same mode, a symlink stays a symlink).
- The script carries the digest of what was installed; a hook the user edited since is
  not deleted on uninstall but kept as `<hook>.maguyva-guard-edited`, and the message
  says where.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from maguyva_guard import git
from maguyva_guard.errors import FatalError
from maguyva_guard.integrations import HOOK_TYPES
from maguyva_guard.records import RISK_LEVELS

# The second line of every script in hooks/: what tells our hook from anyone else's.
MARKER = "# maguyva-guard: installed hook; `maguyva-guard uninstall-hook` removes it"
CHAINED_SUFFIX = ".pre-maguyva-guard"
EDITED_SUFFIX = ".maguyva-guard-edited"  # our hook with the user's edits, kept on uninstall
DIGEST_PREFIX = "# maguyva-guard digest: "  # sha256 of the installed script without this line
_TEMPLATE_START = "# start templated"
_TEMPLATE_END = "# end templated"
_EXECUTABLE = 0o755


@dataclass(frozen=True)
class HookPaths:
    hook: Path  # where git looks for the hook
    chained: Path  # where a previous hook waits, run first by ours


def hook_paths(repo: str | Path, hook_type: str) -> HookPaths:
    """Where git runs `hook_type` hooks for the repository at `repo`."""
    if hook_type not in HOOK_TYPES:
        raise FatalError(f"unknown hook type: {hook_type} (one of {', '.join(HOOK_TYPES)})")
    if not os.path.isdir(repo):
        raise FatalError(f"not a directory: {repo}")
    proc = git.run(repo, "rev-parse", "--git-path", "hooks", check=False)
    if proc.returncode != 0:
        raise FatalError(f"not a git repository: {repo}")
    # git answers relative to the folder it ran in (-C repo); an absolute answer stays as is.
    folder = Path(repo, proc.stdout.decode("utf-8", "surrogateescape").strip())
    return HookPaths(folder / hook_type, folder / (hook_type + CHAINED_SUFFIX))


def render(hook_type: str, fail_on: str | None, python: str) -> str:
    """The script of hooks/<hook_type> with its templated lines filled in."""
    if fail_on is not None and fail_on not in RISK_LEVELS:
        raise FatalError(f"unknown --fail-on level: {fail_on} (one of {', '.join(RISK_LEVELS)})")
    from importlib.resources import files  # here: cli imports this module on every command

    source = files("maguyva_guard.hooks").joinpath(hook_type).read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(_TEMPLATE_START))
    end = next(i for i, line in enumerate(lines) if line.startswith(_TEMPLATE_END))
    filled = [
        f"INSTALL_PYTHON={shlex.quote(python)}\n",
        # Empty: check decides (the project's configuration, else its default level).
        f"FAIL_ON={shlex.quote(fail_on or '')}\n",
    ]
    script = lines[: start + 1] + filled + lines[end:]
    digest = hashlib.sha256("".join(script).encode()).hexdigest()
    at = next(i for i, line in enumerate(script) if line.rstrip("\n") == MARKER) + 1
    return "".join(script[:at] + [f"{DIGEST_PREFIX}{digest}\n"] + script[at:])


def is_edited(path: Path) -> bool:
    """True when our hook at `path` is no longer what install wrote (or carries no digest:
    an older install, which we cannot tell from an edited one)."""
    lines = path.read_bytes().decode("utf-8", "surrogateescape").splitlines(keepends=True)
    marks = [line for line in lines if line.startswith(DIGEST_PREFIX)]
    if len(marks) != 1:
        return True
    rest = "".join(line for line in lines if line is not marks[0])
    recorded = marks[0][len(DIGEST_PREFIX):].strip()
    return hashlib.sha256(rest.encode("utf-8", "surrogateescape")).hexdigest() != recorded


def is_ours(path: Path) -> bool:
    """True when the file at `path` carries our marker line (a foreign or binary hook: False)."""
    try:
        content = path.read_bytes()
    except OSError:  # a dangling symlink, a folder, no permission: not something we wrote
        return False
    return MARKER.encode() in content.splitlines()


def install(repo: str | Path, hook_type: str, *, force: bool = False,
            fail_on: str | None = None, python: str = sys.executable) -> str:
    """Install (or refresh) our hook; returns the one line to show the user."""
    paths = hook_paths(repo, hook_type)
    script = render(hook_type, fail_on, python)
    if os.path.lexists(paths.hook) and not is_ours(paths.hook):
        if not force:
            raise FatalError(
                f"{paths.hook} exists and is not maguyva-guard's; rerun with --force to keep it"
                f" as {paths.chained.name} and run it before the guard"
            )
        if os.path.lexists(paths.chained):
            raise FatalError(f"{paths.chained} already exists; move it away first")
        os.rename(paths.hook, paths.chained)
    paths.hook.parent.mkdir(parents=True, exist_ok=True)  # a fresh core.hooksPath folder
    _write_executable(paths.hook, script)
    chained = f"; runs {paths.chained.name} first" if os.path.lexists(paths.chained) else ""
    return f"installed the maguyva-guard {hook_type} hook at {paths.hook}{chained}"


def uninstall(repo: str | Path, hook_type: str) -> str:
    """Remove our hook and put the previous one back; returns the one line to show."""
    paths = hook_paths(repo, hook_type)
    if not os.path.lexists(paths.hook):
        return f"no {hook_type} hook at {paths.hook}; nothing to uninstall"
    if not is_ours(paths.hook):
        raise FatalError(f"{paths.hook} was not installed by maguyva-guard; leaving it alone")
    kept = ""
    if is_edited(paths.hook):
        aside = paths.hook.with_name(paths.hook.name + EDITED_SUFFIX)
        if os.path.lexists(aside):
            raise FatalError(f"{paths.hook} has edits of yours and {aside} already exists;"
                             " move one of them away first")
        os.rename(paths.hook, aside)
        kept = f"; it had edits of yours, kept in {aside}"
    else:
        os.remove(paths.hook)
    if os.path.lexists(paths.chained):
        os.rename(paths.chained, paths.hook)
        return f"removed the maguyva-guard {hook_type} hook; restored the previous one{kept}"
    return f"removed the maguyva-guard {hook_type} hook from {paths.hook}{kept}"


def _write_executable(path: Path, text: str) -> None:
    """Write through a temporary file and a rename, so git never runs half a script."""
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(tmp, _EXECUTABLE)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
