"""The command line: parse, call one core function, map the result to an exit code.

The core never imports click; it raises FatalError for the user's mistakes, which this
module shows as one line on stderr with exit code 2 (docs/json.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

import click

from maguyva_guard import spec
from maguyva_guard.commands import DEFAULT_MAX_TOKENS, MIN_MAX_TOKENS
from maguyva_guard.errors import FatalError
from maguyva_guard.integrations import HOOK_TYPES
from maguyva_guard.records import RISK_LEVELS
from maguyva_guard.report import ReportFormat
from maguyva_guard.report.escape import terminal

F = TypeVar("F", bound=Callable[..., Any])

EXIT_USAGE = 2


def _choice(values: Iterable[str]) -> click.Choice[str]:
    """A choice of plain strings (click matches enum members by their names, not values)."""
    return click.Choice([str(v) for v in values])


class UsageError(click.ClickException):
    """A FatalError as click shows it: one line, exit code 2 (click's own exits 1)."""

    exit_code = EXIT_USAGE

    def show(self, file: Any = None) -> None:
        click.echo(f"maguyva-guard: error: {terminal(self.format_message())}", err=True)


def fatal_to_usage(func: F) -> F:
    """Turn the core's FatalError into a one-line click error with exit code 2."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except FatalError as exc:
            raise UsageError(str(exc)) from None

    return wrapper  # type: ignore[return-value]


repo_option = click.option(
    "--repo",
    "repo",
    default=".",
    show_default=True,
    type=click.Path(file_okay=False, path_type=str),
    help="The repository (any folder inside it).",
)


EXIT_INTERNAL = 3
DEBUG_VARIABLE = "MAGUYVA_GUARD_DEBUG"  # =1: let an internal error show its traceback
# Secrets a message must never show, even an internal error's (values read at that time).
_SECRET_VARIABLES = ("VOYAGE_API_KEY", "GITHUB_TOKEN")


class InternalError(click.ClickException):
    """An exception nobody expected: one line and exit code 3 instead of a traceback."""

    exit_code = EXIT_INTERNAL

    def show(self, file: Any = None) -> None:
        click.echo(f"maguyva-guard: internal error: {terminal(self.format_message())}"
                   f" (please report it; {DEBUG_VARIABLE}=1 shows the traceback)", err=True)


@contextmanager
def _one_line() -> Iterator[None]:
    """click's usage errors (an unknown flag, a bad value) as one line with exit code 2, and
    any unexpected exception as one line with exit code 3 (docs/json.md: no tracebacks)."""
    try:
        yield
    except click.exceptions.NoArgsIsHelpError:
        raise  # no arguments at all: click shows the help, which is what was asked
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx else ""
        raise UsageError(" ".join(exc.format_message().split()) + hint) from None
    except (click.ClickException, click.exceptions.Exit, click.Abort):
        raise
    except Exception as exc:
        if os.environ.get(DEBUG_VARIABLE) == "1":
            raise
        raise InternalError(_internal_message(exc)) from None


def _internal_message(exc: BaseException) -> str:
    """An unexpected exception as one line, with the secrets of the environment redacted."""
    message = " ".join(f"{type(exc).__name__}: {exc}".split())
    for name in _SECRET_VARIABLES:
        secret = os.environ.get(name, "").strip()
        message = message.replace(secret, "***") if secret else message
    return message


class Group(click.Group):
    """Usage errors of click itself exit 2 with one line, like ours; see _one_line."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with _one_line():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with _one_line():
            return super().invoke(ctx)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="maguyva-guard")
def main() -> None:
    """maguyva-guard: what your change can break, before it lands."""
    _tolerant_streams()


