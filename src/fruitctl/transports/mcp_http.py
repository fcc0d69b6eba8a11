"""The MCP front door over streamable HTTP, guarded against the known attacks on local MCP servers.

Every request meets ``GuardedMcpApp`` before the SDK sees a byte of it, and is refused when:

1. its ``Host`` does not name this server (127.0.0.1, localhost, [::1] or the bound address, with
   the port): 421, the DNS-rebinding defence;
2. it carries an ``Origin`` other than this server's own (a web page elsewhere): 403;
3. it lacks ``Authorization: Bearer <token>``: 401. The token is the server's own (compared in
   constant time; the caller is then the agent ``mcp:http``) or an HTTP API token
   of scope ``agent`` from ``fruitctl auth token`` (verified, unexpired, unrevoked; the caller is
   the agent it names, with its own rate limits and proposals). An admin token speaks for a
   person, and MCP is for agents: 403. An agent token is counted against ``[http]
   requests_per_minute`` in the token store, the same budget the HTTP API spends when they share
   one (``fruitctl serve``): over it, 429 with ``Retry-After``. The server's own token is not
   counted;
4. its body is over the limit, declared (``Content-Length``) or counted as it arrives: 413;
5. it would open a session and its token already holds its share (``mcp_sessions``): 429.

The SDK's own transport security is configured with the same hosts and origins as a second line.
``serve_http`` listens on loopback unless ``FRUITCTL_MCP_ALLOW_REMOTE=1``. Binding a wildcard
address (0.0.0.0) accepts only requests that name a loopback host or that address itself: bind
the interface's own address to be reachable through it.

Lifespan: the SDK's Starlette app starts its ``StreamableHTTPSessionManager`` in its lifespan
(``session_manager.run()``, once per app); the guard passes lifespan events through, so uvicorn
starts it. An ASGI client that sends no lifespan (``httpx.ASGITransport``) runs the app inside
``async with app.running():`` instead.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import uvicorn
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from fruitctl.capabilities.toolsets import ToolSet
from fruitctl.domain.actors import Actor
from fruitctl.startup import StartupError
from fruitctl.transports import asgi, net
from fruitctl.transports.http import connections, edge
from fruitctl.transports.http.errors import HttpProblem
from fruitctl.transports.http.tokens import (
    Claims,
    SecretError,
    TokenStore,
    serving_store,
)
from fruitctl.transports.mcp import ACTOR_KEY, TOOLS_KEY, McpTools, build_server
from fruitctl.transports.mcp_access import (
    MCP_PATH,
    allowed_hosts,
    allowed_origins,
    read_or_create_token,
    token_path,
)
from fruitctl.transports.mcp_sessions import (
    MAX_SESSIONS,
    MAX_SESSIONS_PER_TOKEN,
    SESSION_IDLE_SECONDS,
    SessionQuota,
)

if TYPE_CHECKING:
    from fruitctl.bootstrap import App

DEFAULT_MAX_BODY_BYTES = 1_048_576
ALLOW_REMOTE_ENV = "FRUITCTL_MCP_ALLOW_REMOTE"
SHUTDOWN_GRACE_SECONDS = 3  # an open SSE stream must not hold Ctrl-C up forever
SERVER_TOKEN_ACTOR = Actor("agent", "mcp:http")
"""Who calls with this server's own token (an API token names its own agent)."""


# --- the guard ----------------------------------------------------------------------------------


