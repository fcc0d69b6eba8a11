"""Bearer tokens of the HTTP API: HS256 JWTs signed with a secret made on first use.

- The secret is 32 random bytes in ``<data dir>/secrets/http_jwt_secret`` (0600, in a 0700
  directory); a file readable by others, or holding fewer than 32 bytes, is refused.
- Verification pins the algorithm to HS256 and requires ``exp``, ``iat``, ``aud``, ``iss``,
  ``jti``, ``sub`` and ``scope``, so ``alg: none``, an RS256 token, or a token without an expiry
  never passes.
- Revocation is real: ``http_tokens.json`` beside the secret holds a generation counter (every
  token names the generation it was issued in; ``revoke_all`` moves it on) and the ids of tokens
  revoked one by one. The server re-reads it when the file changes.
- A token is never logged or put in an error: everything here speaks of token *ids*.
- Admitting a token at a door (``admit``) also counts it: at most ``[http] requests_per_minute``
  requests per token in any sliding minute, in memory. A server builds one store
  (``serving_store``) for all its doors, so the API and MCP over HTTP spend one budget.

Scopes: ``agent`` (read and propose), ``admin`` (a person: approve, reject, undo, audit, config)
and ``session`` (what the approval page keeps in its cookie after an admin signs in; it dies
with the admin token it came from).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from fruitctl.domain.actors import Actor
from fruitctl.private import NotPrivate, private_folder, read_or_create, write_private

if TYPE_CHECKING:
    from fruitctl.bootstrap import App

ALGORITHM = "HS256"
ISSUER = "fruitctl"
AUDIENCE = "fruitctl-http"
SECRET_BYTES = 32
REQUIRED_CLAIMS = ["exp", "iat", "aud", "iss", "jti", "sub", "scope"]
Scope = Literal["agent", "admin", "session"]
ISSUABLE: tuple[Scope, ...] = ("agent", "admin")
LEEWAY_SECONDS = 5  # clocks of one machine; only a little slack for iat/nbf rounding
WINDOW_SECONDS = 60.0


def secrets_dir(app: App) -> Path:
    """``<data dir>/secrets``: where the signing secret and the token state live."""
    return app.config.paths.local_db.parent / "secrets"


def serving_store(app: App) -> TokenStore:
    """The store a server admits API tokens through, counting them at ``[http]
    requests_per_minute``: build one per server and give it to every door it serves."""
    limiter = RateLimiter(app.config.settings.http.requests_per_minute)
    return TokenStore(secrets_dir(app), limiter)


class TokenError(Exception):
    """A token that does not let its bearer in; the message never contains the token."""


class WrongScope(TokenError):
    """A genuine token of a scope this door does not take (and does not count). Its message, like
    a forged token's, does not say so: the door that wants to tell says it itself."""

    def __init__(self) -> None:
        super().__init__("the token is not valid")


class TooManyRequests(Exception):
    """A genuine token over its request rate; ``retry_after``: whole seconds to wait (>= 1)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many requests for this token; retry in {retry_after} s")
        self.retry_after = retry_after


class SecretError(Exception):
    """The signing secret cannot be made or used; the message says which file and why."""


@dataclass(frozen=True)
class Claims:
    token_id: str
    scope: Scope
    name: str
    expires_at: float
    parent: str | None = None
    """For a session: the id of the admin token that signed in."""
    tools: frozenset[str] | None = None
    """The only tools its bearer may see and call (``auth token --tools``); None: every tool."""

    @property
    def actor(self) -> Actor:
        """Who the gateway sees: each token is an actor of its own (its own rate limits, and an
        agent sees only its own proposals); admin and session tokens are a person."""
        kind: Literal["agent", "human"] = "agent" if self.scope == "agent" else "human"
        return Actor(kind, f"{self.name}.{self.parent or self.token_id}")

    @property
    def is_admin(self) -> bool:
        return self.scope in ("admin", "session")


class RateLimiter:
    """At most ``per_minute`` requests per key in any sliding minute (in memory: a restart
    forgets, which only ever lets a caller in sooner)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._limit = per_minute
        self._clock = clock
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()  # one store may serve doors on more than one thread

    def count(self, key: str) -> None:
        """Count one request of ``key``; ``TooManyRequests`` (not counted) when over the rate."""
        with self._lock:
            now = self._clock()
            times = self._seen.setdefault(key, deque())
            while times and times[0] <= now - WINDOW_SECONDS:
                times.popleft()
            if len(times) >= self._limit:
                raise TooManyRequests(max(1, math.ceil(times[0] + WINDOW_SECONDS - now)))
            times.append(now)