def _tolerant_streams() -> None:
    """An output encoding that cannot show a character (LANG=C with an old Python,
    PYTHONIOENCODING=latin-1, a Windows console) writes it as \\uXXXX instead of failing the
    whole run on a file name; JSON output is ASCII already."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


# --- The index and the search engine ---------------------------------------------------------


class _TtyProgress:
    """The core's progress callback as a click progress bar, on stderr and only on a TTY."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.bar: Any = None
        self.done = 0

    def step(self, label: str) -> None:
        """The core starts another step (parsing, embedding): a bar of its own, labelled."""
        if label != self.label:
            self.finish()
            self.label = label

    def __call__(self, done: int, total: int) -> None:
        if not sys.stderr.isatty():
            return
        if self.bar is not None and self.bar.length != total:
            self.finish()  # the next step (embedding after parsing) counts other things
        if self.bar is None:
            self.bar = click.progressbar(length=total, label=self.label, file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(done - self.done)
        self.done = done
        if done >= total:
            self.finish()

    def finish(self) -> None:
        """End the bar, also one the core left short (a time-boxed step stops early), so that
        what is printed next starts on a line of its own."""
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar, self.done = None, 0


@main.command()
@repo_option
@click.option("--rebuild", is_flag=True, help="Drop the index and build it from scratch.")
@click.option("--defer-embeddings", is_flag=True,
              help="Leave most semantic vectors to the next `index` (a cold build ~40% "
                   "cheaper); semantic results say they are partial until then.")
@click.option("--embed-now", is_flag=True,
              help="Compute the semantic vectors and centralities of a cold build before "
                   "returning, instead of in a background process.")
@click.option("--vectors", "vectors_only", is_flag=True,
              help="Only compute the vectors and centralities the index lacks (what a "
                   "cold build starts in the background), waiting for a run already at it.")
@fatal_to_usage
def index(repo: str, rebuild: bool, defer_embeddings: bool, embed_now: bool,
          vectors_only: bool) -> None:
    """Build or update the index (check and query do it by themselves)."""
    from maguyva_guard.index import indexer, quick

    if vectors_only:
        _finish_vectors(repo)
        return
    s = indexer.index_repo(repo, rebuild=rebuild, progress=_TtyProgress("parsing"),
                           embed=not defer_embeddings, after=_keep_test_view,
                           background=not (embed_now or defer_embeddings))
    if s.parsed:  # new files may mean new paths: the module names the checks will read
        from maguyva_guard.retrievers import resolve

        resolve.keep_module_names(repo)
    counts = quick.Counts(s.files, s.symbols, s.references)
    click.echo(quick.summary(counts, s.parsed, s.seconds), err=True)
    if s.later:
        where = f"in the background (process {s.background})" if s.background else \
            "left undone (no background process could start)"
        click.echo(f"semantic vectors and centralities: {where}; until they are stored"
                   " semantic results say they are partial (`maguyva-guard index --vectors`"
                   " computes them, or waits for the process at it)", err=True)
    elif not s.embedded:
        click.echo("semantic vectors deferred: run `maguyva-guard index` again to embed the "
                   "rest (until then semantic results say they are partial)", err=True)


def _finish_vectors(repo: str) -> None:
    from maguyva_guard.index import background

    done = background.finish(repo)
    state = "complete" if done.complete else "incomplete"
    click.echo(f"semantic vectors {state} ({done.embedded:,} embedded now)"
               f"{'; centralities stored' if done.ranked else ''}", err=True)


def _keep_test_view(store: Any) -> None:
    """`index` keeps the tests' view of a view it changed (imported only then)."""
    from maguyva_guard.guard import testview

    testview.refresh(store)


@main.command()
@click.argument("text")
@repo_option
@click.option("--preset", type=_choice(spec.PRESETS), default="default",
              show_default=True, help="How many modalities to run (docs/design.md).")
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True,
              help="How many results.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object (docs/json.md).")
@click.option("--explain", is_flag=True,
              help="Show the intent, the plan and each score's contributions.")
