"""A hostile CalDAV server for tests: faults for ``caldav_server.FaultProxy`` (a real HTTP server
on 127.0.0.1 in a thread, Radicale behind it) that answer the way an attacker's server would.

- ``trickle``: an answer of one byte every ``interval`` seconds (its headers too, if asked),
  which no per-read socket timeout ever trips;
- ``huge_answer``: hundreds of megabytes, made lazily a block at a time and counted as sent;
- ``never_answer``: the request is read, and nothing ever comes back.

Each fault reports what it did in a ``Gauge``: when it started, how many bytes it sent, and
whether the client hung up before the answer was over. Every fault ends when the test's proxy
closes (``FaultProxy.released``), so none outlives its test.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from caldav_server import Fault, ProxyHandler

BLOCK = 64 * 1024
MULTISTATUS = (
    b'<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:" '
    b'xmlns:C="urn:ietf:params:xml:ns:caldav">'
)
FILLER = b"<D:response><D:href>/x.ics</D:href></D:response>"


@dataclass
class Gauge:
    """What one hostile answer did."""

    started: threading.Event = field(default_factory=threading.Event)
    """Set when the request arrived (the client is now waiting on us)."""
    finished: threading.Event = field(default_factory=threading.Event)
    """Set when the fault stopped sending, for whatever reason."""
    sent: int = 0
    """Bytes written to the client (headers and body)."""
    cut_off: bool = False
    """The client closed the connection before the answer was over."""
    requests: list[str] = field(default_factory=list)
    """The method and path of the request that met the fault."""


def _sending(gauge: Gauge, send: Callable[[ProxyHandler], None]) -> Fault:
    """A fault that runs ``send``; a client hanging up (a broken or reset pipe) ends it."""

    def fault(handler: ProxyHandler) -> bool:
        gauge.requests.append(f"{handler.command} {handler.path}")
        gauge.started.set()
        handler.close_connection = True
        try:
            send(handler)
        except OSError:  # BrokenPipeError, ConnectionResetError: the client is gone
            gauge.cut_off = True
        finally:
            gauge.finished.set()
        return True

    return fault


def _write(handler: ProxyHandler, gauge: Gauge, data: bytes) -> None:
    handler.wfile.write(data)
    handler.wfile.flush()
    gauge.sent += len(data)


def _pause(handler: ProxyHandler, seconds: float, stop: threading.Event | None) -> bool:
    """Wait ``seconds``; True (at once) if the proxy closes or ``stop`` is set meanwhile."""
    until = time.monotonic() + seconds
    events = [handler.server.released, *([stop] if stop else [])]
    while not any(e.is_set() for e in events):
        left = until - time.monotonic()
        if left <= 0:
            return False
        events[-1].wait(min(left, 0.05))
    return True


def trickle(
    gauge: Gauge,
    interval: float = 2.0,
    *,
    headers_too: bool = False,
    body: int = 100_000,
    stop: threading.Event | None = None,
) -> Fault:
    """A 207 whose ``body`` bytes come one every ``interval`` seconds (and its status line and
    headers too, with ``headers_too``): hours of answer, each byte well within any per-read
    timeout. Stops when the client hangs up, the proxy closes or ``stop`` is set (then the
    connection closes with the answer unfinished)."""
    head = (
        "HTTP/1.1 207 Multi-Status\r\nContent-Type: application/xml; charset=utf-8\r\n"
        f"Content-Length: {body}\r\n\r\n"
    ).encode()

    def send(handler: ProxyHandler) -> None:
        if not headers_too:
            _write(handler, gauge, head)
        data = (head if headers_too else b"") + (MULTISTATUS + b" " * body)[:body]
        for i in range(len(data)):
            if _pause(handler, interval, stop):
                return
            _write(handler, gauge, data[i : i + 1])

    return _sending(gauge, send)


def huge_answer(gauge: Gauge, size: int = 400 * 1_048_576, *, declared: bool = False) -> Fault:
    """A 207 of ``size`` bytes, made a block at a time as the client reads (never held whole),
    chunked - or with its Content-Length given, with ``declared``."""

    def send(handler: ProxyHandler) -> None:
        handler.send_response(207)
        handler.send_header("Content-Type", "application/xml; charset=utf-8")
        if declared:
            handler.send_header("Content-Length", str(size))
        else:
            handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        block = (MULTISTATUS + FILLER * (BLOCK // len(FILLER)))[:BLOCK]
        left = size
        while left > 0 and not handler.server.released.is_set():
            piece = block[: min(BLOCK, left)]
            left -= len(piece)
            framed = piece if declared else b"%x\r\n%s\r\n" % (len(piece), piece)
            _write(handler, gauge, framed)
        if not declared:
            _write(handler, gauge, b"0\r\n\r\n")

    return _sending(gauge, send)


def never_answer(gauge: Gauge) -> Fault:
    """The request is read, and nothing is ever sent back (until the proxy closes)."""

    def send(handler: ProxyHandler) -> None:
        handler.server.released.wait()

    return _sending(gauge, send)
