"""Standing grants: a person approving allows the same tool, for the same agent, where the
proposal reaches, for a while - judged by the policy on every call, audited, undoable, ended by
time, revocation and LOCKDOWN, and never wider than the allowlists or the mode."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fruitctl import bootstrap
from fruitctl.approvals.allowance import MAX_GRANT_SECONDS, Allowance, parse_duration
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import Conflict, InvalidParams, NotFound, PermissionDenied

AGENT = Actor("agent", "claude", "claude-code")
OTHER = Actor("agent", "codex")
PERSON = Actor("human", "me")
TWO_HOURS = Allowance(2 * 3600)


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    built.backend.create_list("Work")
    built.backend.create_list("Errands")
    yield built
    built.close()


def create(app: bootstrap.App, title: str, where: str, actor: Actor = AGENT) -> Any:
    args = {"reminders": [{"title": title, "list": {"name": where}}]}
    result = app.gateway.invoke("create_reminders", args, actor)
    assert result.success, result.error
    return result.output


def pending(answer: Any) -> bool:
    return isinstance(answer, dict) and answer.get("status") == "pending"


def approved_with(app: bootstrap.App, allow: Allowance, where: str = "Work") -> dict[str, Any]:
    filed = create(app, "first", where)
    assert pending(filed)
    return app.gateway.decide(filed["proposalId"], "approve", PERSON, allow=allow)


def test_a_write_inside_a_grant_runs_at_once_audited_with_its_id(app: bootstrap.App) -> None:
    done = approved_with(app, TWO_HOURS)
    grant = done["grant"]
    assert done["status"] == "EXECUTED"
    assert (grant["tool"], grant["agent"], grant["scope"]) == (
        "create_reminders",
        "agent:claude",  # the identity: the display name never counts
        ["list:Work"],
    )
    assert (grant["status"], grant["createdBy"], grant["proposalId"]) == (
        "live",
        "human:me",
        done["id"],
    )
    second = create(app, "second", "work")  # names compare as the allowlists do
    assert not pending(second) and second[0]["title"] == "second"
    (direct,) = [p for p in app.approvals.recent("executed") if p["id"] != done["id"]]
    assert direct["reason"] == f"Allowed by grant {grant['id']}."
    rows = app.audit.entries(proposal_id=direct["id"])
    assert [e["event"] for e in rows] == ["executed", "direct_write"]
    assert rows[1]["payload"]["grant"] == grant["id"]
    created = [e for e in app.audit.entries() if e["event"] == "grant_created"]
    assert [e["payload"]["grant"] for e in created] == [grant["id"]]


def test_a_write_made_under_a_grant_is_undone_like_any_other(app: bootstrap.App) -> None:
    approved_with(app, TWO_HOURS)
    create(app, "second", "Work")
    direct = app.approvals.recent("executed")[0]
    undo = app.gateway.decide(direct["id"], "undo", PERSON)
    app.gateway.decide(undo["proposalId"], "approve", PERSON)
    found = app.call("query_reminders", {"list": {"all": True}, "status": "all"})
    assert [r["title"] for r in found] == ["first"]


@pytest.mark.parametrize(
    ("tool", "args", "actor"),
    [
        ("create_reminders", {"reminders": [{"title": "x", "list": {"name": "Errands"}}]}, AGENT),
        ("create_reminders", {"reminders": [{"title": "x", "list": {"name": "Work"}}]}, OTHER),
        ("create_reminder_list", {"name": "Elsewhere"}, AGENT),
    ],
    ids=["another list", "another agent", "another tool"],
)
def test_a_write_outside_the_grant_is_proposed(
    app: bootstrap.App, tool: str, args: dict[str, Any], actor: Actor
) -> None:
    approved_with(app, TWO_HOURS)
    result = app.gateway.invoke(tool, args, actor)
    assert result.success and pending(result.output), result.output


def test_a_write_reaching_beyond_the_scope_with_one_item_is_proposed(app: bootstrap.App) -> None:
    approved_with(app, TWO_HOURS)
    both = [{"title": "a", "list": {"name": "Work"}}, {"title": "b", "list": {"name": "Errands"}}]
    result = app.gateway.invoke("create_reminders", {"reminders": both}, AGENT)
    assert pending(result.output)


def test_a_grant_on_the_tool_covers_every_list(app: bootstrap.App) -> None:
    done = approved_with(app, Allowance(3600, "tool"))
    assert done["grant"]["scope"] is None
    assert not pending(create(app, "anywhere", "Errands"))


def test_a_grant_ends_at_its_time(app: bootstrap.App) -> None:
    done = approved_with(app, TWO_HOURS)
    _move_clock_past(app, done["grant"]["id"])
    assert pending(create(app, "late", "Work"))
    assert app.approvals.grants_listed() == []
    (ended,) = app.approvals.grants_listed(every=True)
    assert ended["status"] == "expired"


def test_a_revoked_grant_allows_nothing_more(app: bootstrap.App) -> None:
    grant_id = approved_with(app, TWO_HOURS)["grant"]["id"]
    with pytest.raises(PermissionDenied, match="Only a person can revoke"):
        app.approvals.revoke(grant_id, AGENT)
    revoked = app.approvals.revoke(grant_id, PERSON)
    assert (revoked["status"], revoked["revokedBy"]) == ("revoked", "human:me")
    assert pending(create(app, "after", "Work"))
    with pytest.raises(Conflict, match="already ended \\(revoked\\)"):
        app.approvals.revoke(grant_id, PERSON)
    with pytest.raises(NotFound, match="No grant found with ID: 'g0'"):
        app.approvals.revoke("g0", PERSON)
    assert [e["event"] for e in app.audit.entries() if e["event"].startswith("grant_")] == [
        "grant_revoked",
        "grant_created",
    ]


def test_lockdown_revokes_every_grant_and_they_stay_revoked(app: bootstrap.App) -> None:
    grant_id = approved_with(app, TWO_HOURS)["grant"]["id"]
    app.modes.set("LOCKDOWN", "human:me")
    args = {"reminders": [{"title": "locked", "list": {"name": "Work"}}]}
    assert app.gateway.invoke("create_reminders", args, AGENT).error_code == "mode_forbidden"
    app.modes.set("NORMAL", "human:me")
    assert pending(create(app, "after", "Work"))
    (ended,) = app.approvals.grants_listed(every=True)
    assert (ended["id"], ended["status"]) == (grant_id, "revoked")
    (row,) = [e for e in app.audit.entries() if e["event"] == "grant_revoked"]
    assert row["payload"] == {"grant": grant_id, "reason": "The mode changed to LOCKDOWN."}


def test_a_grant_counts_for_nothing_in_lockdown(home: Path) -> None:
    # A governance that asks for approval even in LOCKDOWN: the grant must still not allow it
    # (here the mode is set behind the store's back, so no revocation ran).
    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(
        "tools:\n  create_reminders:\n    requires_approval_in_modes: "
        "[NORMAL, ALERT, DEGRADED, RECOVERY, LOCKDOWN]\n    forbidden_in_modes: []\n"
    )
    app = bootstrap.build()
    app.backend.create_list("Work")
    try:
        approved_with(app, TWO_HOURS)
        with sqlite3.connect(app.config.paths.state_db) as db:
            db.execute("UPDATE settings SET value = 'LOCKDOWN' WHERE key = 'mode'")
            if not db.total_changes:
                db.execute(
                    "INSERT INTO settings (key, value, updated, updated_by) "
                    "VALUES ('mode', 'LOCKDOWN', '', 'test')"
                )
        assert app.modes.get() == "LOCKDOWN"
        assert app.approvals.grants_listed()[0]["status"] == "live"
        assert pending(create(app, "locked", "Work"))
    finally:
        app.close()


def test_a_grant_never_widens_an_allowlist(app: bootstrap.App) -> None:
    approved_with(app, Allowance(3600, "tool"))
    app.allowlists.set("allowlist.reminders.lists", ["Work"], "human:me")
    args = {"reminders": [{"title": "x", "list": {"name": "Errands"}}]}
    result = app.gateway.invoke("create_reminders", args, AGENT)
    assert result.error_code == "list_not_allowed"
    assert not pending(create(app, "inside", "Work"))


def test_a_grant_never_lets_a_tool_run_the_mode_forbids(app: bootstrap.App) -> None:
    approved_with(app, TWO_HOURS)
    with sqlite3.connect(app.config.paths.state_db) as db:  # LOCKDOWN, no revocation run
        db.execute(
            "INSERT INTO settings (key, value, updated, updated_by) VALUES "
            "('mode', 'LOCKDOWN', '', 'test') ON CONFLICT (key) DO UPDATE SET value = 'LOCKDOWN'"
        )
    args = {"reminders": [{"title": "x", "list": {"name": "Work"}}]}
    result = app.gateway.invoke("create_reminders", args, AGENT)
    assert result.error_code == "mode_forbidden"


@pytest.mark.parametrize("given", ["25h", "2 days", "0m", "-1h", "", 0, MAX_GRANT_SECONDS + 1])
def test_a_grant_lasts_a_positive_time_up_to_the_bound(given: object) -> None:
    with pytest.raises(InvalidParams, match="at most 24h") as raised:
        parse_duration(given)
    assert raised.value.details["field"] == "allowFor"


def test_durations_and_scopes_are_read_from_a_door_s_words() -> None:
    assert parse_duration("2h") == 7200 and parse_duration("30m") == 1800
    assert parse_duration("1d") == MAX_GRANT_SECONDS and parse_duration(90) == 90
    assert Allowance.parse("2h", "TOOL") == Allowance(7200, "tool")
    with pytest.raises(InvalidParams, match="'list' or 'tool', not 'calendar'"):
        Allowance.parse("2h", "calendar")


def test_a_grant_goes_with_an_agent_s_approval_only(app: bootstrap.App) -> None:
    filed = create(app, "x", "Work")
    with pytest.raises(InvalidParams, match="only 'approve'"):
        app.gateway.decide(filed["proposalId"], "reject", PERSON, allow=TWO_HOURS)
    with pytest.raises(PermissionDenied, match="Only a person"):
        app.gateway.decide(filed["proposalId"], "approve", AGENT, allow=TWO_HOURS)
    done = app.gateway.decide(filed["proposalId"], "approve", PERSON)
    undo = app.gateway.decide(done["id"], "undo", PERSON)
    with pytest.raises(InvalidParams, match="filed by a person"):
        app.gateway.decide(undo["proposalId"], "approve", PERSON, allow=TWO_HOURS)
    assert app.approvals.get(undo["proposalId"])["status"] == "PENDING"
    assert app.approvals.grants_listed(every=True) == []


def test_an_approval_the_policy_refuses_grants_nothing(app: bootstrap.App) -> None:
    filed = create(app, "x", "Errands")
    app.allowlists.set("allowlist.reminders.lists", ["Work"], "human:me")
    with pytest.raises(Exception, match="not permitted"):
        app.gateway.decide(filed["proposalId"], "approve", PERSON, allow=TWO_HOURS)
    assert app.approvals.grants_listed(every=True) == []


def _move_clock_past(app: bootstrap.App, grant_id: str) -> None:
    """The grant's time, passed: its end moved to before now (the store's clock decides)."""
    with sqlite3.connect(app.config.paths.state_db) as db:
        db.execute("UPDATE grants SET expires_at = created_at - 1 WHERE id = ?", (grant_id,))
