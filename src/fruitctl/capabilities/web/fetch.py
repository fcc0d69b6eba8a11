"""``fetch_url``'s work, done in its sandbox child: one GET, every hop checked before it connects.

Each URL - the one asked for and every redirect's target - passes the same gates in order: an
http(s) URL with a host and no credentials; the host under the tool's ``DomainRules`` (the rules
``web_search`` applies); the host resolved, and every address it resolves to under its
``AddressRules`` (loopback, private, link-local and metadata addresses refused). Then the request
connects to one of the addresses just checked - never to a fresh lookup of the name, so a name
that resolves elsewhere the second time (DNS rebinding) changes nothing - while the Host header
and TLS (SNI and the certificate check) still use the name.

Redirects are followed here, at most ``REDIRECTS_MAX``, so each hop is checked; the body is read
in chunks up to the size cap, and one deadline covers the whole fetch. httpcore (httpx's own
engine) does the HTTP: it lets the connection be pinned, and reads no proxy from the environment.
"""

from __future__ import annotations

import codecs
import errno
import re
import socket
import ssl
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpcore

from fruitctl.capabilities.web.bounds import BYTES_DEFAULT, SECONDS_DEFAULT, URL_MAX
from fruitctl.capabilities.web.html_text import html_to_text
from fruitctl.domain.errors import (
    BackendUnavailable,
    ExecutionFailed,
    InvalidParams,
    NotFound,
    PermissionDenied,
    Timeout,
)
from fruitctl.domain.hosts import AddressRules, DomainRules, normalize_host

REDIRECTS_MAX = 5
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_CHUNK = 65_536
_HTML = frozenset({"text/html", "application/xhtml+xml"})
_TEXT = frozenset({"application/json", "application/xml", "application/javascript"})
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_USER_AGENT = b"fruitctl-fetch_url (+https://github.com/fruitctl)"


@dataclass(frozen=True)
class Target:
    """One checked URL: what is requested and where its host resolved."""

    url: str
    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...] = ()


@dataclass
class Body:
    data: bytearray = field(default_factory=bytearray)
    cut: str | None = None  # "size" or "time"


@dataclass(frozen=True)
class Fetcher:
    domains: DomainRules = field(default_factory=DomainRules)
    addresses: AddressRules = field(default_factory=AddressRules)
    trust: ssl.SSLContext | None = field(default=None, compare=False)
    """Whom TLS trusts: httpcore's default (the certifi authorities, as httpx) unless given."""

    def fetch(
        self, url: str, max_bytes: int = BYTES_DEFAULT, timeout: float = SECONDS_DEFAULT
    ) -> dict[str, Any]:
        """GET ``url`` under the rules, following at most ``REDIRECTS_MAX`` redirects, reading at
        most ``max_bytes`` of the body within ``timeout`` seconds in all."""
        deadline = time.monotonic() + timeout
        target = self.check(url, "the URL")
        redirects: list[str] = []
        while True:
            status, headers, body = self._get(target, deadline, max_bytes, timeout)
            location = _header(headers, b"location")
            if status not in _REDIRECTS or location is None:
                return _answer(url, target.url, redirects, status, headers, body)
            if len(redirects) == REDIRECTS_MAX:
                raise ExecutionFailed(
                    f"{url} redirected more than {REDIRECTS_MAX} times; stopped at {target.url}."
                )
            following = urljoin(target.url, location)
            redirects.append(following)
            target = self.check(following, f"the redirect from {target.url}")

    def check(self, url: str, what: str) -> Target:
        """The URL as a ``Target`` whose host and every address are permitted, or the refusal."""
        target = _parse(url, what)
        reason = self.domains.refusal(target.host)
        if reason is not None:
            raise PermissionDenied(
                f"fetch_url may not fetch {what} ({target.url}): {reason} "
                "in the fetch_url rules of governance.yaml.",
                url=target.url,
            )
        addresses = _resolve(target)
        for address in addresses:
            refused = self.addresses.refusal(address)
            if refused is not None:
                resolved = (
                    "" if target.host == address else f"{target.host} resolves to {address}; "
                )
                raise PermissionDenied(
                    f"fetch_url may not fetch {what} ({target.url}): {resolved}{refused}.",
                    url=target.url,
                    address=address,
                )
        return Target(target.url, target.scheme, target.host, target.port, target.path, addresses)

    def _get(
        self, target: Target, deadline: float, max_bytes: int, timeout: float
    ) -> tuple[int, list[tuple[bytes, bytes]], Body]:
        failure: Exception | None = None
        for address in target.addresses:
            try:
                return _get_from(address, target, deadline, max_bytes, self.trust)
            except httpcore.ConnectError as exc:
                failure = exc  # the next checked address, if there is one
            except httpcore.TimeoutException as exc:
                raise Timeout.no_answer(target.url, timeout) from exc
            except (httpcore.NetworkError, httpcore.ProtocolError) as exc:
                raise BackendUnavailable(f"{target.url} failed: {_reason(exc)}.") from exc
        raise BackendUnavailable(f"Could not connect to {target.url}: {_reason(failure)}.")


