"""web_search against a real HTTP server on 127.0.0.1 that speaks SearxNG's JSON: nothing in the
transport is mocked, so redirects, timeouts and size caps are httpx's real behaviour."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import ValidationError
from searx_server import (
    SEARX_ANSWER,
    FakeSearx,
    Handler,
    Respond,
    huge_answer,
    json_answer,
    redirect_to,
    running_searx,
    send,
    slow_answer,
)

from fruitctl.backend_factories import web_search_service
from fruitctl.backends.search import DuckDuckGoProvider, SearxNGProvider
from fruitctl.capabilities.context import Context
from fruitctl.capabilities.web.service import WebSearchService
from fruitctl.capabilities.web.tools import TOOLS, WebSearchInput, web_search
from fruitctl.config import WebConfig
from fruitctl.domain.errors import (
    BackendUnavailable,
    FruitctlError,
    InvalidParams,
    PermissionDenied,
    Timeout,
    Unsupported,
)
from fruitctl.domain.hosts import DomainRules
from fruitctl.policy.governance import ToolRules

ANY_HOST = DomainRules()


@pytest.fixture
def other_searx() -> Iterator[FakeSearx]:
    with running_searx() as server:
        yield server


def service_for(
    server: FakeSearx, rules: DomainRules = ANY_HOST, timeout: float = 2.0
) -> WebSearchService:
    return WebSearchService(SearxNGProvider(server.url, timeout), rules)


def urls(answer: dict[str, Any]) -> list[str]:
    return [r["url"] for r in answer["results"]]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- results -----------------------------------------------------------------------------------


def test_results_are_parsed_and_shaped(searx: FakeSearx) -> None:
    answer = service_for(searx).search("  fresh fruit  ")

    assert answer["query"] == "fresh fruit"
    assert answer["provider"] == "searxng"
    assert answer["count"] == 4  # no URL and javascript: are not results
    assert answer["results"][0] == {
        "title": "Apples",
        "url": "https://example.org/apples",
        "snippet": "All about apples.",
    }
    assert answer["results"][3]["snippet"] == ""
    [path] = searx.paths
    assert urlsplit(path).path == "/search"
    assert parse_qs(urlsplit(path).query) == {"q": ["fresh fruit"], "format": ["json"]}


def test_max_results_caps_the_results(searx: FakeSearx) -> None:
    answer = service_for(searx).search("fruit", max_results=2)

    assert urls(answer) == ["https://example.org/apples", "https://shop.example.org/pears"]
    assert answer["count"] == 2


def test_a_base_url_with_a_path_keeps_it(searx: FakeSearx) -> None:
    provider = SearxNGProvider(searx.url + "/searx/", 2.0)

    provider.search("fruit", 5)

    assert urlsplit(searx.paths[0]).path == "/searx/search"


# -- domain rules ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "refusal"),
    [
        (DomainRules(allowed=["example.org"]), "not in allowed_domains"),
        (DomainRules(forbidden=["127.0.0.1"]), "in forbidden_domains"),
    ],
)
def test_outbound_gate_refuses_before_any_request(
    searx: FakeSearx, rules: DomainRules, refusal: str
) -> None:
    with pytest.raises(PermissionDenied) as caught:
        service_for(searx, rules).search("fruit")

    assert "'127.0.0.1'" in caught.value.message
    assert refusal in caught.value.message
    assert searx.paths == []


def test_forbidden_result_domains_are_dropped(searx: FakeSearx) -> None:
    answer = service_for(searx, DomainRules(forbidden=["example.org"])).search("fruit")

    assert urls(answer) == ["https://badexample.org/fruit", "http://evil.test/x"]
    assert answer["count"] == 2


def test_allowed_domains_keep_subdomains_not_lookalikes(searx: FakeSearx) -> None:
    rules = DomainRules(allowed=["127.0.0.1", "example.org"])

    answer = service_for(searx, rules).search("fruit")

    assert urls(answer) == ["https://example.org/apples", "https://shop.example.org/pears"]


@pytest.mark.parametrize(
    ("rule", "host", "covered"),
    [
        ("example.org", "example.org", True),
        ("example.org", "a.example.org", True),
        ("example.org", "https://A.Example.ORG./path?q=1", True),
        ("example.org", "badexample.org", False),
        ("example.org", "example.org.evil.test", False),
        ("example.org", "http://example.org@evil.test/", False),  # the host is evil.test
        ("*.example.org", "deep.a.example.org", True),
        ("xn--bcher-kva.de", "BÜCHER.de", True),
        ("bücher.de", "https://www.xn--bcher-kva.de/", True),
        ("127.0.0.1", "http://127.0.0.1:8080/search", True),
        ("127.0.0.1", "http://2130706433/", True),  # the same address, written as a number
        ("0.0.1", "127.0.0.1", False),
        ("localhost", "localhost:8888", True),
        ("localhost", "evil.localhost", False),
        ("::1", "http://[0:0::1]:8080/", True),
        ("127.0.0.1", "http://[::ffff:127.0.0.1]/", True),
    ],
)
def test_a_rule_covers_its_domain_and_subdomains_only(rule: str, host: str, covered: bool) -> None:
    assert DomainRules(allowed=[rule]).permits(host) is covered
    assert DomainRules(forbidden=[rule]).permits(host) is not covered


def test_forbidden_wins_and_nothing_listed_permits_any_valid_host() -> None:
    rules = DomainRules(allowed=["example.org"], forbidden=["ads.example.org"])

    assert rules.permits("example.org")
    assert not rules.permits("x.ads.example.org")
    assert ANY_HOST.permits("anything.test")
    assert not ANY_HOST.permits("not a host")
    assert not ANY_HOST.permits("http://")


def test_a_rule_that_is_not_a_host_is_refused() -> None:
    with pytest.raises(ValueError, match=r"allowed_domains: 'exa mple\.org'"):
        DomainRules(allowed=["exa mple.org"])
    with pytest.raises(TypeError, match="forbidden_domains must be a list"):
        DomainRules(forbidden="evil.test")


def test_governance_rules_convert() -> None:
    rules = DomainRules.from_tool_rules(
        ToolRules(allowed_domains=["Example.org"], forbidden_domains=["ads.example.org"])
    )

    assert rules == DomainRules(allowed=["example.org"], forbidden=["ads.example.org"])


# -- failures ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("respond", "error", "words"),
    [
        (json_answer({"detail": "boom"}, status=500), BackendUnavailable, "HTTP 500"),
        (lambda h: send(h, 200, b"<html>surely not JSON"), BackendUnavailable, "not JSON"),
        (json_answer({"answers": []}), BackendUnavailable, "no 'results' list"),
        (json_answer({"error": "slow down"}, status=429), FruitctlError, "rate limiting"),
        (slow_answer, Timeout, "did not answer within 0.3 s"),
        (huge_answer(declare_length=True), BackendUnavailable, "more than 2 MB"),
        (huge_answer(declare_length=False), BackendUnavailable, "more than 2 MB"),
    ],
    ids=["http-500", "garbage", "no-results", "http-429", "too-slow", "too-big", "too-big-chunks"],
)
def test_server_failures_are_retryable_errors(
    searx: FakeSearx, respond: Respond, error: type[FruitctlError], words: str
) -> None:
    searx.respond = respond
    started = time.monotonic()

    with pytest.raises(error) as caught:
        service_for(searx, timeout=0.3).search("fruit")

    assert caught.value.retryable is True
    assert words in caught.value.message
    assert "Traceback" not in caught.value.message and "\n" not in caught.value.message
    assert time.monotonic() - started < 2


def test_json_format_disabled_says_how_to_enable_it(searx: FakeSearx) -> None:
    searx.respond = lambda h: send(h, 403, b"Forbidden", content_type="text/plain")

    with pytest.raises(Unsupported, match=r"search\.formats"):
        service_for(searx).search("fruit")


def test_nothing_listening_is_backend_unavailable() -> None:
    service = WebSearchService(SearxNGProvider(f"http://127.0.0.1:{closed_port()}", 1.0))

    with pytest.raises(BackendUnavailable, match="cannot be reached") as caught:
        service.search("fruit")

    assert caught.value.retryable is True
    assert caught.value.message.endswith(
        "no connection to it (is this machine offline, or a proxy needed?)."
    )


def test_an_offline_machine_reads_as_one_plain_line() -> None:
    # .invalid never resolves (RFC 6761): what an offline machine sees for any name.
    service = WebSearchService(SearxNGProvider("http://search.invalid", 1.0))
    with pytest.raises(BackendUnavailable) as caught:
        service.search("fruit")
    message = caught.value.message
    assert message == (
        "SearxNG at search.invalid cannot be reached: its name does not resolve "
        "(is this machine offline?)."
    )


def test_a_redirect_to_another_host_is_not_followed(
    searx: FakeSearx, other_searx: FakeSearx
) -> None:
    searx.respond = redirect_to(f"http://localhost:{other_searx.port}/search?q=fruit&format=json")

    with pytest.raises(BackendUnavailable, match="another host") as caught:
        service_for(searx).search("fruit")

    assert caught.value.retryable is True
    assert len(searx.paths) == 1
    assert other_searx.paths == []


def test_a_redirect_on_the_same_host_is_followed(searx: FakeSearx) -> None:
    def moved(h: Handler) -> None:
        if h.path.startswith("/search"):
            redirect_to("/v2" + h.path)(h)
        else:
            json_answer(SEARX_ANSWER)(h)

    searx.respond = moved

    answer = service_for(searx).search("fruit")

    assert answer["count"] == 4
    assert [urlsplit(p).path for p in searx.paths] == ["/search", "/v2/search"]


def test_endless_redirects_stop(searx: FakeSearx) -> None:
    searx.respond = lambda h: redirect_to(h.path)(h)

    with pytest.raises(BackendUnavailable, match="redirected more than 3 times"):
        service_for(searx).search("fruit")

    assert len(searx.paths) == 4


# -- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", "x" * 501, "fruit\x00", "fruit\nsalad", "\x1b[2J"])
def test_bad_queries_are_refused_before_any_request(searx: FakeSearx, query: str) -> None:
    with pytest.raises(InvalidParams) as caught:
        service_for(searx).search(query)

    assert caught.value.details == {"field": "query"}
    assert searx.paths == []


@pytest.mark.parametrize("max_results", [0, 51, -1, True])
def test_bad_max_results_are_refused(searx: FakeSearx, max_results: int) -> None:
    with pytest.raises(InvalidParams, match="max_results"):
        service_for(searx).search("fruit", max_results)

    assert searx.paths == []


def test_the_longest_query_is_accepted(searx: FakeSearx) -> None:
    assert service_for(searx).search("x" * 500)["count"] == 4


# -- configuration -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "words"),
    [
        (WebConfig(provider="none"), 'web.provider is "none"'),
        (WebConfig(provider="searxng"), "web.searxng_url is not set"),
        (WebConfig(provider="searxng", searxng_url="ftp://files.test"), "not an http(s) URL"),
    ],
)
def test_no_provider_says_how_to_configure_one(config: WebConfig, words: str) -> None:
    service = web_search_service(config, ANY_HOST)

    with pytest.raises(Unsupported) as caught:
        service.search("fruit")

    assert words in caught.value.message
    assert "[web]" in caught.value.message and "config.toml" in caught.value.message
    assert caught.value.retryable is False


def test_searxng_from_config_searches(searx: FakeSearx) -> None:
    config = WebConfig(provider="searxng", searxng_url=searx.url + "/", timeout_seconds=2)
    rules = DomainRules(forbidden=["evil.test"])

    answer = web_search_service(config, rules).search("fruit", 10)

    assert answer["provider"] == "searxng"
    assert "http://evil.test/x" not in urls(answer)


# -- the tool ----------------------------------------------------------------------------------


def tool_context(service: WebSearchService, rules: ToolRules) -> Context:
    return Context({"web": lambda: service}, lambda name: rules)


def test_the_tool_is_declared() -> None:
    definition = web_search.definition

    assert TOOLS[0] is web_search and [t.name for t in TOOLS] == ["web_search", "fetch_url"]
    assert (definition.name, definition.category, definition.risk_level) == (
        "web_search",
        "network",
        "medium",
    )
    assert definition.open_world and definition.annotations.openWorldHint
    assert definition.title == "Search the web"
    assert definition.rate_limit_per_hour is None
    assert [(p.name, p.required, p.default) for p in definition.parameters] == [
        ("query", True, None),
        ("max_results", False, 10),
    ]
    assert all(p.description for p in definition.parameters)
    assert "Search the public web" in definition.description


@pytest.mark.parametrize(
    "arguments", [{"query": ""}, {"query": "x", "max_results": 51}, {"query": "x", "page": 2}]
)
def test_the_tool_input_is_checked(arguments: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        WebSearchInput.model_validate(arguments)


def test_the_tool_applies_its_governance_rules(searx: FakeSearx) -> None:
    ctx = tool_context(service_for(searx), ToolRules(forbidden_domains=["example.org"]))

    answer = web_search.function(WebSearchInput(query="fruit", max_results=3), ctx)

    assert urls(answer) == ["https://badexample.org/fruit", "http://evil.test/x"]


def test_the_tool_gate_uses_its_governance_rules(searx: FakeSearx) -> None:
    ctx = tool_context(service_for(searx), ToolRules(allowed_domains=["example.org"]))

    with pytest.raises(PermissionDenied, match="web_search may not contact searxng"):
        web_search.function(WebSearchInput(query="fruit"), ctx)

    assert searx.paths == []


# -- DuckDuckGo --------------------------------------------------------------------------------


def test_duckduckgo_is_built_without_touching_the_network() -> None:
    service = web_search_service(WebConfig(provider="duckduckgo"), ANY_HOST)

    assert isinstance(service.provider, DuckDuckGoProvider)
    assert service.provider.name == "duckduckgo"
    assert service.provider.hosts == ("html.duckduckgo.com",)


def test_duckduckgo_is_gated_like_any_provider() -> None:
    service = WebSearchService(DuckDuckGoProvider(2), DomainRules(allowed=["example.org"]))

    refusal = r"'html\.duckduckgo\.com' is not in allowed_domains"
    with pytest.raises(PermissionDenied, match=refusal):
        service.search("fruit")


def test_duckduckgo_unreachable_fails_retryably(monkeypatch: pytest.MonkeyPatch) -> None:
    """NETWORK-FREE BY CONSTRUCTION: ddgs is sent through a proxy on a closed loopback port, so
    the search fails at once, with or without internet, and must fail as a retryable error."""
    monkeypatch.setenv("DDGS_PROXY", f"http://127.0.0.1:{closed_port()}")
    service = WebSearchService(DuckDuckGoProvider(1))
    outcome: list[BaseException | dict[str, Any]] = []

    def search() -> None:
        try:
            outcome.append(service.search("fruit"))
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=search, daemon=True)
    worker.start()
    worker.join(3)

    assert not worker.is_alive(), "ddgs did not give up within 3 s"
    [error] = outcome
    assert isinstance(error, BackendUnavailable | Timeout), error
    assert error.retryable is True
