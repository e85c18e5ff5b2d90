"""The GitHub REST API over urllib: one base URL, a token that never leaves it, bounded retries.

urllib would follow a redirect anywhere and keep the Authorization header; here no redirect
is followed automatically. `Api.request` follows one itself only when it stays under the base
URL (same scheme, host, port and path prefix), and refuses every other URL before sending.
"""

from __future__ import annotations

import http.client
import json
import re
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.parse import urljoin, urlsplit

from maguyva_guard import __version__
from maguyva_guard.errors import FatalError

ATTEMPTS = 3  # one try and two retries, for 5xx, 429 and a connection that fails
BACKOFF_SECONDS = 1.0  # the wait before the first retry; it doubles each time
MAX_WAIT_SECONDS = 30.0  # the most we wait for a Retry-After
TIMEOUT_SECONDS = 30.0  # per request: a hung API must not hang the job
MAX_REDIRECTS = 5
API_VERSION = "2022-11-28"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_LINK = re.compile(r'<([^>]*)>\s*;\s*rel="?([^";]*)"?')


@dataclass(frozen=True)
class Response:
    status: int
    headers: Message
    body: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.body or b"null")
        except ValueError:
            raise FatalError(f"GitHub answered HTTP {self.status} with no JSON") from None

    def message(self) -> str:
        """GitHub's own one-line reason ({"message": ...}) or the bare status."""
        try:
            data = json.loads(self.body)
        except ValueError:
            data = None
        text = data.get("message") if isinstance(data, dict) else None
        return str(text).splitlines()[0] if text else http.client.responses.get(self.status, "")

    def next_link(self) -> str | None:
        """The `rel="next"` URL of a paginated answer (RFC 8288 Link header), if any."""
        for url, rels in _LINK.findall(self.headers.get("Link", "")):
            if "next" in rels.split():
                return str(url)
        return None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # urllib then hands the 3xx back as an HTTPError: Api decides


class Api:
    """Requests to one API base URL, authenticated with a bearer token."""

    def __init__(self, base_url: str, token: str,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
            raise FatalError(f"GITHUB_API_URL must be an http(s) URL: {base_url!r}")
        if not token.isascii() or any(c.isspace() or not c.isprintable() for c in token):
            raise FatalError("the token contains spaces or control characters")  # never shown
        self.base = base_url.rstrip("/")
        self._token = token
        self._sleep = sleep
        self._opener = urllib.request.build_opener(_NoRedirect)

    def within(self, url: str) -> bool:
        """True when `url` is under the base URL: the only place the token may go."""
        u, b = urlsplit(url), urlsplit(self.base)
        try:
            same_port = (u.port or _DEFAULT_PORTS.get(u.scheme)) == (
                b.port or _DEFAULT_PORTS[b.scheme])
        except ValueError:  # a port that is not a number
            return False
        return (u.scheme == b.scheme and u.hostname == b.hostname and same_port
                and (u.path + "/").startswith(b.path.rstrip("/") + "/"))

    def request(self, method: str, target: str, payload: Any = None) -> Response:
        """Send to `target` (a path under the base, or a full URL under it); 3xx within it."""
        url = target if "://" in target else self.base + target
        for _ in range(MAX_REDIRECTS + 1):
            if not self.within(url):
                host = urlsplit(url).netloc or url
                raise FatalError(f"refusing to send the token to {host}: outside {self.base}")
            response = self._retrying(method, url, payload)
            location = response.headers.get("Location")
            if response.status not in _REDIRECTS or not location:
                return response
            url = urljoin(url, location)
        raise FatalError(f"more than {MAX_REDIRECTS} redirects from {self.base}")

    def _retrying(self, method: str, url: str, payload: Any) -> Response:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                response = self._send(method, url, payload)
            except (URLError, TimeoutError, ConnectionError, http.client.HTTPException) as exc:
                if attempt == ATTEMPTS:
                    reason = getattr(exc, "reason", None) or exc
                    raise FatalError(f"cannot reach {self.base}: {reason}") from None
                self._sleep(self._delay(attempt, None))
                continue
            retried = response.status == 429 or response.status >= 500
            if not retried or attempt == ATTEMPTS:
                return response
            self._sleep(self._delay(attempt, response.headers.get("Retry-After")))
        raise AssertionError("unreachable")  # pragma: no cover

    def _send(self, method: str, url: str, payload: Any) -> Response:
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(url, data=data, method=method, headers={
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self._token}",
            "Content-Type": "application/json",
            "User-Agent": f"maguyva-guard/{__version__}",
            "X-GitHub-Api-Version": API_VERSION,
        })
        try:
            with self._opener.open(request, timeout=TIMEOUT_SECONDS) as answer:
                return Response(answer.status, answer.headers, answer.read())
        except HTTPError as error:
            with error:
                return Response(error.code, error.headers, error.read())

    @staticmethod
    def _delay(attempt: int, retry_after: str | None) -> float:
        if retry_after and retry_after.strip().isdigit():
            return min(float(retry_after), MAX_WAIT_SECONDS)
        return BACKOFF_SECONDS * 2.0 ** (attempt - 1)
