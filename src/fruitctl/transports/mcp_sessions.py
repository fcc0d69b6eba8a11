"""How many MCP sessions one token may hold open over streamable HTTP.

The SDK caps sessions only in all (10,000) and closes one after 30 idle minutes: one token that
opened 10,000 sessions left every other client with 503 for half an hour. Here each token (the
server's own counts as one) may hold ``MAX_SESSIONS_PER_TOKEN``; a session idle for
``SESSION_IDLE_SECONDS`` ends (a client learns it from a 404 and opens a new one, as the protocol
says); and the total is ``MAX_SESSIONS``, so many tokens together stay within bounds.

A request opens a session when it carries no ``Mcp-Session-Id``; the session it opened is the id
its answer names. A token at its limit is answered 429 before the SDK sees the request.
"""

from __future__ import annotations

from collections import Counter

from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.datastructures import Headers
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fruitctl.domain import error_table

MAX_SESSIONS_PER_TOKEN = 16
"""An agent with a few MCP clients open, each reconnecting now and then; a flood is refused."""
SESSION_IDLE_SECONDS = 300.0
"""Between two tool calls of a conversation a client stays well under this; an abandoned session
holds its memory five minutes, not thirty."""
MAX_SESSIONS = 256
"""Every token's together: tokens are issued by the person, so this is many agents' worth."""
RETRY_AFTER_SECONDS = 30


class SessionQuota:
    """The sessions each token opened, forgotten as the SDK ends them."""

    def __init__(self, manager: StreamableHTTPSessionManager, per_token: int) -> None:
        self._manager = manager
        self._per_token = per_token
        self._owned: dict[str, set[str]] = {}
        self._opening: Counter[str] = Counter()

    def opens(self, scope: Scope) -> bool:
        """Whether this request would open a session (a POST without a session id)."""
        headers = Headers(scope=scope)
        return scope.get("method") == "POST" and MCP_SESSION_ID_HEADER not in headers

    def held(self, owner: str) -> int:
        owned = self._owned.get(owner)
        if owned:  # the SDK forgets a session that ended (idle, deleted, failed): so do we
            owned.intersection_update(self._manager._server_instances)
        return len(owned or ()) + self._opening[owner]

    async def serve(
        self, owner: str, app: ASGIApp, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """Serve a request that opens a session for ``owner``, or refuse it at the limit."""
        if self.held(owner) >= self._per_token:
            await self.refusal()(scope, receive, send)
            return
        self._opening[owner] += 1
        opened: list[str] = []

        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                found = Headers(raw=message.get("headers", [])).get(MCP_SESSION_ID_HEADER)
                if found:
                    opened.append(found)
            await send(message)

        try:
            await app(scope, receive, noting)
        finally:
            self._opening[owner] -= 1
            if opened:
                self._owned.setdefault(owner, set()).add(opened[0])

    def refusal(self) -> Response:
        message = (
            f"This token has {self._per_token} MCP sessions open, its limit: end one (DELETE "
            "with its Mcp-Session-Id) or let one sit idle until it closes, then retry."
        )
        limited = error_table.row_of("rate_limited")  # numbered as at every other door
        error = {"code": limited.jsonrpc, "message": message}
        return JSONResponse(
            {"jsonrpc": "2.0", "id": None, "error": error},
            status_code=limited.status,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
