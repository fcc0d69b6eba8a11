"""The checks every request meets before a route sees it, and the headers every answer carries.

- ``Host`` must name this server when a list of hosts is given (the DNS-rebinding defence: a
  page on evil.example whose name now points at 127.0.0.1 still sends ``Host: evil.example``);
- a body over the limit is refused with 413, by its ``Content-Length`` or as it arrives; a client
  gone before its body was in (or cut off by the server's deadline) reaches no route;
- every response gets the CSP (``default-src 'self'``, ``frame-ancestors 'none'``: no inline
  script, no framing), ``nosniff``, ``no-store`` (pages show live state), and the referrer
  policy ``same-origin`` - not ``no-referrer``, with which browsers send ``Origin: null`` on the
  page's own form posts and the CSRF origin check could not tell them from a foreign site's.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fruitctl.transports import asgi
from fruitctl.transports.http import edge

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


class Guard:
    def __init__(
        self, inner: ASGIApp, *, max_body_bytes: int, hosts: Iterable[str] | None = None
    ) -> None:
        self._inner = inner
        self._limit = max_body_bytes
        self._hosts = None if hosts is None else frozenset(h.lower() for h in hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._inner(scope, receive, send)
            return
        send = _with_headers(send)
        headers = Headers(scope=scope)
        refusal = self._refusal(headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        messages = await asgi.read_body(receive, self._limit)
        if messages is None:
            await edge.too_large()(scope, receive, send)
            return
        if messages[-1]["type"] == "http.disconnect":
            return  # gone before its body was in (or cut off, too slow): no one to answer
        await self._inner(scope, asgi.replay(messages, receive), send)

    def _refusal(self, headers: Headers) -> Response | None:
        if self._hosts is not None:
            refused = edge.host_refusal(headers, self._hosts)
            if refused is not None:
                return refused
        return edge.length_refusal(headers, self._limit)


def _with_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {name.lower() for name, _ in message.get("headers", [])}
            extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return sending