# -- a URL, checked ----------------------------------------------------------------------------


def _parse(url: str, what: str) -> Target:
    text = url.strip() if isinstance(url, str) else ""
    if not text or len(text) > URL_MAX:
        raise InvalidParams(
            f"{what} must be an http(s) URL of 1-{URL_MAX} characters.", field="url"
        )
    if any(ch.isspace() or ch == "\\" or not ch.isprintable() for ch in text):
        # parsers disagree on such URLs: the host checked may not be the one connected to
        raise InvalidParams(f"{what} contains spaces, backslashes or control characters.")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise InvalidParams(f"{what} is not a valid URL: {exc}.", field="url") from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise InvalidParams(f"{what} must use http or https, not '{scheme or 'nothing'}'.")
    if parts.username is not None or parts.password is not None:
        raise InvalidParams(f"{what} must not carry a user name or password.", field="url")
    host = normalize_host(parts.hostname or "")
    if host is None:
        raise InvalidParams(f"{what} has no valid host name.", field="url")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    shown = f"{scheme}://{_authority(host, port)}{path}"
    return Target(shown, scheme, host, port or _DEFAULT_PORTS[scheme], path)


def _authority(host: str, port: int | None) -> str:
    name = f"[{host}]" if ":" in host else host
    return name if port is None else f"{name}:{port}"


def _resolve(target: Target) -> tuple[str, ...]:
    try:
        found = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        if exc.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None)):
            raise NotFound(f"There is no host named '{target.host}'.", url=target.url) from exc
        raise BackendUnavailable(f"Could not look up '{target.host}': {exc.strerror}.") from exc
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in found))
    if not addresses:
        raise NotFound(f"'{target.host}' has no address.", url=target.url)
    return addresses


# -- one request, to one checked address -------------------------------------------------------


def _get_from(
    address: str, target: Target, deadline: float, max_bytes: int, trust: ssl.SSLContext | None
) -> tuple[int, list[tuple[bytes, bytes]], Body]:
    backend = _Pinned(address, deadline)
    url = httpcore.URL(
        scheme=target.scheme.encode(),
        host=target.host.encode(),
        port=target.port,
        target=target.path.encode(),
    )
    default = _DEFAULT_PORTS[target.scheme] == target.port
    headers = [
        (b"Host", _authority(target.host, None if default else target.port).encode()),
        (b"User-Agent", _USER_AGENT),
        (b"Accept", b"text/html,text/plain;q=0.9,*/*;q=0.5"),
        (b"Accept-Encoding", b"identity"),
        (b"Connection", b"close"),
    ]
    with (
        httpcore.ConnectionPool(ssl_context=trust, network_backend=backend, retries=0) as pool,
        pool.stream("GET", url, headers=headers) as response,
    ):
        if response.status in _REDIRECTS:
            return response.status, response.headers, Body()
        return response.status, response.headers, _read(response, max_bytes)


