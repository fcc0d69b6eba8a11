"""The asyncio Unix-socket server: framing, limits, peer credentials, timeouts and draining.

One JSON message per line. A connection's requests run concurrently and each answer is written
when it is ready (JSON-RPC matches them by id). A line longer than the limit - or a partial one
that has already outgrown it - is refused with ``invalid_request`` and the connection closed.

A peer with another uid is dropped in ``connection_made``, before asyncio reads a byte from it.
Connections are capped (``ConnectionLimits``): in all, below the process's descriptor limit so
the sockets answer while the HTTP side is flooded, and on the agents' socket per uid, where an
idle connection - no complete request for ``idle_seconds`` - is also closed. Each answer's bytes
stay counted in the dispatcher's budget (``budget``) until the connection has written them out.
Work that touches the gateway runs on a worker thread under the request timeout; past it the caller
gets ``timeout`` while the thread finishes in the background, and the daemon keeps serving.
"""

from __future__ import annotations

import asyncio
import os
import resource
import socket
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import FruitctlError, InvalidRequest, RateLimited, Timeout
from fruitctl.telemetry import EventLog
from fruitctl.transports.rpc.jsonrpc import Dispatcher, Session, encode, error_response
from fruitctl.transports.rpc.peer import Peer, peer_of, process_name

T = TypeVar("T")
MAX_IN_FLIGHT = 64  # per connection: past this, stop reading until answers drain
MAX_CONNECTIONS = 64
"""Per socket. A LaunchAgent starts with 256 descriptors: two sockets' worth stays well under it,
with the HTTP side's own cap, the databases and the logs beside them."""
DESCRIPTOR_SHARE = 4  # and never more than a quarter of the descriptors this process may open
AGENT_CONNECTIONS_PER_UID = 16  # one agent's tools in parallel, and then some
AGENT_IDLE_SECONDS = 300.0  # an agent between two tool calls; a quiet one reconnects


