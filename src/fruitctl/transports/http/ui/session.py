"""Signing in to the approval page, and the CSRF token of its forms.

A person pastes an admin token once; the page keeps a *session* token instead (12 hours at most,
never longer than the admin token, revoked with it) in an HttpOnly, SameSite=Strict cookie
scoped to ``/ui``, so no script reads it and no other site's page sends it. Each form carries a
CSRF token bound to that session (an HMAC of its id), and a POST whose ``Origin`` is another
site's is refused as well.
"""

from __future__ import annotations

import hashlib
import hmac

from starlette.requests import Request
from starlette.responses import Response

from fruitctl.transports.http.tokens import Claims, TokenError, TokenStore

COOKIE = "fruitctl_session"
SESSION_SECONDS = 12 * 3600


class SignInError(Exception):
    """The token given at sign-in does not open the page; the message says why (not the token)."""


class Sessions:
    def __init__(self, tokens: TokenStore, ttl_seconds: float = SESSION_SECONDS) -> None:
        self._tokens = tokens
        self._ttl = ttl_seconds

    def sign_in(self, admin_token: str) -> str:
        """A session token for the cookie, from an admin token."""
        try:
            claims = self._tokens.verify(admin_token.strip())
        except TokenError as exc:
            raise SignInError(f"That token does not work: {exc}.") from None
        if claims.scope != "admin":
            raise SignInError("That is not an admin token: only a person's token opens this page.")
        return self._tokens.session(claims, self._ttl)

    def current(self, request: Request) -> Claims | None:
        """The signed-in session of this request, if its cookie holds a valid one."""
        token = request.cookies.get(COOKIE)
        if not token:
            return None
        try:
            claims = self._tokens.verify(token)
        except TokenError:
            return None
        return claims if claims.scope == "session" else None

    def csrf(self, session: Claims) -> str:
        message = f"csrf:{session.token_id}".encode()
        return hmac.new(self._tokens.key(), message, hashlib.sha256).hexdigest()

    def csrf_ok(self, session: Claims, submitted: str | None) -> bool:
        return submitted is not None and hmac.compare_digest(self.csrf(session), submitted)

    def keep(self, response: Response, token: str, request: Request) -> None:
        response.set_cookie(
            COOKIE,
            token,
            max_age=int(self._ttl),
            path="/ui",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )

    @staticmethod
    def forget(response: Response) -> None:
        response.delete_cookie(COOKIE, path="/ui", httponly=True, samesite="strict")


def same_origin(request: Request) -> bool:
    """A POST from this page: no ``Origin`` (older clients) or exactly this server's."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    host = request.headers.get("host", "")
    return origin.lower() == f"{request.url.scheme}://{host}".lower()
