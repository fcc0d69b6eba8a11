"""Who is calling: the bearer token checked on every API request, its scope, and its rate.

A token is accepted only in the ``Authorization`` header: one in the query string (where it
would end up in proxy logs and browser history) is refused outright, even beside a good header.
Every refusal is a 401 with ``WWW-Authenticate``, and says why without repeating the token.
"""

# No `from __future__ import annotations`: FastAPI must see the Annotated dependencies.
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from fruitctl.transports.http.errors import HttpProblem
from fruitctl.transports.http.tokens import Claims, TokenError, TokenStore

URL_TOKEN_PARAMS = ("access_token", "token", "jwt", "bearer")
WINDOW_SECONDS = 60.0

bearer = HTTPBearer(
    auto_error=False,
    bearerFormat="JWT",
    description="A token from `fruitctl auth token` (scope agent or admin).",
)


class RateLimiter:
    """At most ``per_minute`` requests per token in any sliding minute (in memory: a restart
    forgets, which only ever lets a caller in sooner)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._limit = per_minute
        self._clock = clock
        self._seen: dict[str, deque[float]] = {}

    def retry_after(self, key: str) -> float | None:
        """None if this request may go ahead (and count it); else seconds until it may."""
        now = self._clock()
        times = self._seen.setdefault(key, deque())
        while times and times[0] <= now - WINDOW_SECONDS:
            times.popleft()
        if len(times) >= self._limit:
            return times[0] + WINDOW_SECONDS - now
        times.append(now)
        return None


Authenticate = Callable[[Request, HTTPAuthorizationCredentials | None], Awaitable[Claims]]


def authenticator(tokens: TokenStore, limiter: RateLimiter) -> Authenticate:
    """The dependency every API route uses (async: it runs on the event loop, never waits)."""

    async def authenticate(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> Claims:
        if any(name in request.query_params for name in URL_TOKEN_PARAMS):
            raise _unauthorized(
                "Tokens are accepted only in the Authorization header, never in the URL."
            )
        if credentials is None:
            raise _unauthorized("Send 'Authorization: Bearer <token>'.", error="invalid_request")
        try:
            claims = tokens.verify(credentials.credentials)
        except TokenError as exc:
            raise _unauthorized(f"Unauthorized: {exc}.") from None
        if claims.scope == "session":  # the page's cookie token is not an API credential
            raise _unauthorized("Unauthorized: the token is not valid.")
        wait = limiter.retry_after(claims.token_id)
        if wait is not None:
            seconds = max(1, round(wait))
            raise HttpProblem(
                "rate_limited",
                f"Too many requests for this token; retry in {seconds} s.",
                retryAfterSeconds=seconds,
            )
        _refuse_unknown_query(request)
        return claims

    return authenticate


def admin_only(authenticate: Authenticate) -> Callable[..., Awaitable[Claims]]:
    async def require_admin(claims: Annotated[Claims, Depends(authenticate)]) -> Claims:
        if not claims.is_admin:
            raise HttpProblem(
                "permission_denied",
                "This needs an admin token: only a person approves, rejects, undoes, reads the "
                "audit or changes the config.",
                requiredScope="admin",
            )
        return claims

    return require_admin


def _refuse_unknown_query(request: Request) -> None:
    """A query parameter the route does not declare is refused, as tools refuse unknown keys: a
    misspelt ``lmit=5`` must not silently mean the default."""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    known = set(_query_names(dependant))
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        raise HttpProblem("invalid_params", f"Unknown parameter '{unknown[0]}'.", field=unknown[0])


def _query_names(dependant: Any) -> Iterator[str]:
    """The query parameters a route declares, its dependencies' included."""
    for param in dependant.query_params:
        yield param.alias
    for sub in dependant.dependencies:
        yield from _query_names(sub)


def _unauthorized(message: str, error: str = "invalid_token") -> HttpProblem:
    return HttpProblem("unauthorized", message, error=error)
