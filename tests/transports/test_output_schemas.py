"""Every tool declares what it answers: ``aai.json``'s ``returns`` and MCP's ``outputSchema``
come from the same output types, and every tool's real answer validates against both - through
the MCP SDK's own client (which checks ``structuredContent`` against ``outputSchema`` on every
call) and with jsonschema against the AAI schema. Things runs on a real Things-schema database
with the recorder playing Things' part; web search on a real HTTP server in SearxNG's format."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp.client import Client
from searx_server import FakeSearx
from things_fixture import build

from fruitctl import bootstrap
from fruitctl.transports import aai
from fruitctl.transports.mcp import build_server

RECORDER = str(Path(__file__).parents[1] / "things_recorder.py")


@pytest.fixture
def app(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, searx: FakeSearx
) -> Iterator[bootstrap.App]:
    things = build(tmp_path / "things")
    log = tmp_path / "urls.log"
    command = [sys.executable, RECORDER, str(things.path), str(log), "apply"]
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(things.path))
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps(command))
    monkeypatch.setenv("FRUITCTL_WEB__PROVIDER", "searxng")
    monkeypatch.setenv("FRUITCTL_WEB__SEARXNG_URL", searx.url)
    (home / "workspace").mkdir(parents=True)
    built = bootstrap.build()
    # Writes run directly for this agent (a person's choice in governance.yaml), so each
    # write's own answer is checked; one session below keeps the default, for the pending one.
    writes = [t.name for t in built.gateway.registry if t.writes]
    rules = "".join(
        f"  {name}: {{allowed_in_modes: [NORMAL], requires_approval_in_modes: []}}\n"
        for name in writes
    )
    (home / "governance.yaml").write_text("tools:\n" + rules)
    built.close()
    opened = bootstrap.build()
    opened.demo.seed()
    yield opened
    opened.close()


def _reads_and_writes(home: Path, app: bootstrap.App) -> list[tuple[str, dict[str, Any]]]:
    reminders = app.reminders.query_reminders({"list": {"all": True}, "limit": 2})
    first, second = (r["id"] for r in reminders)
    first_event = app.calendar.query_events({"limit": 1})["events"][0]
    event = first_event["id"]
    its_time = {"start": first_event["startAt"], "end": first_event["endAt"]}
    workspace = home / "workspace"
    some_unknown = {"title": "x", "list": {"name": "No such list"}}
    return [
        ("get_lists", {}),
        ("query_reminders", {"list": {"all": True}, "limit": 3}),
        ("query_reminders", {"query": "length(@)"}),
        ("get_reminder", {"id": first}),
        ("open_reminders", {"limit": 3}),
        ("create_reminders", {"reminders": [{"title": "one"}]}),
        ("create_reminders", {"reminders": [{"title": "two"}, some_unknown]}),
        ("update_reminders", {"reminders": [{"id": first, "title": "renamed"}]}),
        ("update_reminders", {"reminders": [{"id": second, "flagged": True}, {"id": "no"}]}),
        ("delete_reminders", {"ids": [second, "nope"]}),
        ("list_calendars", {}),
        ("query_events", {"limit": 2}),
        ("get_event", {"id": event}),
        ("calendar_upcoming", {"days": 3, "limit": 2}),
        ("find_free_time", {"minutes": 15, "hours": "09:00-17:00"}),
        ("check_conflicts", its_time),
        ("query_todos", {"view": "today"}),
        ("get_todo", {"id": "todo-anytime"}),
        ("list_projects", {}),
        ("list_headings", {"project": "Move house"}),
        ("list_areas", {}),
        ("list_tags", {}),
        ("create_todo", {"title": "Buy stamps"}),
        ("create_todos", {"todos": [{"title": "A"}, {"title": "B"}]}),
        ("update_todo", {"id": "todo-anytime", "title": "Renamed"}),
        ("complete_todo", {"id": "todo-anytime"}),
        ("create_project", {"title": "Garden"}),
        ("update_project", {"id": "proj-move", "notes": "Boxes first"}),
        ("write_file", {"path": str(workspace / "a.txt"), "content": "hi"}),
        ("read_file", {"path": str(workspace / "a.txt")}),
        ("list_directory", {"path": str(workspace)}),
        ("system_metrics_snapshot", {}),
        ("check_process_health", {"pid": os.getpid()}),
        ("web_search", {"query": "fruit", "max_results": 2}),
    ]


class Checked:
    """Calls through the SDK's client - which raises when ``structuredContent`` does not fit
    the tool's ``outputSchema`` - and checks the answer against the AAI ``returns`` schema."""

    def __init__(self, client: Client, app: bootstrap.App) -> None:
        self.client = client
        self.tools = {tool.name: tool for tool in app.gateway.registry}
        self.answered: set[str] = set()

    async def __call__(self, name: str, args: dict[str, Any]) -> Any:
        result = await self.client.call_tool(name, args)
        assert not result.is_error, (name, result.content[0].text)
        output = json.loads(result.content[0].text)
        jsonschema.validate(output, aai.returns_schema(self.tools[name]))
        self.answered.add(name)
        return output


