"""A tool set per client, through the MCP SDK's own client: in memory, over stdio (``fruitctl mcp
--tools``, ``[mcp] tools``) and over streamable HTTP (a token's tool set); the ``reminders`` set
is exactly the Reminders MCP contract's five tools with its schemas; a tool outside a client's
set is refused and never runs; a tool the governance turns off in every mode is never listed."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import fruitctl
from fruitctl import bootstrap
from fruitctl.capabilities import all_tools, toolsets
from fruitctl.tools.model import MODES
from fruitctl.transports.http.tokens import TokenStore, secrets_dir
from fruitctl.transports.mcp import build_server
from fruitctl.transports.mcp_http import http_app
from fruitctl.transports.rpc.jsonrpc import Session
from fruitctl.transports.rpc.methods import build_methods

CONTRACT = ["query_reminders", "get_lists", "create_reminders", "update_reminders"]
CONTRACT += ["delete_reminders"]
EVERY_TOOL = {tool.name for tool in all_tools()}
SESSION_TIMEOUT_S = 60.0  # a whole stdio session; ~2 s when healthy
EVENT = {"title": "outside the set", "startAt": "2026-03-02T10:00:00+01:00"}
OFF = f"tools:\n  write_file: {{forbidden_in_modes: [{', '.join(MODES)}]}}\n"
TOKEN = "test-token-not-a-secret-0123456789"
PORT = 8766
SOURCE = Path(fruitctl.__file__).parents[1]
"""The fruitctl this test imported: the one the servers it starts must run."""


def contract_schemas() -> ModuleType:
    """The contract test's own comparison (its published schemas, its listed departures)."""
    path = Path(__file__).parents[1] / "contract" / "test_seed002_schemas.py"
    spec = importlib.util.spec_from_file_location("contract_seed002_schemas", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_the_contracts_tools(tools: list[types.Tool]) -> None:
    assert [tool.name for tool in tools] == CONTRACT
    contract = contract_schemas()
    for tool in tools:
        assert contract.as_seed(tool.name, tool.input_schema) == contract.seed(tool.name)


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


async def list_and_refuse(client: Client) -> tuple[list[types.Tool], MCPError | None]:
    """The tools listed, and the refusal of a write outside them."""
    tools = (await client.list_tools()).tools
    try:
        await client.call_tool("create_event", EVENT)
    except MCPError as exc:
        return tools, exc
    return tools, None


# -- in memory -----------------------------------------------------------------------------------


def in_memory(app: bootstrap.App, offered: toolsets.ToolSet) -> Any:
    async def main() -> Any:
        async with Client(build_server(app.gateway, offered=offered)) as client:
            return await list_and_refuse(client)

    return anyio.run(main)


def test_the_reminders_set_is_the_contracts_five_tools_with_its_schemas(
    app: bootstrap.App,
) -> None:
    tools, refused = in_memory(app, toolsets.resolve(["reminders"]))
    assert_the_contracts_tools(tools)
    assert refused is not None
    assert "Tool 'create_event' is not among this client's tools (create_reminders" in str(refused)
    assert app.approvals.recent() == []  # refused before the gateway: nothing was proposed


def test_without_a_set_every_tool_is_listed_and_runs(app: bootstrap.App) -> None:
    tools, refused = in_memory(app, None)
    assert {tool.name for tool in tools} == EVERY_TOOL
    assert refused is None  # create_event ran: a proposal
    assert [p["tool"] for p in app.approvals.recent()] == ["create_event"]


def test_a_tool_turned_off_in_every_mode_is_never_listed(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(OFF)
    built = bootstrap.build()
    try:
        tools, _ = in_memory(built, None)
        assert {tool.name for tool in tools} == EVERY_TOOL - {"write_file"}
        methods = build_methods(built.gateway, dict, "not-a-token")
        socket_list = methods["tools.list"].run({}, cast(Session, None))  # needs no session
        assert {tool["name"] for tool in socket_list["tools"]} == EVERY_TOOL - {"write_file"}
    finally:
        built.close()


# -- stdio: `fruitctl mcp --tools`, `[mcp] tools` ------------------------------------------------


def stdio(home: Path, *flags: str) -> tuple[list[types.Tool], MCPError | None]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "fruitctl", "mcp", *flags],
        env={"FRUITCTL_HOME": str(home), "TZ": "Europe/Rome", "PYTHONPATH": str(SOURCE)},
    )

    async def main() -> tuple[list[types.Tool], MCPError | None]:
        with anyio.fail_after(SESSION_TIMEOUT_S), open(os.devnull, "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                return await list_and_refuse(client)

    return anyio.run(main)


@pytest.mark.slow
def test_mcp_tools_reminders_over_stdio_serves_the_contract(home: Path) -> None:
    tools, refused = stdio(home, "--tools", "reminders")
    assert_the_contracts_tools(tools)
    assert refused is not None and "create_event" in str(refused)


@pytest.mark.slow
def test_the_config_set_serves_over_stdio_and_the_flag_overrides_it(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[mcp]\ntools = ["calendar", "get_lists"]\n')
    calendar = toolsets.resolve(["calendar", "get_lists"])
    tools, refused = stdio(home)
    assert {tool.name for tool in tools} == calendar
    assert refused is None  # create_event is a calendar tool
    tools, refused = stdio(home, "--tools", "web")
    assert [tool.name for tool in tools] == ["web_search", "fetch_url"]
    assert refused is not None


def run_mcp(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FRUITCTL_HOME": str(home), "PYTHONPATH": str(SOURCE)}
    command = [sys.executable, "-m", "fruitctl", "mcp", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.process  # fruitctl mcp, a process
def test_an_unknown_name_in_tools_stops_mcp_naming_it(home: Path) -> None:
    done = run_mcp(home, "--tools", "reminders,calender")
    assert done.returncode == 2
    assert "--tools" in done.stderr and "'calender' is neither a tool set nor a tool" in done.stderr
    assert done.stdout == ""


@pytest.mark.process  # fruitctl mcp, a process
def test_an_unknown_name_in_the_config_stops_mcp_naming_it(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[mcp]\ntools = ["remindrs"]\n')
    done = run_mcp(home)
    assert done.returncode != 0
    assert "config error" in done.stderr and "mcp.tools: 'remindrs' is neither" in done.stderr
    assert done.stdout == ""


# -- streamable HTTP: a token's tool set ---------------------------------------------------------


def over_http(app: bootstrap.App, token: str, offered: toolsets.ToolSet = None) -> Any:
    asgi = http_app(
        app.gateway,
        token=TOKEN,
        host="127.0.0.1",
        port=PORT,
        tokens=TokenStore(secrets_dir(app)),
        offered=offered,
    )

    async def main() -> Any:
        http = httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=asgi),
            headers={"Authorization": f"Bearer {token}"},
        )
        url = f"http://127.0.0.1:{PORT}/mcp"
        transport = streamable_http_client(url, http_client=http)
        async with asgi.running(), http, Client(transport) as client:
            return await list_and_refuse(client)

    return anyio.run(main)


def test_a_tokens_tool_set_is_what_it_sees_and_calls_over_mcp(app: bootstrap.App) -> None:
    store = TokenStore(secrets_dir(app))
    narrow, _ = store.issue("agent", 3600, "reminders-only", toolsets.resolve(["reminders"]))
    wide, _ = store.issue("agent", 3600, "everything")
    tools, refused = over_http(app, narrow)
    assert_the_contracts_tools(tools)
    assert refused is not None and "create_event" in str(refused)
    assert app.approvals.recent() == []
    tools, refused = over_http(app, wide)
    assert {tool.name for tool in tools} == EVERY_TOOL
    assert refused is None


def test_the_servers_set_narrows_every_token(app: bootstrap.App) -> None:
    store = TokenStore(secrets_dir(app))
    both, _ = store.issue("agent", 3600, "both", toolsets.resolve(["reminders", "create_event"]))
    offered = toolsets.resolve(["calendar"])
    tools, refused = over_http(app, both, offered)
    assert [tool.name for tool in tools] == ["create_event"]
    assert refused is None
    tools, refused = over_http(app, TOKEN, offered)  # the server's own token: its set alone
    assert {tool.name for tool in tools} == offered


def test_a_tool_turned_off_in_every_mode_is_not_in_aai_json(home: Path) -> None:
    from typer.testing import CliRunner

    from fruitctl.cli.app import app as cli

    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(OFF)
    done = CliRunner().invoke(cli, ["aai", "install", "--app-id", "com.example.off", "--json"])
    assert done.exit_code == 0, done.output
    descriptor = json.loads((home / "aai" / "com.example.off" / "aai.json").read_text())
    assert {tool["name"] for tool in descriptor["tools"]} == EVERY_TOOL - {"write_file"}


@pytest.mark.slow
def test_mcp_tools_in_front_of_the_daemon_serves_the_contract() -> None:
    from socket_daemon import daemon_env, running, short_home

    from fruitctl.config import Config, Settings
    from fruitctl.paths import Paths

    with short_home() as home:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "fruitctl", "mcp", "--tools", "reminders"],
            env=daemon_env(home),
        )

        async def main() -> tuple[list[types.Tool], MCPError | None]:
            with anyio.fail_after(SESSION_TIMEOUT_S), open(os.devnull, "w") as errlog:
                async with Client(stdio_client(params, errlog=errlog)) as client:
                    return await list_and_refuse(client)

        with running(home):
            tools, refused = anyio.run(main)
        daemons = bootstrap.build(Config(Settings(), Paths.resolve({"FRUITCTL_HOME": str(home)})))
        try:
            assert daemons.approvals.recent() == []  # the refused write never reached it
        finally:
            daemons.close()
    assert_the_contracts_tools(tools)
    assert refused is not None and "create_event" in str(refused)
