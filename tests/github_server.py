"""A small stand-in for the GitHub REST API's issue-comment endpoints, on 127.0.0.x.

It serves what `maguyva-guard comment` calls: who am I (GET /user), list (paginated with
Link headers, as GitHub does), create, update and delete. Identities are GitHub's: an
installation token (the workflow's GITHUB_TOKEN, `ghs_...`) gets 403 from /user and writes as
`github-actions[bot]` (type Bot); any other token is a person's (`users` maps it to a login,
default `octocat`). Every comment carries its author in `user`, as GitHub's do.
Switches imitate the cases that matter: a fork's read-only token (403 on writes), a flaky
front end (502 a given number of times), redirects or next-page links that point somewhere
else, an error body that echoes the request's headers, and a barrier that holds the first
list requests until N runs have sent theirs (two runs racing). Every request is recorded
with its headers, so a test can see exactly where the token went.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

_LIST = re.compile(r"/repos/([^/]+)/([^/]+)/issues/(\d+)/comments")
_ONE = re.compile(r"/repos/([^/]+)/([^/]+)/issues/comments/(\d+)")
_REVIEW_LIST = re.compile(r"/repos/([^/]+)/([^/]+)/pulls/(\d+)/comments")
_REVIEW_ONE = re.compile(r"/repos/([^/]+)/([^/]+)/pulls/comments/(\d+)")
ACTIONS_BOT = "github-actions[bot]"
BOT = {"login": "github-actions[bot]", "type": "Bot"}
INSTALLATION_PREFIX = "ghs_"  # GitHub's prefix for installation (workflow) tokens


@dataclass
class Seen:
    method: str
    path: str  # with the query
    headers: dict[str, str]
    body: bytes


@dataclass
class FakeGitHub:
    host: str = "127.0.0.1"
    prefix: str = ""  # "/api/v3" imitates GitHub Enterprise's API path
    page_size: int = 100  # GitHub's largest page; smaller makes pagination visible
    deny_writes: bool = False  # a fork's token: reads work, writes answer 403
    fail_first: int = 0  # answer 502 to this many requests before behaving
    redirect_list_to: str = ""  # answer the next list request with a 307 to this URL
    next_link_to: str = ""  # a Link rel="next" to this URL on the first page
    echo_headers_on: int = 0  # answer this status, with the request's headers in the message
    users: dict[str, str] = field(default_factory=dict)  # a person's token -> login
    list_barrier: threading.Barrier | None = None  # held by the first lists of racing runs
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    # Pull-request review comments, and the (path, side, line) places the diff holds: a
    # review comment elsewhere gets GitHub's 422. `login` is who GET /user says the token
    # is; None answers 403 there, as for a workflow's token (which writes as the Actions bot).
    review_comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    diff_lines: set[tuple[str, str, int]] = field(default_factory=set)
    login: str | None = None
    seen: list[Seen] = field(default_factory=list)
    _next_id: int = 1000
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://{self.host}:{self._server.server_address[1]}{self.prefix}"

    def add(self, body: str, user: dict[str, str] | None = None) -> int:
        """A comment by `user` (default: someone else, a person named mallory)."""
        with self._lock:
            self._next_id += 1
            new_id = self._next_id
            self.comments[new_id] = {"id": new_id, "body": body,
                                     "user": dict(user or {"login": "mallory", "type": "User"}),
                                     "html_url": f"https://github.test/c/{new_id}"}
        return new_id

    def identity(self, token: str) -> dict[str, str] | None:
        """The author a token writes as; None for an installation token's GET /user."""
        if self.login is not None:  # the review tests' switch: one person for every token
            return {"login": self.login, "type": "User"}
        if token.startswith(INSTALLATION_PREFIX):
            return None
        return {"login": self.users.get(token, "octocat"), "type": "User"}

    def marked(self, marker: str = "<!-- maguyva-guard -->") -> list[dict[str, Any]]:
        return [c for c in self.comments.values() if marker in c["body"]]

    def start(self) -> FakeGitHub:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake._handle(self, "GET")

            def do_POST(self) -> None:
                fake._handle(self, "POST")

            def do_PATCH(self) -> None:
                fake._handle(self, "PATCH")

            def do_DELETE(self) -> None:
                fake._handle(self, "DELETE")

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer((self.host, 0), Handler)
        # A short poll: shutdown() waits for it, once per test.
        threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        self.seen.append(Seen(method, handler.path, dict(handler.headers.items()), body))
        if self.fail_first > 0:
            self.fail_first -= 1
            return _send(handler, 502, {"message": "Server Error"})
        if self.echo_headers_on:
            # Some proxies and API front ends echo the request in an error; GitHub must not
            # be trusted never to.
            echo = "; ".join(f"{k}: {v}" for k, v in handler.headers.items())
            return _send(handler, self.echo_headers_on, {"message": f"Bad request ({echo})"})
        token = handler.headers.get("Authorization", "").removeprefix("Bearer ")
        author = self.identity(token)
        parts = urlsplit(handler.path)
        path = parts.path.removeprefix(self.prefix)
        if method == "GET" and path == "/user":
            if author is None:
                return _send(handler, 403, {"message": "Resource not accessible by integration"})
            return _send(handler, 200, author)
        if _REVIEW_LIST.fullmatch(path) or _REVIEW_ONE.fullmatch(path):
            return self._review(handler, method, path, body, parse_qs(parts.query))
        if method == "GET" and _LIST.fullmatch(path):
            if self.redirect_list_to:
                location, self.redirect_list_to = self.redirect_list_to, ""
                return _send(handler, 307, {}, {"Location": location})
            self._wait_at_barrier()
            return self._list(handler, parse_qs(parts.query))
        if method in ("POST", "PATCH", "DELETE") and self.deny_writes:
            return _send(handler, 403, {"message": "Resource not accessible by integration"})
        if method == "POST" and _LIST.fullmatch(path):
            new_id = self.add(json.loads(body)["body"], author or BOT)
            return _send(handler, 201, self.comments[new_id])
        match = _ONE.fullmatch(path)
        found = self.comments.get(int(match[3])) if match else None
        if found is not None and method in ("PATCH", "DELETE"):
            # A token with write access may edit anyone's comment, as on GitHub: which one to
            # edit is the client's choice, and that is what the tests watch.
            if method == "DELETE":
                del self.comments[found["id"]]
                return _send(handler, 204, None)
            found["body"] = json.loads(body)["body"]
            return _send(handler, 200, found)
        return _send(handler, 404, {"message": "Not Found"})

    def _wait_at_barrier(self) -> None:
        barrier = self.list_barrier
        if barrier is None:
            return
        try:
            barrier.wait(timeout=20)
        except threading.BrokenBarrierError:
            pass
        self.list_barrier = None  # only the first lists race; later ones pass

    def add_review(self, body: str, path: str, line: int, login: str = ACTIONS_BOT) -> int:
        self._next_id += 1
        self.review_comments[self._next_id] = {
            "id": self._next_id, "body": body, "path": path, "line": line, "side": "RIGHT",
            "user": {"login": login}}
        return self._next_id

    def _review(self, handler: BaseHTTPRequestHandler, method: str, path: str, body: bytes,
                query: dict[str, list[str]]) -> None:
        if path == "/user":
            if self.login is None:
                return _send(handler, 403, {"message": "Resource not accessible by integration"})
            return _send(handler, 200, {"login": self.login})
        if method == "GET":
            return self._list(handler, query, self.review_comments)
        if self.deny_writes:
            return _send(handler, 403, {"message": "Resource not accessible by integration"})
        match = _REVIEW_ONE.fullmatch(path)
        if method == "POST":
            data = json.loads(body)
            if (data["path"], data.get("side", "RIGHT"), data["line"]) not in self.diff_lines:
                return _send(handler, 422, {"message": "Validation Failed", "errors": [
                    {"field": "pull_request_review_thread.line",
                     "message": "could not be resolved"}]})
            new_id = self.add_review(data["body"], data["path"], data["line"],
                                     self.login or ACTIONS_BOT)
            self.review_comments[new_id]["side"] = data.get("side", "RIGHT")
            self.review_comments[new_id]["commit_id"] = data["commit_id"]
            return _send(handler, 201, self.review_comments[new_id])
        if match and int(match[3]) in self.review_comments:
            if method == "PATCH":
                self.review_comments[int(match[3])]["body"] = json.loads(body)["body"]
                return _send(handler, 200, self.review_comments[int(match[3])])
            if method == "DELETE":
                del self.review_comments[int(match[3])]
                handler.send_response(204)
                handler.end_headers()
                return None
        return _send(handler, 404, {"message": "Not Found"})

    def _list(self, handler: BaseHTTPRequestHandler, query: dict[str, list[str]],
              store: dict[int, dict[str, Any]] | None = None) -> None:
        size = min(int(query.get("per_page", ["30"])[0]), self.page_size)
        page = int(query.get("page", ["1"])[0])
        source = self.comments if store is None else store
        items = sorted(source.values(), key=lambda c: c["id"])
        chunk = items[(page - 1) * size: page * size]
        links = []
        if page * size < len(items):
            base = handler.path.split("?")[0]
            links.append(f'<{self.url}{base.removeprefix(self.prefix)}'
                         f'?per_page={size}&page={page + 1}>; rel="next"')
        if page == 1 and self.next_link_to:
            links = [f'<{self.next_link_to}>; rel="next"']
        headers = {"Link": ", ".join(links)} if links else {}
        _send(handler, 200, chunk, headers)


def _send(handler: BaseHTTPRequestHandler, status: int, payload: Any,
          headers: dict[str, str] | None = None) -> None:
    data = b"" if status == 204 else json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)