@fatal_to_usage
def query(text: str, repo: str, preset: str, limit: int, as_json: bool, explain: bool) -> None:
    """Ask the code-search engine: "def parse_config", "who calls parse_config", ..."""
    import json

    from maguyva_guard.commands import explain as explaining
    from maguyva_guard.commands import query as ask

    progress = _TtyProgress("parsing")
    try:
        response = ask.answer(repo, text, preset=preset, limit=limit, progress=progress)
    finally:
        progress.finish()
    if as_json:
        click.echo(json.dumps(response, indent=2))
        return
    click.echo(explaining.render(response, explain=explain))
    for warning in explaining.warnings(response):
        click.echo(warning, err=True)


@main.command()
@repo_option
@click.option("--staged", is_flag=True,
              help="Check the staged changes against HEAD (the default without --base).")
@click.option("--base", default=None, help="Compare the merge base of REV and the head.")
@click.option("--head", default=None, help="The head revision (default HEAD; needs --base).")
@click.option("--from-env", is_flag=True,
              help="Take --base/--head from pre-commit's pre-push variables.")
@click.option("--preset", type=_choice(spec.PRESETS), default=None,
              help="How many modalities to run (docs/design.md; config default: thorough).")
@click.option("--depth", type=int, default=None, help="How far to follow callers (default 2).")
@click.option("--format", "fmt", type=_choice(ReportFormat),
              default="text", show_default=True)
@click.option("--output", type=click.Path(dir_okay=False, path_type=str), default=None,
              help="Write the report to FILE instead of stdout.")
@click.option("--fail-on", type=_choice(RISK_LEVELS), default=None,
              help="Exit 1 when a changed symbol's risk reaches this level (default none).")
@click.option("--repo-url", default=None,
              help="Link files in Markdown and SARIF (e.g. https://github.com/o/r).")
@click.option("--save", "save", multiple=True, metavar="FORMAT=FILE",
              help="Also write the report in FORMAT (text, markdown, json, sarif, html, or"
                   " summary: Markdown for a job summary, up to 1 MB) to FILE, from the same"
                   " run. Repeatable.")
@click.option("--hook", "hook", is_flag=True,
              help="Run as a git hook: a failure of the tool itself warns and lets the commit"
                   " through, the lock wait is short, a pass prints a short report.")
@click.option("--strict", is_flag=True,
              help="With --hook: block the commit on the tool's own failures too (exit 2/3).")
@fatal_to_usage
def check(repo: str, staged: bool, base: str | None, head: str | None, from_env: bool,
          preset: str | None, depth: int | None, fmt: str, output: str | None,
          fail_on: str | None, repo_url: str | None, save: tuple[str, ...], hook: bool,
          strict: bool) -> None:
    """What the change can break: staged changes, or --base REV [--head REV]."""
    from maguyva_guard.commands import check as checking

    if staged and (base or head or from_env):
        raise UsageError("--staged cannot be combined with --base, --head or --from-env")
    if strict and not hook:
        raise UsageError("--strict only means something with --hook")
    saved = [_save_option(value) for value in save]
    color = output is None and sys.stdout.isatty()
    progress = _TtyProgress("parsing")
    try:
        with _hook_failures_let_through(hook and not strict):
            outcome = checking.run(
                repo, base=base, head=head, from_env=from_env, preset=preset, depth=depth,
                fmt=fmt, output=output, fail_on=fail_on, repo_url=repo_url, color=color,
                progress=progress, save=saved, hook=hook,
            )
    finally:
        progress.finish()
    if output is None:
        click.echo(outcome.text, nl=False)
    if outcome.blocked:
        click.echo(terminal(outcome.blocked), err=True)
    sys.exit(outcome.exit_code)


def _save_option(value: str) -> tuple[str, str]:
    from maguyva_guard.commands.check import SAVE_FORMATS

    fmt, sep, path = value.partition("=")
    if not sep or not path or fmt not in SAVE_FORMATS:
        raise UsageError(f"--save takes FORMAT=FILE with FORMAT one of {', '.join(SAVE_FORMATS)}:"
                         f" {value!r}")
    return fmt, path


