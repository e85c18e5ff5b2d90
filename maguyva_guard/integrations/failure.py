"""What the pull-request comment says when the check itself failed, and the link to the full
report: a missing or stale comment reads as "all clear", so a failure is said in the comment,
under the same marker, in place of the last report.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Final

from maguyva_guard.errors import FatalError
from maguyva_guard.report import escape

MAX_LOG_BYTES: Final = 64 * 1024  # the end of the log is what names the failure
MAX_REASON_CHARS: Final = 500


def run_url(environ: Mapping[str, str]) -> str | None:
    """The Actions run's page, from the variables every runner sets; None outside a run."""
    server, repo, run_id = (environ.get(k, "") for k in
                            ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    if not (server and repo and run_id.isdigit()):
        return None
    return escape.http_url(f"{server}/{repo}/actions/runs/{run_id}")


def reason(log_file: str, secrets: tuple[str, ...] = ()) -> str:
    """The last line of the check's error output that says something."""
    try:
        with open(log_file, "rb") as handle:
            handle.seek(max(0, Path(log_file).stat().st_size - MAX_LOG_BYTES))
            text = handle.read().decode("utf-8", "replace")
    except OSError as exc:
        raise FatalError(f"cannot read --check-failed {log_file}: {exc.strerror}") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    found = lines[-1] if lines else "no error message"
    for secret in secrets:
        if secret:
            found = found.replace(secret, "***")
    return found[:MAX_REASON_CHARS]


def failure_body(why: str, environ: Mapping[str, str]) -> str:
    """The comment for a check that could not run (Markdown; `why` is escaped)."""
    url = run_url(environ)
    log = f"[the job log]({url})" if url else "the job log"
    return (
        "## maguyva-guard: the check failed\n\n"
        "> [!CAUTION]\n"
        "> maguyva-guard could not check this change, so nothing here means it is safe."
        " An earlier report in this comment was replaced because it may no longer apply.\n\n"
        f"<code>{escape.markdown(why)}</code>\n\n"
        f"See {log} for the details.\n"
    )


def artifact_line(url: str | None) -> str:
    """The link to the uploaded JSON, SARIF and HTML reports; "" without a safe URL."""
    safe = escape.http_url(url)
    if not safe:
        return ""
    return (f"\n<sub>The full report (every caller): [JSON, SARIF and HTML]({safe}),"
            " uploaded with this run.</sub>\n")
