"""Approvals a person can trust, through the CLI and MCP: an approval is decided again by the
policy (LOCKDOWN, an allowlist tightened since, rate limits) and recorded as a call; a write
that cannot work fails when it is proposed; an approval that changed nothing is a failure;
allowlists bind agents, never the person."""

from __future__ import annotations

import getpass
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.capabilities import all_tools
from fruitctl.cli.app import app as cli_app
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import (
    ExecutionFailed,
    ListNotAllowed,
    ModeForbidden,
    PermissionDenied,
    RateLimited,
)
from fruitctl.tools.inputs import Input
from fruitctl.tools.model import tool
from fruitctl.tools.registry import ToolRegistry
from fruitctl.transports.mcp import build_server

AGENT = Actor("agent", "claude")
PERSON = Actor("human", "me")
runner = CliRunner()


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    built.call("get_lists", {})  # the default list, 'Reminders'
    for name in ("Inbox", "Errands", "Work"):
        built.backend.create_list(name)
    yield built
    built.close()


def cli(*args: str) -> Any:
    return runner.invoke(cli_app, list(args))


def propose(app: bootstrap.App, tool_name: str, args: dict[str, Any]) -> dict[str, Any]:
    result = app.gateway.invoke(tool_name, args, AGENT)
    assert result.success and result.metadata.get("pending"), result.error
    return dict(result.output)


def titles(app: bootstrap.App) -> list[str]:
    found = app.call("query_reminders", {"list": {"all": True}, "status": "all", "limit": 200})
    return sorted(r["title"] for r in found)


def calls(app: bootstrap.App, trace_id: str) -> list[tuple[str, str, str | None]]:
    app.gateway.flush()
    with sqlite3.connect(app.config.paths.state_db) as db:
        rows = db.execute(
            "SELECT actor, outcome, error_code FROM tool_calls WHERE trace_id = ? ORDER BY at",
            (trace_id,),
        )
        return list(rows)


def trace_of(app: bootstrap.App, proposal_id: str) -> str:
    with sqlite3.connect(app.config.paths.state_db) as db:
        found = db.execute("SELECT trace_id FROM proposals WHERE id = ?", (proposal_id,))
        return str(found.fetchone()[0])


def audit_events(app: bootstrap.App, proposal_id: str) -> list[str]:
    return [e["event"] for e in reversed(app.audit.entries(proposal_id=proposal_id))]


# -- an approval is decided again -----------------------------------------------------------


def test_lockdown_stops_an_approval_which_stays_pending_with_the_reason(
    app: bootstrap.App,
) -> None:
    pending = propose(app, "create_reminders", {"reminders": [{"title": "Buy milk"}]})
    assert cli("mode", "set", "LOCKDOWN").exit_code == 0

    refused = cli("proposals", "approve", pending["proposalId"])
    assert refused.exit_code == 5, refused.output
    assert "not allowed in LOCKDOWN mode" in refused.stderr
    shown = app.approvals.get(pending["proposalId"])
    assert shown["status"] == "PENDING"
    assert shown["reason"] == "Approval refused: create_reminders is not allowed in LOCKDOWN mode."
    assert titles(app) == []
    trace = trace_of(app, pending["proposalId"])
    assert calls(app, trace) == [
        ("agent:claude", "proposed", "approval_required"),
        (f"human:cli:{getpass.getuser()}", "blocked", "mode_forbidden"),
    ]

    assert cli("mode", "set", "NORMAL").exit_code == 0
    done = cli("proposals", "approve", pending["proposalId"], "--json")
    assert done.exit_code == 0, done.output
    view = json.loads(done.stdout)
    assert (view["status"], view["reason"]) == ("EXECUTED", None)
    assert titles(app) == ["Buy milk"]
    assert calls(app, trace)[-1][1:] == ("approved", None)
    assert audit_events(app, pending["proposalId"]) == [
        "proposal_created",
        "approval_refused",
        "approved",
        "executed",
    ]


