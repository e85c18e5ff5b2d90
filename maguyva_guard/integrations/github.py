"""`comment`: keep exactly one pull-request comment with the report, found by a hidden marker.

The GitHub REST API through urllib (no new dependency). The token goes only to the API base
URL (GITHUB_API_URL, as GitHub's runners set it; on GitHub Enterprise it has a path such as
/api/v3): a redirect or a pagination link that leaves it is refused, never followed with the
token. A token that may not write (a pull request from a fork gets a read-only one) is not a
failure of the job: the report goes to the job summary instead.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from maguyva_guard.errors import FatalError
from maguyva_guard.integrations import failure
from maguyva_guard.integrations.github_api import Api, Response

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_MARKER = "<!-- maguyva-guard -->"
DEFAULT_TOKEN_ENV = "GITHUB_TOKEN"
MAX_BODY_CHARS = 65536  # GitHub refuses a longer comment body ("body is too long")
PER_PAGE = 100  # the most GitHub returns on one page
MAX_PAGES = 100  # 10,000 comments: a bound on a pagination that never ends
# A token that can read but not write (fork) gets 403; one that cannot see the repo gets 404.
_DENIED = frozenset({403, 404})
_SLUG = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
# Room kept for closing what a cut leaves open: a code fence and a few nested <details>.
_MAX_CLOSED = 8
_CLOSING_ROOM = len("\n```") + _MAX_CLOSED * len("\n\n</details>")
_TRUNCATED = (
    "\n\n---\n_maguyva-guard: the report was cut here: it has {total} characters, more than"
    " the {limit} that a GitHub comment holds._\n"
)


@dataclass(frozen=True)
class Outcome:
    action: str  # "created", "updated" or "fallback"
    message: str  # the one line to show
    comment_id: int | None = None


class _Denied(Exception):
    """The token may not read or write the pull request's comments."""

    def __init__(self, response: Response) -> None:
        super().__init__(f"HTTP {response.status}: {response.message()}")


def marker_comment(text: str | None) -> str:
    """`<!-- x -->` from "x" or from "<!-- x -->" itself; an HTML comment cannot hold "--"."""
    inner = (text or DEFAULT_MARKER).strip()
    if inner.startswith("<!--") and inner.endswith("-->"):
        inner = inner[4:-3].strip()
    if not inner or "--" in inner or ">" in inner or "\n" in inner:
        raise FatalError(f"--marker must be plain text without '--' or '>': {text!r}")
    return f"<!-- {inner} -->"


def first_line(text: str) -> str:
    return text.split("\n", 1)[0].strip()


def compose(body: str, marker: str, trailer: str = "") -> str:
    """The comment: the marker line, then the body, cut at a line to fit GitHub's limit,
    then `trailer` (the link to the full report), which is never cut.

    The marker is the first line, which is where `_find` looks for it: a report that quotes
    another marker further down (check's Markdown starts with the default one) is not ours.
    """
    if first_line(body) == marker:  # check's Markdown report carries the default marker
        body = body.split("\n", 1)[1] if "\n" in body else ""
    head = marker + "\n"
    if len(head) + len(body) + len(trailer) <= MAX_BODY_CHARS:
        return head + body + trailer
    note = _TRUNCATED.format(total=len(body), limit=MAX_BODY_CHARS)
    keep = MAX_BODY_CHARS - len(head) - len(note) - len(trailer) - _CLOSING_ROOM
    line_end = body.rfind("\n", 0, keep)
    kept = body[: line_end if line_end > 0 else keep]
    return head + kept + _closing(kept) + note + trailer


def _closing(kept: str) -> str:
    """What closes the code fence and the <details> sections a cut left open, so that the
    note that follows is shown, not hidden in a collapsed section or a code block."""
    lines = kept.split("\n")
    fence = sum(1 for line in lines if line.lstrip().startswith("```")) % 2
    open_details = kept.count("<details>") - kept.count("</details>")
    out = "\n```" if fence else ""
    return out + "\n\n</details>" * min(max(open_details, 0), _MAX_CLOSED)


