"""`maguyva-guard check` without click: settings, the guard, the report, the exit code."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from maguyva_guard import api, git
from maguyva_guard.config import load_config
from maguyva_guard.errors import FatalError
from maguyva_guard.guard import risk
from maguyva_guard.guard.model import ImpactReport
from maguyva_guard.index import indexer
from maguyva_guard.integrations import prepush
from maguyva_guard.report import render

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
) -> Outcome:
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
    result = api.impact(str(info.root), base=base, head=head, preset=config.preset,
                        depth=config.depth, worktree=False, progress=progress,
                        after=views).report
    if repo_url:
        result = replace(result, repo_url=repo_url)
    if views is not None:
        from maguyva_guard.commands import tests

        result = replace(result, tests=tests.selection_for(
            str(info.root), result, views.view, base=base, head=head, depth=config.depth))
    text = render.render(result, fmt, color=color, max_callers=config.max_callers)
    for extra_fmt, path in save:  # the same run in more formats (the Action's artifact)
        _write(path, _render_saved(result, extra_fmt, config.max_callers))
    if output is not None:
        _write(output, text)
        text = ""
    code = EXIT_FAIL_ON if risk.exceeds(result.risk, config.fail_on) else EXIT_OK
    return Outcome(text, code, result)


def _render_saved(result: ImpactReport, fmt: str, max_callers: int) -> str:
    if fmt == SUMMARY:
        from maguyva_guard.report import fit
        from maguyva_guard.report.templated import render_markdown

        return render_markdown(result, 0, fit.MAX_SUMMARY_CHARS)
    return render.render(result, fmt, max_callers=max_callers)


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise FatalError(f"cannot write {path}: {exc.strerror}") from None
