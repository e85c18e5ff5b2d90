"""The command line: parse, call one core function, map the result to an exit code.

The core never imports click; it raises FatalError for the user's mistakes, which this
module shows as one line on stderr with exit code 2 (CONTRACT.md).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click

from maguyva_guard.errors import FatalError

F = TypeVar("F", bound=Callable[..., Any])

EXIT_USAGE = 2


class UsageError(click.ClickException):
    """A FatalError as click shows it: one line, exit code 2 (click's own exits 1)."""

    exit_code = EXIT_USAGE

    def show(self, file: Any = None) -> None:
        click.echo(f"maguyva-guard: error: {self.format_message()}", err=True)


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


class Group(click.Group):
    """Usage errors of click itself also exit 2 with one line (click does exit 2 for them)."""


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="maguyva-guard")
def main() -> None:
    """maguyva-guard: what your change can break, before it lands."""


def run() -> None:  # pragma: no cover - console entry for `python -m maguyva_guard`
    sys.exit(main())
