"""A proposal to write a repeat rule or alarms says them in words (its summary and its diff),
for a reminder and for an event; approved, it writes them; undone, the reminder has its rule,
start and alarms back. On a real home's stores, through the gateway."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor

AGENT = Actor("agent", "claude")
PERSON = Actor("human", "me")
BINS = {
    "title": "bins",
    "dueDate": "2026-03-02T09:00:00+01:00",
    "recurrence": "FREQ=WEEKLY;BYDAY=MO",
    "alarms": [{"minutesBefore": 15}],
}


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def _propose(app: bootstrap.App, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = app.gateway.invoke(tool, args, AGENT)
    assert result.success, result.error
    return app.approvals.get(str(result.output["proposalId"]))


def _row(proposal: dict[str, Any], field: str) -> dict[str, Any]:
    (row,) = [row for row in proposal["diff"] if row["field"] == field]
    return dict(row)


def test_a_new_repeating_reminder_is_said_in_words(app: bootstrap.App) -> None:
    proposal = _propose(app, "create_reminders", {"reminders": [BINS]})
    assert proposal["summary"] == (
        "Create 1 reminder in the default list: 'bins' (every Monday, alert 15 minutes before)"
    )
    assert _row(proposal, "recurrence")["after"] == "every Monday"
    assert _row(proposal, "alarms")["after"] == "alert 15 minutes before"
    done = app.gateway.decide(proposal["id"], "approve", PERSON)
    assert done["status"] == "EXECUTED"
    (made,) = done["result"]
    assert (made["recurrence"], made["alarms"]) == ("FREQ=WEEKLY;BYDAY=MO", [{"minutesBefore": 15}])


def test_a_change_says_before_and_after_and_undo_puts_them_back(app: bootstrap.App) -> None:
    (made,) = app.call("create_reminders", {"reminders": [BINS]})
    change = {
        "id": made["id"],
        "recurrence": "FREQ=MONTHLY;BYDAY=1MO",
        "alarms": [{"minutesBefore": 60}, {"minutesBefore": 0}],
        "startDate": "2026-03-01T18:00:00+01:00",
    }
    proposal = _propose(app, "update_reminders", {"reminders": [change]})
    assert _row(proposal, "recurrence") | {"target": None} == {
        "target": None,
        "field": "recurrence",
        "before": "every Monday",
        "after": "every month on the first Monday",
    }
    assert _row(proposal, "alarms")["before"] == "alert 15 minutes before"
    assert _row(proposal, "alarms")["after"] == "alert 1 hour before and alert at the time"
    assert _row(proposal, "startDate")["after"] == "Sun 2026-03-01 18:00"
    assert app.gateway.decide(proposal["id"], "approve", PERSON)["status"] == "EXECUTED"
    assert app.call("get_reminder", {"id": made["id"]})["startDate"] == change["startDate"]
    undo = app.gateway.decide(proposal["id"], "undo", PERSON)
    app.gateway.decide(undo["proposalId"], "approve", PERSON)
    back = app.call("get_reminder", {"id": made["id"]})
    assert (back["recurrence"], back["alarms"], back["startDate"]) == (
        "FREQ=WEEKLY;BYDAY=MO",
        [{"minutesBefore": 15}],
        None,
    )


def test_clearing_alarms_shows_what_goes(app: bootstrap.App) -> None:
    (made,) = app.call("create_reminders", {"reminders": [BINS]})
    proposal = _propose(app, "update_reminders", {"reminders": [{"id": made["id"], "alarms": []}]})
    row = _row(proposal, "alarms")
    assert row["before"] == "alert 15 minutes before"
    assert row["after"] in (None, "no alert")  # cleared
    assert app.gateway.decide(proposal["id"], "approve", PERSON)["status"] == "EXECUTED"
    assert app.call("get_reminder", {"id": made["id"]})["alarms"] == []
