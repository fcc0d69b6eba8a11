"""Seed 000's methods and errors over a real daemon's Unix socket: system.ping, system.info,
reminders.open, calendar.upcoming with their bounds, tools.list / tools.call / the dotted aliases,
session.identify, and the error objects (string code + data.jsonrpcCode)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from socket_daemon import Daemon, Raw, running, seed_demo, short_home
from things_fixture import build as build_things
from typer.testing import CliRunner

from fruitctl import __version__
from fruitctl.capabilities import all_tools
from fruitctl.cli.app import app
from fruitctl.domain import error_table
from fruitctl.transports.rpc.methods import alias_of

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

runner = CliRunner()
OFFSET_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$")
OPEN_ITEM = {"id", "listName", "title", "dueAt", "priority", "isFlagged", "tags", "notesPreview"}
EVENT_ITEM = {
    "id",
    "calendarName",
    "title",
    "startAt",
    "endAt",
    "allDay",
    "location",
    "notesPreview",
}
PERMISSIONS = {"authorized", "denied", "not_determined", "restricted"}
TOOL_NAMES = [t.name for t in all_tools()]
needs_calendar = pytest.mark.skipif(
    "calendar_upcoming" not in TOOL_NAMES, reason="the calendar_upcoming tool is not built yet"
)


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with short_home() as home:
        seed_demo(home)
        things = build_things(home / "things")  # a Things database too, so its tools answer
        with running(home, FRUITCTL_THINGS__DATABASE=str(things.path)) as served:
            yield served


@pytest.fixture
def rpc(daemon: Daemon) -> Iterator[Raw]:
    with Raw(daemon.socket) as client:
        yield client


def assert_error(error: dict[str, Any], code: str) -> None:
    assert error["code"] == code
    assert isinstance(error["message"], str) and error["message"]
    assert error["data"]["jsonrpcCode"] == error_table.row_of(code).jsonrpc


# -- system --------------------------------------------------------------------------------------


def test_ping(rpc: Raw) -> None:
    answer = rpc.request("system.ping", request_id="req-123")
    assert answer == {
        "jsonrpc": "2.0",
        "id": "req-123",
        "result": {"ok": True, "service": "fruitctl", "version": __version__},
    }


def test_info(rpc: Raw, daemon: Daemon) -> None:
    info = rpc.result("system.info")
    assert info["service"] == "fruitctl" and info["version"] == __version__
    assert isinstance(info["uptimeMs"], int) and info["uptimeMs"] >= 0
    assert info["socketPath"] == str(daemon.socket)
    assert info["pid"] == daemon.pid and info["daemon"] is True
    assert info["mode"] == "NORMAL"
    assert info["backends"]["reminders"] == "local"
    assert set(info["permissions"]) >= {"reminders", "calendar"}
    assert set(info["permissions"].values()) <= PERMISSIONS
    assert info["permissions"]["reminders"] == "authorized"


@pytest.mark.parametrize("method", ["system.ping", "system.info", "tools.list"])
def test_methods_without_parameters_refuse_some(rpc: Raw, method: str) -> None:
    assert_error(rpc.error(method, {"verbose": True}), "invalid_params")


# -- reminders.open ------------------------------------------------------------------------------


def test_reminders_open_defaults_and_shape(rpc: Raw) -> None:
    result = rpc.result("reminders.open")
    assert OFFSET_TIME.match(result["generatedAt"])
    assert result["count"] == len(result["items"]) > 0
    for item in result["items"]:
        assert set(item) == OPEN_ITEM
        assert isinstance(item["tags"], list) and isinstance(item["isFlagged"], bool)
    dues = [item["dueAt"] for item in result["items"]]
    assert None in dues and dues.index(None) == len([d for d in dues if d is not None])


def test_reminders_open_limit_and_no_due_date(rpc: Raw) -> None:
    assert rpc.result("reminders.open", {"limit": 2})["count"] == 2
    dated = rpc.result("reminders.open", {"includeNoDueDate": False})
    assert dated["count"] > 0 and all(item["dueAt"] for item in dated["items"])
    assert rpc.result("reminders.open", {"limit": 1000})["count"] <= 1000


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"limit": "5"}, "limit"),
        ({"includeNoDueDate": "yes"}, "includeNoDueDate"),
    ],
)
def test_reminders_open_bounds(rpc: Raw, params: dict[str, Any], field: str) -> None:
    error = rpc.error("reminders.open", params)
    assert_error(error, "invalid_params")
    assert error["data"]["field"] == field
    assert error["data"]["retryable"] is False


def test_unknown_parameter_is_invalid(rpc: Raw) -> None:
    assert_error(rpc.error("reminders.open", {"lmit": 5}), "invalid_params")


# -- calendar.upcoming ---------------------------------------------------------------------------


@needs_calendar
def test_calendar_upcoming_defaults_and_shape(rpc: Raw) -> None:
    result = rpc.result("calendar.upcoming")
    window = result["window"]
    assert OFFSET_TIME.match(window["from"]) and OFFSET_TIME.match(window["to"])
    assert result["count"] == len(result["events"]) > 0  # the demo's week of events
    for event in result["events"]:
        assert set(event) >= EVENT_ITEM


@needs_calendar
def test_calendar_upcoming_parameters(rpc: Raw) -> None:
    result = rpc.result("calendar.upcoming", {"days": 30, "limit": 1, "timezone": "Asia/Tokyo"})
    assert result["window"]["timezone"] == "Asia/Tokyo"
    assert result["window"]["from"].endswith("+09:00")
    assert result["count"] <= 1


@needs_calendar
@pytest.mark.parametrize(
    "params", [{"days": 0}, {"days": 31}, {"limit": 0}, {"limit": 501}, {"timezone": "Mars/Base"}]
)
def test_calendar_upcoming_bounds(rpc: Raw, params: dict[str, Any]) -> None:
    assert_error(rpc.error("calendar.upcoming", params), "invalid_params")


# -- every tool ----------------------------------------------------------------------------------


def test_unknown_method(rpc: Raw) -> None:
    error = rpc.error("mac.reboot")
    assert_error(error, "method_not_found")
    assert "mac.reboot" in error["message"]


def test_tools_list_is_the_registry_with_aliases(rpc: Raw) -> None:
    listed = rpc.result("tools.list")["tools"]
    assert [t["name"] for t in listed] == TOOL_NAMES
    by_name = {t["name"]: t for t in listed}
    assert by_name["query_reminders"]["method"] == "reminders.query"
    assert by_name["open_reminders"]["method"] == "reminders.open"
    assert by_name["read_file"]["method"] == "files.read"
    assert by_name["web_search"]["method"] == "web.search"
    assert len({t["method"] for t in listed}) == len(listed)
    assert all(t["inputSchema"]["type"] == "object" for t in listed)


def test_tools_call_returns_the_output_itself(rpc: Raw) -> None:
    lists = rpc.result("tools.call", {"name": "get_lists", "arguments": {}})
    assert [lst["name"] for lst in lists][:2] == [
        "Reminders",
        "Work",
    ]  # demo's inbox is the store's default list
    assert rpc.result("reminders.get_lists") == lists


def test_every_alias_calls_its_tool(rpc: Raw) -> None:
    # An empty call reaches each tool: it answers, or refuses its arguments by name.
    for tool in all_tools():
        if tool.definition.category != "read_only" or tool.definition.open_world:
            continue
        answer = rpc.request(alias_of(tool), {})
        assert "result" in answer or answer["error"]["code"] == "invalid_params", answer


def test_alias_and_tools_call_agree(rpc: Raw) -> None:
    args = {"list": {"all": True}, "limit": 3}
    via_alias = rpc.result("reminders.query", args)
    assert via_alias == rpc.result("tools.call", {"name": "query_reminders", "arguments": args})


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"name": "no_such_tool"}, "method_not_found"),
        ({}, "invalid_params"),
        ({"name": "get_lists", "arguments": []}, "invalid_params"),
        ({"name": "get_lists", "extra": 1}, "invalid_params"),
        ({"name": "query_reminders", "arguments": {"limit": 500}}, "invalid_params"),
        ({"name": "query_reminders", "arguments": {"query": "[?"}}, "invalid_params"),
    ],
)
def test_tools_call_failures_are_errors(rpc: Raw, params: dict[str, Any], code: str) -> None:
    assert_error(rpc.error("tools.call", params), code)


def test_an_agents_write_is_a_pending_proposal(rpc: Raw) -> None:
    pending = rpc.result("reminders.create", {"reminders": [{"title": "from a socket agent"}]})
    assert pending["status"] == "pending"
    proposal = rpc.result("approvals.get_proposal", {"id": pending["proposalId"]})
    assert proposal["status"] == "PENDING"


def test_a_refused_call_is_an_error(
    rpc: Raw, daemon: Daemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRUITCTL_HOME", str(daemon.home))  # the mode lives in its state.db
    assert runner.invoke(app, ["mode", "set", "LOCKDOWN"]).exit_code == 0
    try:
        error = rpc.error("reminders.create", {"reminders": [{"title": "in lockdown"}]})
        assert rpc.result("system.info")["mode"] == "LOCKDOWN"
    finally:
        assert runner.invoke(app, ["mode", "set", "NORMAL"]).exit_code == 0
    assert_error(error, "mode_forbidden")
    assert rpc.result("system.info")["mode"] == "NORMAL"  # another process's change, seen


# -- who is calling ------------------------------------------------------------------------------


def test_a_person_needs_the_token(rpc: Raw, daemon: Daemon) -> None:
    refused = rpc.error("session.identify", {"kind": "human", "name": "cli:me", "token": "guess"})
    assert_error(refused, "permission_denied")
    token = (daemon.socket.parent / "fruitctl.token").read_text().strip()
    who = rpc.result("session.identify", {"kind": "human", "name": "cli:me", "token": token})
    assert who == {"actor": "human:cli:me"}
    created = rpc.result("reminders.create", {"reminders": [{"title": "a person's own"}]})
    assert isinstance(created, list) and created[0]["title"] == "a person's own"


def test_an_agent_names_itself(rpc: Raw) -> None:
    assert rpc.result("session.identify", {"kind": "agent", "name": "codex"}) == {
        "actor": "agent:codex"
    }
    assert_error(rpc.error("session.identify", {"kind": "root", "name": "x"}), "invalid_params")
    assert_error(rpc.error("session.identify", {"kind": "agent", "name": ""}), "invalid_params")


def test_token_file_is_private(daemon: Daemon) -> None:
    token = daemon.socket.parent / "fruitctl.token"
    assert token.stat().st_mode & 0o777 == 0o600


def test_daemon_home_is_not_the_test_home(daemon: Daemon, home: Path) -> None:
    assert daemon.home != home  # the daemon's files never mix with in-process tests'


def test_an_agents_write_fails_fast_item_by_item(rpc: Raw) -> None:
    items = [
        {"title": "Post the letter", "list": {"name": "Errands"}},
        {"title": "Lost", "list": {"name": "Nowhere"}},
    ]
    pending = rpc.result("reminders.create", {"reminders": items})
    assert pending["status"] == "pending"
    assert pending["failed"] == [
        {
            "index": 1,
            "error": "No list found with name: 'Nowhere'. "
            "Available lists: Reminders, Work, Personal, Errands.",
        }
    ]
    assert pending["summary"] == "Create 1 reminder in Errands: 'Post the letter'"
    hopeless = rpc.error("reminders.create", {"reminders": items[1:]})
    assert_error(hopeless, "not_found")
    assert hopeless["message"].startswith("No list found with name: 'Nowhere'.")


# -- fruitctl rpc: raw requests without nc or socat ---------------------------------------------


def rpc_cli(daemon: Daemon, *args: str, stdin: str | None = None) -> Any:
    env = {"FRUITCTL_HOME": str(daemon.home)}
    return runner.invoke(app, ["rpc", *args], env=env, input=stdin)


def test_rpc_sends_one_request_and_prints_the_answer(daemon: Daemon) -> None:
    ping = rpc_cli(daemon, '{"jsonrpc": "2.0", "id": 7, "method": "system.ping"}')
    assert ping.exit_code == 0, ping.output
    answer = json.loads(ping.stdout)
    assert answer["id"] == 7 and answer["result"]["ok"] is True

    envelope = '{"version": "1.0", "request_id": "r1", "tool": "get_lists", "params": {}}'
    aai = rpc_cli(daemon, "-", stdin=envelope)
    assert aai.exit_code == 0, aai.output
    assert json.loads(aai.stdout)["status"] == "success"

    batch = '[{"jsonrpc": "2.0", "id": 1, "method": "system.ping"}, ' + (
        '{"jsonrpc": "2.0", "method": "system.ping"}]'
    )
    assert [a["id"] for a in json.loads(rpc_cli(daemon, batch).stdout)] == [1]

    quiet = rpc_cli(daemon, '{"jsonrpc": "2.0", "method": "system.ping"}')  # a notification
    assert (quiet.exit_code, quiet.stdout) == (0, "")


def test_rpc_says_what_went_wrong(daemon: Daemon) -> None:
    unknown = rpc_cli(daemon, '{"jsonrpc": "2.0", "id": 1, "method": "no.such"}')
    assert unknown.exit_code == 1
    assert json.loads(unknown.stdout)["error"]["code"] == "method_not_found"
    garbled = rpc_cli(daemon, "{not json")
    assert garbled.exit_code == 2 and "The request is not JSON" in garbled.stderr


def test_rpc_without_a_daemon_says_how_to_start_one() -> None:
    with short_home() as home:
        result = runner.invoke(
            app,
            ["rpc", '{"jsonrpc": "2.0", "id": 1, "method": "system.ping"}'],
            env={"FRUITCTL_HOME": str(home)},
        )
    assert result.exit_code == 9
    assert "No fruitctl daemon answers on" in result.stderr and "fruitctl serve" in result.stderr
