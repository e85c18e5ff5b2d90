"""`maguyva-guard check` without click: settings, the guard, the report, the exit code."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from maguyva_guard import git
from maguyva_guard.config import load_config
from maguyva_guard.errors import FatalError
from maguyva_guard.guard import impact, risk
from maguyva_guard.guard.model import ImpactReport
from maguyva_guard.index import indexer
from maguyva_guard.integrations import prepush
from maguyva_guard.report import render

EXIT_OK = 0
EXIT_FAIL_ON = 1


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
    result = impact.check(
        str(info.root), base=base, head=head, preset=config.preset, depth=config.depth,
        semantic_config=config.semantic, max_file_size=config.max_file_size, progress=progress,
    )
    if config.exclude:
        kept = tuple(a for a in result.affected if not config.is_excluded(a.path))
        result = replace(result, affected=kept)
    if repo_url:
        result = replace(result, repo_url=repo_url)
    text = render.render(result, fmt, color=color, max_callers=config.max_callers)
    if output is not None:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise FatalError(f"cannot write {output}: {exc.strerror}") from None
        text = ""
    code = EXIT_FAIL_ON if risk.exceeds(result.risk, config.fail_on) else EXIT_OK
    return Outcome(text, code, result)
