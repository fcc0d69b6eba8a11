"""Seed 001's ``web_search`` (section 7.3): ask a search provider, under the tool's domain rules.

Two places are governed by the same ``DomainRules``: the provider's own host (the outbound gate:
a host the rules do not permit is never contacted) and the URL of every result (a result whose
host the rules do not permit is dropped). Providers are DuckDuckGo (the ``ddgs`` package) or a
SearxNG instance; every failure of theirs becomes a ``FruitctlError`` with a one-line message.
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import time
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from math import ceil
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

import idna

from fruitctl.config import WebConfig
from fruitctl.domain.errors import (
    BackendUnavailable,
    InvalidParams,
    PermissionDenied,
    RateLimited,
    Timeout,
    Unsupported,
)

if TYPE_CHECKING:  # imported where a search runs: most commands never search
    import httpx

QUERY_MAX = 500
RESULTS_MAX = 50
MAX_RESPONSE_BYTES = 2 * 1024 * 1024
MAX_REDIRECTS = 3
TITLE_MAX = 300
SNIPPET_MAX = 1_000
URL_MAX = 2_048
CONFIG_HINT = (
    'Configure it in the [web] section of config.toml: provider = "duckduckgo", or '
    'provider = "searxng" with searxng_url = "http://host:port" (a SearxNG instance with '
    "the JSON format enabled)."
)


# -- domain rules ------------------------------------------------------------------------------

_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")
_NUMERIC_LABEL = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)")


def normalize_host(url_or_host: str) -> str | None:
    """The host of a URL or host text, lower-cased, IDNA-encoded, IPs in canonical form; ``None``
    when there is no valid host (so a caller that governs with it fails closed)."""
    host = _host_of(url_or_host.strip())
    if not host:
        return None
    host = host.removeprefix("[").removesuffix("]").lower()
    host = host[:-1] if host.endswith(".") else host
    if ":" in host:
        return _ip(host)
    if _NUMERIC_LABEL.fullmatch(host.rsplit(".", 1)[-1]):
        # What browsers and resolvers do with "2130706433", "0x7f.1" or "127.1": an IPv4 address.
        return _ipv4(host)
    return _domain(host)


def _host_of(text: str) -> str | None:
    try:
        if "://" in text:
            return urlsplit(text).hostname
        if text.startswith("[") or text.count(":") == 1:  # "[::1]:80", "example.org:8080"
            return urlsplit("//" + text).hostname
    except ValueError:
        return None
    return text


def _ip(host: str) -> str | None:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return str(mapped or address)  # "::ffff:127.0.0.1" is 127.0.0.1


def _ipv4(host: str) -> str | None:
    try:
        return str(ipaddress.IPv4Address(socket.inet_aton(host)))
    except OSError:
        return None


def _domain(host: str) -> str | None:
    if not host.isascii():
        try:
            host = idna.encode(host, uts46=True).decode("ascii")
        except (idna.IDNAError, UnicodeError):
            return None
    labels = host.split(".")
    if len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        return None
    return host


def _is_literal(host: str) -> bool:
    """An IP address or ``localhost``: such hosts match only a rule that names them exactly."""
    return host == "localhost" or _ip(host) is not None


class DomainRules:
    """Which hosts ``web_search`` may reach and return.

    A rule ``example.org`` covers ``example.org`` and its subdomains (``a.example.org``), never
    ``badexample.org``; IP addresses and ``localhost`` match only a rule that names them exactly.
    ``allowed=None`` permits every host; a forbidden rule wins over an allowed one.
    """

    __slots__ = ("allowed", "forbidden")

    def __init__(self, allowed: Iterable[str] | None = None, forbidden: Iterable[str] = ()):
        self.allowed = None if allowed is None else _rules(allowed, "allowed_domains")
        self.forbidden = _rules(forbidden, "forbidden_domains")

    @classmethod
    def from_tool_rules(cls, rules: Any) -> DomainRules:
        """The domain part of a ``policy.governance.ToolRules``."""
        return cls(rules.allowed_domains, rules.forbidden_domains)

    def permits(self, url_or_host: str) -> bool:
        return self.refusal(url_or_host) is None

    def refusal(self, url_or_host: str) -> str | None:
        """Why the rules refuse this host, or ``None`` when they permit it."""
        host = normalize_host(url_or_host)
        if host is None:
            return f"'{url_or_host}' has no valid host name"
        if any(_covers(rule, host) for rule in self.forbidden):
            return f"'{host}' is in forbidden_domains"
        if self.allowed is not None and not any(_covers(rule, host) for rule in self.allowed):
            return f"'{host}' is not in allowed_domains"
        return None

    def __repr__(self) -> str:
        return f"DomainRules(allowed={self.allowed!r}, forbidden={self.forbidden!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DomainRules):
            return NotImplemented
        return (self.allowed, self.forbidden) == (other.allowed, other.forbidden)

    def __hash__(self) -> int:
        return hash((self.allowed, self.forbidden))


def _rules(entries: Iterable[str], field: str) -> tuple[str, ...]:
    if isinstance(entries, str):
        raise TypeError(f"{field} must be a list of domains, not the string '{entries}'")
    rules = []
    for entry in entries:
        host = normalize_host(entry.strip().removeprefix("*.").removeprefix("."))
        if host is None:
            raise ValueError(f"{field}: '{entry}' is not a domain name or an IP address")
        rules.append(host)
    return tuple(rules)


def _covers(rule: str, host: str) -> bool:
    if _is_literal(rule) or _is_literal(host):
        return rule == host
    return host == rule or host.endswith("." + rule)


# -- providers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str


class SearchProvider(Protocol):
    @property
    def name(self) -> str:
        """What the result calls the provider: ``duckduckgo``, ``searxng``, ``none``."""
        ...

    @property
    def hosts(self) -> tuple[str, ...]:
        """Every host a search contacts (what the outbound gate checks)."""
        ...

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        """Best first; at least ``max_results`` when the provider has them (more is fine: the
        service drops what the rules refuse, then keeps ``max_results``)."""
        ...


class SearxNGProvider:
    """A SearxNG instance's JSON API: ``GET {base}/search?q=...&format=json``."""

    name = "searxng"

    def __init__(self, base_url: str, timeout: float) -> None:
        import httpx

        base = httpx.URL(base_url.strip().rstrip("/"))  # raises httpx.InvalidURL
        if base.scheme not in ("http", "https") or not base.host:
            raise ValueError(f"'{base_url}' is not an http(s) URL")
        self._endpoint = base.copy_with(path=base.path.rstrip("/") + "/search")
        self._timeout = timeout

    @property
    def hosts(self) -> tuple[str, ...]:
        return (self._endpoint.host,)

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        url = self._endpoint.copy_merge_params({"q": query, "format": "json"})
        return _searxng_results(self._get(url))  # one page, whole: the service filters, then cuts

    def _get(self, url: httpx.URL) -> bytes:
        import httpx

        where = f"SearxNG at {self._endpoint.host}"
        try:
            with httpx.Client(
                timeout=self._timeout, follow_redirects=False, trust_env=False
            ) as client:
                return self._follow(client, url, time.monotonic() + self._timeout)
        except httpx.TimeoutException as exc:
            raise Timeout(f"{where} did not answer within {self._timeout:g} s.") from exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise BackendUnavailable(f"{where} cannot be reached: {_reason(exc)}.") from exc

    def _follow(self, client: httpx.Client, url: httpx.URL, deadline: float) -> bytes:
        for _ in range(MAX_REDIRECTS + 1):
            with client.stream("GET", url, headers={"Accept": "application/json"}) as response:
                if not response.has_redirect_location:
                    _check_status(response, self._endpoint.host)
                    return _read_capped(response, deadline, self._timeout)
                url = self._same_host(url.join(response.headers["location"]))
        raise BackendUnavailable(f"SearxNG redirected more than {MAX_REDIRECTS} times.")

    def _same_host(self, target: httpx.URL) -> httpx.URL:
        if target.scheme not in ("http", "https") or target.host != self._endpoint.host:
            raise BackendUnavailable(
                f"SearxNG at {self._endpoint.host} redirected to another host "
                f"({target.host or target.scheme}); not followed. Set web.searxng_url to the "
                "address that answers."
            )
        return target


