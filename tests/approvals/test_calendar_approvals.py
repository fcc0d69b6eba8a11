"""Event writes from an agent go through approvals like reminder writes: a proposal with a
summary and diff, executed once when a person approves, refused on conflict, undoable; reads
answer at once; the calendar allowlist refuses before anything is filed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fruitctl import bootstrap
from fruitctl.capabilities import all_tools
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import Conflict, InvalidParams

AGENT = Actor("agent", "claude")
PERSON = Actor("human", "me")
MARCH = {"from": "2026-03-01", "to": "2026-04-30"}
SERIES = {
    "title": "Weekly review",
    "startAt": "2026-03-20T09:00:00+01:00",
    "endAt": "2026-03-20T10:00:00+01:00",
    "location": "Office",
    "timezone": "Europe/Rome",
    "recurrence": "FREQ=WEEKLY",
}


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def propose(app: bootstrap.App, tool: str, args: dict[str, Any]) -> str:
    result = app.gateway.invoke(tool, args, AGENT)
    assert result.success, result.error
    assert result.output["status"] == "pending"
    return str(result.output["proposalId"])


def events(app: bootstrap.App) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = app.call("query_events", MARCH)["events"]
    return found


def undo(app: bootstrap.App, pid: str) -> dict[str, Any]:
    filed = app.gateway.decide(pid, "undo", PERSON)
    return app.gateway.decide(filed["proposalId"], "approve", PERSON)


def test_calendar_tools_are_registered_with_their_categories() -> None:
    by_name = {t.name: t.definition for t in all_tools()}
    reads = ("list_calendars", "query_events", "get_event", "calendar_upcoming")
    writes = ("create_event", "update_event", "delete_event")
    assert all(by_name[name].category == "read_only" for name in reads)
    assert all(by_name[name].category == "pim_write" for name in writes)
    assert by_name["delete_event"].annotations.destructiveHint
    schema = by_name["query_events"].input_schema
    assert schema["additionalProperties"] is False and "from" in schema["properties"]


def test_an_agent_reads_at_once(app: bootstrap.App) -> None:
    result = app.gateway.invoke("calendar_upcoming", {"days": 1}, AGENT)
    assert result.success and result.output["count"] == 0
    assert app.gateway.invoke("list_calendars", {}, AGENT).output[0]["name"] == "Calendar"


def test_a_proposed_create_is_approved_then_undone(app: bootstrap.App) -> None:
    pid = propose(app, "create_event", SERIES)
    pending = app.approvals.get(pid)
    assert pending["summary"] == (
        "Create event 'Weekly review' at Fri 2026-03-20 09:00 in the default calendar, "
        "repeating FREQ=WEEKLY"
    )
    assert {"target": "new event", "field": "title", "before": None, "after": "Weekly review"} in (
        pending["diff"]
    )
    assert events(app) == []
    done = app.gateway.decide(pid, "approve", PERSON)
    assert done["status"] == "EXECUTED" and done["canUndo"]
    assert len(events(app)) == 6 and done["result"]["recurrence"] == "FREQ=WEEKLY"
    undone = undo(app, pid)
    assert undone["status"] == "EXECUTED" and undone["tool"] == "delete_event"
    assert events(app) == []


def test_a_proposed_occurrence_move_is_undone_to_where_it_was(app: bootstrap.App) -> None:
    series = app.call("create_event", SERIES)
    occurrence = f"{series['id']}@20260327T080000Z"
    pid = propose(
        app,
        "update_event",
        {"id": occurrence, "startAt": "2026-03-27T15:00:00+01:00", "title": "Moved"},
    )
    assert app.approvals.get(pid)["summary"] == (
        "Change startAt, title of the occurrence of 'Weekly review' on Fri 2026-03-27 09:00"
    )
    app.gateway.decide(pid, "approve", PERSON)
    assert app.call("get_event", {"id": occurrence})["startAt"] == "2026-03-27T15:00:00+01:00"
    undo(app, pid)
    back = app.call("get_event", {"id": occurrence})
    assert (back["startAt"], back["title"]) == ("2026-03-27T09:00:00+01:00", "Weekly review")


def test_a_series_change_is_undone_whole(app: bootstrap.App) -> None:
    series = app.call("create_event", SERIES)
    pid = propose(
        app,
        "update_event",
        {"id": series["id"], "startAt": "2026-03-20T11:00:00+01:00", "location": None},
    )
    app.gateway.decide(pid, "approve", PERSON)
    assert events(app)[0]["startAt"] == "2026-03-20T11:00:00+01:00"
    undo(app, pid)
    restored = app.call("get_event", {"id": series["id"]})
    assert (restored["startAt"], restored["location"]) == ("2026-03-20T09:00:00+01:00", "Office")


def test_a_change_made_meanwhile_is_a_conflict(app: bootstrap.App) -> None:
    made = app.call("create_event", {"title": "draft", "startAt": "2026-03-02T09:00:00+01:00"})
    pid = propose(app, "update_event", {"id": made["id"], "title": "agent's"})
    app.call("update_event", {"id": made["id"], "notes": "a person wrote this"})
    with pytest.raises(Conflict):
        app.gateway.decide(pid, "approve", PERSON)
    assert app.approvals.get(pid)["status"] == "FAILED"
    assert app.call("get_event", {"id": made["id"]})["title"] == "draft"


def test_a_deleted_series_comes_back_with_undo(app: bootstrap.App) -> None:
    series = app.call("create_event", SERIES)
    pid = propose(app, "delete_event", {"id": series["id"]})
    assert app.approvals.get(pid)["summary"] == "Delete event 'Weekly review' (every occurrence)"
    app.gateway.decide(pid, "approve", PERSON)
    assert events(app) == []
    undo(app, pid)
    again = events(app)
    assert [e["startAt"] for e in again][:2] == [
        "2026-03-20T09:00:00+01:00",
        "2026-03-27T09:00:00+01:00",
    ]
    assert {(e["title"], e["location"]) for e in again} == {("Weekly review", "Office")}


def test_a_deleted_occurrence_cannot_be_undone(app: bootstrap.App) -> None:
    series = app.call("create_event", SERIES)
    pid = propose(app, "delete_event", {"id": series["id"], "occurrence": "2026-03-27"})
    done = app.gateway.decide(pid, "approve", PERSON)
    assert done["status"] == "EXECUTED" and not done["canUndo"]
    with pytest.raises(InvalidParams, match="cannot be undone"):
        app.gateway.decide(pid, "undo", PERSON)
    assert len(events(app)) == 5


def test_the_calendar_allowlist_refuses_before_a_proposal_is_filed(app: bootstrap.App) -> None:
    elsewhere = app.call("create_event", {"title": "mine", "startAt": "2026-03-02"})
    work = app.calendar_backend.create_calendar("Work")  # type: ignore[attr-defined]
    app.allowlists.set("allowlist.calendars", ["Work"], "human:me")
    refused = app.gateway.invoke("create_event", {"title": "x", "startAt": "2026-03-02"}, AGENT)
    assert (refused.error_code, refused.error) == (
        "calendar_not_allowed",
        "Writes to calendar 'Calendar' are not permitted.",
    )
    moved = app.gateway.invoke("update_event", {"id": elsewhere["id"], "calendar": work.id}, AGENT)
    assert moved.error_code == "calendar_not_allowed"  # it is in 'Calendar' now
    assert [p["status"] for p in app.approvals.recent()] == ["EXECUTED"]  # only the person's
    propose(app, "create_event", {"title": "x", "startAt": "2026-03-02", "calendar": "work"})
