"""Approvals inside MCP by elicitation (opt-in): accept executes, decline rejects, no answer or
a client that cannot be asked leaves the proposal pending; off by default."""

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


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def call_with(app: bootstrap.App, answer: Any, *, elicit: bool = True) -> tuple[Any, list[str]]:
    """Call create_reminders through a legacy-handshake client that answers elicitations."""
    asked: list[str] = []

    async def on_elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return answer

    async def main() -> Any:
        server = build_server(app.gateway, elicit=elicit)
        callback = on_elicit if answer is not None else None
        async with Client(server, mode="legacy", elicitation_callback=callback) as client:
            return await client.call_tool("create_reminders", CREATE)

    return anyio.run(main), asked


def titles(app: bootstrap.App) -> list[str]:
    return [r["title"] for r in app.call("query_reminders", {})]


def test_accept_executes(app: bootstrap.App) -> None:
    result, asked = call_with(app, types.ElicitResult(action="accept", content={"approve": True}))
    assert "An agent asks to: Create 1 reminder in the default list: 'asked'" in asked[0]
    assert "title: None -> 'asked'" in asked[0]
    assert result.structured_content["status"] == "EXECUTED"
    assert result.structured_content["resolvedBy"].startswith("human:mcp-elicitation")
    assert titles(app) == ["asked"]


@pytest.mark.parametrize(
    "answer",
    [
        types.ElicitResult(action="decline"),
        types.ElicitResult(action="accept", content={"approve": False}),
    ],
)
def test_decline_rejects(app: bootstrap.App, answer: types.ElicitResult) -> None:
    result, _ = call_with(app, answer)
    assert result.structured_content["status"] == "REJECTED"
    assert titles(app) == []


def test_no_answer_leaves_it_pending(app: bootstrap.App) -> None:
    result, _ = call_with(app, types.ElicitResult(action="cancel"))
    assert result.structured_content["status"] == "pending"
    assert app.approvals.recent("pending")


def test_a_client_without_elicitation_gets_the_pending_object(app: bootstrap.App) -> None:
    result, asked = call_with(app, None)
    assert asked == [] and result.structured_content["status"] == "pending"


def test_off_by_default(app: bootstrap.App) -> None:
    assert app.config.settings.approvals.mcp_elicitation is False
    result, asked = call_with(
        app, types.ElicitResult(action="accept", content={"approve": True}), elicit=False
    )
    assert asked == [] and result.structured_content["status"] == "pending"
    assert titles(app) == []


def test_an_accept_after_lockdown_is_refused_by_the_policy(app: bootstrap.App) -> None:
    """The person accepts in the client, but LOCKDOWN began while the form was open: the
    approval goes through the policy like any other and the write waits."""
    asked: list[str] = []

    async def on_elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        await anyio.to_thread.run_sync(lambda: app.modes.set("LOCKDOWN", "someone"))
        return types.ElicitResult(action="accept", content={"approve": True})

    async def main() -> Any:
        server = build_server(app.gateway, elicit=True)
        async with Client(server, mode="legacy", elicitation_callback=on_elicit) as client:
            return await client.call_tool("create_reminders", CREATE)

    result = anyio.run(main)
    assert asked
    shown = result.structured_content
    assert shown["status"] == "PENDING"
    assert shown["reason"] == "Approval refused: create_reminders is not allowed in LOCKDOWN mode."
    assert app.approvals.recent("pending")
    app.modes.set("NORMAL", "someone")
    assert titles(app) == []