def comment(slug: str, pr: int, body_file: str | None, *, marker: str | None = None,
            token_env: str = DEFAULT_TOKEN_ENV, summary_fallback: bool = True,
            environ: Mapping[str, str] = os.environ, check_failed: str | None = None,
            artifact_url: str | None = None) -> Outcome:
    """Create or update the marked comment on OWNER/REPO#pr; see the module docstring.

    `check_failed` (the check's error output) replaces the report by a note that the check
    failed; `artifact_url` adds a link to the full report under it."""
    if not _SLUG.fullmatch(slug):
        raise FatalError(f"--repo-slug must look like OWNER/REPO: {slug!r}")
    mark = marker_comment(marker)
    token = environ.get(token_env, "").strip()
    if check_failed is not None:
        body = failure.failure_body(failure.reason(check_failed, (token,)), environ)
    elif body_file is not None:
        body = _read_body(body_file)
    else:
        raise FatalError("comment needs --body-file, or --check-failed LOG")
    if not token:
        raise FatalError(f"{token_env} is not set: the token to comment with")
    api = Api(environ.get("GITHUB_API_URL") or DEFAULT_API_URL, token)
    where = f"{slug}#{pr}"
    text = compose(body, mark, failure.artifact_line(artifact_url))
    try:
        return _upsert(api, slug, pr, mark, text, where)
    except _Denied as denied:
        summary = environ.get("GITHUB_STEP_SUMMARY", "") if summary_fallback else ""
        return _fallback(where, str(denied), body, summary)
    except FatalError as error:  # belt and braces: no message of ours may carry the token
        raise FatalError(str(error).replace(token, "***")) from None


def _upsert(api: Api, slug: str, pr: int, marker: str, text: str, where: str) -> Outcome:
    owner, repo = (quote(part, safe="") for part in slug.split("/"))
    existing = _find(api, f"/repos/{owner}/{repo}/issues/{pr}/comments", marker)
    if existing is None:
        response = api.request("POST", f"/repos/{owner}/{repo}/issues/{pr}/comments",
                               {"body": text})
        verb, action = "create", "created"
    else:
        response = api.request("PATCH", f"/repos/{owner}/{repo}/issues/comments/{existing}",
                               {"body": text})
        verb, action = "update", "updated"
    data = _expect(response, {200, 201}, f"{verb} the comment on {where}")
    return Outcome(action, f"maguyva-guard: {action} comment {data.get('html_url', '')}".rstrip(),
                   data.get("id"))


def _find(api: Api, path: str, marker: str) -> int | None:
    """The id of the first comment carrying the marker, through every page of the list."""
    url: str | None = f"{path}?per_page={PER_PAGE}&page=1"
    for _ in range(MAX_PAGES):
        if url is None:
            return None
        response = api.request("GET", url)
        page = _expect(response, {200}, "list the pull request's comments")
        for item in page if isinstance(page, list) else []:
            if first_line(item.get("body") or "") == marker:
                return int(item["id"])
        url = response.next_link()  # Api refuses one outside the base URL
    raise FatalError(f"more than {MAX_PAGES} pages of comments; giving up")


def _expect(response: Response, ok: set[int], doing: str) -> Any:
    if response.status in ok:
        return response.json()
    if response.status in _DENIED:
        raise _Denied(response)
    raise FatalError(f"GitHub refused to {doing}: HTTP {response.status}: {response.message()}")


def _fallback(where: str, reason: str, body: str, summary: str) -> Outcome:
    line = f"maguyva-guard: the token may not comment on {where} ({reason}; a fork's cannot)"
    if not summary:
        return Outcome("fallback", f"{line}; no comment posted")
    try:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(body if body.endswith("\n") else body + "\n")
    except OSError as exc:
        raise FatalError(f"cannot append to the job summary {summary}: {exc.strerror}") from None
    return Outcome("fallback", f"{line}; wrote the report to the job summary instead")


def _read_body(body_file: str) -> str:
    try:
        return Path(body_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FatalError(f"cannot read --body-file {body_file}: {exc}") from None
