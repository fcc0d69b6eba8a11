"""delete_file through a real MCP client session: an agent's deletion comes back pending with
what a person decides on, a person approves it, and undoing it puts the file back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.transports.mcp import build_server

HUMAN = Actor("human", "me")


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def call(app: bootstrap.App, name: str, args: dict[str, Any]) -> Any:
    async def main() -> Any:
        async with Client(build_server(app.gateway)) as client:
            return await client.call_tool(name, args)

    return anyio.run(main)


def test_an_agent_deletion_through_mcp_waits_shows_the_file_and_undoes(
    app: bootstrap.App, home: Path
) -> None:
    workspace = home / "workspace"
    workspace.mkdir(parents=True)
    target = workspace / "draft.md"
    target.write_text("# Draft\nsecond line\n")
    pending = call(app, "delete_file", {"path": str(target)}).structured_content
    assert pending["status"] == "pending" and target.exists()
    shown = call(app, "get_proposal", {"id": pending["proposalId"]})
    view = json.loads(shown.content[0].text)
    fields = {row["field"]: row for row in view["diff"]}
    assert fields["first lines"]["before"] == "# Draft\nsecond line\n"
    assert fields["file"]["before"].startswith("20 bytes, mode ")
    assert fields["undo"]["after"].startswith("possible for")

    app.gateway.decide(pending["proposalId"], "approve", HUMAN)
    assert not target.exists()
    undo = app.gateway.decide(pending["proposalId"], "undo", HUMAN)
    app.gateway.decide(undo["proposalId"], "approve", HUMAN)
    assert target.read_text() == "# Draft\nsecond line\n"


def test_mcp_refuses_a_folder_a_link_and_fruitctl_own_files(
    app: bootstrap.App, home: Path, tmp_path: Path
) -> None:
    workspace = home / "workspace"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "link").symlink_to(tmp_path)
    (home / "config.toml").touch()
    for path, says in (
        (workspace / "sub", "is a folder"),
        (workspace / "link", "symbolic link"),
        (home / "config.toml", ""),
        (Path("/etc/hostname"), ""),
    ):
        result = call(app, "delete_file", {"path": str(path)})
        assert result.is_error and says in result.content[0].text, result.content[0].text
    assert (workspace / "sub").is_dir() and (workspace / "link").is_symlink()
    assert (home / "config.toml").exists()
