"""fetch_url through every door - the gateway, MCP, the HTTP API, the socket and the CLI - each
call run in its sandbox child, against a real HTTP server on 127.0.0.1 that governance.yaml
permits on purpose (loopback is refused by default); and at each door, a redirect from that
server to a cloud metadata address refused at that hop."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import jsonschema
import pytest
from mcp.client import Client
from searx_server import FakeSearx, Handler, send
from socket_daemon import Raw, running, short_home
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.capabilities import all_tools
from fruitctl.cli.app import app as cli_app
from fruitctl.domain.actors import Actor
from fruitctl.transports import aai
from fruitctl.transports.http.app import create_app
from fruitctl.transports.http.tokens import TokenStore, secrets_dir
from fruitctl.transports.mcp import build_server
from fruitctl.transports.rpc.methods import alias_of

pytestmark = pytest.mark.process  # every call starts the tool's sandbox child

PERMIT_LOOPBACK = "tools:\n  fetch_url:\n    allowed_private_networks: ['127.0.0.1']\n"
METADATA = "http://169.254.169.254/latest/meta-data/"
AGENT = Actor("agent", "test-agent")


def respond(h: Handler) -> None:
    if h.path == "/away":
        send(h, 302, b"", Location=METADATA)
    else:
        send(h, 200, b"<title>Fruit</title><p>Apples</p>", content_type="text/html")


@pytest.fixture
def page(searx: FakeSearx) -> FakeSearx:
    searx.respond = respond
    return searx


@pytest.fixture
def permitted(home: Path) -> Iterator[bootstrap.App]:
    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(PERMIT_LOOPBACK)
    built = bootstrap.build()
    yield built
    built.close()


def assert_page(answer: dict[str, Any], page: FakeSearx) -> None:
    assert answer["final_url"] == f"{page.url}/fruit"
    assert (answer["status"], answer["title"], answer["text"]) == (200, "Fruit", "Apples")
    assert answer["cut"] is False


def test_the_gateway_runs_it_in_the_child_under_the_rules(
    permitted: bootstrap.App, page: FakeSearx, home: Path
) -> None:
    tool = next(t for t in permitted.gateway.registry if t.name == "fetch_url")
    assert tool.child is not None and tool.child_limits.network is True
    done = permitted.gateway.invoke("fetch_url", {"url": f"{page.url}/fruit"}, AGENT)
    assert done.success, done.error
    assert_page(done.output, page)


def test_loopback_is_refused_without_the_rule(home: Path, page: FakeSearx) -> None:
    built = bootstrap.build()
    try:
        result = built.gateway.invoke("fetch_url", {"url": page.url}, AGENT)
    finally:
        built.close()
    assert not result.success and result.error is not None
    assert result.error_code == "permission_denied"
    assert "127.0.0.1 is a loopback" in result.error
    assert page.paths == []


def test_mcp(permitted: bootstrap.App, page: FakeSearx) -> None:
    tool = next(t for t in permitted.gateway.registry if t.name == "fetch_url")

    async def main() -> tuple[Any, Any]:
        async with Client(build_server(permitted.gateway)) as client:
            fetched = await client.call_tool("fetch_url", {"url": f"{page.url}/fruit"})
            refused = await client.call_tool("fetch_url", {"url": f"{page.url}/away"})
            return fetched, refused

    fetched, refused = anyio.run(main)  # the SDK's client checks structuredContent's schema
    assert not fetched.is_error, fetched.content[0].text
    answer = json.loads(fetched.content[0].text)
    jsonschema.validate(answer, aai.returns_schema(tool))
    assert_page(answer, page)
    assert refused.is_error and "cloud metadata address" in refused.content[0].text
    assert page.paths == ["/fruit", "/away"]


def test_http_api(permitted: bootstrap.App, page: FakeSearx) -> None:
    tokens = TokenStore(secrets_dir(permitted))
    token = tokens.issue("agent", 3600, "claude")[0]
    api = create_app(permitted, tokens=tokens)

    async def post(body: dict[str, Any]) -> httpx.Response:
        transport = httpx.ASGITransport(app=api)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            headers = {"Authorization": f"Bearer {token}"}
            return await c.post("/tools/fetch_url", json=body, headers=headers, timeout=60)

    fetched = anyio.run(post, {"url": f"{page.url}/fruit"})
    assert fetched.status_code == 200, fetched.text
    assert_page(fetched.json(), page)
    refused = anyio.run(post, {"url": f"{page.url}/away"})
    assert refused.status_code == 403, refused.text
    error = refused.json()["error"]
    assert error["code"] == "PERMISSION_DENIED" and "cloud metadata" in error["message"]


def test_socket(page: FakeSearx) -> None:
    tool = next(t for t in all_tools() if t.name == "fetch_url")
    with short_home() as home:
        (home / "governance.yaml").write_text(PERMIT_LOOPBACK)
        with running(home) as daemon, Raw(daemon.socket, timeout=60) as rpc:
            by_alias = rpc.request(alias_of(tool), {"url": f"{page.url}/fruit"})
            by_call = rpc.request(
                "tools.call", {"name": "fetch_url", "arguments": {"url": f"{page.url}/away"}}
            )
    assert alias_of(tool) == "web.fetch_url"
    assert_page(by_alias["result"], page)
    assert by_call["error"]["code"] == "permission_denied"
    assert "cloud metadata address" in by_call["error"]["message"]


def test_cli(home: Path, page: FakeSearx) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(PERMIT_LOOPBACK)
    runner = CliRunner()

    def call(url: str) -> Any:
        args = json.dumps({"url": url})
        return runner.invoke(cli_app, ["tools", "call", "fetch_url", "--args", args, "--json"])

    fetched = call(f"{page.url}/fruit")
    assert fetched.exit_code == 0, fetched.output
    assert_page(json.loads(fetched.stdout), page)
    refused = call(f"{page.url}/away")
    assert refused.exit_code != 0
    assert json.loads(refused.stdout)["error"]["code"] == "permission_denied"
