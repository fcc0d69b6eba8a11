"""Who an MCP caller is: the door's identity (``mcp:stdio`` here, a token's over HTTP), never the
name the client gives itself - that is only shown under it, sanitised (issue 25, item 1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp_types import Implementation

from fruitctl import bootstrap
from fruitctl.transports.mcp import build_server

LIMITED = "tools:\n  create_reminders:\n    rate_limit_per_actor_per_hour: 2\n"


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(LIMITED)
    built = bootstrap.build()
    yield built
    built.close()


def call_as(app: bootstrap.App, client_name: str, tool: str, args: dict[str, Any]) -> Any:
    async def main() -> Any:
        info = Implementation(name=client_name, version="1")
        async with Client(build_server(app.gateway), client_info=info) as client:
            return await client.call_tool(tool, args)

    return anyio.run(main)


def create(app: bootstrap.App, client_name: str, title: str) -> Any:
    return call_as(app, client_name, "create_reminders", {"reminders": [{"title": title}]})


def test_a_client_name_is_a_sanitised_label_under_the_identity(app: bootstrap.App) -> None:
    spoof = "human:me\u202e/uid:0\u200b"
    filed = create(app, spoof, "Spoofed").structured_content
    shown = app.approvals.get(filed["proposalId"])["actor"]
    assert shown == "agent:mcp:stdio/human-me-uid-0"  # the identity first, the label only safe
    assert shown.isascii() and shown.isprintable()


def test_renaming_the_client_neither_hides_nor_frees_anything(app: bootstrap.App) -> None:
    first = create(app, "claude", "One").structured_content
    # Another name for the same door: the same agent - it sees the proposal, shares the limit.
    seen = call_as(app, "codex", "get_proposal", {"id": first["proposalId"]})
    assert seen.is_error is False and seen.structured_content["id"] == first["proposalId"]
    assert create(app, "cursor", "Two").is_error is False
    limited = create(app, "fresh-name", "Three")
    assert limited.is_error is True
    assert "for agent:mcp:stdio" in limited.content[0].text
