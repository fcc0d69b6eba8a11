"""Free time and clashes through MCP (the SDK's own client): both tools answer structured
content, a bad argument is an error result in words, and the question an MCP client is asked
about an agent's new event lists what it overlaps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client import Client

from fruitctl import bootstrap
from fruitctl.transports.mcp import build_server

LUNCH = {
    "title": "Lunch",
    "startAt": "2026-03-05T12:30:00+01:00",
    "endAt": "2026-03-05T13:30:00+01:00",
}


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    built.call("create_event", LUNCH)
    yield built
    built.close()


def test_both_tools_answer_through_mcp(app: bootstrap.App) -> None:
    async def main() -> list[Any]:
        async with Client(build_server(app.gateway)) as client:
            return [
                await client.call_tool(
                    "find_free_time",
                    {"from": "2026-03-05", "to": "2026-03-05", "hours": "12:00-14:00"},
                ),
                await client.call_tool(
                    "check_conflicts",
                    {"start": "2026-03-05T13:00:00+01:00", "end": "2026-03-05T14:00:00+01:00"},
                ),
                await client.call_tool(
                    "find_free_time", {"from": "2026-03-01", "to": "2026-05-01"}
                ),
            ]

    free, clash, too_long = anyio.run(main)
    assert [s["minutes"] for s in free.structured_content["slots"]] == [30, 30]
    assert [e["title"] for e in clash.structured_content["conflicts"]] == ["Lunch"]
    assert json.loads(clash.content[0].text)["count"] == 1
    assert too_long.is_error and "longer than 31 days" in too_long.content[0].text


def test_the_question_about_a_new_event_lists_what_it_overlaps(app: bootstrap.App) -> None:
    asked: list[str] = []

    async def on_elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="decline")

    async def main() -> Any:
        server = build_server(app.gateway, elicit=True)
        async with Client(server, mode="legacy", elicitation_callback=on_elicit) as client:
            new = {"title": "Call", "startAt": "2026-03-05T13:00:00+01:00"}
            return await client.call_tool("create_event", new)

    result = anyio.run(main)
    assert result.structured_content["status"] == "REJECTED"
    assert (
        "- new event · overlaps: None -> \"'Lunch' Thu 2026-03-05 12:30 - 13:30 (Calendar)\""
        in asked[0]
    )
