"""MCP through the SDK's own in-memory client: the tool list (pinned by a snapshot), every tool,
seed 002's testing checklist, errors as isError with the seed's messages, approvals in MCP."""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from gateways import gateway_with
from mcp.client import Client
from mcp.shared.exceptions import MCPError
from pydantic import Field

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.gateway import Gateway
from fruitctl.tools.context import ToolContext
from fruitctl.tools.inputs import Input
from fruitctl.tools.model import tool
from fruitctl.transports.mcp import build_server

SNAPSHOT = Path(__file__).parent / "snapshots" / "mcp_tools.json"
DIRECT_WRITES = """tools:
  create_reminders: {allowed_in_modes: [NORMAL], requires_approval_in_modes: []}
  update_reminders: {allowed_in_modes: [NORMAL], requires_approval_in_modes: []}
  delete_reminders: {allowed_in_modes: [NORMAL], requires_approval_in_modes: []}
"""


def run(gateway: Gateway, work: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(build_server(gateway)) as client:
            return await work(client)

    return anyio.run(main)


class Mcp:
    """Synchronous calls through a real MCP client session, for readable tests."""

    def __init__(self, app: bootstrap.App) -> None:
        self.app = app

    def raw(self, name: str, args: dict[str, Any] | None = None) -> Any:
        return run(self.app.gateway, lambda c: c.call_tool(name, args or {}))

    def __call__(self, name: str, args: dict[str, Any] | None = None) -> Any:
        result = self.raw(name, args)
        assert not result.is_error, result.content[0].text
        return json.loads(result.content[0].text)

    def error(self, name: str, args: dict[str, Any] | None = None) -> str:
        result = self.raw(name, args)
        assert result.is_error
        return str(result.content[0].text)


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


@pytest.fixture
def direct(home: Path) -> Iterator[Mcp]:
    """MCP with governance letting reminder writes run directly (a user's choice)."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(DIRECT_WRITES)
    built = bootstrap.build()
    built.backend.create_list("Work")
    yield Mcp(built)
    built.close()


# -- the tool list --------------------------------------------------------------------------


def _listing(app: bootstrap.App) -> list[dict[str, Any]]:
    tools = run(app.gateway, lambda c: c.list_tools()).tools
    return [t.model_dump(by_alias=True, exclude_none=True) for t in tools]


def test_tools_list_is_pinned_by_a_snapshot(app: bootstrap.App) -> None:
    listing = _listing(app)
    if os.environ.get("FRUITCTL_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.write_text(json.dumps(listing, indent=2, ensure_ascii=False) + "\n")
    pinned = json.loads(SNAPSHOT.read_text())
    assert listing == pinned, (
        "tools/list changed: if deliberate, rerun with FRUITCTL_UPDATE_SNAPSHOTS=1 and commit"
    )


def test_every_tool_is_listed_with_annotations(app: bootstrap.App) -> None:
    listing = {t["name"]: t for t in _listing(app)}
    assert set(listing) == set(app.gateway.registry.names())
    for listed in listing.values():
        assert listed["title"] and listed["description"]
        assert listed["inputSchema"]["additionalProperties"] is False
        assert {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} <= set(
            listed["annotations"]
        )
    assert listing["query_reminders"]["annotations"]["readOnlyHint"] is True
    assert listing["delete_reminders"]["annotations"]["destructiveHint"] is True
    assert listing["web_search"]["annotations"]["openWorldHint"] is True
    assert listing["query_reminders"]["inputSchema"]["properties"]["limit"]["maximum"] == 200


def test_descriptions_carry_the_defaults_and_examples(app: bootstrap.App) -> None:
    query = {t["name"]: t for t in _listing(app)}["query_reminders"]["description"]
    for words in (
        "default list",
        "newest first",
        "50",
        '{"list": {"name": "Work"}}',
        "[?priority == `1`]",
        "reverse(sort_by(@, &creationDate))[:10]",
    ):
        assert words in query


def test_unknown_tools_are_protocol_errors(app: bootstrap.App) -> None:
    async def attempt(client: Client) -> str | None:
        try:
            await client.call_tool("nope", {})
        except MCPError as exc:
            return str(exc)
        return None

    assert run(app.gateway, attempt) == "Unknown tool 'nope'."


class Pause(Input):
    seconds: float = Field(0, description="How long to wait.")


@tool(category="read_only", risk="low", title="Pause", timeout=0.3)
def pause(args: Pause, ctx: ToolContext) -> dict[str, Any]:
    """Wait, then answer (a read that can outlive its deadline)."""
    time.sleep(args.seconds)
    return {"paused": args.seconds}


def test_a_read_past_its_deadline_is_a_tool_error_and_the_server_goes_on(home: Path) -> None:
    async def twice(client: Client) -> tuple[Any, Any]:
        slow = await client.call_tool("pause", {"seconds": 1.0})
        return slow, await client.call_tool("pause", {"seconds": 0})

    with gateway_with([pause], io.StringIO()) as gateway:
        slow, quick = run(gateway, twice)
    assert slow.is_error and slow.content[0].text == "pause did not finish within 0.3 s."
    assert quick.structured_content == {"paused": 0}


# -- approvals inside MCP -------------------------------------------------------------------


def test_a_write_comes_back_pending_and_can_be_polled(app: bootstrap.App) -> None:
    mcp = Mcp(app)
    result = mcp.raw("create_reminders", {"reminders": [{"title": "from claude"}]})
    assert not result.is_error
    pending = result.structured_content
    assert pending["status"] == "pending" and pending["approve"].endswith(pending["proposalId"])
    assert mcp("query_reminders") == []
    assert mcp("get_proposal", {"id": pending["proposalId"]})["status"] == "PENDING"
    app.gateway.decide(pending["proposalId"], "approve", Actor("human", "me"))
    polled = mcp("get_proposal", {"id": pending["proposalId"]})
    assert polled["status"] == "EXECUTED" and polled["result"][0]["title"] == "from claude"
    assert [r["title"] for r in mcp("query_reminders")] == ["from claude"]


# -- seed 002's checklist through MCP ---------------------------------------------------------


def _make(mcp: Mcp, *items: dict[str, Any]) -> list[dict[str, Any]]:
    made = mcp("create_reminders", {"reminders": list(items)})
    assert isinstance(made, list)
    return made


def test_query_checklist(direct: Mcp) -> None:
    a, b = _make(direct, {"title": "a test", "priority": "low"}, {"title": "b", "priority": "high"})
    c = _make(direct, {"title": "c", "list": {"name": "Work"}, "dueDate": "2026-03-01"})[0]
    done = _make(direct, {"title": "done"})[0]
    direct("update_reminders", {"reminders": [{"id": done["id"], "completed": True}]})
    titles = lambda args: [r["title"] for r in direct("query_reminders", args)]  # noqa: E731
    assert titles({}) == ["b", "a test"]  # default list, incomplete, newest first
    assert titles({"list": {"name": "Work"}}) == ["c"]
    work_id = c["listId"]
    assert titles({"list": {"id": work_id}}) == ["c"]
    assert titles({"list": {"all": True}}) == ["c", "b", "a test"]
    assert titles({"status": "completed"}) == ["done"]
    assert titles({"status": "all"}) == ["done", "b", "a test"]
    assert titles({"sortBy": "priority"}) == ["b", "a test"]
    assert titles({"list": {"all": True}, "sortBy": "dueDate"})[0] == "c"
    assert titles({"query": "[?priority != `0`]"}) == ["b", "a test"]
    assert titles({"query": "[?priority != 0]"}) == ["b", "a test"]
    assert titles({"query": "[?contains(title, 'test')]"}) == ["a test"]
    assert titles({"query": "reverse(sort_by(@, &creationDate))[:5]"})[0] in ("b", "a test")
    assert len(direct("query_reminders", {"limit": 1})) == 1
    assert direct.error("query_reminders", {"list": {"name": "Nope"}}) == (
        "No list found with name: 'Nope'. Available lists: Reminders, Work."
    )
    assert "Hint: Use '==' for equality" in direct.error(
        "query_reminders", {"query": "[?priority = 1]"}
    )
    del a, b


def test_get_lists_checklist(direct: Mcp) -> None:
    lists = direct("get_lists")
    assert {lst["name"] for lst in lists} == {"Reminders", "Work"}
    assert sum(lst["isDefault"] for lst in lists) == 1


def test_create_checklist(direct: Mcp) -> None:
    (bare,) = _make(direct, {"title": "just a title"})
    assert bare["listName"] == "Reminders"
    full = _make(
        direct,
        {
            "title": "all",
            "notes": "n",
            "list": {"name": "work"},
            "dueDate": "2024-01-20T09:00:00-05:00",
            "priority": "high",
        },
    )[0]
    assert (full["listName"], full["dueDate"], full["priority"]) == (
        "Work",
        "2024-01-20T15:00:00+01:00",
        1,
    )
    batch = _make(direct, {"title": "1"}, {"title": "2"}, {"title": "3", "priority": "low"})
    assert [r["title"] for r in batch] == ["1", "2", "3"]
    assert "requires 'title'" in direct.error("create_reminders", {"reminders": [{}]})
    partial = direct(
        "create_reminders",
        {"reminders": [{"title": "ok"}, {"title": "x", "list": {"name": "Nope"}}]},
    )
    assert [r["title"] for r in partial["created"]] == ["ok"]
    assert partial["failed"][0]["index"] == 1
    assert "No list found with name: 'Nope'" in partial["failed"][0]["error"]


def test_update_checklist(direct: Mcp) -> None:
    r = _make(direct, {"title": "t", "notes": "n", "dueDate": "2026-03-01", "priority": "low"})[0]
    upd = lambda change: direct("update_reminders", {"reminders": [{"id": r["id"], **change}]})[0]  # noqa: E731
    assert upd({"title": "t2"})["notes"] == "n"
    assert upd({"list": {"name": "Work"}})["listName"] == "Work"
    assert upd({"completed": True})["isCompleted"] is True
    assert upd({"completed": False})["completionDate"] is None
    assert upd({"completedDate": "2024-01-15T10:00:00-05:00"})["completionDate"] == (
        "2024-01-15T16:00:00+01:00"
    )
    assert upd({"completedDate": None})["isCompleted"] is False
    assert upd({"dueDate": None})["dueDate"] is None
    assert upd({"notes": None})["notes"] is None
    partial = direct(
        "update_reminders",
        {"reminders": [{"id": r["id"], "title": "ok"}, {"id": "zzz", "title": "x"}]},
    )
    assert partial["updated"][0]["title"] == "ok"
    assert partial["failed"] == [{"id": "zzz", "error": "No reminder found with ID: 'zzz'."}]


def test_delete_checklist(direct: Mcp) -> None:
    a, b = _make(direct, {"title": "a"}, {"title": "b"})
    assert direct("delete_reminders", {"ids": [a["id"], "nope"]}) == {
        "deleted": [a["id"]],
        "failed": [{"id": "nope", "error": "No reminder found with ID: 'nope'."}],
    }
    assert direct("delete_reminders", {"ids": [b["id"]]}) == {"deleted": [b["id"]], "failed": []}


@pytest.mark.process
def test_every_other_tool_answers(direct: Mcp, home: Path) -> None:
    (home / "workspace").mkdir(parents=True)
    assert direct("open_reminders")["count"] == 0
    assert direct("system_metrics_snapshot")["memory"]["total_bytes"] > 0
    assert direct("check_process_health", {"pid": os.getpid()})["running"] is True
    written = direct("write_file", {"path": str(home / "workspace" / "a.txt"), "content": "hi"})
    assert written["size"] == 2
    assert direct("read_file", {"path": str(home / "workspace" / "a.txt")})["content"] == "hi"
    assert (
        direct("list_directory", {"path": str(home / "workspace")})["entries"][0]["name"] == "a.txt"
    )
    logs = direct.raw("read_system_logs", {"since_minutes": 5, "lines": 5})
    assert not logs.is_error or "journalctl" in logs.content[0].text
    search = direct.raw("web_search", {"query": "x"})  # no network here: a clean error
    assert search.is_error or json.loads(search.content[0].text)["count"] >= 0
