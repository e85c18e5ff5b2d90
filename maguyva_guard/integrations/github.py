"""`comment`: keep exactly one pull-request comment with the report, found by a hidden marker.

The GitHub REST API through urllib (no new dependency). The token goes only to the API base
URL (GITHUB_API_URL, as GitHub's runners set it; on GitHub Enterprise it has a path such as
/api/v3): a redirect or a pagination link that leaves it is refused, never followed with the
token. A token that may not write (a pull request from a fork gets a read-only one) is not a
failure of the job: the report goes to the job summary instead.

Only a comment written by the token's own identity is ours: anyone may post a comment that
starts with the marker on a public pull request, and editing theirs would let them choose
what the report says. Two runs at once may both find nothing and both create: after creating,
the list is read again and our duplicates are folded into the oldest (see `_reconcile`).
"""

from __future__ import annotations

import base64
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
# Room kept for closing what a cut leaves open: a code fence and a few nested <details>.
_MAX_CLOSED = 8
_CLOSING_ROOM = len("\n```") + _MAX_CLOSED * len("\n\n</details>")
# GitHub's rules: an owner (user or organisation) is 1-39 letters, digits and single inner
# hyphens; a repository name is 1-100 of [A-Za-z0-9._-] and neither "." nor "..".
_OWNER = re.compile(r"(?!.{40})[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
_REPO = re.compile(r"[A-Za-z0-9._-]{1,100}")
# The workflow's GITHUB_TOKEN is an installation token: GET /user answers 403, and what it
# writes is signed by this bot.
ACTIONS_BOT = "github-actions[bot]"
_TRUNCATED = (
    "\n\n---\n_maguyva-guard: the report was cut here: it has {total} characters, more than"
    " the {limit} that a GitHub comment holds._\n"
)


@dataclass(frozen=True)
class Author:
    """Who a comment is by: GitHub's user.login and user.type ("User" or "Bot")."""

    login: str
    type: str

    def wrote(self, item: Mapping[str, Any]) -> bool:
        user = item.get("user")
        if not isinstance(user, Mapping):
            return False
        return (str(user.get("login", "")).lower() == self.login.lower()
                and str(user.get("type", "")) == self.type)


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
    check_slug(slug)
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
        outcome = _upsert(api, slug, pr, mark, text, where)
    except _Denied as denied:
        summary = environ.get("GITHUB_STEP_SUMMARY", "") if summary_fallback else ""
        outcome = _fallback(where, str(denied), body, summary)
    except FatalError as error:  # an API's message may echo the Authorization header
        raise FatalError(redact(str(error), token)) from None
    return Outcome(outcome.action, redact(outcome.message, token), outcome.comment_id)


def check_slug(slug: str) -> None:
    """OWNER/REPO by GitHub's naming rules: it becomes part of the API path."""
    owner, _, repo = slug.partition("/")
    if not (_OWNER.fullmatch(owner) and _REPO.fullmatch(repo) and repo not in (".", "..")):
        raise FatalError(f"--repo-slug must be OWNER/REPO as GitHub names them: {slug!r}")


def redact(text: str, token: str) -> str:
    """`text` with the token, and the base64 of a Basic header that carries it, as ***."""
    for secret in (token, *_basic_forms(token)):
        text = text.replace(secret, "***")
    return text


def _basic_forms(token: str) -> list[str]:
    # git and some proxies send "x-access-token:TOKEN" as Basic auth; an echo shows it so.
    return [base64.b64encode(f"{user}:{token}".encode()).decode().rstrip("=")
            for user in ("x-access-token", "")]


def _upsert(api: Api, slug: str, pr: int, marker: str, text: str, where: str) -> Outcome:
    owner, repo = (quote(part, safe="") for part in slug.split("/"))
    listing = f"/repos/{owner}/{repo}/issues/{pr}/comments"
    me = whoami(api)
    ours = _find(api, listing, marker, me)
    if not ours:
        response = api.request("POST", listing, {"body": text})
        data = _expect(response, {201}, f"create the comment on {where}")
        keep = _reconcile(api, owner, repo, int(data["id"]), _find(api, listing, marker, me))
        if keep == int(data["id"]):
            return _done("created", data)
        ours = [keep]  # another run created it first: ours was folded into it
    else:
        _delete(api, owner, repo, ours[1:])  # duplicates a race left before
    response = api.request("PATCH", f"/repos/{owner}/{repo}/issues/comments/{ours[0]}",
                           {"body": text})
    return _done("updated", _expect(response, {200}, f"update the comment on {where}"))


def _done(action: str, data: Mapping[str, Any]) -> Outcome:
    return Outcome(action, f"maguyva-guard: {action} comment {data.get('html_url', '')}".rstrip(),
                   data.get("id"))


def _reconcile(api: Api, owner: str, repo: str, created: int, ours: list[int]) -> int:
    """After a create: the oldest of our marked comments stays, the others go.

    Every concurrent run sees the same oldest one, so all of them end up writing to it.
    """
    keep = min([created, *ours])
    _delete(api, owner, repo, [i for i in {created, *ours} if i != keep])
    return keep


def _delete(api: Api, owner: str, repo: str, ids: list[int]) -> None:
    for comment_id in sorted(ids):
        response = api.request("DELETE", f"/repos/{owner}/{repo}/issues/comments/{comment_id}")
        _expect(response, {204, 404}, "delete a duplicate comment")  # 404: the other run did


def whoami(api: Api) -> Author:
    """The token's identity: GET /user for a person's token; the Actions bot for the
    workflow's token, which may not read /user (403)."""
    response = api.request("GET", "/user")
    if response.status == 200:
        data = response.json()
        if isinstance(data, Mapping) and data.get("login"):
            return Author(str(data["login"]), str(data.get("type") or "User"))
    if response.status in (200, 403):
        return Author(ACTIONS_BOT, "Bot")
    raise FatalError(f"GitHub refused to say who the token is: HTTP {response.status}:"
                     f" {response.message()}")


def _find(api: Api, path: str, marker: str, me: Author) -> list[int]:
    """The ids of our comments carrying the marker, oldest first, through every page."""
    url: str | None = f"{path}?per_page={PER_PAGE}&page=1"
    found: list[int] = []
    for _ in range(MAX_PAGES):
        if url is None:
            return sorted(found)
        response = api.request("GET", url)
        page = _expect(response, {200}, "list the pull request's comments")
        for item in page if isinstance(page, list) else []:
            if first_line(item.get("body") or "") == marker and me.wrote(item):
                found.append(int(item["id"]))
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
