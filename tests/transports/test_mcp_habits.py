"""What an agent meets through MCP (the SDK's own client): get_proposal by the name the write's
answer gave (``proposalId``), a list named by a bare string, ``search``, and every JMESPath
example seed 002 documents, in query_reminders' description and working."""

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

DIRECT_WRITES = """tools:
  create_reminders: {allowed_in_modes: [NORMAL], requires_approval_in_modes: []}
  update_reminders: {allowed_in_modes: [NORMAL], requires_approval_in_modes: []}
"""
# Seed 002's documented query_reminders examples, every one (its "Examples" section).
SEED_EXAMPLES = [
    {},
    {"list": {"name": "Work"}},
    {"list": {"all": True}, "status": "completed"},
    {"query": "[?priority != `0`]"},
    {"query": "[?priority == `1`]"},
    {"query": "[?contains(title, 'meeting')]"},
    {"list": {"all": True}, "query": "reverse(sort_by(@, &creationDate))[:10]"},
    {"query": "reverse(sort_by(@, &modificationDate))[:5]"},
    {"query": "[*].{title: title, due: dueDate}"},
    {"query": "[?creationDate >= '2024-01-01' && creationDate < '2025-01-01']"},
]


class Mcp:
    def __init__(self, app: bootstrap.App) -> None:
        self.app = app

    def raw(self, name: str, args: dict[str, Any] | None = None) -> Any:
        async def main() -> Any:
            async with Client(build_server(self.app.gateway)) as client:
                return await client.call_tool(name, args or {})

        return anyio.run(main)

    def __call__(self, name: str, args: dict[str, Any] | None = None) -> Any:
        result = self.raw(name, args)
        assert not result.is_error, result.content[0].text
        return json.loads(result.content[0].text)

    def error(self, name: str, args: dict[str, Any]) -> str:
        result = self.raw(name, args)
        assert result.is_error
        return str(result.content[0].text)

    def description(self, name: str) -> str:
        async def main() -> Any:
            async with Client(build_server(self.app.gateway)) as client:
                return (await client.list_tools()).tools

        (found,) = [t for t in anyio.run(main) if t.name == name]
        return str(found.description)


@pytest.fixture
def mcp(home: Path) -> Iterator[Mcp]:
    built = bootstrap.build()
    built.backend.create_list("Work")
    yield Mcp(built)
    built.close()


@pytest.fixture
def direct(home: Path) -> Iterator[Mcp]:
    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(DIRECT_WRITES)
    built = bootstrap.build()
    built.backend.create_list("Work")
    yield Mcp(built)
    built.close()


def test_get_proposal_takes_the_proposal_id_by_the_name_it_was_given(mcp: Mcp) -> None:
    pending = mcp("create_reminders", {"reminders": [{"title": "from claude"}]})
    assert pending["status"] == "pending"
    by_name = mcp("get_proposal", {"proposalId": pending["proposalId"]})
    assert by_name["status"] == "PENDING" and by_name["id"] == pending["proposalId"]
    assert mcp("get_proposal", {"id": pending["proposalId"]}) == by_name
    mcp.app.gateway.decide(pending["proposalId"], "approve", Actor("human", "me"))
    assert mcp("get_proposal", {"proposalId": pending["proposalId"]})["status"] == "EXECUTED"


@pytest.mark.parametrize("args", [{}, {"id": "p1", "proposalId": "p1"}])
def test_get_proposal_wants_the_id_once(mcp: Mcp, args: dict[str, Any]) -> None:
    assert "as 'proposalId'" in mcp.error("get_proposal", args)


def test_a_list_given_as_a_string_is_its_name(direct: Mcp) -> None:
    (created,) = direct("create_reminders", {"reminders": [{"title": "slides", "list": "work"}]})
    assert created["listName"] == "Work"
    assert [r["title"] for r in direct("query_reminders", {"list": "WORK"})] == ["slides"]
    (moved,) = direct(
        "update_reminders", {"reminders": [{"id": created["id"], "list": "Reminders"}]}
    )
    assert moved["listName"] == "Reminders"
    assert "No list found with name: 'Groceries'" in direct.error(
        "query_reminders", {"list": "Groceries"}
    )


def test_search_finds_title_or_notes_in_any_case(direct: Mcp) -> None:
    direct(
        "create_reminders",
        {
            "reminders": [
                {"title": "Call the DENTIST", "list": "Work"},
                {"title": "Teeth", "notes": "ask the dentist"},
                {"title": "buy milk"},
            ]
        },
    )
    found = direct("query_reminders", {"list": {"all": True}, "search": "Dentist"})
    assert sorted(r["title"] for r in found) == ["Call the DENTIST", "Teeth"]
    projected = direct(
        "query_reminders", {"list": {"all": True}, "search": "milk", "query": "[*].title"}
    )
    assert projected == ["buy milk"]


def test_query_reminders_describes_every_documented_example(direct: Mcp) -> None:
    description = direct.description("query_reminders")
    shown = " ".join(description.split())
    for example in SEED_EXAMPLES:
        assert json.dumps(example) in shown, example
    direct(
        "create_reminders",
        {"reminders": [{"title": "meeting notes", "priority": "high"}, {"title": "plain"}]},
    )
    for example in SEED_EXAMPLES:
        direct("query_reminders", example)  # each one runs as written
    assert [r["title"] for r in direct("query_reminders", SEED_EXAMPLES[3])] == ["meeting notes"]
    last_modified = direct("query_reminders", SEED_EXAMPLES[7])
    assert sorted(r["title"] for r in last_modified) == ["meeting notes", "plain"]