class TokenStore:
    """Issues, verifies and revokes the tokens of one data directory; with a ``limiter`` (a
    server's, see ``serving_store``) it also counts the tokens it admits. Without one (the CLI,
    which only issues and revokes) nothing is counted."""

    def __init__(self, directory: Path, limiter: RateLimiter | None = None) -> None:
        self.directory = directory
        self._limiter = limiter
        self._secret_file = directory / "http_jwt_secret"
        self._state_file = directory / "http_tokens.json"
        self._key: bytes | None = None
        self._state: dict[str, Any] = {}
        self._state_stamp: tuple[int, int, int] | None = None

    # -- issuing -----------------------------------------------------------------------------

    def issue(
        self,
        scope: Scope,
        ttl_seconds: float,
        name: str = "token",
        tools: frozenset[str] | None = None,
    ) -> tuple[str, Claims]:
        """A new token and its claims; recorded (by id, never by value) for ``auth list``.
        ``tools``: the only tools its bearer may see and call, signed into the token."""
        if scope not in ISSUABLE:
            raise ValueError(f"scope must be one of {', '.join(ISSUABLE)}")
        with self._locked() as state:
            token, claims = self._sign(scope, ttl_seconds, name, None, state["generation"], tools)
            state["issued"][claims.token_id] = {
                "scope": scope,
                "name": name,
                "issuedAt": int(time.time()),
                "expiresAt": int(claims.expires_at),
                "generation": state["generation"],
                "tools": None if tools is None else sorted(tools),
            }
        return token, claims

    def session(self, admin: Claims, ttl_seconds: float) -> str:
        """A short-lived token for the approval page's cookie, ending no later than ``admin``."""
        ttl = max(1.0, min(ttl_seconds, admin.expires_at - time.time()))
        state = self._current_state()
        token, _ = self._sign("session", ttl, admin.name, admin.token_id, state["generation"])
        return token

    def _sign(
        self,
        scope: Scope,
        ttl: float,
        name: str,
        parent: str | None,
        generation: int,
        tools: frozenset[str] | None = None,
    ) -> tuple[str, Claims]:
        now = int(time.time())
        claims = Claims(secrets.token_hex(6), scope, name, now + int(ttl), parent, tools)
        payload = {
            "iss": ISSUER,
            "aud": AUDIENCE,
            "sub": name,
            "jti": claims.token_id,
            "scope": scope,
            "gen": generation,
            "iat": now,
            "nbf": now,
            "exp": int(claims.expires_at),
        }
        if parent is not None:
            payload["parent"] = parent
        if tools is not None:
            payload["tools"] = sorted(tools)
        import jwt  # here: PyJWT loads cryptography, which a daemon serving its socket never needs

        return jwt.encode(payload, self.key(), algorithm=ALGORITHM), claims

    # -- verifying ---------------------------------------------------------------------------

    def verify(self, token: str) -> Claims:
        """The claims of a valid, unrevoked token; ``TokenError`` saying why not otherwise."""
        import jwt

        try:
            payload = jwt.decode(
                token,
                self.key(),
                algorithms=[ALGORITHM],
                audience=AUDIENCE,
                issuer=ISSUER,
                leeway=LEEWAY_SECONDS,
                options={"require": REQUIRED_CLAIMS, "strict_aud": True},
            )
        except jwt.ExpiredSignatureError:
            raise TokenError("the token has expired") from None
        except jwt.ImmatureSignatureError:
            raise TokenError("the token is not valid yet") from None
        except jwt.InvalidTokenError:
            raise TokenError("the token is not valid") from None
        return self._admitted(payload)

    def admit(self, token: str, scopes: Collection[str] = ISSUABLE) -> Claims:
        """The claims of a valid token of one of ``scopes`` (by default the API's: a page session
        is no API credential), counted against its rate. ``WrongScope`` for another scope,
        ``TooManyRequests`` over the rate, ``TokenError`` for a token that is not valid."""
        claims = self.verify(token)
        if claims.scope not in scopes:
            raise WrongScope
        if self._limiter is not None:
            self._limiter.count(claims.token_id)
        return claims

    def _admitted(self, payload: dict[str, Any]) -> Claims:
        scope = payload["scope"]
        if scope not in ("agent", "admin", "session"):
            raise TokenError("the token has an unknown scope")
        state = self._current_state()
        parent = payload.get("parent")
        if scope == "session" and not isinstance(parent, str):
            raise TokenError("the token is not valid")
        if payload.get("gen") != state["generation"]:
            raise TokenError("the token has been revoked")
        revoked = state["revoked"]
        if payload["jti"] in revoked or (parent is not None and parent in revoked):
            raise TokenError("the token has been revoked")
        tools = _tools_of(payload)
        return Claims(
            payload["jti"], scope, str(payload["sub"]), float(payload["exp"]), parent, tools
        )

    def can_verify(self) -> bool:
        """Whether a signing secret exists: without one, no token was ever issued here."""
        return self._key is not None or self._secret_file.exists()

    # -- revoking ----------------------------------------------------------------------------

    def revoke(self, token_id: str) -> bool:
        """Revoke one token (and the page sessions it opened); False if no such id was issued."""
        with self._locked() as state:
            issued = state["issued"].get(token_id)
            if issued is None:
                return False
            state["revoked"][token_id] = issued["expiresAt"]
        return True

    def revoke_all(self) -> int:
        """Revoke every token issued so far; the new generation number."""
        with self._locked() as state:
            state["generation"] += 1
            state["revoked"] = {}
            return int(state["generation"])

    def tokens(self) -> list[dict[str, Any]]:
        """Every token issued and not yet expired, with whether it still works."""
        state = self._current_state()
        now = time.time()
        listed = []
        for token_id, info in sorted(state["issued"].items(), key=lambda i: i[1]["issuedAt"]):
            if info["expiresAt"] < now:
                continue
            active = info["generation"] == state["generation"] and token_id not in state["revoked"]
            listed.append({"id": token_id, **info, "active": active})
        return listed

    def has_tokens(self) -> bool:
        """Whether any token is live: a non-loopback address is served only then."""
        return any(t["active"] for t in self.tokens())

    # -- files -------------------------------------------------------------------------------

    def key(self) -> bytes:
        if self._key is None:
            self._key = self._read_or_create_secret()
        return self._key

    def _read_or_create_secret(self) -> bytes:
        private_directory(self.directory)
        path = self._secret_file
        try:
            text, _ = read_or_create(path, lambda: secrets.token_bytes(SECRET_BYTES).hex() + "\n")
        except NotPrivate as exc:
            raise SecretError(str(exc)) from exc
        try:
            secret = bytes.fromhex(text.strip())
        except ValueError:
            secret = b""
        if len(secret) < SECRET_BYTES:
            raise SecretError(f"{path} holds no usable secret: delete it and a new one is made")
        return secret

    def _current_state(self) -> dict[str, Any]:
        try:
            info = os.stat(self._state_file)
        except FileNotFoundError:
            return _empty_state()
        stamp = (info.st_ino, info.st_mtime_ns, info.st_size)
        if stamp != self._state_stamp:
            self._state = _load_state(self._state_file)
            self._state_stamp = stamp
        return self._state

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        """Read-modify-write of the state under an exclusive lock (two CLIs at once)."""
        private_directory(self.directory)
        lock_path = self.directory / "http_tokens.lock"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            state = _load_state(self._state_file) if self._state_file.exists() else _empty_state()
            yield state
            _prune(state)
            _write_private_json(self._state_file, state)
        finally:
            os.close(fd)


