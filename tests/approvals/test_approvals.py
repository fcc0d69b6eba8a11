"""The approval engine: lifecycle, illegal transitions, TTL, races (threads and processes),
conflicts, undo, allowlists, idempotency, the audit trail, and kill -9 mid-approval."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import (
    Conflict,
    FruitctlError,
    InvalidParams,
    PermissionDenied,
    ProposalExpired,
    ProposalNotFound,
)

AGENT = Actor("agent", "claude")
OTHER = Actor("agent", "codex")
PERSON = Actor("human", "me")


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def propose(app: bootstrap.App, tool: str, args: dict[str, Any], **kw: Any) -> str:
    result = app.gateway.invoke(tool, args, AGENT, **kw)
    assert result.success, result.error
    assert result.output["status"] == "pending" and result.metadata["pending"] is True
    return str(result.output["proposalId"])


def titles(app: bootstrap.App) -> list[str]:
    found = app.call("query_reminders", {"list": {"all": True}, "status": "all", "limit": 200})
    return sorted(r["title"] for r in found)


def events(app: bootstrap.App, proposal_id: str) -> list[str]:
    return [e["event"] for e in reversed(app.audit.entries(proposal_id=proposal_id))]


# -- lifecycle ---------------------------------------------------------------------------


def test_a_write_from_an_agent_waits_then_runs_once_approved(app: bootstrap.App) -> None:
    pid = propose(app, "create_reminders", {"reminders": [{"title": "Buy milk"}]})
    pending = app.approvals.get(pid)
    assert pending["status"] == "PENDING" and titles(app) == []
    assert pending["summary"] == "Create 1 reminder in the default list: 'Buy milk'"
    assert pending["diff"] == [
        {"target": "new reminder 1", "field": "title", "before": None, "after": "Buy milk"}
    ]
    done = app.gateway.decide(pid, "approve", PERSON)
    assert done["status"] == "EXECUTED" and done["resolvedBy"] == "human:me"
    assert done["result"][0]["title"] == "Buy milk"
    assert titles(app) == ["Buy milk"]
    assert events(app, pid) == ["proposal_created", "approved", "executed"]


def test_reject_changes_nothing_and_keeps_the_reason(app: bootstrap.App) -> None:
    pid = propose(app, "create_reminders", {"reminders": [{"title": "x"}]})
    rejected = app.gateway.decide(pid, "reject", PERSON, "not now")
    assert (rejected["status"], rejected["reason"]) == ("REJECTED", "not now")
    assert titles(app) == []
    assert events(app, pid) == ["proposal_created", "rejected"]


@pytest.mark.parametrize("first", ["approve", "reject"])
@pytest.mark.parametrize("then", ["approve", "reject"])
def test_a_decided_proposal_cannot_be_decided_again(
    app: bootstrap.App, first: str, then: str
) -> None:
    pid = propose(app, "create_reminders", {"reminders": [{"title": "x"}]})
    app.gateway.decide(pid, first, PERSON)
    with pytest.raises(Conflict, match="already"):
        app.gateway.decide(pid, then, PERSON)


def test_unknown_proposals_and_agents_deciding(app: bootstrap.App) -> None:
    with pytest.raises(ProposalNotFound):
        app.gateway.decide("p0000", "approve", PERSON)
    pid = propose(app, "create_reminders", {"reminders": [{"title": "x"}]})
    for action in ("approve", "reject", "undo"):
        with pytest.raises(PermissionDenied, match="Only a person"):
            app.gateway.decide(pid, action, AGENT)
    assert app.approvals.get(pid)["status"] == "PENDING"


def test_proposals_expire(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRUITCTL_APPROVALS__TTL_HOURS", str(0.3 / 3600))
    app = bootstrap.build()
    pid = propose(app, "create_reminders", {"reminders": [{"title": "x"}]})
    time.sleep(0.4)
    assert app.approvals.recent("pending") == []
    assert app.approvals.get(pid)["status"] == "EXPIRED"
    with pytest.raises(ProposalExpired):
        app.gateway.decide(pid, "approve", PERSON)
    with pytest.raises(ProposalExpired):
        app.gateway.decide(pid, "reject", PERSON)
    assert events(app, pid) == ["proposal_created", "expired"]
    assert titles(app) == []
    app.close()


def test_an_agent_reads_only_its_own_proposals(app: bootstrap.App) -> None:
    pid = propose(app, "create_reminders", {"reminders": [{"title": "x"}]})
    own = app.gateway.invoke("get_proposal", {"id": pid}, AGENT)
    assert own.success and own.output["status"] == "PENDING"
    app.gateway.decide(pid, "approve", PERSON)
    assert app.gateway.invoke("get_proposal", {"id": pid}, AGENT).output["status"] == "EXECUTED"
    other = app.gateway.invoke("get_proposal", {"id": pid}, OTHER)
    assert other.error_code == "proposal_not_found"


# -- exactly once --------------------------------------------------------------------------


def test_racing_threads_execute_a_proposal_once(home: Path) -> None:
    app = bootstrap.build()
    pid = propose(app, "create_reminders", {"reminders": [{"title": "once"}]})
    app.close()
    outcomes: list[str] = []

    def approve() -> None:
        racer = bootstrap.build()
        try:
            racer.gateway.decide(pid, "approve", PERSON)
            outcomes.append("ok")
        except FruitctlError as exc:
            outcomes.append(exc.code)
        finally:
            racer.close()

    threads = [threading.Thread(target=approve) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["conflict"] * 5 + ["ok"]
    check = bootstrap.build()
    assert titles(check) == ["once"]
    check.close()


def _cli(home: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FRUITCTL_HOME": str(home)}
    return subprocess.Popen(
        [sys.executable, "-m", "fruitctl", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.slow
def test_racing_processes_execute_a_proposal_once(home: Path) -> None:
    app = bootstrap.build()
    pid = propose(app, "create_reminders", {"reminders": [{"title": "once"}]})
    app.close()
    racers = [_cli(home, "proposals", "approve", pid) for _ in range(4)]
    codes = sorted(p.wait(timeout=60) for p in racers)
    for p in racers:
        p.stdout.close()  # type: ignore[union-attr]
        p.stderr.close()  # type: ignore[union-attr]
    assert codes == [0, 4, 4, 4]
    check = bootstrap.build()
    assert titles(check) == ["once"]
    check.close()


@pytest.mark.slow
def test_kill_9_mid_approval_never_runs_twice_nor_loses_a_proposal(home: Path) -> None:
    many = {"reminders": [{"title": f"r{i:03d}"} for i in range(300)]}
    for delay in (0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 1.0, 1.3):
        app = bootstrap.build()
        pid = propose(app, "create_reminders", many)
        app.close()
        approver = _cli(home, "proposals", "approve", pid)
        time.sleep(delay)
        approver.send_signal(signal.SIGKILL)
        approver.wait()
        approver.stdout.close()  # type: ignore[union-attr]
        approver.stderr.close()  # type: ignore[union-attr]

        after = bootstrap.build()  # a restart: recovery runs here
        state = after.approvals.get(pid)["status"]
        assert state in ("PENDING", "EXECUTED"), (delay, state)
        if state == "PENDING":  # killed before anything was applied: still approvable
            after.gateway.decide(pid, "approve", PERSON)
        assert after.approvals.get(pid)["status"] == "EXECUTED"
        found = after.call("query_reminders", {"status": "all", "limit": 200, "query": "length(@)"})
        assert found == 300, (delay, found)  # exactly once, never 600
        after.call(
            "delete_reminders",
            {
                "ids": [
                    r["id"] for r in after.call("query_reminders", {"status": "all", "limit": 200})
                ]
            },
        )
        while after.call("query_reminders", {"limit": 1}):
            ids = [r["id"] for r in after.call("query_reminders", {"limit": 200})]
            after.call("delete_reminders", {"ids": ids})
        after.close()
    for db in ("state.db", "local.db"):
        with sqlite3.connect(home / db) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    audit = bootstrap.build()
    assert audit.audit.verify()["ok"] is True
    audit.close()


# -- bound to the target ------------------------------------------------------------------


def test_a_target_changed_since_the_proposal_is_a_conflict(app: bootstrap.App) -> None:
    made = app.call("create_reminders", {"reminders": [{"title": "draft"}]}, PERSON)[0]
    pid = propose(app, "update_reminders", {"reminders": [{"id": made["id"], "title": "final"}]})
    app.call("update_reminders", {"reminders": [{"id": made["id"], "notes": "edited"}]}, PERSON)
    with pytest.raises(Conflict) as raised:
        app.gateway.decide(pid, "approve", PERSON)
    fields = {c["field"] for c in raised.value.details["changes"]}
    assert "notes" in fields
    assert app.approvals.get(pid)["status"] == "FAILED"
    assert app.call("get_reminder", {"id": made["id"]})["title"] == "draft"


# -- undo ------------------------------------------------------------------------------------


def _approve_undo(app: bootstrap.App, pid: str) -> None:
    undo = app.gateway.decide(pid, "undo", PERSON)
    assert app.approvals.get(undo["proposalId"])["undoOf"] == pid
    app.gateway.decide(undo["proposalId"], "approve", PERSON)


def test_undo_a_create(app: bootstrap.App) -> None:
    pid = propose(app, "create_reminders", {"reminders": [{"title": "oops"}]})
    app.gateway.decide(pid, "approve", PERSON)
    _approve_undo(app, pid)
    assert titles(app) == []


@pytest.mark.parametrize(
    "change",
    [
        {"title": "renamed", "priority": "high", "dueDate": None, "tags": ["x"]},
        {"completed": True},
    ],
)
def test_undo_an_update_or_a_completion(app: bootstrap.App, change: dict[str, Any]) -> None:
    made = app.call(
        "create_reminders",
        {
            "reminders": [
                {
                    "title": "orig",
                    "notes": "n",
                    "dueDate": "2026-03-01",
                    "priority": "low",
                    "tags": ["a", "b"],
                    "flagged": True,
                }
            ]
        },
        PERSON,
    )[0]
    pid = propose(app, "update_reminders", {"reminders": [{"id": made["id"], **change}]})
    app.gateway.decide(pid, "approve", PERSON)
    _approve_undo(app, pid)
    back = app.call("get_reminder", {"id": made["id"]})
    for field in (
        "title",
        "notes",
        "dueDate",
        "priority",
        "tags",
        "isFlagged",
        "isCompleted",
        "completionDate",
        "listId",
    ):
        assert back[field] == made[field], field


def test_undo_a_delete_brings_the_reminder_back_with_its_fields(app: bootstrap.App) -> None:
    app.backend.create_list("Work")
    made = app.call(
        "create_reminders",
        {
            "reminders": [
                {
                    "title": "keep",
                    "list": {"name": "Work"},
                    "notes": "body",
                    "dueDate": "2026-03-01T09:00",
                    "priority": "high",
                    "tags": ["@calls"],
                    "flagged": True,
                    "url": "https://x.test",
                }
            ]
        },
        PERSON,
    )[0]
    app.call("update_reminders", {"reminders": [{"id": made["id"], "completed": True}]}, PERSON)
    made = app.call("get_reminder", {"id": made["id"]})
    pid = propose(app, "delete_reminders", {"ids": [made["id"]]})
    app.gateway.decide(pid, "approve", PERSON)
    assert titles(app) == []
    _approve_undo(app, pid)
    (back,) = app.call("query_reminders", {"list": {"all": True}, "status": "all"})
    for field in (
        "title",
        "listName",
        "notes",
        "dueDate",
        "priority",
        "tags",
        "isFlagged",
        "url",
        "isCompleted",
        "completionDate",
    ):
        assert back[field] == made[field], field


def test_what_cannot_be_undone_says_so(app: bootstrap.App) -> None:
    pid = propose(app, "create_reminders", {"reminders": [{"title": "x"}]})
    with pytest.raises(Conflict, match="only an executed one"):
        app.gateway.decide(pid, "undo", PERSON)


# -- allowlists and idempotency -----------------------------------------------------------


def test_the_config_allowlist_refuses_before_a_proposal_is_filed(app: bootstrap.App) -> None:
    app.allowlists.set("allowlist.reminders.lists", ["Inbox"], "human:me")
    refused = app.gateway.invoke("create_reminders", {"reminders": [{"title": "x"}]}, AGENT)
    assert (refused.error_code, refused.error) == (
        "list_not_allowed",
        "Writes to list 'Reminders' are not permitted.",
    )
    assert app.approvals.recent() == []
    app.backend.create_list("Inbox")
    propose(app, "create_reminders", {"reminders": [{"title": "x", "list": {"name": "inbox"}}]})
    app.allowlists.set("allowlist.reminders.lists", None, "human:me")
    assert app.allowlists.get("allowlist.reminders.lists") is None
    with pytest.raises(InvalidParams, match="Unknown config key"):
        app.allowlists.set("allowlist.nope", ["x"], "human:me")


def test_idempotency_keys(app: bootstrap.App) -> None:
    args = {"reminders": [{"title": "x"}]}
    first = propose(app, "create_reminders", args, idempotency_key="k1")
    again = propose(app, "create_reminders", args, idempotency_key="k1")
    assert first == again and len(app.approvals.recent()) == 1
    clash = app.gateway.invoke(
        "create_reminders", {"reminders": [{"title": "y"}]}, AGENT, idempotency_key="k1"
    )
    assert clash.error_code == "invalid_params" and "different arguments" in (clash.error or "")
    other_agent = app.gateway.invoke("create_reminders", args, OTHER, idempotency_key="k1")
    assert other_agent.output["proposalId"] != first  # keys belong to their caller
    direct = [
        app.gateway.invoke("create_reminders", args, PERSON, idempotency_key="d1") for _ in range(2)
    ]
    assert direct[0].output == direct[1].output and titles(app) == ["x"]


def test_direct_writes_are_audited_and_undoable(app: bootstrap.App) -> None:
    app.call("create_reminders", {"reminders": [{"title": "mine"}]}, PERSON)
    (row,) = app.approvals.recent("executed")
    assert row["resolvedBy"] == "human:me" and row["canUndo"]
    assert events(app, row["id"]) == ["direct_write", "executed"]
    assert app.audit.verify()["ok"] is True
