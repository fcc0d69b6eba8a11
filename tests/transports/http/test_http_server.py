"""The HTTP server for real (uvicorn on a loopback port), its address rules, and a desktop
notification for a proposal from any front door (the notifier itself: ``test_http_notify``)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_wire import initialize

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.startup import CannotListen, NotAllowed
from fruitctl.transports.http import announce
from fruitctl.transports.http.server import HttpServer
from fruitctl.transports.http.tokens import TokenStore, secrets_dir
from fruitctl.transports.mcp_access import ensure_token
from fruitctl.transports.net import is_loopback

AGENT = Actor("agent", "mcp-client")
INITIALIZE = initialize()


class Recorder:
    """A notifier that writes down what it was asked to show."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []
        self.links: list[str | None] = []
        self.arrived = threading.Event()

    def send(self, title: str, body: str, link: str | None = None) -> bool:
        self.sent.append((title, body))
        self.links.append(link)
        self.arrived.set()
        return True

    def busy(self) -> bool:
        return False

    def close(self) -> None:
        pass


@pytest.fixture
def app(home: Path) -> Any:
    built = bootstrap.build()
    yield built
    built.close()


def test_serves_on_a_free_port_with_real_http(app: bootstrap.App) -> None:
    tokens = TokenStore(secrets_dir(app))
    token = tokens.issue("agent", 600, "t")[0]
    server = HttpServer(app, "127.0.0.1", 0, tokens=tokens, notifier=Recorder())  # type: ignore[arg-type]
    with server.running() as url:
        assert url.startswith("http://127.0.0.1:") and not url.endswith(":0")
        with httpx.Client(base_url=url) as client:
            assert client.get("/health").json()["status"] == "ok"
            headers = {"Authorization": f"Bearer {token}"}
            pending = client.post("/reminders", json={"title": "x"}, headers=headers).json()
            assert pending["url"] == f"{url}/ui/proposals/{pending['proposalId']}"
            rebound = client.get("/health", headers={"Host": "evil.test"})
            assert rebound.status_code == 421  # misdirected: the edge of both doors
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/health", timeout=2)


def test_an_agent_token_spends_one_budget_on_both_doors(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRUITCTL_HTTP__REQUESTS_PER_MINUTE", "3")
    app = bootstrap.build()
    try:
        issuer = TokenStore(secrets_dir(app))  # as the CLI issues them: no limiter of its own
        spender, other = (issuer.issue("agent", 600, name)[0] for name in ("one", "two"))
        server = HttpServer(app, "127.0.0.1", 0, notifier=Recorder())  # type: ignore[arg-type]
        with server.running() as url, httpx.Client(base_url=url, timeout=20) as client:

            def api(token: str) -> httpx.Response:
                headers = {"Authorization": f"Bearer {token}"}
                return client.get("/reminders/lists", headers=headers)

            def mcp(token: str) -> httpx.Response:
                headers = {
                    "Authorization": f"Bearer {token}",
                    "Accept": "application/json, text/event-stream",
                }
                return client.post("/mcp", json=INITIALIZE, headers=headers)

            spent = [api(spender), mcp(spender), api(spender)]  # fewer than 3 on either door
            limited = [mcp(spender), api(spender)]
            others = [api(other), mcp(other)]
            own = [mcp(ensure_token(app)) for _ in range(4)]  # the server's token: not counted
    finally:
        app.close()
    assert [r.status_code for r in spent] == [200, 200, 200]
    mcp_limited, api_limited = limited
    assert mcp_limited.status_code == 429
    assert mcp_limited.json()["error"]["message"].startswith("Too many requests for this token")
    assert api_limited.status_code == 429
    # One edge: the same refusal object at both doors.
    assert mcp_limited.json()["error"]["code"] == api_limited.json()["error"]["code"]
    assert api_limited.json()["error"]["code"] == "RATE_LIMITED"
    assert all(1 <= int(r.headers["retry-after"]) <= 60 for r in limited)
    assert spender not in mcp_limited.text + api_limited.text
    assert [r.status_code for r in others + own] == [200] * 6


def test_both_doors_answer_to_the_public_url_and_links_use_it(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRUITCTL_HTTP__PUBLIC_URL", "https://mac-mini.tailnet.ts.net")
    app = bootstrap.build()
    try:
        token = TokenStore(secrets_dir(app)).issue("agent", 600, "t")[0]
        server = HttpServer(app, "127.0.0.1", 0, notifier=Recorder())  # type: ignore[arg-type]
        with server.running() as url, httpx.Client(base_url=url, timeout=20) as client:
            bearer = {"Authorization": f"Bearer {token}"}
            mcp_headers = {**bearer, "Accept": "application/json, text/event-stream"}

            def both(host: str, origin: str | None = None) -> list[int]:
                extra = {"Host": host, **({"Origin": origin} if origin else {})}
                api = client.get("/reminders/lists", headers={**bearer, **extra})
                mcp = client.post("/mcp", json=INITIALIZE, headers={**mcp_headers, **extra})
                return [api.status_code, mcp.status_code]

            public = both("mac-mini.tailnet.ts.net", "https://mac-mini.tailnet.ts.net")
            foreign = both("evil.test")
            pending = client.post("/reminders", json={"title": "x"}, headers=bearer).json()
    finally:
        app.close()
    assert public == [200, 200]
    assert foreign == [421, 421]  # one edge: the same refusal at both doors
    assert pending["url"].startswith("https://mac-mini.tailnet.ts.net/ui/proposals/")


@pytest.mark.slow
def test_a_busy_port_fails_before_serving(app: bootstrap.App) -> None:
    first = HttpServer(app, "127.0.0.1", 0, notifier=Recorder())  # type: ignore[arg-type]
    with first.running() as url:
        port = int(url.rsplit(":", 1)[1])
        with pytest.raises(CannotListen, match="cannot listen") as busy:
            HttpServer(app, "127.0.0.1", port).bind()
    # What to do about it, in the same line.
    assert "--port" in str(busy.value) and "[http] port" in str(busy.value)
    assert "--port 0" in str(busy.value)


def test_non_loopback_needs_a_token_first(app: bootstrap.App) -> None:
    tokens = TokenStore(secrets_dir(app))
    with pytest.raises(NotAllowed, match="needs tokens") as refused:
        HttpServer(app, "0.0.0.0", 0, tokens=tokens).bind()
    assert refused.value.exit_code == 5
    tokens.issue("admin", 600, "me")
    server = HttpServer(app, "0.0.0.0", 0, tokens=tokens)
    server.bind()
    assert "reachable from the network" in server.warnings[0]
    server.close()


def test_loopback_names() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "localhost", "::1", "[::1]", "127.8.9.10"]))
    assert not any(map(is_loopback, ["0.0.0.0", "100.64.0.1", "example.com", "::"]))