@main.command("tests")
@repo_option
@click.option("--staged", is_flag=True,
              help="Select for the staged changes against HEAD (the default without --base).")
@click.option("--base", default=None, help="Compare the merge base of REV and the head.")
@click.option("--head", default=None, help="The head revision (default HEAD; needs --base).")
@click.option("--from-env", is_flag=True,
              help="Take --base/--head from pre-commit's pre-push variables.")
@click.option("--preset", type=click.Choice(["quick", "default", "thorough"]), default=None,
              help="How many modalities to run (docs/design.md; config default: thorough).")
@click.option("--depth", type=click.IntRange(min=1, max=8), default=None,
              help="How far to follow callers to the tests (default 8; a trail the report "
                   "stops at goes up to 4 levels further).")
@click.option("--format", "fmt", type=click.Choice(["text", "pytest", "paths", "json"]),
              default="text", show_default=True,
              help="pytest: node ids, one a line; paths: test files (jest, vitest).")
@fatal_to_usage
def tests_command(repo: str, staged: bool, base: str | None, head: str | None,
                  from_env: bool, preset: str | None, depth: int | None, fmt: str) -> None:
    """Which tests the change can break: `pytest $(maguyva-guard tests --format pytest)`."""
    from maguyva_guard.commands import tests as selecting

    if staged and (base or head or from_env):
        raise UsageError("--staged cannot be combined with --base, --head or --from-env")
    progress = _TtyProgress("indexing")
    try:
        outcome = selecting.run(repo, base=base, head=head, from_env=from_env, preset=preset,
                                depth=depth, fmt=fmt, progress=progress)
    finally:
        progress.finish()
    click.echo(outcome.text, nl=False)
    for note in outcome.notes:
        click.echo(note, err=True)


MCP_EXTRA_MISSING = ("maguyva-guard mcp needs the MCP SDK, an optional extra: "
                     "pip install 'maguyva-guard[mcp]'")


@main.command("mcp")
@repo_option
@click.option("--max-tokens", type=click.IntRange(min=MIN_MAX_TOKENS),
              default=DEFAULT_MAX_TOKENS, show_default=True,
              help="The budget of one answer (estimated as characters / 4); the rest is paged.")
@fatal_to_usage
def mcp_command(repo: str, max_tokens: int) -> None:
    """Serve the engine to coding agents over MCP on stdio (tools: search, impact, callers,
    definition, explain)."""
    try:
        from maguyva_guard.commands import mcpserver
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in ("mcp", "mcp_types", "pydantic"):
            raise UsageError(MCP_EXTRA_MISSING) from None
        raise
    mcpserver.serve(repo, max_tokens)


@contextmanager
def _hook_failures_let_through(active: bool) -> Iterator[None]:
    """In hook mode (commands/hookmode.py) the tool's own failure is one warning line and
    exit 0: a hook never blocks a commit for its own reasons, only for --fail-on."""
    if not active:
        yield
        return
    from maguyva_guard.commands import hookmode
    from maguyva_guard.index import dbfile

    dbfile.wait_at_most(hookmode.HOOK_LOCK_WAIT_SECONDS)
    try:
        yield
    except FatalError as exc:
        message = str(exc)
    except Exception as exc:
        if os.environ.get(DEBUG_VARIABLE) == "1":
            raise
        message = "internal error: " + _internal_message(exc)
    else:
        return
    click.echo(terminal(hookmode.let_through(message)), err=True)
    sys.exit(0)


# --- Integrations: the pull-request comment and the plain git hooks --------------------------

hook_option = click.option("--hook", "hook_type", type=click.Choice(HOOK_TYPES),
                           default="pre-commit", show_default=True, help="Which git hook.")


