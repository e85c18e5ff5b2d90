"""`maguyva-guard check` without click: settings, the guard, the report, the exit code."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from maguyva_guard import api, git
from maguyva_guard.commands import hookmode
from maguyva_guard.config import load_config
from maguyva_guard.errors import FatalError
from maguyva_guard.guard import risk
from maguyva_guard.guard.model import ImpactReport
from maguyva_guard.index import indexer
from maguyva_guard.integrations import prepush
from maguyva_guard.report import escape, render

EXIT_OK = 0
EXIT_FAIL_ON = 1
# `--save summary=FILE`: the Markdown report for a GitHub job summary (1 MiB, not 64 KiB).
SUMMARY = "summary"
SAVE_FORMATS = (*render.FORMATS, SUMMARY)
# The formats with a "tests to run" section (the job summary is Markdown too).
WITH_TESTS = ("markdown", "json", "summary")


@dataclass(frozen=True)
class Outcome:
    text: str  # the rendered report ("" when written to a file)
    exit_code: int
    report: ImpactReport
    blocked: str | None = None  # with exit code 1: the one line that says why (stderr)


@git.in_session
def run(
    repo: str,
    *,
    base: str | None = None,
    head: str | None = None,
    from_env: bool = False,
    preset: str | None = None,
    depth: int | None = None,
    fmt: str = "text",
    output: str | None = None,
    fail_on: str | None = None,
    repo_url: str | None = None,
    color: bool = False,
    progress: indexer.Progress | None = None,
    save: Sequence[tuple[str, str]] = (),
    hook: bool = False,
) -> Outcome:
    """The report and the exit code. `hook`: a git hook runs it (hookmode.py), so a pass
    prints a short report and a block names its bypass."""
    if repo_url and not (repo_url.isprintable() and escape.http_url(repo_url)):
        # The report would silently drop its links; a javascript: URL is not a typo. (An
        # empty one is "not given": the Action passes "" when it has none.)
        raise FatalError(f"--repo-url must be an http:// or https:// URL without a query;"
                         f" got {repo_url!r}")
    info = git.repo_info(repo)
    config = load_config(info.root).merged(preset=preset, depth=depth, fail_on=fail_on)
    if from_env:
        if base or head:
            raise FatalError("--from-env cannot be combined with --base or --head")
        revs = prepush.revisions_from_env()
        if revs is None:
            empty = ImpactReport(repo=".", base=None, head="", changed_symbols=(),
                                        affected=())
            return Outcome(render.render(empty, fmt), EXIT_OK, empty)
        base, head = revs
    with_tests = fmt in WITH_TESTS or any(f in WITH_TESTS for f, _ in save)
    views = None
    if with_tests:
        from maguyva_guard.commands.tests import ViewReader

        views = ViewReader()
    with ExitStack() as hold:  # the index open until the tests are selected
        result = api.impact(str(info.root), base=base, head=head, preset=config.preset,
                            depth=config.depth, worktree=False, progress=progress,
                            after=views, hold=hold if views is not None else None).report
        if repo_url:
            result = replace(result, repo_url=repo_url)
        if views is not None:
            from maguyva_guard.commands import tests

            result = replace(result, tests=tests.selection_for(
                str(info.root), result, views.view, base=base, head=head,
                depth=config.depth, session=views.session,
                max_walks=tests.CHECK_WALKS))
    staged = base is None and head is None
    if hook and fmt == render.TEXT:
        args = " --staged" if staged else f" --base {base} --head {head or 'HEAD'}"
        text = hookmode.brief(result, color=color, max_callers=config.max_callers, args=args)
    else:
        text = render.render(result, fmt, color=color, max_callers=config.max_callers)
    for extra_fmt, path in save:  # the same run in more formats (the Action's artifact)
        _write(path, _render_saved(result, extra_fmt, config.max_callers))
    if output is not None:
        _write(output, text)
        text = ""
    if not risk.exceeds(result.risk, config.fail_on):
        return Outcome(text, EXIT_OK, result)
    bypass = None if not hook else hookmode.COMMIT_BYPASS if staged else hookmode.PUSH_BYPASS
    return Outcome(text, EXIT_FAIL_ON, result,
                   hookmode.blocked_line(result, config.fail_on, bypass))


def _render_saved(result: ImpactReport, fmt: str, max_callers: int) -> str:
    if fmt == SUMMARY:
        from maguyva_guard.report import fit
        from maguyva_guard.report.templated import render_markdown

        return render_markdown(result, 0, fit.MAX_SUMMARY_CHARS)
    return render.render(result, fmt, max_callers=max_callers)


def _write(name: str, text: str) -> None:
    """Write through a temporary file next to `path` and a rename: a full disk or a killed
    run leaves the previous report whole, never a truncated one."""
    path, tmp = Path(name), None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        if path.exists():  # keep the mode the user gave the previous report
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise FatalError(f"cannot write {path}: {exc.strerror}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