def test_an_allowlist_tightened_after_filing_refuses_the_approval(app: bootstrap.App) -> None:
    pending = propose(
        app, "create_reminders", {"reminders": [{"title": "Stamps", "list": {"name": "Errands"}}]}
    )
    assert cli("config", "set", "allowlist.reminders.lists", "Inbox").exit_code == 0
    with pytest.raises(ListNotAllowed, match="Writes to list 'Errands' are not permitted"):
        app.gateway.decide(pending["proposalId"], "approve", PERSON)
    assert app.approvals.get(pending["proposalId"])["status"] == "PENDING"
    assert titles(app) == []

    assert cli("config", "unset", "allowlist.reminders.lists").exit_code == 0
    assert app.gateway.decide(pending["proposalId"], "approve", PERSON)["status"] == "EXECUTED"
    assert titles(app) == ["Stamps"]


def test_an_approval_counts_once_toward_the_agents_rate_limit(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(
        "tools:\n  create_reminders:\n    rate_limit_per_actor_per_hour: 2\n"
    )
    app = bootstrap.build()
    first = propose(app, "create_reminders", {"reminders": [{"title": "one"}]})
    second = propose(app, "create_reminders", {"reminders": [{"title": "two"}]})
    third = app.gateway.invoke("create_reminders", {"reminders": [{"title": "three"}]}, AGENT)
    assert third.error_code == "rate_limited"
    # Each filing counted already: approving them is not refused, nor counted again.
    for pending in (first, second):
        assert app.gateway.decide(pending["proposalId"], "approve", PERSON)["status"] == "EXECUTED"
    app.close()

    (home / "governance.yaml").write_text(
        "tools:\n  create_reminders:\n    rate_limit_per_actor_per_hour: 0\n"
    )
    again = bootstrap.build()
    later = again.approvals.propose(
        again.gateway.registry.get("create_reminders"),  # type: ignore[arg-type]
        again.gateway.registry.get("create_reminders").parse(  # type: ignore[union-attr]
            {"reminders": [{"title": "late"}]}
        ),
        AGENT,
    )
    with pytest.raises(RateLimited, match="0 calls an hour for agent:claude"):
        again.gateway.decide(later["proposalId"], "approve", PERSON)
    assert again.approvals.get(later["proposalId"])["status"] == "PENDING"
    again.close()


def test_only_the_gateway_decides(app: bootstrap.App) -> None:
    pending = propose(app, "create_reminders", {"reminders": [{"title": "x"}]})
    denied = app.gateway.policy.judge(
        app.gateway.registry.get("create_reminders"),  # type: ignore[arg-type]
        None,
        AGENT,
        app.gateway.context,
    )
    app.modes.set("LOCKDOWN", "test")
    refusal = app.gateway.policy.judge(
        app.gateway.registry.get("create_reminders"),  # type: ignore[arg-type]
        None,
        PERSON,
        app.gateway.context,
    )
    for decision in (denied, refusal):  # neither a proposal's verdict nor a denial runs it
        with pytest.raises(PermissionDenied, match="cannot run"):
            app.approvals.take(pending["proposalId"], PERSON, decision)
    with pytest.raises(ModeForbidden):
        app.gateway.decide(pending["proposalId"], "approve", PERSON)
    assert titles(app) == []


# -- fail fast -----------------------------------------------------------------------------------


def test_a_mixed_batch_files_only_the_items_that_can_work(app: bootstrap.App) -> None:
    items = [
        {"title": "ok 1", "list": {"name": "errands"}},
        {"title": "lost", "list": {"name": "Nowhere"}},
        {"title": "ok 2"},
        {"title": "lost too", "list": {"id": "no-such-id"}},
    ]
    pending = propose(app, "create_reminders", {"reminders": items})
    available = "Reminders, Inbox, Errands, Work"
    assert pending["failed"] == [
        {
            "index": 1,
            "error": f"No list found with name: 'Nowhere'. Available lists: {available}.",
        },
        {"index": 3, "error": "No list found with ID: 'no-such-id'."},
    ]
    filed = app.approvals.get(pending["proposalId"])
    assert [i["title"] for i in filed["args"]["reminders"]] == ["ok 1", "ok 2"]
    assert filed["summary"].startswith("Create 2 reminders")
    done = app.gateway.decide(pending["proposalId"], "approve", PERSON)
    assert [r["title"] for r in done["result"]] == ["ok 1", "ok 2"]


def test_a_write_that_cannot_work_is_an_error_and_no_proposal(app: bootstrap.App) -> None:
    mine = app.call("create_reminders", {"reminders": [{"title": "mine"}]}, PERSON)[0]
    cases: list[tuple[str, dict[str, Any], str]] = [
        (
            "create_reminders",
            {"reminders": [{"title": "x", "list": {"name": "Nowhere"}}]},
            "No list found with name: 'Nowhere'. Available lists: Reminders, Inbox, Errands, Work.",
        ),
        ("delete_reminders", {"ids": ["gone-1", "gone-2"]}, "No reminder found with ID: 'gone-1'."),
        (
            "update_reminders",
            {"reminders": [{"id": mine["id"], "list": {"name": "Nowhere"}}]},
            "No list found with name: 'Nowhere'.",
        ),
        (
            "create_reminders",
            {"reminders": [{"title": "x", "dueDate": "01-15-2024"}]},
            "Invalid date format: '01-15-2024'.",
        ),
        ("update_event", {"id": "no-such-event", "title": "x"}, "No event found with ID"),
        ("create_event", {"title": "x", "startAt": "2026-03-02", "calendar": "Nope"}, "Nope"),
    ]
    for name, args, message in cases:
        result = app.gateway.invoke(name, args, AGENT)
        assert not result.success and message in (result.error or ""), (name, result.error)
    assert app.approvals.recent("pending") == []
    both = app.gateway.invoke("delete_reminders", {"ids": ["gone-1", "gone-2"]}, AGENT)
    assert both.error == (
        "No reminder found with ID: 'gone-1'. No reminder found with ID: 'gone-2'."
    )
    assert [f["id"] for f in both.error_details["failed"]] == ["gone-1", "gone-2"]


def test_update_and_delete_batches_leave_out_unknown_ids(app: bootstrap.App) -> None:
    mine = app.call("create_reminders", {"reminders": [{"title": "mine"}]}, PERSON)[0]
    update = propose(
        app,
        "update_reminders",
        {"reminders": [{"id": "nope", "title": "a"}, {"id": mine["id"], "title": "renamed"}]},
    )
    assert update["failed"] == [{"id": "nope", "error": "No reminder found with ID: 'nope'."}]
    delete = propose(app, "delete_reminders", {"ids": ["nope", mine["id"]]})
    assert [f["id"] for f in delete["failed"]] == ["nope"]
    assert app.approvals.get(delete["proposalId"])["args"] == {"ids": [mine["id"]]}


def test_mcp_answers_the_pending_object_with_the_items_left_out(app: bootstrap.App) -> None:
    items = [{"title": "fine"}, {"title": "lost", "list": {"name": "Nowhere"}}]

    async def main() -> Any:
        async with Client(build_server(app.gateway)) as client:
            mixed = await client.call_tool("create_reminders", {"reminders": items})
            hopeless = await client.call_tool("create_reminders", {"reminders": items[1:]})
            return mixed, hopeless

    mixed, hopeless = anyio.run(main)
    answer = json.loads(mixed.content[0].text)
    assert not mixed.is_error and answer["status"] == "pending"
    assert answer["failed"][0]["index"] == 1
    assert hopeless.is_error
    assert hopeless.content[0].text.startswith("No list found with name: 'Nowhere'.")
    assert len(app.approvals.recent("pending")) == 1


# -- nothing changed is not a success -------------------------------------------------------------


def drop_list(app: bootstrap.App, name: str) -> None:
    """Another app removes a list (as iCloud or a CalDAV client can) behind fruitctl's back."""
    with sqlite3.connect(app.config.paths.local_db) as db:
        db.execute("DELETE FROM lists WHERE name = ?", (name,))
    app.backend.lists()  # the store's read cache notices the change


def test_an_approval_that_wrote_nothing_fails_and_the_cli_says_so(app: bootstrap.App) -> None:
    pending = propose(
        app, "create_reminders", {"reminders": [{"title": "x", "list": {"name": "Errands"}}]}
    )
    drop_list(app, "Errands")
    result = cli("proposals", "approve", pending["proposalId"])
    assert result.exit_code == 12, result.output  # it ran and failed
    assert "Nothing was changed: No list found with name: 'Errands'." in result.stderr
    assert "EXECUTED" not in result.stdout
    failed = app.approvals.get(pending["proposalId"])
    assert failed["status"] == "FAILED" and failed["error"]["code"] == "execution_failed"
    assert failed["canUndo"] is False
    assert calls(app, trace_of(app, pending["proposalId"]))[-1][1:] == (
        "failed",
        "execution_failed",
    )


def test_a_partly_failed_approval_lists_what_failed(app: bootstrap.App) -> None:
    items = [{"title": "kept", "list": {"name": "Inbox"}}, {"title": "x", "list": {"name": "Work"}}]
    pending = propose(app, "create_reminders", {"reminders": items})
    drop_list(app, "Work")
    result = cli("proposals", "approve", pending["proposalId"])
    assert result.exit_code == 1, result.output
    assert "EXECUTED" in result.stdout
    assert "failed: item 1: No list found with name: 'Work'." in result.stderr
    assert titles(app) == ["kept"]


# -- stats tell the truth -----------------------------------------------------------------------


def test_stats_count_each_outcome_and_only_failures_as_errors(app: bootstrap.App) -> None:
    ok = propose(app, "create_reminders", {"reminders": [{"title": "approved"}]})
    assert app.gateway.decide(ok["proposalId"], "approve", PERSON)["status"] == "EXECUTED"
    empty = propose(
        app, "create_reminders", {"reminders": [{"title": "x", "list": {"name": "Errands"}}]}
    )
    drop_list(app, "Errands")
    with pytest.raises(ExecutionFailed):
        app.gateway.decide(empty["proposalId"], "approve", PERSON)
    propose(app, "create_reminders", {"reminders": [{"title": "still pending"}]})
    app.modes.set("LOCKDOWN", "test")
    assert app.gateway.invoke("create_reminders", {"reminders": [{"title": "y"}]}, AGENT).error
    app.modes.set("NORMAL", "test")
    app.call("create_reminders", {"reminders": [{"title": "mine"}]})
    app.gateway.flush()  # the records of this process, where the CLI reads them

    shown = cli("stats", "--json")
    assert shown.exit_code == 0, shown.output
    row = next(r for r in json.loads(shown.stdout) if r["tool"] == "create_reminders")
    counts = {k: row[k] for k in ("calls", "executed", "proposed", "approved", "blocked", "failed")}
    assert counts == {
        "calls": 7,
        "executed": 1,
        "proposed": 3,
        "approved": 1,
        "blocked": 1,
        "failed": 1,
    }
    assert row["errorRate"] == round(1 / 7, 4)
    table = cli("stats").stdout
    assert all(c in table for c in ("EXECUTED", "PROPOSED", "APPROVED", "BLOCKED", "FAILED"))


# -- allowlists bind agents ---------------------------------------------------------------------


def test_the_agents_allowlist_never_refuses_the_person() -> None:
    assert cli("config", "set", "allowlist.reminders.lists", "Inbox,Errands").exit_code == 0
    own = cli("reminders", "add", "--title", "Mine", "--list", "Reminders", "--json")
    assert own.exit_code == 0, own.output
    agent = cli(
        "tools",
        "call",
        "create_reminders",
        "--as",
        "agent",
        "--args",
        '{"reminders": [{"title": "theirs"}]}',
    )
    assert agent.exit_code == 5 and "not permitted" in agent.stderr
    assert cli("config", "set", "allowlist.reminders.lists", "").exit_code == 0
    cleared = json.loads(cli("config", "get", "--json").stdout)
    assert cleared["allowlist.reminders.lists"] is None
    key = "allowlist.calendars"
    assert cli("config", "set", key, "Work").exit_code == 0
    assert cli("config", "unset", key).exit_code == 0
    assert json.loads(cli("config", "get", key, "--json").stdout) == {key: None}


def test_lockdown_binds_the_person_too(app: bootstrap.App) -> None:
    app.modes.set("LOCKDOWN", "test")
    result = app.gateway.invoke("create_reminders", {"reminders": [{"title": "x"}]}, PERSON)
    assert result.error_code == "mode_forbidden"


# -- governance declared on the tool ------------------------------------------------------------


def test_every_write_tool_declares_its_change() -> None:
    writes = [t for t in all_tools() if t.writes]
    assert {t.name for t in writes} >= {"create_reminders", "write_file", "delete_event"}
    for declared in writes:
        assert declared.change is not None, declared.name


class Nothing(Input):
    pass


def test_a_write_tool_without_a_change_description_is_refused() -> None:
    @tool(category="pim_write", risk="low", title="Sneaky")
    def sneaky(args: Nothing, ctx: Any) -> None:
        """Writes without saying what it changes."""

    with pytest.raises(ValueError, match="declares no change"):
        ToolRegistry([sneaky])
