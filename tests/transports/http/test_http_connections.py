"""The HTTP server's connections, bounded: a real uvicorn on loopback with the bounded protocol, a
small app of the test's own, and plain sockets as the client - a slow head is answered 408, a
slow body cut off, a connection past the cap takes the place of the longest-waiting one, and
when every connection has a request in flight the new one is answered 503."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import resource
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from fruitctl import bootstrap
from fruitctl.transports import net
from fruitctl.transports.http import connections
from fruitctl.transports.http.connections import Limits
from fruitctl.transports.http.server import HttpServer
from fruitctl.transports.http.tokens import TokenStore, secrets_dir

DEADLINE_S = 60.0  # the test's own: far past any the server is given here
START_S = 30.0
HEAD = b"GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n"


class App:
    """Answers ``/ok`` at once; ``/hold`` once ``release`` is set; records what it read."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.bodies: list[Any] = []
        self.holding = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["path"] == "/hold":
            self.holding += 1
            while not self.release.is_set():
                await asyncio.sleep(0.01)
        body, message = b"", {"more_body": True}
        while message.get("more_body"):
            message = await receive()
            body += message.get("body", b"")
            if message["type"] == "http.disconnect":
                self.bodies.append("disconnected")
                return
        self.bodies.append(body)
        headers = [(b"content-length", b"2")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"ok"})


@contextlib.contextmanager
def serving(app: App, limits: Limits) -> Iterator[tuple[str, int]]:
    listener = net.listen("127.0.0.1", 0)
    config = uvicorn.Config(
        app,
        http=connections.protocol(limits),
        lifespan="off",
        log_config=None,
        log_level="critical",
        backlog=connections.ACCEPT_BATCH,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_S
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.started
    try:
        yield listener.getsockname()[:2]
    finally:
        app.release.set()
        server.should_exit = True
        thread.join(START_S)
        listener.close()


def limits(cap: int = 8, head: float = 300, body: float = 300) -> Limits:
    return Limits(max_connections=cap, head_seconds=head, body_seconds=body)


def connect(address: tuple[str, int], data: bytes = b"") -> socket.socket:
    sock = socket.create_connection(address, timeout=DEADLINE_S)
    if data:
        sock.sendall(data)
    return sock


def everything(sock: socket.socket) -> bytes:
    """All the server sends until it closes (the test's deadline at most)."""
    sock.settimeout(DEADLINE_S)
    chunks = []
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def answer_of(sock: socket.socket) -> bytes:
    """One whole answer of the app's (its head and two bytes of body)."""
    sock.settimeout(DEADLINE_S)
    answer = b""
    while not (b"\r\n\r\n" in answer and answer.endswith(b"ok")):
        chunk = sock.recv(65536)
        assert chunk, answer
        answer += chunk
    return answer


def error_of(answer: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(body)["error"]


def test_the_cap_is_below_the_descriptor_limit() -> None:
    assert connections.connection_cap(512, 256) == 96  # a LaunchAgent's limit
    assert connections.connection_cap(512, 1024) == 480
    assert connections.connection_cap(100, 1024) == 100  # the configured number, when lower
    assert connections.connection_cap(512, 70) == connections.MIN_CONNECTIONS
    assert connections.connection_cap(512, resource.RLIM_INFINITY) == 512
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    assert connections.connection_cap(10**6) < soft


@pytest.mark.slow
def test_a_head_slower_than_its_deadline_is_answered_408_and_closed() -> None:
    app = App()
    with serving(app, limits(head=1)) as address, contextlib.ExitStack() as opened:
        slow = opened.enter_context(connect(address, HEAD))  # and never the blank line
        status, error = error_of(everything(slow))
        # The deadline restarts with each request: one answered, the next one's head trickles.
        kept = opened.enter_context(connect(address, HEAD + b"\r\n"))
        first = answer_of(kept)
        kept.sendall(HEAD)
        late = everything(kept)
    assert status == 408 and error["code"] == "REQUEST_TIMEOUT"
    assert "took too long" in error["message"]
    assert first.startswith(b"HTTP/1.1 200")
    assert error_of(late)[0] == 408


def test_a_body_slower_than_its_deadline_is_cut_off() -> None:
    app = App()
    head = b"POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n12"
    with serving(app, limits(body=1)) as address, connect(address, head) as slow:
        answer = everything(slow)  # nothing more is sent
    assert answer == b""  # closed: the route was already waiting for the body
    assert app.bodies == ["disconnected"]


def test_past_the_cap_the_longest_waiting_connection_makes_room() -> None:
    app = App()
    with serving(app, limits(cap=8)) as address, contextlib.ExitStack() as opened:
        # Eight connections idle between requests, oldest first: each had one answered, so
        # the server holds all eight, in this order, before the ninth arrives.
        waiting = [opened.enter_context(connect(address, HEAD + b"\r\n")) for _ in range(8)]
        for sock in waiting:
            assert answer_of(sock).startswith(b"HTTP/1.1 200")
            sock.sendall(HEAD)  # the next request's head, never finished
        served = opened.enter_context(connect(address, HEAD + b"\r\n"))
        answer = answer_of(served)
        oldest = everything(waiting[0])  # long before its 300 s deadline
        for sock in waiting[1:]:
            sock.setblocking(False)
        still_open = sum(1 for sock in waiting[1:] if _open(sock))
    assert answer.startswith(b"HTTP/1.1 200")
    assert oldest == b""
    assert still_open == 7


def _open(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) != b""
    except BlockingIOError:
        return True  # nothing to read, not closed
    except ConnectionResetError:
        return False


def test_when_every_connection_has_a_request_in_flight_the_next_is_told_503() -> None:
    app = App()
    hold = b"GET /hold HTTP/1.1\r\nHost: x\r\n\r\n"
    with serving(app, limits(cap=8)) as address, contextlib.ExitStack() as opened:
        held = [opened.enter_context(connect(address, hold)) for _ in range(8)]
        deadline = time.monotonic() + DEADLINE_S
        while app.holding < 8 and time.monotonic() < deadline:
            time.sleep(0.01)
        refused = opened.enter_context(connect(address, HEAD + b"\r\n"))
        status, error = error_of(everything(refused))
        app.release.set()
        answers = [answer_of(sock) for sock in held]
    assert status == 503 and error["code"] == "SERVER_BUSY" and error["retryable"] is True
    assert all(answer.startswith(b"HTTP/1.1 200") for answer in answers)


@pytest.mark.parametrize("token", [False, True])
def test_a_slow_body_on_the_api_is_cut_off_quietly(
    home: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, token: bool
) -> None:
    monkeypatch.setenv("FRUITCTL_HTTP__BODY_TIMEOUT_SECONDS", "1")
    monkeypatch.setenv("FRUITCTL_HTTP__NOTIFICATIONS", "false")
    app = bootstrap.build()
    tokens = TokenStore(secrets_dir(app))
    bearer = f"Authorization: Bearer {tokens.issue('agent', 600, 'a')[0]}\r\n" if token else ""
    try:
        with HttpServer(app, "127.0.0.1", 0, tokens=tokens).running() as url:
            host, port = url.removeprefix("http://").rsplit(":", 1)
            head = f"POST /reminders HTTP/1.1\r\nHost: {host}:{port}\r\n{bearer}"
            head += "Content-Length: 100\r\n\r\n{"
            with connect((host, int(port)), head.encode()) as slow:
                answer = everything(slow)
            served = httpx.get(f"{url}/health", timeout=DEADLINE_S)
    finally:
        app.close()
    assert answer == b""  # closed, no answer: the route never ran on half a body
    assert served.status_code == 200
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