@pytest.mark.slow
def test_every_answer_fits_its_declared_schema(app: bootstrap.App, home: Path) -> None:
    calls = _reads_and_writes(home, app)

    async def main() -> set[str]:
        async with Client(build_server(app.gateway)) as client:
            listed = (await client.list_tools()).tools
            assert all(t.output_schema and t.output_schema["type"] == "object" for t in listed)
            call = Checked(client, app)
            for name, args in calls:
                await call(name, args)
            made = await call("create_event", {"title": "New", "startAt": "2030-01-02T10:00"})
            await call("update_event", {"id": made["id"], "location": "Home"})
            await call("delete_event", {"id": made["id"]})
            await call("create_reminder_list", {"name": "Made here"})
            await call("create_calendar", {"name": "Made here"})
            gone = await call("delete_file", {"path": str(home / "workspace" / "a.txt")})
            await call("restore_file", {"path": gone["path"], "kept": gone["keptId"]})
            return call.answered

    answered = anyio.run(main)
    everything = {tool.name for tool in app.gateway.registry}
    # The system log needs a journal this machine may not have; get_proposal is the next test's;
    # the code tools start programs, and their answers are checked the same way in
    # test_code_tools.py; fetch_url runs in a sandbox child, checked in
    # tests/transports/test_fetch_url_doors.py.
    code_tools = {"git_status", "run_linter", "run_tests"}
    assert everything - answered == {"read_system_logs", "get_proposal", "fetch_url", *code_tools}


def test_a_pending_write_and_its_proposal_fit_too(home: Path) -> None:
    app = bootstrap.build()  # the default rules: an agent's write waits for a person
    try:

        async def main() -> None:
            async with Client(build_server(app.gateway)) as client:
                call = Checked(client, app)
                pending = await call("create_reminders", {"reminders": [{"title": "later"}]})
                assert pending["status"] == "pending"
                shown = await call("get_proposal", {"id": pending["proposalId"]})
                assert shown["status"] == "PENDING"

        anyio.run(main)
    finally:
        app.close()


@pytest.mark.process  # the system log is read by journalctl, a process
def test_the_log_entries_fit_when_this_machine_has_a_journal(app: bootstrap.App) -> None:
    async def main() -> Any:
        async with Client(build_server(app.gateway)) as client:
            return await client.call_tool("read_system_logs", {"since_minutes": 5, "lines": 5})

    result = anyio.run(main)  # the SDK's client has checked structuredContent if it succeeded
    if result.is_error:
        pytest.skip(f"no system log to read here: {result.content[0].text}")
    tool = next(t for t in app.gateway.registry if t.name == "read_system_logs")
    jsonschema.validate(json.loads(result.content[0].text), aai.returns_schema(tool))


def test_aai_json_declares_what_every_tool_returns(app: bootstrap.App) -> None:
    tools = list(app.gateway.registry)
    document = aai.descriptor(tools, "dev.fruitctl.test", Path("/tmp/fruitctl.sock"))
    for entry in document["tools"]:
        returns = entry["returns"]
        assert returns and (
            "properties" in returns
            or "$ref" in returns
            or "anyOf" in returns
            or returns.get("type") == "array"
        ), entry["name"]
        jsonschema.Draft202012Validator.check_schema(returns)
