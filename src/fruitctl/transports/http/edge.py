"""The edge both HTTP doors stand behind - the API (and its page) and MCP over HTTP, served on one
port: the checks a request meets before either sees it, and the one shape of every refusal.

- ``Host`` must name this server (the DNS-rebinding defence: a page on evil.example whose name
  now points at 127.0.0.1 still sends ``Host: evil.example``); a browser's ``Origin``, where a
  door checks it, must be one of this server's;
- a declared ``Content-Length`` must be a number within the door's limit (the body is counted
  again as it arrives, ``asgi.read_body``);
- a bearer token becomes the caller's claims (``admit``): refused with 401 and a challenge when
  missing or not valid, 403 for a token of another scope, 429 with ``Retry-After`` over its
  rate - one budget per token, whichever door it comes through.

Every refusal is the API's error object, ``{"error": {"code", "message", "retryable",
"details"}}`` (``errors.error_response``), never the token.

And one rule for whether a door may listen beyond loopback at all (``exposure``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import Response

from fruitctl.startup import NotAllowed
from fruitctl.transports import net
from fruitctl.transports.http.errors import HttpProblem, error_response
from fruitctl.transports.http.tokens import (
    Claims,
    SecretError,
    TokenError,
    TokenStore,
    TooManyRequests,
    WrongScope,
)


def host_refusal(headers: Headers, hosts: Collection[str]) -> Response | None:
    """A refusal unless exactly one ``Host`` header names this server (lower-case ``hosts``)."""
    values = headers.getlist("host")
    if len(values) == 1 and values[0].lower() in hosts:
        return None
    return error_response("misdirected_request", "The Host header does not name this server.")


def origin_refusal(headers: Headers, origins: Collection[str]) -> Response | None:
    """A refusal when a browser sent an ``Origin`` that is not one of this server's."""
    origin = headers.get("origin")
    if origin is None or origin.lower() in origins:
        return None
    return error_response("permission_denied", "Requests from another origin are not accepted.")


def length_refusal(headers: Headers, limit: int) -> Response | None:
    """A refusal when the declared ``Content-Length`` is not a number or over ``limit``."""
    declared = headers.get("content-length")
    if declared is None:
        return None
    if not (declared.isascii() and declared.isdigit()):
        return error_response("invalid_request", "Invalid Content-Length.")
    return too_large() if int(declared) > limit else None


def too_large() -> Response:
    return error_response("payload_too_large", "The request body is too large.")


def bearer_of(headers: Headers) -> str | None:
    """The token of an ``Authorization: Bearer`` header, or None."""
    scheme, _, credentials = headers.get("authorization", "").partition(" ")
    presented = credentials.strip()
    return presented if scheme.lower() == "bearer" and presented else None


def admit(
    tokens: TokenStore | None,
    presented: str | None,
    scopes: Collection[str],
    *,
    wrong_scope: str | None = None,
) -> Claims:
    """The claims of ``presented``, counted against its token's rate; an ``HttpProblem`` (the
    refusal, as ``refusal`` renders it) when it cannot be admitted. Without a store, or before a
    signing secret exists, no token is valid (and a stranger's guess makes no secret). A genuine
    token of another scope is a 401 like a forged one, unless the door says why (``wrong_scope``:
    a 403)."""
    if presented is None:
        raise HttpProblem(
            "unauthorized", "Send 'Authorization: Bearer <token>'.", error="invalid_request"
        )
    if tokens is None or not tokens.can_verify():
        raise HttpProblem("unauthorized", "Unauthorized: the token is not valid.")
    try:
        return tokens.admit(presented, scopes=scopes)
    except WrongScope as exc:
        if wrong_scope is None:
            raise HttpProblem("unauthorized", f"Unauthorized: {exc}.") from exc
        raise HttpProblem("permission_denied", wrong_scope) from exc
    except SecretError:  # the secret went bad while serving: no token can be checked
        raise HttpProblem("unauthorized", "Unauthorized: the token cannot be checked.") from None
    except TokenError as exc:  # its message names the reason, never the token
        raise HttpProblem("unauthorized", f"Unauthorized: {exc}.") from exc
    except TooManyRequests as exc:
        seconds = exc.retry_after
        raise HttpProblem(
            "rate_limited",
            f"Too many requests for this token; retry in {seconds} s.",
            retryAfterSeconds=seconds,
        ) from exc


def refusal(problem: HttpProblem) -> Response:
    details: dict[str, Any] = dict(problem.details)
    return error_response(problem.code, problem.message, details)


def exposure(host: str, *, tokens_issued: bool, consented: bool, consent: str = "") -> str | None:
    """Whether a door may listen on ``host``, by one rule for both: loopback always; another
    address only when every request must bring a token (``tokens_issued``) and the person chose
    the network knowing that plain HTTP carries tokens in the clear (``consented``; else
    ``consent`` says how). Refused: ``NotAllowed``; allowed: the warning to show, if any."""
    if net.is_loopback(host):
        return None
    if not tokens_issued:
        raise NotAllowed(
            f"refusing to serve HTTP on {host}: a non-loopback address needs tokens, and none is "
            "issued. Make one with `fruitctl auth token --scope admin` first."
        )
    if not consented:
        raise NotAllowed(
            f"refusing to listen on {host}: a non-loopback address exposes your reminders to the "
            f"network, and plain HTTP carries the bearer token in the clear. {consent}"
        )
    return (
        f"HTTP on {host}, reachable from the network: every request needs a token, and plain "
        "HTTP carries it in the clear - use a trusted network (e.g. Tailscale)."
    )
