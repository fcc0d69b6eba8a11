"""The standalone ``fruitctl mcp --http`` follows stdio's rule: with a daemon running, its calls
run in the daemon, as the agent the bearer token names, and the server holds no database of the
home; the daemon stopped, a call is backend_unavailable saying how to start it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import psutil
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from socket_daemon import Raw, running, seed_demo, short_home
from test_mcp_http import RunningServer

from fruitctl import bootstrap
from fruitctl.transports.mcp_access import ensure_token

pytestmark = pytest.mark.slow  # its one test takes two seconds or more

DATABASE_SUFFIXES = (".db", ".db-wal", ".db-shm")


@pytest.fixture
def daemon_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with short_home() as home:
        monkeypatch.setenv("FRUITCTL_HOME", str(home))
        seed_demo(home)
        yield home


async def calls(url: str, token: str, names: list[str]) -> list[types.CallToolResult]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    client_ = Client(
        streamable_http_client(url, http_client=http),
        mode="legacy",
        client_info=types.Implementation(name="http-client", version="1"),
    )
    async with http, client_ as client:
        args: dict[str, Any] = {"reminders": [{"title": "over http"}]}
        return [await client.call_tool(n, args if n.startswith("create") else {}) for n in names]


def databases_held(pid: int, home: Path) -> list[str]:
    root = os.path.realpath(home)
    held = [os.path.realpath(f.path) for f in psutil.Process(pid).open_files()]
    return [p for p in held if p.startswith(root) and p.endswith(DATABASE_SUFFIXES)]


def test_mcp_over_http_runs_its_calls_in_the_daemon(daemon_home: Path) -> None:
    app = bootstrap.build()
    token = ensure_token(app)
    app.close()
    with running(daemon_home) as daemon:
        server = RunningServer(daemon_home)
        try:
            url = server.url()
            lists, pending = anyio.run(calls, url, token, ["get_lists", "create_reminders"])
            held = databases_held(server.process.pid, daemon_home)
            with Raw(daemon.socket) as rpc:
                rpc.result("session.identify", {"kind": "agent", "name": "mcp:http"})
                proposal_id = (pending.structured_content or {})["proposalId"]
                filed = rpc.result(
                    "tools.call", {"name": "get_proposal", "arguments": {"id": proposal_id}}
                )
            daemon.stop()
            (after,) = anyio.run(calls, url, token, ["get_lists"])
        finally:
            server.stop()
    assert lists.is_error is False
    assert filed["actor"] == "agent:mcp:http/http-client"  # filed by the daemon, for the token
    assert held == []
    assert after.is_error is True
    assert isinstance(after.content[0], types.TextContent)
    assert "fruitctl server start" in after.content[0].text