@dataclass(frozen=True)
class ConnectionLimits:
    total: int = MAX_CONNECTIONS
    per_uid: int | None = None
    """The agents' socket: at most this many connections of one uid."""
    idle_seconds: float | None = None
    """The agents' socket: a connection without a complete request this long is closed."""

    def within_descriptors(self) -> ConnectionLimits:
        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY:
            return self
        total = max(1, min(self.total, soft // DESCRIPTOR_SHARE))
        return ConnectionLimits(total, self.per_uid, self.idle_seconds)


AGENT_LIMITS = ConnectionLimits(MAX_CONNECTIONS, AGENT_CONNECTIONS_PER_UID, AGENT_IDLE_SECONDS)


class Workers:
    """The threads blocking calls run on, each under the per-request timeout."""

    def __init__(self, timeout: float, threads: int = 16) -> None:
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="fruitctl-rpc")

    async def run(self, work: Callable[[], T]) -> T:
        # A timer that cancels the wait, rather than asyncio.wait_for: the same outcome for a
        # quarter of wait_for's cost, which shows on sub-millisecond reads.
        loop = asyncio.get_running_loop()
        waiting = loop.run_in_executor(self._pool, work)
        expired: list[bool] = []

        def expire() -> None:
            expired.append(True)
            waiting.cancel()  # a queued call never starts; a running one finishes unheard

        timer = loop.call_later(self.timeout, expire)
        try:
            return await waiting
        except asyncio.CancelledError as exc:
            if expired:
                raise Timeout(f"The request did not finish within {self.timeout:g} s.") from exc
            raise
        finally:
            timer.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class RpcServer:
    def __init__(
        self,
        dispatcher: Dispatcher,
        log: EventLog,
        *,
        max_bytes: int,
        allowed_uid: int | None = None,
        agent_uids: frozenset[int] | None = None,
        limits: ConnectionLimits | None = None,
    ) -> None:
        """The person's socket admits this process's own uid (``allowed_uid``); the agents'
        socket (``agent_uids`` given) admits exactly those uids, each peer always an agent.
        ``limits``: by default ``AGENT_LIMITS`` on the agents' socket, the total alone else."""
        self.dispatcher = dispatcher
        self.log = log
        self.max_bytes = max_bytes
        self.allowed_uid = os.geteuid() if allowed_uid is None else allowed_uid
        self.agent_uids = agent_uids
        default = AGENT_LIMITS if agent_uids is not None else ConnectionLimits()
        self.limits = (limits or default).within_descriptors()
        self.connections: set[Connection] = set()
        self._by_uid: Counter[int | None] = Counter()
        self._server: asyncio.AbstractServer | None = None

    async def start(self, sock: socket.socket) -> None:
        """Serve on an already bound, listening socket (see ``daemon.lifecycle.bind_socket``)."""
        loop = asyncio.get_running_loop()
        self._server = await loop.create_unix_server(lambda: Connection(self), sock=sock)

    def admits(self, peer: Peer) -> bool:
        if peer.uid is None:
            return False
        if self.agent_uids is not None:
            return peer.uid in self.agent_uids
        return peer.uid == self.allowed_uid

    def crowded(self, peer: Peer) -> FruitctlError | None:
        """Why one more connection of ``peer`` is refused (too many open), or None."""
        limits = self.limits
        if len(self.connections) >= limits.total:
            return RateLimited(
                f"This socket has {limits.total} connections open, its limit: retry once one"
                " closes.",
                retryAfterSeconds=1,
            )
        if limits.per_uid is not None and self._by_uid[peer.uid] >= limits.per_uid:
            return RateLimited(
                f"uid {peer.uid} has {limits.per_uid} connections open, the limit for one user:"
                " close one (or reuse it: a connection takes many requests) and retry.",
                retryAfterSeconds=1,
            )
        return None

    def enter(self, conn: Connection, uid: int | None) -> None:
        self.connections.add(conn)
        self._by_uid[uid] += 1

    def leave(self, conn: Connection, uid: int | None) -> None:
        if conn in self.connections:
            self.connections.discard(conn)
            self._by_uid[uid] -= 1
            if self._by_uid[uid] <= 0:
                del self._by_uid[uid]

    def session(self, peer: Peer) -> Session:
        # The kernel's uid is the identity; the program's name (the peer chooses it) only a label.
        if self.agent_uids is not None:
            return Session(lambda: Actor("agent", f"uid:{peer.uid}"), agents_only=True)
        return Session(lambda: Actor("agent", f"uid:{peer.uid}").called(process_name(peer.pid)))

    def in_flight(self) -> set[asyncio.Task[None]]:
        return {task for conn in self.connections for task in conn.tasks}

    async def drain(self, grace: float) -> None:
        """Stop accepting, stop reading, let in-flight requests answer (up to ``grace``), close."""
        if self._server is not None:
            self._server.close()
        for conn in list(self.connections):
            conn.stop_reading()
        pending = self.in_flight()
        if pending:
            await asyncio.wait(pending, timeout=grace)
        for conn in list(self.connections):
            conn.close()


class Connection(asyncio.Protocol):
    def __init__(self, server: RpcServer) -> None:
        self.server = server
        self.tasks: set[asyncio.Task[None]] = set()
        self._buffer = bytearray()
        self._transport: asyncio.Transport | None = None
        self._session: Session | None = None
        self._eof = False
        self._reading = True
        self._paused_by: set[str] = set()
        self._uid: int | None = None
        self._held = 0  # answer bytes written and maybe not yet sent: counted in the budget
        self._idle: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        peer = peer_of(transport.get_extra_info("socket"))
        if not self.server.admits(peer):
            self.server.log.warning("peer_refused", peer_uid=peer.uid, peer_pid=peer.pid)
            transport.abort()  # reading has not started: not a byte of theirs is looked at
            return
        crowded = self.server.crowded(peer)
        if crowded is not None:  # told why, then closed: nothing of theirs is read
            self.server.log.warning("connection_refused", peer_uid=peer.uid, reason="crowded")
            transport.write(encode(error_response(None, crowded)))
            transport.close()
            return
        self._transport = transport
        self._uid = peer.uid
        self._session = self.server.session(peer)
        self.server.enter(self, peer.uid)
        self._not_idle()

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        start = 0
        while (end := buffer.find(b"\n", start)) >= 0:
            line = bytes(buffer[start:end])
            start = end + 1
            if len(line) > self.server.max_bytes:
                self._too_large()
                return
            self._line(line)
        del buffer[:start]
        if len(buffer) > self.server.max_bytes:
            self._too_large()

    def eof_received(self) -> bool:
        # A client may half-close after its last line (``nc -N``): answer it, then close.
        if self._buffer.strip():
            line, self._buffer = bytes(self._buffer), bytearray()
            if len(line) > self.server.max_bytes:
                self._too_large()
                return True
            self._line(line)
        self._eof = True
        self._close_when_idle()
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.leave(self, self._uid)
        if self._idle is not None:
            self._idle.cancel()
        self._release()

    def pause_writing(self) -> None:  # the client is not reading its answers: stop reading too
        self._pause("writing")

    def resume_writing(self) -> None:
        self._release()  # what is left in the buffer is below the low-water mark: a few KB
        self._resume("writing")

    def stop_reading(self) -> None:
        self._pause("draining")

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def _line(self, line: bytes) -> None:
        if not line.strip():
            return
        assert self._session is not None and self._transport is not None
        self._not_idle()
        reply = self.server.dispatcher.handle(line, self._session)
        if reply is None:
            return
        if isinstance(reply, bytes):
            self._write(reply)
            return
        task = asyncio.get_running_loop().create_task(self._answer(reply))
        self.tasks.add(task)
        task.add_done_callback(self._done)
        if len(self.tasks) >= MAX_IN_FLIGHT:
            self._pause("busy")

    async def _answer(self, pending: Any) -> None:
        reply = await pending
        if reply is not None:
            self._write(reply)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        if len(self.tasks) < MAX_IN_FLIGHT // 2:
            self._resume("busy")
        self._not_idle()
        self._close_when_idle()

    def _write(self, data: bytes) -> None:
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        transport.write(data)
        self._held += len(data)
        self.server.dispatcher.budget.force(len(data))
        if not transport.get_write_buffer_size():  # all of it went out at once
            self._release()

    def _release(self) -> None:
        self.server.dispatcher.budget.give(self._held)
        self._held = 0

    def _not_idle(self) -> None:
        """Start (again) the wait after which a connection with nothing to do is closed."""
        idle = self.server.limits.idle_seconds
        if idle is None:
            return
        if self._idle is not None:
            self._idle.cancel()
        self._idle = asyncio.get_running_loop().call_later(idle, self._idle_out)

    def _idle_out(self) -> None:
        if self.tasks:  # still answering: not idle
            self._not_idle()
            return
        idle = self.server.limits.idle_seconds
        self.server.log.info("connection_idle", peer_uid=self._uid, seconds=idle)
        quiet = Timeout(f"No request for {idle:g} s; closing. Connect again to go on.")
        self._write(encode(error_response(None, quiet)))
        self.close()

    def _too_large(self) -> None:
        limit = self.server.max_bytes
        refused = InvalidRequest(f"Message over {limit} bytes; closing the connection.")
        self._write(encode(error_response(None, refused)))
        self._buffer = bytearray()
        self.close()  # what was written still goes out first

    def _close_when_idle(self) -> None:
        if self._eof and not self.tasks:
            self.close()

    def _pause(self, reason: str) -> None:
        self._paused_by.add(reason)
        if self._transport is not None and self._reading and not self._transport.is_closing():
            self._transport.pause_reading()
            self._reading = False

    def _resume(self, reason: str) -> None:
        self._paused_by.discard(reason)
        transport = self._transport
        if transport is None or self._paused_by or self._reading or transport.is_closing():
            return
        transport.resume_reading()
        self._reading = True
