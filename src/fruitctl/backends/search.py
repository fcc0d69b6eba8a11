"""Web search providers: a SearxNG instance (its JSON API over httpx, every redirect, status,
size and time limit checked here) or DuckDuckGo (the ``ddgs`` package). Every failure of theirs
becomes a ``FruitctlError`` with a one-line message; a provider that is not configured says how
to configure one."""

from __future__ import annotations

import json
import time
from math import ceil
from typing import TYPE_CHECKING, Any

from fruitctl.domain.errors import BackendUnavailable, RateLimited, Timeout, Unsupported
from fruitctl.ports import SearchResult

if TYPE_CHECKING:  # imported where a search runs: most commands never search
    import httpx

MAX_RESPONSE_BYTES = 2 * 1024 * 1024
MAX_REDIRECTS = 3
CONFIG_HINT = (
    'Configure it in the [web] section of config.toml: provider = "duckduckgo", or '
    'provider = "searxng" with searxng_url = "http://host:port" (a SearxNG instance with '
    "the JSON format enabled)."
)


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
            raise Timeout.no_answer(where, self._timeout) from exc
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


def provider(name: str, searxng_url: str, timeout: float) -> Any:
    """The provider ``[web]`` in config.toml names (``duckduckgo``, ``searxng`` with its URL,
    or ``none``); one that cannot work answers every search with what to configure."""
    if name == "duckduckgo":
        return DuckDuckGoProvider(timeout)
    if name == "none":
        return UnconfiguredProvider('web.provider is "none"')
    if not searxng_url.strip():
        return UnconfiguredProvider('web.provider is "searxng" but web.searxng_url is not set')
    import httpx

    try:
        return SearxNGProvider(searxng_url, timeout)
    except (ValueError, httpx.InvalidURL):
        return UnconfiguredProvider(f"web.searxng_url '{searxng_url}' is not an http(s) URL")
