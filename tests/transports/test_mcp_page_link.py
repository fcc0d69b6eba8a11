"""A standalone ``fruitctl mcp`` (its tools run in its own process) hands the agent the link to
the approval page when this home's daemon serves it: the SDK's stdio client drives the real
server, next to a real ``fruitctl serve`` on the same home (started after it, as happens when a
client starts the server at login; FRUITCTL_IN_PROCESS keeps the tools in the server)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from socket_daemon import cli, running, short_home

pytestmark = pytest.mark.slow  # its one test takes two seconds or more

SERVER = [sys.executable, "-m", "fruitctl", "mcp"]
SESSION_TIMEOUT_S = 120.0  # a server start and a few calls: ~2 s when healthy
PROPOSED = {"reminders": [{"title": "proposed by an agent"}]}


def test_a_proposal_links_to_the_page_the_daemon_serves(tmp_path: Path) -> None:
    """One server session: a proposal before the daemon starts has no page to link to; one
    after it links to the daemon's page, which holds it."""
    with short_home() as home, (tmp_path / "mcp.stderr").open("w") as errlog:
        params = StdioServerParameters(
            command=SERVER[0],
            args=SERVER[1:],
            env={"FRUITCTL_HOME": str(home), "TZ": "Europe/Rome", "FRUITCTL_IN_PROCESS": "1"},
        )

        async def session() -> tuple[dict[str, Any], dict[str, Any], str]:
            with anyio.fail_after(SESSION_TIMEOUT_S):
                async with Client(stdio_client(params, errlog=errlog)) as client:
                    alone = await client.call_tool("create_reminders", PROPOSED)
                    with running(home):  # blocks this loop a moment: the server waits
                        info = json.loads(cli(home, "info", "--json").stdout)
                        served = await client.call_tool("create_reminders", PROPOSED)
                    return (
                        dict(alone.structured_content or {}),
                        dict(served.structured_content or {}),
                        str(info["httpUrl"]),
                    )

        alone, pending, page = anyio.run(session)
        assert alone["status"] == "pending" and alone["url"] is None  # no page served anywhere
        assert pending["status"] == "pending" and page.startswith("http://127.0.0.1:")
        assert pending["url"] == f"{page}/ui/proposals/{pending['proposalId']}"
        shown = json.loads(cli(home, "proposals", "show", pending["proposalId"], "--json").stdout)
        assert shown["id"] == pending["proposalId"]  # the page's home holds it
