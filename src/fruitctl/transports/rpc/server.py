"""The asyncio Unix-socket server: framing, limits, peer credentials, timeouts and draining.

One JSON message per line. A connection's requests run concurrently and each answer is written
when it is ready (JSON-RPC matches them by id). A line longer than the limit - or a partial one
that has already outgrown it - is refused with ``invalid_request`` and the connection closed.

A peer with another uid is dropped in ``connection_made``, before asyncio reads a byte from it.
Work that touches the gateway runs on a worker thread under the request timeout; past it the caller
gets ``timeout`` while the thread finishes in the background, and the daemon keeps serving.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from fruitctl.domain.errors import InvalidRequest, Timeout
from fruitctl.policy.decision import Actor
from fruitctl.telemetry import EventLog
from fruitctl.transports.rpc.jsonrpc import Dispatcher, Session, encode, error_response
from fruitctl.transports.rpc.peer import Peer, peer_of, process_name

T = TypeVar("T")
MAX_IN_FLIGHT = 64  # per connection: past this, stop reading until answers drain


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
    ) -> None:
        """The person's socket admits this process's own uid (``allowed_uid``); the agents'
        socket (``agent_uids`` given) admits exactly those uids, each peer always an agent."""
        self.dispatcher = dispatcher
        self.log = log
        self.max_bytes = max_bytes
        self.allowed_uid = os.geteuid() if allowed_uid is None else allowed_uid
        self.agent_uids = agent_uids
        self.connections: set[Connection] = set()
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

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        peer = peer_of(transport.get_extra_info("socket"))
        if not self.server.admits(peer):
            self.server.log.warning("peer_refused", peer_uid=peer.uid, peer_pid=peer.pid)
            transport.abort()  # reading has not started: not a byte of theirs is looked at
            return
        self._transport = transport
        self._session = self.server.session(peer)
        self.server.connections.add(self)

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
        self.server.connections.discard(self)

    def pause_writing(self) -> None:  # the client is not reading its answers: stop reading too
        self._pause("writing")

    def resume_writing(self) -> None:
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
        self._close_when_idle()

    def _write(self, data: bytes) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(data)

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
