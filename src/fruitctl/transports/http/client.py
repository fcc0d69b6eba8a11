"""A small blocking client for the HTTP API: what the CLI uses when it runs somewhere else.

``ApiClient(url, token)`` sends one request at a time with the bearer token and hands back the
decoded JSON body. The API's error envelope comes back as the domain error it names, so the CLI
prints and exits as it does for a local call; what goes wrong on the way (nothing listens, the
certificate does not match, the answer is not the API's) becomes one ``BackendUnavailable``
line naming the URL, never a traceback. The token is sent only in the ``Authorization`` header
and never appears in a message.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from fruitctl.domain import error_table
from fruitctl.domain.errors import (
    BackendUnavailable,
    FruitctlError,
    InvalidParams,
    PermissionDenied,
    Timeout,
)

DEFAULT_TIMEOUT_S = 600.0  # longer than any tool's own timeout: the gateway answers first
CONNECT_TIMEOUT_S = 10.0


def check_url(url: str) -> str:
    """``url`` without a trailing slash, or InvalidParams saying what is wrong with it."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidParams(
            f"'{url}' is not a gateway address: give http(s)://host:port, "
            "e.g. http://mac-mini.tailnet:8765."
        )
    if parts.query or parts.fragment or parts.username or parts.password:
        raise InvalidParams(
            f"'{url}' carries a query, a fragment or a user name: give only http(s)://host:port."
        )
    return url.strip().rstrip("/")


def segment(value: str) -> str:
    """One path segment, escaped: an id never adds a ``/`` or ``..`` to the path."""
    escaped = quote(value, safe="")
    return escaped.replace(".", "%2E") if escaped in ("", ".", "..") else escaped


class ApiClient:
    def __init__(
        self,
        url: str,
        token: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = check_url(url)
        self._http = httpx.Client(
            base_url=self.url,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=httpx.Timeout(timeout, connect=CONNECT_TIMEOUT_S),
            transport=transport,
            follow_redirects=False,
            trust_env=False,  # no proxy from the environment sees the token
        )

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        return self.request("GET", path, params=params)[1]

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[int, Any]:
        """The status and decoded JSON body of a successful answer; an error answer raised as
        its domain error."""
        query = {k: v for k, v in (params or {}).items() if v is not None}
        try:
            response = self._http.request(
                method, path, params=query, json=body, headers=dict(headers or {})
            )
        except httpx.TimeoutException as exc:
            raise Timeout(f"The gateway at {self.url} did not answer in time.") from exc
        except httpx.HTTPError as exc:
            raise BackendUnavailable(self._unreachable(exc)) from exc
        payload = self._decode(response)
        if response.is_success:
            return response.status_code, payload
        raise self._error(response.status_code, payload)

    def close(self) -> None:
        self._http.close()

    def _decode(self, response: httpx.Response) -> Any:
        kind = response.headers.get("content-type", "")
        try:
            if kind.startswith("application/json"):
                return response.json()
        except ValueError:
            pass
        raise BackendUnavailable(
            f"{self.url} did not answer as a fruitctl gateway (HTTP {response.status_code}, "
            f"{kind.split(';')[0] or 'no content type'}); check the URL and port."
        )

    def _error(self, status: int, payload: Any) -> FruitctlError:
        """The domain error an error body names, read through the one table of codes: the same
        code, message and details the gateway raised, so this CLI exits as a local one."""
        error = payload.get("error") if isinstance(payload, dict) else None
        if not isinstance(error, dict):
            return BackendUnavailable(f"{self.url} answered HTTP {status} without an error.")
        name = str(error.get("code", ""))
        message = str(error.get("message", ""))
        details = error.get("details")
        extra: dict[str, Any] = details if isinstance(details, dict) else {}
        if name == error_table.HTTP_ONLY_BY_CODE["unauthorized"].wire:
            return PermissionDenied(
                f"The gateway at {self.url} refused the token ({_reason(message)}). Ask the "
                "person for a new one (fruitctl auth token on the gateway) and run: "
                f"fruitctl auth login {self.url}"
            )
        code = error_table.from_wire(name)
        if code is None:  # not an error of a fruitctl gateway (a proxy's, another server's)
            return BackendUnavailable(
                f"{self.url} answered HTTP {status} with an error fruitctl does not know "
                f"({name[:60] or 'no code'}): {message[:200]}"
            )
        return error_table.rebuilt(code, message, extra)

    def _unreachable(self, exc: httpx.HTTPError) -> str:
        tls = _tls_problem(exc)
        if tls is not None and "certificate" in tls.lower():
            return (
                f"TLS to {self.url} failed: {tls}. Check that the host name in the URL is the "
                "one its certificate names (or use the http:// address on a private network)."
            )
        if tls is not None:
            plain = self.url.replace("https://", "http://", 1)
            return (
                f"TLS to {self.url} failed ({tls}): nothing speaks HTTPS there. fruitctl serves "
                f"plain HTTP unless a proxy adds TLS in front: try {plain}"
            )
        reason = _root(exc)
        return f"Cannot reach the gateway at {self.url}: {reason}. Does `fruitctl serve` run there?"


def _tls_problem(exc: BaseException) -> str | None:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return str(seen.verify_message or seen.reason or "certificate not accepted")
        if isinstance(seen, ssl.SSLError):
            return str(seen.reason or seen).lower().replace("_", " ")
        seen = seen.__cause__ or seen.__context__
    text = str(exc)
    if "CERTIFICATE_VERIFY_FAILED" in text or "SSL" in text:
        return text.split("] ")[-1][:200]
    return None


def _root(exc: BaseException) -> str:
    """The innermost reason, in words: "connection refused", "name not known", ..."""
    seen: BaseException = exc
    while (seen.__cause__ or seen.__context__) is not None:
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    if isinstance(seen, OSError) and seen.strerror:
        return seen.strerror.lower()
    return (str(seen) or type(seen).__name__)[:200]


def _reason(message: str) -> str:
    """ "Unauthorized: the token expired." -> "the token expired"."""
    return message.removeprefix("Unauthorized: ").rstrip(".") or "no reason given"