_OFFLINE = (
    (
        ("dns", "name resolution", "resolve", "name or service not known", "nodename"),
        "its name does not resolve (is this machine offline?)",
    ),
    (
        (
            "connection refused",
            "connecterror",
            "connect error",
            "network is unreachable",
            "no route to host",
            "connection reset",
        ),
        "no connection to it (is this machine offline, or a proxy needed?)",
    ),
    (("certificate", "ssl", "tls"), "its TLS certificate was not accepted"),
)


def _reason(exc: Exception) -> str:
    """One readable clause for a network failure: what kind, not the library's whole chain."""
    text = " ".join(str(exc).split())
    said = f"{type(exc).__name__} {text}".lower()
    for words, reason in _OFFLINE:
        if any(word in said for word in words):
            return reason
    text = text[:160]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _check_status(response: httpx.Response, host: str) -> None:
    status = response.status_code
    if status == 403:
        raise Unsupported(
            f"SearxNG at {host} refused format=json (HTTP 403): add 'json' to search.formats "
            "in its settings.yml."
        )
    if status == 429:
        raise RateLimited(f"SearxNG at {host} is rate limiting searches (HTTP 429).")
    if not 200 <= status < 300:
        raise BackendUnavailable(f"SearxNG at {host} answered HTTP {status}.")