def _tools_of(payload: dict[str, Any]) -> frozenset[str] | None:
    """The token's tool set, when it names one (a list of names, as ``issue`` signs it)."""
    tools = payload.get("tools")
    if tools is None:
        return None
    if not isinstance(tools, list) or not all(isinstance(name, str) for name in tools):
        raise TokenError("the token is not valid")
    return frozenset(tools)


def private_directory(path: Path) -> None:
    try:
        private_folder(path, "the HTTP API's secrets")
    except NotPrivate as exc:
        raise SecretError(str(exc)) from exc


def _empty_state() -> dict[str, Any]:
    return {"generation": 1, "revoked": {}, "issued": {}}


def _load_state(path: Path) -> dict[str, Any]:
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        # A token file we cannot read must not let every token in: refuse them all instead.
        raise TokenError(f"the token state {path} cannot be read ({exc})") from None
    state = _empty_state()
    state.update({k: loaded[k] for k in state if k in loaded})
    return state


def _prune(state: dict[str, Any]) -> None:
    """Forget tokens that expired a day ago: they fail on ``exp`` anyway."""
    horizon = time.time() - 86400
    state["issued"] = {k: v for k, v in state["issued"].items() if v["expiresAt"] > horizon}
    state["revoked"] = {k: v for k, v in state["revoked"].items() if v > horizon}


def _write_private_json(path: Path, data: dict[str, Any]) -> None:
    write_private(path, json.dumps(data, indent=1, sort_keys=True))
