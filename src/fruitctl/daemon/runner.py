"""``fruitctl serve``: lock, bind, serve until SIGTERM/SIGINT, drain, clean up, exit 0.

On a stop signal the listening socket closes and its path is removed at once (a new client gets
"no daemon" rather than a hang), reading stops, in-flight requests get up to the request timeout
to answer, then the connections close, the token and lock go, and ``serve`` returns.

From its first step to its last, ``serve`` owns the stop signals: one that arrives while it is
still starting (the socket bound, the event loop not yet listening) or already cleaning up is
noted, never the default death that would leave the socket behind; a noted stop is acted on as
soon as serving begins, with the same drain.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

from fruitctl.daemon.lifecycle import (
    InstanceLock,
    RuntimeFiles,
    agents_dir,
    bind_socket,
    private_dir,
    remove_if_ours,
)
from fruitctl.gateway import Gateway
from fruitctl.policy.health import watch
from fruitctl.private import write_private
from fruitctl.transports.aai import AaiDoor
from fruitctl.transports.rpc.jsonrpc import Dispatcher
from fruitctl.transports.rpc.methods import build_methods
from fruitctl.transports.rpc.server import AGENT_LIMITS, ConnectionLimits, RpcServer, Workers
from fruitctl.transports.service_info import service_info


class WebServer(Protocol):
    """The HTTP API served beside the socket (``transports.http.server.HttpServer``)."""

    def bind(self) -> str: ...

    async def serve(self) -> None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopSignals:
    """Stop signals outside the event loop's watch: noted in ``requested``, nothing else. Python
    runs the handler between bytecodes, so anything ``serve`` is doing finishes first."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: dict[int, Any] = {}

    def hold(self) -> None:
        """Note stop signals from now on (again after the event loop let go of them)."""
        for signum in STOP_SIGNALS:
            previous = signal.signal(signum, self._note)
            self._previous.setdefault(signum, previous)

    def release(self) -> None:
        """The handlers there were before ``hold``."""
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()

    def _note(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True


@dataclass(frozen=True)
class ServeOptions:
    files: RuntimeFiles
    request_timeout: float
    max_bytes: int
    http_url: str | None = None
    agent_socket: Path | None = None
    """The agents' socket, served when ``agent_uids`` names anyone."""
    agent_uids: frozenset[int] = frozenset()
    agent_limits: ConnectionLimits = AGENT_LIMITS
    """How many connections one agent uid may hold, and how long one may stay idle."""


def agent_limits(per_uid: int, idle_seconds: float) -> ConnectionLimits:
    """The agents' socket's limits as configured (``[server] agent_*``)."""
    return replace(AGENT_LIMITS, per_uid=per_uid, idle_seconds=idle_seconds)


@dataclass(frozen=True)
class Listening:
    """A bound socket, how to take its name off the filesystem, and who it admits (the
    person's uid, or - the agents' socket - exactly ``agent_uids``, always as agents)."""

    sock: Any
    forget: Callable[[], None]
    agent_uids: frozenset[int] | None = None


def serve(
    gateway: Gateway,
    status: Callable[[], dict[str, Any]],
    options: ServeOptions,
    announce: Callable[[str, str | None], None],
    web: WebServer | None = None,
    write_test: Callable[[], dict[str, Any]] | None = None,
    drift: Callable[[], dict[str, Any]] = dict,
) -> int:
    """Serve until told to stop. ``status`` gives system.info's mode, backends, permissions;
    ``drift`` whether the files still say what runs (governance, configuration).
    ``web``, when given, is bound once this instance holds the lock (so a second instance says
    "already running", not "port in use") and served on the same event loop."""
    files = options.files
    signals = StopSignals()
    signals.hold()
    private_dir(files.socket.parent)
    with ExitStack() as cleanup:
        cleanup.callback(signals.release)  # the last thing undone
        lock = InstanceLock(files.lock)
        lock.acquire(files.socket)  # AlreadyRunning: nothing else touched
        cleanup.callback(lock.release)
        sock, inode = bind_socket(files.socket)
        cleanup.callback(remove_if_ours, files.socket, inode)
        token = secrets.token_hex(32)
        write_private(files.token, token + "\n")
        cleanup.callback(files.token.unlink, missing_ok=True)
        if web is not None:
            options = replace(options, http_url=web.bind())
            cleanup.callback(web.close)
        listening = [Listening(sock, lambda: remove_if_ours(files.socket, inode))]
        if options.agent_socket is not None and options.agent_uids:
            listening.append(_agents_socket(options.agent_socket, options.agent_uids, cleanup))
        try:
            doors = Doors(listening, web, write_test, drift)
            asyncio.run(_serve(gateway, status, options, doors, token, announce, signals))
        finally:
            signals.hold()  # the closed loop reset them to the defaults; the cleanup finishes
    return 0


def _agents_socket(path: Path, uids: frozenset[int], cleanup: ExitStack) -> Listening:
    """The agents' socket: 0666 in a 0711 folder of ours, so the uids it admits can connect
    (say, through a bind mount into their container); the peer check admits only them."""
    agents_dir(path.parent)
    sock, inode = bind_socket(path, 0o666)
    cleanup.callback(remove_if_ours, path, inode)
    return Listening(sock, lambda: remove_if_ours(path, inode), uids)


@dataclass(frozen=True)
class Doors:
    """What one daemon serves: its sockets, its web server, and the person's write test."""

    listening: list[Listening]
    web: WebServer | None
    write_test: Callable[[], dict[str, Any]] | None
    drift: Callable[[], dict[str, Any]] = dict


async def _serve(
    gateway: Gateway,
    status: Callable[[], dict[str, Any]],
    options: ServeOptions,
    doors: Doors,
    token: str,
    announce: Callable[[str, str | None], None],
    signals: StopSignals,
) -> None:
    listening, web = doors.listening, doors.web
    log = gateway.events
    started = time.monotonic()

    def info() -> dict[str, Any]:
        uptime = int((time.monotonic() - started) * 1000)
        return service_info(
            status(), options.files.socket, options.http_url, uptime_ms=uptime, daemon=True
        )

    workers = Workers(options.request_timeout)
    limit = options.request_timeout
    dispatcher = Dispatcher(
        build_methods(gateway, info, token, limit, doors.write_test, doors.drift),
        workers.run,
        log,
        AaiDoor(gateway, limit),
    )
    servers = [
        RpcServer(
            dispatcher,
            log,
            max_bytes=options.max_bytes,
            agent_uids=door.agent_uids,
            limits=None if door.agent_uids is None else options.agent_limits,
        )
        for door in listening
    ]
    for server, door in zip(servers, listening, strict=True):
        await server.start(door.sock)
    web_task = asyncio.create_task(web.serve()) if web is not None else None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, stop.set)
    if signals.requested:  # asked to stop while starting: serve nothing, drain, clean up
        stop.set()
    agents = str(options.agent_socket) if len(listening) > 1 else None
    log.info("server_started", socket=str(options.files.socket), agents=agents, pid=os.getpid())
    log.flush()
    announce(str(options.files.socket), options.http_url)
    watching = threading.Event()
    if gateway.health is not None:  # low disk or memory degrades the mode by itself
        watch(gateway.health, gateway.health.every, watching)
    await stop.wait()
    watching.set()
    in_flight = sum(len(server.in_flight()) for server in servers)
    log.info("server_stopping", in_flight=in_flight)
    for door in listening:
        door.forget()  # new clients learn "no daemon" at once instead of waiting
    if web is not None and web_task is not None:
        web.stop()  # finishes its in-flight requests, alongside the sockets' drain
    await asyncio.gather(*(server.drain(grace=options.request_timeout) for server in servers))
    if web_task is not None:
        await web_task
    workers.close()
    log.info("server_stopped", uptime_ms=int((time.monotonic() - started) * 1000))
    log.flush()
