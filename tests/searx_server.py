"""A real HTTP server on 127.0.0.1 that speaks SearxNG's JSON search format, for tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fruitctl.backends.search import MAX_RESPONSE_BYTES

Respond = Callable[["Handler"], None]

RESULTS = [
    {"title": "Apples", "url": "https://example.org/apples", "content": "All   about\napples."},
    {"title": "Pears", "url": "https://shop.example.org/pears", "content": "Pears for sale."},
    {"title": "Lookalike", "url": "https://badexample.org/fruit", "content": "Not the same."},
    {"title": "Elsewhere", "url": "http://evil.test/x", "content": None},
    {"title": "No URL at all"},
    {"title": "Script", "url": "javascript:alert(1)", "content": "Not a web page."},
]
SEARX_ANSWER = {"query": "fruit", "number_of_results": 0, "results": RESULTS, "answers": []}


# -- the fake SearxNG --------------------------------------------------------------------------


class FakeSearx(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str = "127.0.0.1") -> None:
        super().__init__((host, 0), Handler)
        self.host = host
        self.paths: list[str] = []
        self.respond: Respond = json_answer(SEARX_ANSWER)
        self.released = threading.Event()  # set at teardown: a slow answer stops waiting

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up mid-answer is what several tests do on purpose."""


class Handler(BaseHTTPRequestHandler):
    server: FakeSearx

    def do_GET(self) -> None:
        self.server.paths.append(self.path)
        self.server.respond(self)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def send(
    handler: Handler, status: int, body: bytes, *, declare_length: bool = True, **headers: str
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", headers.pop("content_type", "application/json"))
    for name, value in headers.items():
        handler.send_header(name, value)
    if declare_length:
        handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def json_answer(data: object, status: int = 200) -> Respond:
    return lambda h: send(h, status, json.dumps(data).encode())


def redirect_to(location: str) -> Respond:
    return lambda h: send(h, 302, b"", Location=location)


def slow_answer(h: Handler) -> None:
    h.server.released.wait(5)
    send(h, 200, json.dumps(SEARX_ANSWER).encode())


def huge_answer(declare_length: bool) -> Respond:
    body = b'{"results": [], "padding": "' + b"x" * (MAX_RESPONSE_BYTES + 1024) + b'"}'
    return lambda h: send(h, 200, body, declare_length=declare_length)


@contextmanager
def running_searx(host: str = "127.0.0.1") -> Iterator[FakeSearx]:
    server = FakeSearx(host)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.released.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
