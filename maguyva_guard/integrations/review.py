"""`review`: one inline review comment per changed definition, on its line in the diff.

Each comment lists the definition's risk and top callers, and carries a hidden marker made
from its path and name (a hash: a name can hold "-->"), by which a later push finds and
updates it instead of adding another. Only comments written by the token's own identity are
ever updated or deleted: anyone can write a comment with our marker. A definition whose line
is not part of the pull request's diff (GitHub answers 422) gets no inline comment: the
sticky comment lists it, as it lists every changed symbol.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import quote

from maguyva_guard.errors import FatalError
from maguyva_guard.integrations import github
from maguyva_guard.integrations.github_api import Api
from maguyva_guard.report import escape

TOP_CALLERS: Final = 5
ACTIONS_BOT: Final = "github-actions[bot]"  # who the workflow's GITHUB_TOKEN writes as
NOT_IN_DIFF: Final = 422  # "pull_request_review_thread.line could not be resolved"


def marker(path: str, name: str) -> str:
    digest = hashlib.sha256(f"{path}\0{name}".encode()).hexdigest()[:16]
    return f"<!-- maguyva-guard inline {digest} -->"


def inline_body(symbol: Mapping[str, Any], callers: list[Mapping[str, Any]]) -> str:
    """The comment for one changed definition (Markdown; every name escaped)."""
    name = escape.markdown(str(symbol["qualified_name"]))
    change = escape.markdown(str(symbol.get("change", "")).replace("_", " "))
    lines = [
        marker(str(symbol["path"]), str(symbol["qualified_name"])),
        f"**maguyva-guard**: <code>{name}</code> ({change}), risk **"
        f"{escape.markdown(str(symbol.get('risk', 'none')))}**, "
        f"{len(callers)} affected caller{'' if len(callers) == 1 else 's'}:",
        "",
    ]
    for a in callers[:TOP_CALLERS]:
        lines.append(f"- <code>{escape.markdown(str(a['symbol']))}</code> in <code>"
                     f"{escape.markdown(str(a['path']))}:{int(a['line'])}</code>"
                     f" (depth {int(a['depth'])}, {escape.markdown(str(a['confidence']))})")
    if len(callers) > TOP_CALLERS:
        lines.append(f"- &hellip; and {len(callers) - TOP_CALLERS} more in the report comment")
    return "\n".join(lines) + "\n"


def review(slug: str, pr: int, report_file: str, commit: str, *,
           token_env: str = github.DEFAULT_TOKEN_ENV,
           environ: Mapping[str, str] = os.environ) -> list[str]:
    """Post or update the inline comments; one line per changed definition to show."""
    github.check_slug(slug)  # GitHub's naming rules, as for the report comment
    if not commit or not all(c in "0123456789abcdef" for c in commit) or len(commit) < 40:
        raise FatalError(f"--commit must be the pull request's head commit id: {commit!r}")
    report = _read_report(report_file)
    token = environ.get(token_env, "").strip()
    if not token:
        raise FatalError(f"{token_env} is not set: the token to comment with")
    api = Api(environ.get("GITHUB_API_URL") or github.DEFAULT_API_URL, token)
    owner, repo = (quote(part, safe="") for part in slug.split("/"))
    base = f"/repos/{owner}/{repo}/pulls"
    out: list[str] = []
    try:
        ours = _our_comments(api, f"{base}/{pr}/comments", _identity(api))
        for symbol in report.get("changed_symbols", []):
            callers = [a for a in report.get("affected", [])
                       if symbol["qualified_name"] in a.get("because_of", [])]
            if callers:
                out.append(_one(api, base, pr, commit, symbol, callers, ours))
    except github._Denied as denied:  # a fork's read-only token: the job goes on
        out.append(f"maguyva-guard: the token may not write review comments on {slug}#{pr}"
                   f" ({denied}); the report comment and the job summary list everything")
    except FatalError as error:  # no message of ours may carry the token
        raise FatalError(str(error).replace(token, "***")) from None
    return out


def _one(api: Api, base: str, pr: int, commit: str, symbol: Mapping[str, Any],
         callers: list[Mapping[str, Any]], ours: dict[str, dict[str, Any]]) -> str:
    removed = symbol.get("change") == "removed"
    path = str(symbol.get("old_path") or symbol["path"]) if removed else str(symbol["path"])
    line, side = int(symbol["line_start"]), "LEFT" if removed else "RIGHT"
    body = inline_body(symbol, callers)
    where = f"{escape.terminal(path)}:{line}"
    found = ours.get(marker(str(symbol["path"]), str(symbol["qualified_name"])))
    if found is not None and found.get("path") == path and found.get("line") == line:
        if found.get("body") != body:
            github._expect(api.request("PATCH", f"{base}/comments/{int(found['id'])}",
                                       {"body": body}), {200}, "update an inline comment")
            return f"maguyva-guard: updated the inline comment on {where}"
        return f"maguyva-guard: the inline comment on {where} is up to date"
    if found is not None:  # the definition moved: a comment on its old line would mislead
        gone = api.request("DELETE", f"{base}/comments/{int(found['id'])}")
        if gone.status != 404:  # deleted by hand meanwhile: fine
            github._expect(gone, {204}, "delete an outdated inline comment")
    response = api.request("POST", f"{base}/{pr}/comments", {
        "body": body, "commit_id": commit, "path": path, "line": line, "side": side})
    if response.status == NOT_IN_DIFF:
        return f"maguyva-guard: {where} is not part of the diff: the report comment lists it"
    github._expect(response, {201}, "create an inline comment")
    return f"maguyva-guard: created an inline comment on {where}"


def _identity(api: Api) -> str:
    """The login the token writes as: GET /user for a user's token; a workflow's token may
    not read it, and writes as the Actions bot."""
    response = api.request("GET", "/user")
    data = response.json() if response.status == 200 else None
    login = data.get("login") if isinstance(data, dict) else None
    return str(login) if login else ACTIONS_BOT


def _our_comments(api: Api, path: str, me: str) -> dict[str, dict[str, Any]]:
    """marker -> our review comment carrying it, through every page."""
    found: dict[str, dict[str, Any]] = {}
    url: str | None = f"{path}?per_page={github.PER_PAGE}&page=1"
    for _ in range(github.MAX_PAGES):
        if url is None:
            return found
        response = api.request("GET", url)
        page = github._expect(response, {200}, "list the pull request's review comments")
        for item in page if isinstance(page, list) else []:
            author = (item.get("user") or {}).get("login")
            head = github.first_line(item.get("body") or "")
            if author == me and head.startswith("<!-- maguyva-guard inline "):
                found.setdefault(head, item)
        url = response.next_link()
    raise FatalError(f"more than {github.MAX_PAGES} pages of review comments; giving up")


def _read_report(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError) as exc:
        raise FatalError(f"cannot read --report {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("version") != 1:
        raise FatalError(f"--report {path} is not check's JSON report (version 1)")
    return data
