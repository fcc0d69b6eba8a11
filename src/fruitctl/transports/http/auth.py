"""Who is calling: the bearer token checked on every API request, its scope, and its rate.

A token is accepted only in the ``Authorization`` header: one in the query string (where it
would end up in proxy logs and browser history) is refused outright, even beside a good header.
Every refusal is a 401 with ``WWW-Authenticate``, and says why without repeating the token.
The rate is counted by the token store, which a server shares with MCP over HTTP: one budget
per token, whichever door it comes through; over it, a 429 with ``Retry-After``.
"""

# No `from __future__ import annotations`: FastAPI must see the Annotated dependencies.
from collections.abc import Awaitable, Callable, Iterator
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from fruitctl.transports.http import edge
from fruitctl.transports.http.door import SERVING
from fruitctl.transports.http.errors import HttpProblem
from fruitctl.transports.http.tokens import ISSUABLE, Claims

URL_TOKEN_PARAMS = ("access_token", "token", "jwt", "bearer")

bearer = HTTPBearer(
    auto_error=False,
    bearerFormat="JWT",
    description="A token from `fruitctl auth token` (scope agent or admin).",
)


Authenticate = Callable[[Request, HTTPAuthorizationCredentials | None], Awaitable[Claims]]


def authenticator() -> Authenticate:
    """The dependency every API route uses (async: it runs on the event loop, never waits),
    checking the token against the store of the API serving the request."""

    async def authenticate(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> Claims:
        if any(name in request.query_params for name in URL_TOKEN_PARAMS):
            raise _unauthorized(
                "Tokens are accepted only in the Authorization header, never in the URL."
            )
        # The page's cookie token (scope session) is not an API credential: a 401 too.
        presented = None if credentials is None else credentials.credentials
        claims = edge.admit(SERVING.get().tokens, presented, ISSUABLE)
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