class GuardedMcpApp:
    """The SDK's streamable HTTP app behind fruitctl's own checks (a pure ASGI app)."""

    def __init__(
        self,
        inner: ASGIApp,
        session_manager: StreamableHTTPSessionManager,
        *,
        token: str,
        hosts: list[str],
        origins: list[str],
        max_body_bytes: int,
        tokens: TokenStore | None = None,
        sessions_per_token: int = MAX_SESSIONS_PER_TOKEN,
    ) -> None:
        self._inner = inner
        self._tokens = tokens
        self._session_manager = session_manager
        self._quota = SessionQuota(session_manager, sessions_per_token)
        self._token = token.encode()
        self._hosts = frozenset(hosts)
        self._origins = frozenset(origins)
        self._max_body_bytes = max_body_bytes

    def running(self) -> AbstractAsyncContextManager[None]:
        """Start the SDK's session manager without an ASGI server sending lifespan events."""
        return self._session_manager.run()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._inner(scope, receive, send)
        elif scope["type"] == "http":
            await self._guarded(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            claims = self._admit(Headers(scope=scope))
        except _Refused as refused:
            await refused.response(scope, receive, send)
            return
        caller = SERVER_TOKEN_ACTOR if claims is None else claims.actor
        scope = {**scope, ACTOR_KEY: caller}
        if claims is not None and claims.tools is not None:
            scope[TOOLS_KEY] = claims.tools
        messages = await asgi.read_body(receive, self._max_body_bytes)
        if messages is None:
            await edge.too_large()(scope, receive, send)
        elif messages[-1]["type"] != "http.request":  # the client left mid-body
            return
        elif self._quota.opens(scope):  # counted against its token's sessions
            replayed = asgi.replay(messages, receive)
            await self._quota.serve(caller.label, self._inner, scope, replayed, send)
        else:
            await self._inner(scope, asgi.replay(messages, receive), send)

    def _admit(self, headers: Headers) -> Claims | None:
        """The claims of an API token (None for the server's own token); ``_Refused`` with
        the edge's refusal otherwise."""
        for refusal in (
            edge.host_refusal(headers, self._hosts),
            edge.origin_refusal(headers, self._origins),
        ):
            if refusal is not None:
                raise _Refused(refusal)
        agent = self._bearer(headers)
        refusal = edge.length_refusal(headers, self._max_body_bytes)
        if refusal is not None:
            raise _Refused(refusal)
        return agent

    def _bearer(self, headers: Headers) -> Claims | None:
        presented = edge.bearer_of(headers)
        # Header values arrive as latin-1 text; compare their bytes, in constant time.
        if presented is not None and hmac.compare_digest(presented.encode("latin-1"), self._token):
            return None
        try:
            claims = edge.admit(
                self._tokens,
                presented,
                ("agent",),
                wrong_scope="MCP takes an agent token, not a person's.",
            )
        except HttpProblem as problem:
            raise _Refused(edge.refusal(problem)) from problem
        return claims


class _Refused(Exception):
    def __init__(self, response: Response) -> None:
        super().__init__("refused")
        self.response = response


# --- the app ------------------------------------------------------------------------------------


def http_app(
    gateway: Any,
    *,
    token: str,
    host: str,
    port: int,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    elicit: bool = False,
    tokens: TokenStore | None = None,
    public_url: str = "",
    sessions_per_token: int = MAX_SESSIONS_PER_TOKEN,
    session_idle_seconds: float = SESSION_IDLE_SECONDS,
    tools: McpTools | None = None,
    offered: ToolSet = None,
) -> GuardedMcpApp:
    """The MCP server for ``gateway`` at ``/mcp``, as an ASGI app for ``host:port`` (bound);
    ``elicit``, ``tools`` and ``offered`` as in ``build_server``; ``tokens``: the HTTP API's,
    whose agent tokens are accepted beside ``token`` (and counted, when the store has a limiter;
    a token's tool set narrows ``offered`` for its requests)."""
    if not token:
        raise ValueError("an empty token would let anyone in")
    if not 0 < port < 65536:
        raise ValueError("the Host and Origin checks need the real, bound port")
    hosts = allowed_hosts(host, port, public_url)
    origins = allowed_origins(hosts, public_url)
    server = build_server(gateway, elicit=elicit, tools=tools, offered=offered)
    inner = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
        ),
        max_request_body_size=max_body_bytes,
        session_idle_timeout=session_idle_seconds,
        max_sessions=MAX_SESSIONS,
        host=host,
    )
    return GuardedMcpApp(
        inner,
        server.session_manager,
        token=token,
        hosts=hosts,
        origins=origins,
        max_body_bytes=max_body_bytes,
        tokens=tokens,
        sessions_per_token=sessions_per_token,
    )


