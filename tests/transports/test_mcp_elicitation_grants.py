"""A standing grant chosen in the MCP client's elicitation form: the person approves and allows
the same for a while; the agent's next such write then runs without asking anyone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client import Client

from fruitctl import bootstrap
from fruitctl.transports.mcp import build_server

CREATE = {"reminders": [{"title": "asked"}]}
AGAIN = {"reminders": [{"title": "again"}]}


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def two_writes(app: bootstrap.App, content: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """Two creates on one MCP session; the person answers every form with ``content``."""
    asked: list[Any] = []

    async def on_elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.requested_schema)
        return types.ElicitResult(action="accept", content=content)

    async def main() -> list[Any]:
        server = build_server(app.gateway, elicit=True)
        async with Client(server, mode="legacy", elicitation_callback=on_elicit) as client:
            first = await client.call_tool("create_reminders", CREATE)
            second = await client.call_tool("create_reminders", AGAIN)
            return [first.structured_content, second.structured_content]

    return anyio.run(main), asked


def test_the_form_offers_a_grant_and_the_next_write_runs_without_asking(
    app: bootstrap.App,
) -> None:
    (first, second), asked = two_writes(app, {"approve": True, "allowFor": "1h", "scope": "list"})
    assert len(asked) == 1  # the second write asked nobody
    offered = asked[0]["properties"]
    assert offered["allowFor"]["enum"] == ["no", "1h", "2h", "8h", "24h"]
    assert offered["scope"]["enum"] == ["list", "tool"]
    assert first["status"] == "EXECUTED"
    assert first["grant"]["scope"] == ["list:Reminders"]
    assert first["grant"]["createdBy"].startswith("human:mcp-elicitation")
    assert second["result"][0]["title"] == "again"
    (grant,) = app.approvals.grants_listed()
    assert grant["agent"] == "agent:mcp:stdio"


@pytest.mark.parametrize("content", [{"approve": True}, {"approve": True, "allowFor": "no"}])
def test_no_length_chosen_grants_nothing(app: bootstrap.App, content: dict[str, Any]) -> None:
    (first, second), asked = two_writes(app, content)
    assert len(asked) == 2  # each write asked
    assert first["status"] == second["status"] == "EXECUTED"
    assert "grant" not in first
    assert app.approvals.grants_listed(every=True) == []