def _read_capped(response: httpx.Response, deadline: float, timeout: float) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
        raise _too_large()
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > MAX_RESPONSE_BYTES:
            raise _too_large()
        if time.monotonic() > deadline:
            raise Timeout(f"SearxNG took longer than {timeout:g} s to send its answer.")
    return bytes(body)


def _too_large() -> BackendUnavailable:
    return BackendUnavailable(
        f"SearxNG sent more than {MAX_RESPONSE_BYTES // (1024 * 1024)} MB; answer not read."
    )


def _searxng_results(body: bytes) -> list[SearchResult]:
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise BackendUnavailable("SearxNG answered with something that is not JSON.") from exc
    items = data.get("results") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise BackendUnavailable("SearxNG's answer has no 'results' list.")
    return [
        SearchResult(_text(item.get("title")), item["url"], _text(item.get("content")))
        for item in items
        if isinstance(item, dict) and isinstance(item.get("url"), str)
    ]


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


class DuckDuckGoProvider:
    """DuckDuckGo's HTML endpoint through the ``ddgs`` package's text search."""

    name = "duckduckgo"
    hosts = ("html.duckduckgo.com",)  # the only host ddgs' "duckduckgo" backend contacts

    def __init__(self, timeout: float) -> None:
        self._timeout = max(1, ceil(timeout))  # ddgs takes whole seconds

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        from ddgs import DDGS  # imported on first search: it loads the whole scraper stack
        from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

        try:
            found = DDGS(timeout=self._timeout).text(
                query, max_results=max_results, backend="duckduckgo"
            )
        except RatelimitException as exc:
            raise RateLimited("DuckDuckGo is rate limiting searches; try again later.") from exc
        except TimeoutException as exc:
            raise Timeout(f"DuckDuckGo did not answer within {self._timeout} s.") from exc
        except DDGSException as exc:
            if str(exc) == "No results found.":  # ddgs' way of saying "nothing matched"
                return []
            raise BackendUnavailable(f"DuckDuckGo cannot be reached: {_reason(exc)}.") from exc
        except Exception as exc:  # a scraper of third-party HTML: any surprise is an outage
            raise BackendUnavailable(f"DuckDuckGo search failed: {_reason(exc)}.") from exc
        return [_ddgs_result(item) for item in found if isinstance(item.get("href"), str)]


