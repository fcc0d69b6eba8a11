"""Where ``fruitctl mcp`` runs its tools (``mcp_route.choose``), as a table, and what the refusal
answers through a real MCP session: on a Mac with Apple data and no daemon, every call says how
to start the holder, nothing is asked of macOS and nothing runs."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.client import Client

from fruitctl.capabilities import all_tools
from fruitctl.transports.mcp import build_server, describe
from fruitctl.transports.mcp_front import RefusingTools
from fruitctl.transports.mcp_route import HOLDER_STEPS, Route, choose

LOCAL = {"reminders": "local", "calendar": "local"}
CALDAV = {"reminders": "caldav", "calendar": "caldav"}
EVENTKIT = {"reminders": "eventkit", "calendar": "eventkit"}
GRANTED = {"reminders": "authorized", "calendar": "authorized"}
WITH_THINGS = {"reminders": "local", "calendar": "caldav", "things": "things"}

TABLE: list[tuple[str, bool, dict[str, str], dict[str, str], str, tuple[str, ...]]] = [
    # platform, daemon, backends, permissions -> way, refused
    ("linux", True, LOCAL, {}, "daemon", ()),
    ("linux", False, LOCAL, {}, "in_process", ()),
    ("linux", False, CALDAV, {}, "in_process", ()),
    ("darwin", True, EVENTKIT, {"reminders": "denied"}, "daemon", ()),
    ("darwin", False, LOCAL, {}, "in_process", ()),
    ("darwin", False, CALDAV, {}, "in_process", ()),
    ("darwin", False, EVENTKIT, GRANTED, "in_process", ()),
    (
        "darwin",
        False,
        EVENTKIT,
        {**GRANTED, "reminders": "not_determined"},
        "refuse",
        ("reminders",),
    ),
    ("darwin", False, EVENTKIT, {**GRANTED, "calendar": "denied"}, "refuse", ("calendar",)),
    ("darwin", False, EVENTKIT, {**GRANTED, "calendar": "restricted"}, "refuse", ("calendar",)),
    ("darwin", False, EVENTKIT, {}, "refuse", ("reminders", "calendar")),  # unknown: denied
    ("darwin", False, {**LOCAL, "reminders": "eventkit"}, GRANTED, "in_process", ()),
    ("darwin", False, WITH_THINGS, {"things": "authorized"}, "in_process", ()),
    ("darwin", False, WITH_THINGS, {"things": "denied"}, "refuse", ("things",)),
    ("darwin", True, WITH_THINGS, {"things": "denied"}, "daemon", ()),
]


@pytest.mark.parametrize(("platform", "daemon", "backends", "permissions", "way", "refused"), TABLE)
def test_the_route(
    platform: str,
    daemon: bool,
    backends: dict[str, str],
    permissions: dict[str, str],
    way: str,
    refused: tuple[str, ...],
) -> None:
    route = choose(platform, daemon, backends, permissions)
    assert (route.way, route.refused) == (way, refused)
    assert route.reason


def test_the_refusal_says_how_to_start_the_holder() -> None:
    error = choose("darwin", False, EVENTKIT, {}).refusal()
    assert error.code == "permission_denied"
    assert error.details["service"] == "reminders"
    assert "reminders, calendar" in error.message and "nobody would see the prompt" in error.message
    steps = " ".join(error.details["instructions"])
    for command in ("fruitctl service install", "fruitctl mcp", "fruitctl server start"):
        assert f"`{command}`" in steps
    assert "Enable access for" not in steps  # nothing a person could not do


def refused_session(route: Route) -> tuple[list[types.Tool], list[types.CallToolResult]]:
    listing = [describe(t.definition) for t in all_tools()]
    tools = RefusingTools(listing, route.refusal())

    async def main() -> tuple[list[types.Tool], list[types.CallToolResult]]:
        server = build_server(None, elicit=True, tools=tools)
        async with Client(server, mode="legacy") as client:
            listed = (await client.list_tools()).tools
            calls = [
                await client.call_tool("get_lists", {}),
                await client.call_tool("create_reminders", {"reminders": [{"title": "x"}]}),
            ]
            return listed, calls

    return anyio.run(main)


def test_a_refused_server_lists_its_tools_and_answers_every_call_with_the_steps(
    home: Path,
) -> None:
    listed, calls = refused_session(choose("darwin", False, EVENTKIT, {"reminders": "denied"}))
    assert {t.name for t in listed} == {t.name for t in all_tools()}
    for result in calls:
        assert result.is_error is True
        assert isinstance(result.content[0], types.TextContent)
        lines = result.content[0].text.splitlines()
        assert lines[0].startswith("This MCP server has no access to reminders, calendar")
        assert lines[1:] == [f"{n}. {step}" for n, step in enumerate(HOLDER_STEPS, 1)]
    assert not home.exists() or not any(home.iterdir())  # nothing opened, nothing written


@pytest.mark.skipif(sys.platform != "darwin", reason="needs macOS's EventKit and its privacy")
def test_on_a_mac_without_a_grant_fruitctl_mcp_refuses_without_asking(
    monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    """On a Mac with EventKit configured and this process not granted (run it from a host that
    has no grant): the front is a refusal, and the status was read without a prompt."""
    from fruitctl import bootstrap
    from fruitctl.cli.mcp import front

    monkeypatch.setenv("FRUITCTL_REMINDERS__BACKEND", "eventkit")
    app = bootstrap.build()
    try:
        if app.backend.permission_status() == "authorized":
            pytest.skip("this process already has access to Reminders")
        assert isinstance(front(app), RefusingTools)
    finally:
        app.close()
