"""Serving the HTTP app: bind first, then uvicorn on that socket, inside someone else's process.

``HttpServer(app, host, port)``:

- ``bind()`` (sync) opens the listening socket - so ``port=0`` gets a real port and a busy port
  fails before anything starts - builds the app, and returns the URL. Loopback by default; any
  other address is refused until a token has been issued, and accepted with a warning after.
- ``await serve()`` runs uvicorn on that socket in the *current* event loop (plus the proposal
  watcher that sends desktop notifications) until ``stop()``. It installs no signal handlers:
  the host process (``fruitctl serve``) owns SIGTERM/SIGINT and calls ``stop()``.
- ``running()`` does the same on a thread of its own, for tests, benchmarks and simple hosts.

Routes run the blocking gateway on worker threads, so the loop serving HTTP stays free.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from fruitctl.startup import StartupError
from fruitctl.transports import mcp_access, net
from fruitctl.transports.http import connections, edge
from fruitctl.transports.http.announce import ProposalWatcher
from fruitctl.transports.http.errors import error_response
from fruitctl.transports.http.notify import Notifier
from fruitctl.transports.http.tokens import TokenStore, serving_store

if TYPE_CHECKING:
    from fruitctl.bootstrap import App
    from fruitctl.transports.mcp_http import GuardedMcpApp

WATCH_SECONDS = 2.0
START_TIMEOUT_SECONDS = 10.0


class _Uvicorn(connections.ListeningServer):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # Signals belong to the process hosting this server, which calls stop().
        yield


class HttpServer:
    def __init__(
        self,
        app: App,
        host: str | None = None,
        port: int | None = None,
        *,
        tokens: TokenStore | None = None,
        notifier: Notifier | None = None,
    ) -> None:
        settings = app.config.settings.http
        self.app = app
        self.host = host or settings.host
        self.port = settings.port if port is None else port
        self.tokens = tokens or serving_store(app)  # one store: both doors count in it
        self.notifier = notifier if notifier is not None else Notifier()
        self.url: str | None = None
        self.warnings: list[str] = []
        self._socket: socket.socket | None = None
        self._server: _Uvicorn | None = None
        self._api: OnFirstUse | None = None
        self._mcp: OnFirstUse | None = None

    def bind(self) -> str:
        """Listen (nothing is served until ``serve``) and return the base URL."""
        self._check_address()
        self._socket = listen(self.host, self.port)
        port = int(self._socket.getsockname()[1])
        self.url = f"http://{net.uri_host(self.host)}:{port}"
        public = self.app.config.settings.http.public_url
        self.app.approvals.page_base = public or self.url
        hosts = mcp_access.allowed_hosts(self.host, port, public)  # one rule for both doors
        token = mcp_access.ensure_token(self.app)  # there for a client before MCP is loaded
        gateway, host = self.app.gateway, self.host

        def api_app() -> Any:
            from fruitctl.transports.http.app import create_app

            return create_app(self.app, tokens=self.tokens, allowed_hosts=hosts)

        def mcp_app() -> GuardedMcpApp:
            from fruitctl.transports import mcp_http

            return mcp_http.http_app(
                gateway,
                token=token,
                host=host,
                port=port,
                elicit=self.app.config.settings.approvals.mcp_elicitation,
                tokens=self.tokens,
                public_url=public,
                offered=self.app.mcp_tools,
            )

        self._api = OnFirstUse("The HTTP API", "fruitctl.transports.http.app", api_app)
        self._mcp = OnFirstUse(
            "MCP over HTTP", "fruitctl.transports.mcp_http", mcp_app, lambda app: app.running()
        )
        asgi = _beside_mcp(self._api, self._mcp)
        config = uvicorn.Config(
            asgi,
            log_config=None,  # leave the host process's logging alone
            log_level="warning",
            access_log=False,  # URLs stay out of logs
            lifespan="off",
            proxy_headers=False,  # nothing stands in front of this server
            server_header=False,
            ws="none",
            **connections.bounds(self.app.config.settings.http),  # deadlines and a cap
            timeout_graceful_shutdown=3,
        )
        self._server = _Uvicorn(config)
        return self.url

    async def serve(self) -> None:
        """Serve until ``stop()``; call ``bind()`` first."""
        if self._server is None or self._socket is None or None in (self._mcp, self._api):
            raise RuntimeError("bind() first")
        watcher = asyncio.create_task(self._watch())
        doors = [(door, asyncio.create_task(door.run())) for door in (self._api, self._mcp) if door]
        try:
            await self._server.serve(sockets=[self._socket])
        finally:
            for door, task in doors:
                await door.stop(task)
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            self._socket.close()

    def stop(self) -> None:
        """Ask the server to finish its requests and return from ``serve`` (any thread)."""
        if self._server is not None:
            self._server.should_exit = True

    def close(self) -> None:
        """Release the socket of a server bound but never served (``serve`` closes its own)."""
        if self._socket is not None:
            self._socket.close()

    @property
    def started(self) -> bool:
        return self._server is not None and self._server.started

    @contextlib.contextmanager
    def running(self) -> Iterator[str]:
        """Bind and serve on a thread of its own; the base URL while it runs."""
        url = self.bind()
        thread = threading.Thread(target=asyncio.run, args=(self.serve(),), daemon=True)
        thread.start()
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not self.started:
            self.stop()
            raise StartupError("the HTTP server did not start")
        try:
            yield url
        finally:
            self.stop()
            thread.join(START_TIMEOUT_SECONDS)

    def _check_address(self) -> None:
        # Choosing a network address in the configuration is the person's consent.
        warning = edge.exposure(self.host, tokens_issued=self.tokens.has_tokens(), consented=True)
        if warning is not None:
            self.warnings.append(warning)

    async def _watch(self) -> None:
        settings = self.app.config.settings.http
        if not settings.notifications:
            return
        watcher = ProposalWatcher(self.app.approvals.arrivals, self.notifier, self._page)
        try:
            await asyncio.to_thread(watcher.prime)
            while True:
                await asyncio.sleep(WATCH_SECONDS)
                await asyncio.to_thread(watcher.poll)
        finally:
            self.notifier.close()  # a notification still listening for its button

    def _page(self, proposal_id: str | None) -> str | None:
        """A proposal's page, or the pending list's (None)."""
        approvals = self.app.approvals
        if proposal_id is not None:
            return approvals.page_url(proposal_id)
        return f"{approvals.page_base.rstrip('/')}/ui/proposals" if approvals.page_base else None


class OnFirstUse:
    """A door on the HTTP port (MCP at ``/mcp``, the API and its page), loaded when the first
    request for it arrives: the MCP SDK and its models are about a third of a daemon's start,
    FastAPI and the API's routes a fifth, and many daemons serve only their socket.

    What it serves runs for the server's life in a task of its own (``run``, started by
    ``serve``), with its ``lifetime`` around it (MCP's session manager): that task group must
    be left by the task that entered it, never by the request that happened to come first. That
    request waits for it; the module is imported on a worker thread meanwhile, so the event loop
    keeps answering everything else."""

    def __init__(
        self,
        what: str,
        module: str,
        build: Callable[[], Any],
        lifetime: Callable[[Any], AbstractAsyncContextManager[Any]] | None = None,
    ) -> None:
        self._what = what
        self._module = module
        self._build = build
        self._lifetime = lifetime
        self._app: ASGIApp | None = None
        self._wanted = asyncio.Event()
        self._ready = asyncio.Event()
        self._done = asyncio.Event()
        self._failure = ""

    async def run(self) -> None:
        await self._wanted.wait()
        try:
            await asyncio.to_thread(importlib.import_module, self._module)
            app = self._build()
            lifetime = self._lifetime(app) if self._lifetime else contextlib.nullcontext()
            async with lifetime:
                self._app = app
                self._ready.set()
                await self._done.wait()
        except Exception as exc:  # told to every request for it (and to the log), not raised
            self._failure = f"{type(exc).__name__}: {exc}"
            print(f"fruitctl: {self._what} could not start: {self._failure}", file=sys.stderr)
        finally:
            self._ready.set()  # a request waiting on a failed start is answered, not held

    async def stop(self, task: asyncio.Task[None]) -> None:
        """End ``run``: what it started closed, its wait cut short when it started nothing."""
        if self._wanted.is_set():
            self._done.set()
        else:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._app is None:
            self._wanted.set()
            await self._ready.wait()
        if self._app is None:
            message = f"{self._what} could not start in this daemon ({self._failure})."
            await error_response("internal_error", message)(scope, receive, send)
            return
        await self._app(scope, receive, send)


def _beside_mcp(api: ASGIApp, mcp: ASGIApp) -> ASGIApp:
    """One ASGI app: MCP over streamable HTTP at ``/mcp`` (its own guard and bearer token, as with
    ``fruitctl mcp --http``), everything else the API and the approval page. Both admit API
    tokens through the server's one store, so a token spends one rate budget on the two."""

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if path == mcp_access.MCP_PATH or path.startswith(mcp_access.MCP_PATH + "/"):
            await mcp(scope, receive, send)
        else:
            await api(scope, receive, send)

    return route


def listen(host: str, port: int) -> socket.socket:
    return net.listen(host, port)