def _read(response: httpcore.Response, max_bytes: int) -> Body:
    body = Body()
    try:
        for chunk in response.iter_stream():
            room = max_bytes - len(body.data)
            body.data += chunk[:room]
            if len(chunk) > room:
                body.cut = "size"
                break
    except httpcore.TimeoutException:
        body.cut = "time"  # what came before the deadline is the answer, said to be cut
    return body


class _Pinned(httpcore.NetworkBackend):
    """Connects to the one address that was checked, whatever name it is asked for, and ends
    every read and write at the fetch's deadline."""

    def __init__(self, address: str, deadline: float) -> None:
        self._address = address
        self._deadline = deadline
        self._system = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        seconds = _left(self._deadline, timeout, httpcore.ConnectTimeout)
        stream = self._system.connect_tcp(self._address, port, timeout=seconds)
        return _Bounded(stream, self._deadline)

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("fetch_url does not connect to Unix sockets")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class _Bounded(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream, deadline: float) -> None:
        self._stream = stream
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _left(self._deadline, timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _left(self._deadline, timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        seconds = _left(self._deadline, timeout, httpcore.ConnectTimeout)
        secured = self._stream.start_tls(ssl_context, server_hostname, seconds)
        return _Bounded(secured, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


def _left(deadline: float, timeout: float | None, error: type[Exception]) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise error("the fetch's time is up")
    return left if timeout is None else min(timeout, left)


def _reason(exc: BaseException | None) -> str:
    if exc is None:
        return "no address to connect to"
    cause = exc.__context__ if not str(exc) else exc
    text = str(cause) or type(cause).__name__
    if isinstance(cause, OSError) and cause.errno == errno.ECONNREFUSED:
        return "connection refused"
    return text


# -- the answer --------------------------------------------------------------------------------


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1").strip()
    return None


def _answer(
    asked: str,
    final: str,
    redirects: list[str],
    status: int,
    headers: list[tuple[bytes, bytes]],
    body: Body,
) -> dict[str, Any]:
    content_type = _header(headers, b"content-type")
    mime, charset = _media_type(content_type)
    text, title, note = _content(
        bytes(body.data), mime, charset, _header(headers, b"content-encoding")
    )
    return {
        "url": asked,
        "final_url": final,
        "redirects": redirects,
        "status": status,
        "content_type": content_type,
        "title": title,
        "text": text,
        "note": note,
        "cut": body.cut is not None,
        "cut_reason": body.cut,
        "bytes_read": len(body.data),
    }


def _media_type(content_type: str | None) -> tuple[str | None, str | None]:
    if not content_type:
        return None, None
    mime, _, params = content_type.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            charset = value.strip().strip("\"'") or None
    return mime.strip().lower() or None, charset


def _content(
    data: bytes, mime: str | None, charset: str | None, encoding: str | None
) -> tuple[str | None, str | None, str | None]:
    """(text, title, note): the text of a textual body; for anything else a note says why not."""
    if encoding and encoding.lower() != "identity":
        return None, None, f"The body is compressed ({encoding}) and was not decoded."
    if not _textual(mime, data):
        return None, None, f"The body is binary ({mime or 'of no declared type'}); not shown."
    if mime in _HTML:
        text, title = html_to_text(_decode(data, charset or _meta_charset(data)))
        return text, title, None
    return _decode(data, charset), None, None


def _textual(mime: str | None, data: bytes) -> bool:
    if mime is None:
        return b"\0" not in data[:1024]
    return (
        mime.startswith("text/")
        or mime in _HTML
        or mime in _TEXT
        or mime.endswith(("+json", "+xml"))
    )


def _meta_charset(data: bytes) -> str | None:
    found = _META_CHARSET.search(data[:4096])
    return found.group(1).decode("ascii") if found else None


def _decode(data: bytes, charset: str | None) -> str:
    try:
        codec = codecs.lookup(charset or "utf-8").name
    except LookupError:
        codec = "utf-8"
    return data.decode(codec, errors="replace")
