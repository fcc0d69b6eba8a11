"""``fruitctl lists create`` and ``fruitctl calendars create`` on the embedded store; an agent's
is a proposal a person approves (over MCP, with the SDK's own client); a store that cannot make
calendars says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app
from fruitctl.transports.mcp import build_server

runner = CliRunner()


def cli_json(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _names(command: str) -> list[str]:
    return [entry["name"] for entry in cli_json(command)]


def test_a_person_creates_a_list_and_a_calendar() -> None:
    made = runner.invoke(app, ["lists", "create", "  Groceries "])
    assert made.exit_code == 0, made.output
    assert "Created the list 'Groceries'" in made.stdout
    assert _names("lists") == ["Reminders", "Groceries"]
    assert cli_json("calendars", "create", "Travel")["name"] == "Travel"
    assert _names("calendars") == ["Calendar", "Travel"]
    shown = runner.invoke(app, ["calendars"])
    assert "Travel" in shown.stdout and "No calendars" not in shown.stdout
    (added,) = cli_json("reminders", "add", "--title", "Milk", "--list", "groceries")["created"]
    assert added["listName"] == "Groceries"


@pytest.mark.parametrize(
    ("command", "name", "words"),
    [
        ("lists", "reminders", "A list named 'reminders' already exists"),
        ("lists", "   ", "must not be empty"),
        ("calendars", "CALENDAR", "A calendar named 'CALENDAR' already exists"),
        ("calendars", "x" * 256, "longer than 255"),
    ],
)
def test_a_name_taken_or_empty_is_refused(command: str, name: str, words: str) -> None:
    before = _names(command)
    refused = runner.invoke(app, [command, "create", name, "--json"])
    assert refused.exit_code == 2, refused.output
    error = json.loads(refused.stdout)["error"]
    assert error["code"] == "invalid_params" and words in error["message"]
    assert _names(command) == before


def _agent(name: str, args: dict[str, Any]) -> Any:
    built = bootstrap.build()

    async def main() -> Any:
        async with Client(build_server(built.gateway)) as client:
            return await client.call_tool(name, args)

    try:
        return anyio.run(main)
    finally:
        built.close()


@pytest.mark.parametrize(
    ("tool", "command", "name"),
    [("create_reminder_list", "lists", "Groceries"), ("create_calendar", "calendars", "Travel")],
)
def test_an_agents_create_is_a_proposal_a_person_approves(
    home: Path, tool: str, command: str, name: str
) -> None:
    before = _names(command)
    pending = _agent(tool, {"name": name}).structured_content
    assert pending["status"] == "pending", pending
    assert pending["summary"].startswith("Create the ") and f"'{name}'" in pending["summary"]
    assert _names(command) == before  # nothing made until a person says so
    approved = runner.invoke(app, ["proposals", "approve", pending["proposalId"]])
    assert approved.exit_code == 0, approved.output
    assert _names(command) == [*before, name]


def test_an_agents_create_with_a_taken_name_is_refused_before_any_proposal() -> None:
    refused = _agent("create_reminder_list", {"name": "REMINDERS"})
    assert refused.is_error and "already exists" in refused.content[0].text
    assert cli_json("proposals", "list", "--status", "all") == []


def test_a_store_that_cannot_make_calendars_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRUITCTL_CALENDAR__BACKEND", "plain_calendars:plain_calendars")
    monkeypatch.setenv("FRUITCTL_IN_PROCESS", "1")
    refused = runner.invoke(app, ["calendars", "create", "Travel", "--json"])
    assert refused.exit_code == 10, refused.output
    error = json.loads(refused.stdout)["error"]
    assert error["code"] == "unsupported" and "cannot make calendars" in error["message"]
    assert _names("calendars") == ["Calendar"]