# --- the server ---------------------------------------------------------------------------------


def serve_http(
    app: App,
    *,
    host: str = "127.0.0.1",
    port: int = 8766,
    tools: McpTools | None = None,
    offered: ToolSet = None,
) -> None:
    """Serve MCP over streamable HTTP until Ctrl-C or SIGTERM; a problem exits with a message.
    ``tools``: who runs them (``mcp_route``: the daemon, or a refusal), else ``app``'s gateway."""
    with _exit_on_error():
        _refuse_remote(host)
        with _bind(host, port) as listener:
            token, created = read_or_create_token(token_path(app))  # made only once bound
            _run(app, listener, host, token, created, tools, offered)


def _run(
    app: App,
    listener: socket.socket,
    host: str,
    token: str,
    created: bool,
    tools: McpTools | None,
    offered: ToolSet,
) -> None:
    bound = int(listener.getsockname()[1])  # the real port, also when 0 was asked for
    elicit = app.config.settings.approvals.mcp_elicitation
    tokens = _api_tokens(app)
    gateway = app.gateway if tools is None else None  # never built when another runs the tools
    asgi = http_app(
        gateway,
        token=token,
        host=host,
        port=bound,
        elicit=elicit,
        tokens=tokens,
        tools=tools,
        offered=offered,
    )
    _announce(f"http://{net.uri_host(host)}:{bound}{MCP_PATH}", token_path(app), created)
    config = uvicorn.Config(
        asgi,
        host=host,
        port=bound,
        log_level="warning",
        lifespan="on",  # a session manager that fails to start stops the server
        proxy_headers=False,  # nothing stands in front of this server
        timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
        **connections.bounds(app.config.settings.http),  # deadlines and a cap, as the API's
    )
    with contextlib.suppress(KeyboardInterrupt), _sigterm_as_interrupt():
        connections.ListeningServer(config).run(sockets=[listener])


def _api_tokens(app: App) -> TokenStore:
    """The HTTP API's tokens, counted at its rate, their signing secret checked now (when one was
    made) so that a bad one stops the server with a message instead of failing each request."""
    tokens = serving_store(app)
    try:
        if tokens.can_verify():
            tokens.key()
    except SecretError as exc:
        raise StartupError(str(exc)) from None
    return tokens


@contextlib.contextmanager
def _exit_on_error() -> Iterator[None]:
    """A start-up failure becomes one line on stderr and the exit code it names."""
    try:
        yield
    except StartupError as exc:
        _say(f"error: {exc}")
        raise SystemExit(exc.exit_code) from None


def _refuse_remote(host: str) -> None:
    """The edge's rule: this server's own token guards every request; choosing the network
    takes ``FRUITCTL_MCP_ALLOW_REMOTE=1``."""
    consented = os.environ.get(ALLOW_REMOTE_ENV) == "1"
    consent = f"Set {ALLOW_REMOTE_ENV}=1 to accept that risk."
    warning = edge.exposure(host, tokens_issued=True, consented=consented, consent=consent)
    if warning is not None:
        _say(f"warning: {warning}")


def _bind(host: str, port: int) -> socket.socket:
    return net.listen(host, port)


def _announce(url: str, path: Path, created: bool) -> None:
    # Never the token itself: stderr often ends up in a service manager's log.
    _say(f"fruitctl MCP server (streamable HTTP) at {url}")
    _say(f"Bearer token: {'created in' if created else 'in'} {path} (readable by you only)")
    _say("Clients send it as 'Authorization: Bearer <token>'; an agent token from")
    _say("'fruitctl auth token' works too. Ctrl-C stops the server.")


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM ends the server like Ctrl-C: uvicorn shuts down gracefully, then re-raises the
    signal into this handler, and the caller goes on to close the app."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