def _ddgs_result(item: dict[str, Any]) -> SearchResult:
    return SearchResult(_text(item.get("title")), item["href"], _text(item.get("body")))


class UnconfiguredProvider:
    """No usable provider: every search says how to configure one."""

    name = "none"
    hosts: tuple[str, ...] = ()

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        raise Unsupported(f"Web search is not available: {self.reason}. {CONFIG_HINT}")


# -- the service -------------------------------------------------------------------------------


@dataclass(frozen=True)
class WebSearchService:
    provider: SearchProvider
    rules: DomainRules = field(default_factory=DomainRules)

    def search(
        self, query: str, max_results: int = 10, *, rules: DomainRules | None = None
    ) -> dict[str, Any]:
        """Search, under this service's rules and, when given, the caller's rules as well."""
        text = _check_query(query)
        limit = _check_max_results(max_results)
        gates = (self.rules,) if rules is None else (self.rules, rules)
        self._check_outbound(gates)
        found = self.provider.search(text, limit)
        results = [_wire(r) for r in found if _publishable(r.url, gates)][:limit]
        return {
            "query": text,
            "provider": self.provider.name,
            "results": results,
            "count": len(results),
        }

    def _check_outbound(self, gates: Sequence[DomainRules]) -> None:
        for host in self.provider.hosts:
            for gate in gates:
                reason = gate.refusal(host)
                if reason is not None:
                    raise PermissionDenied(
                        f"web_search may not contact {self.provider.name} at '{host}': {reason} "
                        "in the web_search rules of governance.yaml.",
                        host=host,
                    )


def _check_query(query: str) -> str:
    text = query.strip() if isinstance(query, str) else ""
    if not text:
        raise InvalidParams("'query' must not be empty.", field="query")
    if len(text) > QUERY_MAX:
        raise InvalidParams(
            f"'query' is {len(text)} characters; at most {QUERY_MAX} are accepted.", field="query"
        )
    if any(unicodedata.category(ch) == "Cc" for ch in text):
        raise InvalidParams("'query' must not contain control characters.", field="query")
    return text


def _check_max_results(max_results: int) -> int:
    if isinstance(max_results, bool) or not isinstance(max_results, int):
        raise InvalidParams("'max_results' must be an integer.", field="max_results")
    if not 1 <= max_results <= RESULTS_MAX:
        raise InvalidParams(
            f"'max_results' must be between 1 and {RESULTS_MAX} (got {max_results}).",
            field="max_results",
        )
    return max_results


def _publishable(url: str, gates: Sequence[DomainRules]) -> bool:
    if len(url) > URL_MAX or any(ch.isspace() or ch == "\\" or not ch.isprintable() for ch in url):
        return False  # parsers disagree on such URLs: the host we check may not be the one opened
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        return False
    return all(gate.permits(url) for gate in gates)


def _wire(result: SearchResult) -> dict[str, str]:
    return {
        "title": _clip(result.title, TITLE_MAX),
        "url": result.url,
        "snippet": _clip(result.snippet, SNIPPET_MAX),
    }


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


# -- from the configuration --------------------------------------------------------------------


def web_service_from_config(web: WebConfig, rules: DomainRules) -> WebSearchService:
    """The service ``[web]`` in config.toml describes; a missing provider fails each search."""
    return WebSearchService(_provider(web), rules)


def _provider(web: WebConfig) -> SearchProvider:
    if web.provider == "duckduckgo":
        return DuckDuckGoProvider(web.timeout_seconds)
    if web.provider == "none":
        return UnconfiguredProvider('web.provider is "none"')
    if not web.searxng_url.strip():
        return UnconfiguredProvider('web.provider is "searxng" but web.searxng_url is not set')
    import httpx

    try:
        return SearxNGProvider(web.searxng_url, web.timeout_seconds)
    except (ValueError, httpx.InvalidURL):
        return UnconfiguredProvider(f"web.searxng_url '{web.searxng_url}' is not an http(s) URL")