@pytest.mark.slow
def test_a_proposal_from_another_front_door_is_announced_once(app: bootstrap.App) -> None:
    already = app.gateway.invoke("create_reminders", {"reminders": [{"title": "old"}]}, AGENT)
    recorder = Recorder()
    server = HttpServer(app, "127.0.0.1", 0, notifier=recorder)  # type: ignore[arg-type]
    with server.running() as url:
        fresh = app.gateway.invoke("create_reminders", {"reminders": [{"title": "new"}]}, AGENT)
        assert recorder.arrived.wait(20), "no notification arrived"
    [(title, body)] = recorder.sent
    assert title == announce.TITLE
    assert "'new'" in body and "'old'" not in body
    assert f"{url}/ui/proposals/{fresh.output['proposalId']}" in body
    assert recorder.links == [f"{url}/ui/proposals/{fresh.output['proposalId']}"]
    assert already.output["proposalId"] not in body


async def _mcp_tools(url: str, token: str) -> list[str]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        return [tool.name for tool in (await client.list_tools()).tools]


def test_mcp_is_served_at_slash_mcp_beside_the_api(app: bootstrap.App) -> None:
    server = HttpServer(app, "127.0.0.1", 0)
    with server.running() as url:
        names = anyio.run(_mcp_tools, f"{url}/mcp", ensure_token(app))
        without_token = httpx.post(f"{url}/mcp", json={}, timeout=30)
        api = httpx.get(f"{url}/health", timeout=30)
    assert "query_reminders" in names and "calendar_upcoming" in names
    assert without_token.status_code == 401  # MCP keeps its own guard and token
    assert api.status_code == 200


def test_the_servers_mcp_offers_the_config_set_narrowed_by_each_token(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[mcp]\ntools = ["reminders", "calendar"]\n')
    built = bootstrap.build()
    store = TokenStore(secrets_dir(built))
    narrow, _ = store.issue("agent", 3600, "lists-only", frozenset({"get_lists", "web_search"}))
    try:
        with HttpServer(built, "127.0.0.1", 0, tokens=store).running() as url:
            own = anyio.run(_mcp_tools, f"{url}/mcp", ensure_token(built))
            token = anyio.run(_mcp_tools, f"{url}/mcp", narrow)
            bearer = {"Authorization": f"Bearer {narrow}"}
            api = httpx.get(f"{url}/tools", headers=bearer, timeout=30)
    finally:
        built.close()
    assert "query_events" in own and "get_lists" in own and "web_search" not in own
    assert token == ["get_lists"]  # web_search is the token's, not the server's
    assert {tool["name"] for tool in api.json()} == {"get_lists", "web_search"}  # [mcp] is MCP's
