"""Things, complete (issue 30) through the CLI and MCP (the SDK's own client): a reminder time,
search, headings (listed, moved into, undone) and checklist items added, on a real Things-schema
database with the recorder playing Things. The HTTP API's are in ``test_http_things.py``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client as McpClient
from things_home import app_on_things
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app as cli_app
from fruitctl.domain.actors import Actor
from fruitctl.transports.mcp import build_server

# Things writes through the launcher, a process of its own.
pytestmark = pytest.mark.process

runner = CliRunner()
AGENT = Actor("agent", "claude")


def cli(*args: str) -> Any:
    return runner.invoke(cli_app, list(args))


def cli_json(*args: str) -> Any:
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def app(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[bootstrap.App]:
    with app_on_things(tmp_path, tmp_path / "urls.log", monkeypatch) as built:
        yield built


def test_the_cli_searches_lists_headings_and_shows_the_reminder(app: bootstrap.App) -> None:
    found = cli_json("things", "list", "--search", "BANK")
    assert [t["title"] for t in found["todos"]] == ["Call the bank"]
    headings = cli_json("things", "headings", "move house")
    assert [h["title"] for h in headings] == ["Packing", "Cleaning"]
    table = cli("things", "headings", "Move house")
    assert table.exit_code == 0 and "Cleaning" in table.stdout and "head-pack" in table.stdout
    assert "reminder  18:05" in cli("things", "get", "todo-today").stdout


def test_the_cli_sets_a_reminder_moves_under_a_heading_and_adds_items(
    app: bootstrap.App, tmp_path: Path
) -> None:
    timed = cli_json("things", "update", "todo-inbox", "--when", "today@9:30")
    assert timed["status"] == "confirmed" and timed["todo"]["reminderTime"] == "09:30"
    moved = cli_json(
        "things",
        "update",
        "todo-anytime",
        "--heading",
        "Cleaning",
        "--prepend-checklist",
        "Measure",
        "--append-checklist",
        "Tape",
        "--append-checklist",
        "Labels",
    )
    assert moved["status"] == "confirmed"
    assert moved["todo"]["heading"]["title"] == "Cleaning"
    assert [i["title"] for i in moved["todo"]["checklist"]] == [
        "Measure",
        "Small ones",
        "Big ones",
        "Tape",
        "Labels",
    ]
    missing = cli("things", "headings", "Garden", "--json")
    assert missing.exit_code == 3 and "Available projects: Move house" in missing.stdout


def test_an_agents_move_under_a_heading_is_proposed_shown_and_undone(app: bootstrap.App) -> None:
    pending = app.gateway.invoke(
        "update_todo", {"id": "todo-heading", "heading": "Cleaning"}, AGENT
    )
    assert pending.output["status"] == "pending", pending.output
    proposal = pending.output["proposalId"]
    shown = cli_json("proposals", "show", proposal)
    assert {"field": "heading", "before": "Packing", "after": "Cleaning"}.items() <= (
        shown["diff"][0].items()
    )
    done = cli_json("proposals", "approve", proposal)
    assert done["result"]["todo"]["heading"]["id"] == "head-clean"
    undo = json.loads(cli("proposals", "undo", proposal, "--json").stdout)
    assert cli("proposals", "approve", undo["proposalId"]).exit_code == 0
    assert cli_json("things", "get", "todo-heading")["heading"]["id"] == "head-pack"


def test_checklist_items_added_have_no_undo(app: bootstrap.App) -> None:
    """The URL scheme adds items and cannot remove one: undo says so rather than pretend."""
    args = {"id": "todo-anytime", "appendChecklist": ["Tape"]}
    pending = app.gateway.invoke("update_todo", args, AGENT)
    proposal = pending.output["proposalId"]
    assert cli("proposals", "approve", proposal).exit_code == 0
    undo = cli("proposals", "undo", proposal, "--json")
    assert undo.exit_code != 0 and "cannot be undone" in undo.stdout


def test_a_project_with_headings_through_tools_call(app: bootstrap.App) -> None:
    args = {"title": "Garden", "todos": ["Order seeds"], "headings": ["Spring", "Autumn"]}
    made = cli_json("tools", "call", "create_project", "--args", json.dumps(args))
    assert made["status"] == "confirmed"
    assert [h["title"] for h in cli_json("things", "headings", "Garden")] == ["Spring", "Autumn"]


# -- MCP -----------------------------------------------------------------------------------------


def test_mcp_lists_headings_searches_and_proposes_a_move(app: bootstrap.App) -> None:
    async def main() -> list[Any]:
        async with McpClient(build_server(app.gateway)) as client:
            calls = [
                ("list_headings", {"project": "Move house"}),
                ("query_todos", {"search": "boxes"}),
                ("update_todo", {"id": "todo-anytime", "heading": "Cleaning"}),
                ("update_todo", {"id": "todo-anytime", "when": "today@18"}),
            ]
            return [await client.call_tool(name, args) for name, args in calls]

    headings, found, moved, wrong = anyio.run(main)
    assert [h["title"] for h in json.loads(headings.content[0].text)] == ["Packing", "Cleaning"]
    assert [t["id"] for t in json.loads(found.content[0].text)["todos"]] == ["todo-anytime"]
    assert json.loads(moved.content[0].text)["status"] == "pending"
    assert wrong.is_error and "today@18:00" in wrong.content[0].text
