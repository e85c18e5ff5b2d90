"""A tiny stand-in for Voyage's POST /v1/embeddings on 127.0.0.1, for the real voyageai client.

    with VoyageServer() as server:
        server.script(429, headers={"Retry-After": "1"})   # then the default 200s
        ... base_url=server.base_url ...
        server.requests  # every request: its headers and JSON body

Answers (NOTES.md): 200 with {"object": "list", "data": [{"object": "embedding",
"embedding": <base64 of dimension/8 bytes>, "index": i}], "model", "usage"}; errors as JSON
{"detail": "..."}. The bytes of a text's vector are a hash of the text and the input_type,
so tests can tell which input_type a vector was made with.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class Scripted:
    status: int
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (a slow server)


def vector_bytes(text: str, input_type: str, dimension: int) -> bytes:
    seed = f"{input_type}\0{text}".encode()
    return hashlib.shake_128(seed).digest(dimension // 8)


class VoyageServer:
    def __init__(self, key: str = "test-key") -> None:
        self.key = key
        self.requests: list[Recorded] = []
        self._script: list[Scripted] = []
        self.delay = 0.0  # seconds before each default (200) answer: a slow server
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> VoyageServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def script(self, status: int, detail: str = "", headers: dict[str, str] | None = None,
               body: dict[str, Any] | None = None, delay: float = 0.0) -> None:
        """Queue one answer for the next request (then the default 200s resume)."""
        payload = body if body is not None else {"detail": detail or f"status {status}"}
        self._script.append(Scripted(status, payload, headers or {}, delay))

    def answer(self, request: Recorded) -> Scripted:
        with self._lock:
            self.requests.append(request)
            if self._script:
                return self._script.pop(0)
        if request.headers.get("Authorization") != f"Bearer {self.key}":
            return Scripted(401, {"detail": "Provided API key is invalid."})
        body = request.body
        dim = body.get("output_dimension") or 1024
        data = [{"object": "embedding", "index": i,
                 "embedding": base64.b64encode(
                     vector_bytes(text, body.get("input_type") or "", dim)).decode()}
                for i, text in enumerate(body["input"])]
        return Scripted(200, {"object": "list", "data": data, "model": body.get("model"),
                              "usage": {"total_tokens": sum(len(t) // 4 for t in body["input"])}},
                        delay=self.delay)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                recorded = Recorded(self.path, dict(self.headers.items()), body)
                out = server.answer(recorded) if self.path.endswith("/embeddings") else \
                    Scripted(404, {"detail": "not found"})
                time.sleep(out.delay)
                raw = json.dumps(out.body).encode()
                self.send_response(out.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for name, value in out.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    self.wfile.write(raw)
                except BrokenPipeError:  # the client gave up (a timeout test)
                    pass

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

        return Handler
