"""The HTTP session every CalDAV request goes through, with the two bounds the HTTP library does
not give: an overall deadline per request and a cap on the size of an answer.

A socket timeout bounds each read, not a request: a server that sends one byte every two seconds
never trips it, and holds the request (and whatever waits on it) as long as it likes. So each
request is watched: one keeper thread for the whole process shuts down the sockets of a request
whose deadline has passed, and the read blocked on them ends at once, whatever phase it is in
(headers, body, a redirect, a Digest round trip).

Answers are streamed and counted as they arrive (after decompression, which is read a chunk at
a time): past the cap the connection is dropped, never read to its end, so a 400 MB answer
costs at most the cap in memory and the read of one chunk more. A Content-Length above the cap
is refused before anything is read.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import niquests
from niquests.adapters import HTTPAdapter

if TYPE_CHECKING:  # niquests names its urllib3 (urllib3-future) by an alias only it resolves
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
    from urllib3.poolmanager import PoolManager, ProxyManager
else:
    from niquests.packages.urllib3.connection import HTTPConnection, HTTPSConnection
    from niquests.packages.urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
    from niquests.packages.urllib3.poolmanager import PoolManager, ProxyManager

CHUNK = 64 * 1024
"""Bytes (decoded) read at a time: an answer is stopped at most this far past the cap."""


class Overdue(Exception):
    """A request ran past its deadline and was cut off."""


class TooLarge(Exception):
    """An answer was larger than the cap; it was not read to its end."""


@dataclass(frozen=True)
class Bounds:
    deadline_seconds: float
    """How long one request may take, from its start to the last byte of its answer."""
    max_bytes: int
    """The largest answer read (decoded); a larger one fails the request."""


class BoundedSession(niquests.Session):
    """A session whose every request meets its deadline and whose every answer its cap."""

    def __init__(self, bounds: Bounds) -> None:
        # HTTP/3 runs over UDP, where shutting a socket down does not end a read everywhere.
        super().__init__(disable_http3=True)
        self.bounds = bounds
        for prefix in ("http://", "https://"):
            self.mount(prefix, _Adapter(disable_http3=True))
        # Each hop of a redirect is read here too (the library would read its body whole).
        self.hooks["response"].append(self._on_response)

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> niquests.Response:
        kwargs["stream"] = True  # the body is read here, counted
        with _watching(self.bounds.deadline_seconds) as watch:
            try:
                answer = super().request(method, url, *args, **kwargs)
                self._capped(answer)  # a Digest round trip's answer skips the hooks
            except Exception as exc:
                if watch.expired:
                    raise Overdue(self.bounds.deadline_seconds) from exc
                raise
            if watch.expired:  # an answer read until the connection closed may look whole
                raise Overdue(self.bounds.deadline_seconds)
            return answer

    def _on_response(self, answer: niquests.PreparedRequest | niquests.Response) -> None:
        if isinstance(answer, niquests.Response):
            self._capped(answer)

    def _capped(self, answer: niquests.Response) -> None:
        """Read the body of ``answer`` (unless read already), at most ``max_bytes`` of it."""
        if answer._content_consumed or answer.raw is None:
            return
        cap = self.bounds.max_bytes
        declared = str(answer.headers.get("Content-Length") or "")
        if declared.isdigit() and int(declared) > cap:
            answer.close()
            raise TooLarge(cap)
        body = bytearray()
        for chunk in answer.iter_content(CHUNK):
            body += chunk
            if len(body) > cap:
                answer.close()  # drops the connection: the rest is never read
                raise TooLarge(cap)
        answer._content = bytes(body)


# -- deadlines -----------------------------------------------------------------------------------


class _Watch:
    """The connections one request uses, shut down when its deadline passes."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.expired = False
        self._connections: weakref.WeakSet[HTTPConnection] = weakref.WeakSet()
        self._lock = threading.Lock()

    def enlist(self, connection: HTTPConnection) -> None:
        with self._lock:
            self._connections.add(connection)
            if self.expired:  # connected after the deadline: cut it too
                _shut(connection)

    def expire(self) -> None:
        with self._lock:
            self.expired = True
            for connection in list(self._connections):
                _shut(connection)


def _shut(connection: HTTPConnection) -> None:
    """End every read and write on the connection's socket, from any thread (a close would not
    wake a read blocked in another thread; a shutdown does)."""
    sock = getattr(connection, "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            # The plain socket's shutdown, also under TLS: the reader then meets the end of
            # the stream rather than a socket whose TLS state was taken away under it.
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Keeper:
    """One thread for the whole process that cuts off every watched request past its deadline
    (started at the first request, and again in a forked child)."""

    def __init__(self) -> None:
        self._due: set[_Watch] = set()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def watch(self, watch: _Watch) -> None:
        with self._changed:
            self._due.add(watch)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="fruitctl-caldav-deadlines", daemon=True
                )
                self._thread.start()
            self._changed.notify()

    def release(self, watch: _Watch) -> None:
        with self._changed:
            self._due.discard(watch)

    def _run(self) -> None:
        with self._changed:
            while True:
                now = time.monotonic()
                for watch in [w for w in self._due if w.deadline <= now]:
                    self._due.discard(watch)
                    watch.expire()
                following = min((w.deadline for w in self._due), default=None)
                self._changed.wait(None if following is None else following - now)


_KEEPER = _Keeper()
_active = threading.local()
"""The watch of the request this thread is making (connections enlist in it as they are used)."""


@contextlib.contextmanager
def _watching(seconds: float) -> Iterator[_Watch]:
    watch = _Watch(time.monotonic() + seconds)
    outer = getattr(_active, "watch", None)
    _active.watch = watch
    _KEEPER.watch(watch)
    try:
        yield watch
    finally:
        _KEEPER.release(watch)
        _active.watch = outer


def _enlist(connection: HTTPConnection) -> None:
    watch: _Watch | None = getattr(_active, "watch", None)
    if watch is not None:
        watch.enlist(connection)


# -- the connection classes that enlist ----------------------------------------------------------


class _WatchedHTTPConnection(HTTPConnection):
    def connect(self) -> None:
        super().connect()
        _enlist(self)  # again: the socket exists now, and the deadline may have passed

    def request(self, *args: Any, **kwargs: Any) -> Any:
        _enlist(self)  # a kept-alive connection serves this request too
        return super().request(*args, **kwargs)


class _WatchedHTTPSConnection(HTTPSConnection):
    def connect(self) -> None:
        super().connect()
        _enlist(self)

    def request(self, *args: Any, **kwargs: Any) -> Any:
        _enlist(self)
        return super().request(*args, **kwargs)


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


_POOLS: dict[str, type[HTTPConnectionPool]] = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}


class _Adapter(HTTPAdapter):
    """niquests' adapter, its pools (direct, or through an HTTP proxy) made of watched
    connections. A SOCKS proxy keeps its own connections: its requests are capped, and bounded
    per read only."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _POOLS

    def proxy_manager_for(self, proxy: str, **kwargs: Any) -> ProxyManager:
        manager: ProxyManager = super().proxy_manager_for(proxy, **kwargs)
        if type(manager) in (ProxyManager, PoolManager):
            manager.pool_classes_by_scheme = _POOLS
        return manager
