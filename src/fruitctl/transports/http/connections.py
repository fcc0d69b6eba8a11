"""How many HTTP connections the server holds, and how long a client may take to send a request.

uvicorn's h11 protocol never times out a connection that has not finished sending its request (a
byte every few seconds holds a descriptor for good: slowloris), and never refuses a connection:
its ``limit_concurrency`` answers 503 once a request is in, after the descriptor is taken. Under
a LaunchAgent's 256 descriptors, 300 such connections from anyone who can reach the port - no
token needed - took every descriptor, and the Unix sockets stopped answering with the API.
``protocol(limits)`` is uvicorn's h11 protocol with what it lacks, per connection:

- a deadline for a request's head (from the connection's start, or the end of the answer before)
  and one for its body (from the end of its head); a request not in by then is cut off - a head
  with ``408``, a body (the route already waits for it) by closing;
- a cap on open connections (``connection_cap``, below the process's descriptor limit): past it, a
  new connection takes the place of the one that has been sending its request the longest, so
  half-open connections make room for a client that sends at once; when every connection has a
  request in flight, the new one is answered ``503`` and closed.

How many connections are accepted in one go (``ACCEPT_BATCH``) bounds how far past the cap the
server can be before it has closed the surplus.
"""

from __future__ import annotations

import asyncio
import resource
import socket
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, ClassVar, Protocol

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from fruitctl.transports.http.errors import error_response

RESERVED_DESCRIPTORS = 64
"""Never HTTP's, whatever the limit: the stores (a database, its -wal and -shm, for each of a
few connections), the log, the lock, the listening sockets, the event loop, a notifier's pipe,
CalDAV's connections - about 25 at rest - and what accepting a batch takes before it is judged."""
HTTP_SHARE = 0.5
"""Of the descriptors left after the reserve: the other half is the Unix sockets' connections'
and the tools' own (files read, sandboxed processes)."""
MIN_CONNECTIONS = 8
ACCEPT_BATCH = 16
"""The listening queue, and how many connections one wake-up accepts (asyncio takes this many at
most): at most about three batches are open past the cap before their turn to be judged."""


def connection_cap(configured: int, descriptors: int | None = None) -> int:
    """The most HTTP connections to hold: ``configured``, lowered to HTTP's share of this
    process's descriptor limit (``RLIMIT_NOFILE``, or ``descriptors``) - 96 under 256."""
    if descriptors is None:
        descriptors = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if descriptors == resource.RLIM_INFINITY:
        return configured
    share = int((descriptors - RESERVED_DESCRIPTORS) * HTTP_SHARE)
    return min(configured, max(MIN_CONNECTIONS, share))


@dataclass(frozen=True)
class Limits:
    max_connections: int
    head_seconds: float
    body_seconds: float


class HttpSettings(Protocol):
    """What the ``[http]`` settings say of connections."""

    @property
    def max_connections(self) -> int: ...
    @property
    def header_timeout_seconds(self) -> float: ...
    @property
    def body_timeout_seconds(self) -> float: ...


def bounds(settings: HttpSettings) -> dict[str, Any]:
    """The ``uvicorn.Config`` arguments that bound every HTTP door's connections by
    ``settings``; serve with ``ListeningServer`` so the kernel holds what waits."""
    limits = Limits(
        max_connections=connection_cap(settings.max_connections),
        head_seconds=settings.header_timeout_seconds,
        body_seconds=settings.body_timeout_seconds,
    )
    return {"http": protocol(limits), "backlog": ACCEPT_BATCH}


class ListeningServer(uvicorn.Server):
    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        # asyncio listens with its accept batch as the queue (``backlog``): a burst past it
        # would wait for SYN retries. Connections wait in the kernel's queue instead, taking
        # none of this process's descriptors until a batch is accepted.
        for listener in sockets or []:
            listener.listen(socket.SOMAXCONN)


def protocol(limits: Limits) -> type[H11Protocol]:
    """uvicorn's h11 protocol bounded by ``limits`` (``uvicorn.Config(http=...)``)."""
    return type("BoundedH11", (BoundedH11,), {"limits": limits})


class BoundedH11(H11Protocol):
    """One connection: its request's deadlines, and its place among the connections held."""

    limits: ClassVar[Limits]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reading_since: float | None = None
        """When it began sending the request it is still sending; None when it is not."""
        self._reading: str | None = None  # "head", "body" or None
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self._held() > self.limits.max_connections and not self._make_room():
            busy = "Every connection the server may hold has a request in flight; retry shortly."
            self._answer("server_busy", busy)
            return
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_clock()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def cut_off(self) -> None:
        """Close it now, and stop counting it as held."""
        self._stop_clock()
        self.reading_since = None
        self.transport.close()

    def _follow(self) -> None:
        """Start the deadline of what the client is sending now (its head or its body)."""
        state = self.conn.their_state
        reading = "head" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        if self.transport.is_closing():
            reading = None
        if reading == self._reading:
            return
        self._stop_clock()
        self._reading = reading
        if reading is None:
            self.reading_since = None
            return
        if self.reading_since is None:
            self.reading_since = self.loop.time()
        seconds = self.limits.head_seconds if reading == "head" else self.limits.body_seconds
        self._deadline = self.loop.call_later(seconds, self._too_slow)

    def _too_slow(self) -> None:
        self._deadline = None
        if self._reading == "head" and self.conn.our_state is h11.IDLE:
            seconds = self.limits.head_seconds
            late = f"The request took too long to arrive (over {seconds:g} s); send it again."
            self._answer("request_timeout", late)
        else:
            self.cut_off()

    def _stop_clock(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._reading = None

    def _held(self) -> int:
        return sum(1 for held in self.connections if not held.transport.is_closing())

    def _make_room(self) -> bool:
        """Close the connection that has been sending its request the longest, if any is."""
        waiting = [
            held
            for held in self.connections
            if isinstance(held, BoundedH11)
            and held is not self
            and held.reading_since is not None
            and not held.transport.is_closing()
        ]
        if not waiting:
            return False
        min(waiting, key=lambda held: held.reading_since or 0.0).cut_off()
        return True

    def _answer(self, code: str, message: str) -> None:
        """Answer with the API's error object and close (no request of its own to answer)."""
        self.transport.write(raw_error(code, message))
        self.cut_off()


def raw_error(code: str, message: str) -> bytes:
    """An HTTP/1.1 error response, whole, for a connection no request cycle owns."""
    response = error_response(code, message)
    head = [f"HTTP/1.1 {response.status_code} {HTTPStatus(response.status_code).phrase}"]
    head += [f"{name.decode()}: {value.decode()}" for name, value in response.raw_headers]
    head.append("connection: close")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + response.body