@main.command("comment")
@click.option("--repo-slug", required=True, help="The pull request's repository, OWNER/REPO.")
@click.option("--pr", "pr", required=True, type=click.IntRange(min=1), help="Its number.")
@click.option("--body-file", default=None, type=click.Path(dir_okay=False, path_type=str),
              help="The Markdown report to post (check --format markdown --output FILE).")
@click.option("--check-failed", "check_failed", default=None, metavar="LOG",
              type=click.Path(dir_okay=False, path_type=str),
              help="The check itself failed: say so in the comment (its last line of LOG),"
                   " in place of the report.")
@click.option("--artifact-url", default=None,
              help="Link the full report (the Action's uploaded JSON, SARIF and HTML).")
@click.option("--marker", default=None,
              help="The hidden text that finds our comment again.  [default: maguyva-guard]")
@click.option("--token-env", default="GITHUB_TOKEN", show_default=True,
              help="The environment variable that holds the token.")
@click.option("--summary-fallback/--no-summary-fallback", default=True, show_default=True,
              help="When the token may not comment (a fork), append to $GITHUB_STEP_SUMMARY.")
@fatal_to_usage
def comment_command(repo_slug: str, pr: int, body_file: str | None, check_failed: str | None,
                    artifact_url: str | None, marker: str | None, token_env: str,
                    summary_fallback: bool) -> None:
    """Create or update the one pull-request comment that holds the report.

    Talks to $GITHUB_API_URL (default https://api.github.com) and sends the token nowhere
    else. A token that may not write (a fork's) is not an error: exit 0, summary instead.
    """
    from maguyva_guard.integrations import github

    outcome = github.comment(repo_slug, pr, body_file, marker=marker, token_env=token_env,
                             summary_fallback=summary_fallback, check_failed=check_failed,
                             artifact_url=artifact_url)
    click.echo(outcome.message)


@main.command("review")
@click.option("--repo-slug", required=True, help="The pull request's repository, OWNER/REPO.")
@click.option("--pr", "pr", required=True, type=click.IntRange(min=1), help="Its number.")
@click.option("--report", "report_file", required=True,
              type=click.Path(dir_okay=False, path_type=str),
              help="check's JSON report (check --format json --output FILE).")
@click.option("--commit", required=True, help="The pull request's head commit id.")
@click.option("--token-env", default="GITHUB_TOKEN", show_default=True,
              help="The environment variable that holds the token.")
@fatal_to_usage
def review_command(repo_slug: str, pr: int, report_file: str, commit: str,
                   token_env: str) -> None:
    """One inline review comment per changed definition that has callers, on its line.

    Updated, not duplicated, on later pushes; a line outside the diff is left to the report
    comment. Only comments the token itself wrote are ever edited.
    """
    from maguyva_guard.integrations import review

    for line in review.review(repo_slug, pr, report_file, commit, token_env=token_env):
        click.echo(line)


@main.command("install-hook")
@repo_option
@hook_option
@click.option("--force", is_flag=True,
              help="Keep an existing hook as <hook>.pre-maguyva-guard and run it first.")
@click.option("--fail-on", type=_choice(RISK_LEVELS), default=None,
              help="Block at this risk level.  [default: check's, from your configuration]")
@fatal_to_usage
def install_hook_command(repo: str, hook_type: str, force: bool, fail_on: str | None) -> None:
    """Install a plain git hook that runs `maguyva-guard check` (honours core.hooksPath)."""
    from maguyva_guard.integrations import hookinstall

    click.echo(hookinstall.install(repo, hook_type, force=force, fail_on=fail_on))


@main.command("uninstall-hook")
@repo_option
@hook_option
@fatal_to_usage
def uninstall_hook_command(repo: str, hook_type: str) -> None:
    """Remove our hook and restore the one it chained to; never removes another's hook."""
    from maguyva_guard.integrations import hookinstall

    click.echo(hookinstall.uninstall(repo, hook_type))


def run() -> None:  # pragma: no cover - console entry for `python -m maguyva_guard`
    sys.exit(main())
