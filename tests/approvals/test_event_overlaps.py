"""A proposal that creates or moves an event shows, in its diff, the busy events its new time
overlaps - as they were when it was filed; they are what the person reads, never a conflict -
and the event itself, free events and writes that set no time show none."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fruitctl import bootstrap
from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.capabilities.calendar.changes import OVERLAPS_SHOWN
from fruitctl.domain.actors import Actor
from fruitctl.store import open_database

AGENT = Actor("agent", "claude")
PERSON = Actor("human", "me")
LUNCH = "'Lunch' Thu 2026-03-05 12:30 - 13:30 (Calendar)"


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def _event(app: bootstrap.App, title: str, start: str, end: str) -> dict[str, Any]:
    made: dict[str, Any] = app.call(
        "create_event", {"title": title, "startAt": start, "endAt": end}, PERSON
    )
    return made


def _proposal(app: bootstrap.App, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = app.gateway.invoke(tool, args, AGENT)
    assert result.success and result.output["status"] == "pending", result.error
    return app.approvals.get(result.output["proposalId"])


def _overlaps(proposal: dict[str, Any]) -> list[tuple[str, str]]:
    return [(r["target"], r["after"]) for r in proposal["diff"] if r["field"] == "overlaps"]


def test_a_proposed_create_shows_what_it_overlaps_and_approves_all_the_same(
    app: bootstrap.App,
) -> None:
    lunch = _event(app, "Lunch", "2026-03-05T12:30:00+01:00", "2026-03-05T13:30:00+01:00")
    _event(app, "Before", "2026-03-05T11:00:00+01:00", "2026-03-05T12:00:00+01:00")  # touches
    asked = {
        "title": "Call",
        "startAt": "2026-03-05T12:00:00+01:00",
        "endAt": "2026-03-05T13:00:00+01:00",
    }
    proposal = _proposal(app, "create_event", asked)
    assert _overlaps(proposal) == [("new event", LUNCH)]
    # Lunch moves meanwhile: the diff keeps what was true when it was filed, and it is no
    # conflict - the overlapped events are not what the write changes.
    app.call("update_event", {"id": lunch["id"], "title": "Long lunch"}, PERSON)
    assert _overlaps(app.approvals.get(proposal["id"])) == [("new event", LUNCH)]
    done = app.gateway.decide(proposal["id"], "approve", PERSON)
    assert done["status"] == "EXECUTED"


def test_a_move_shows_what_the_new_time_overlaps_but_not_the_event_itself(
    app: bootstrap.App,
) -> None:
    _event(app, "Lunch", "2026-03-05T12:30:00+01:00", "2026-03-05T13:30:00+01:00")
    call = _event(app, "Call", "2026-03-05T12:00:00+01:00", "2026-03-05T12:45:00+01:00")
    moved = _proposal(
        app, "update_event", {"id": call["id"], "startAt": "2026-03-05T13:00:00+01:00"}
    )
    assert _overlaps(moved) == [("Call", LUNCH)]  # 13:00-13:45: the length kept
    away = _proposal(
        app, "update_event", {"id": call["id"], "startAt": "2026-03-05T15:00:00+01:00"}
    )
    assert _overlaps(away) == []
    renamed = _proposal(app, "update_event", {"id": call["id"], "title": "Call (short)"})
    assert _overlaps(renamed) == []  # no new time: nothing to overlap
    assert app.gateway.decide(moved["id"], "approve", PERSON)["status"] == "EXECUTED"


def test_free_events_overlap_nothing_and_many_overlaps_are_counted(
    app: bootstrap.App, home: Path
) -> None:
    engine = open_database(home / "local.db", "local")
    local = LocalCalendars(engine)
    local.put_object(
        local.calendars()[0].id,
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//EN\r\nBEGIN:VEVENT\r\nUID:maybe\r\n"
        "SUMMARY:Maybe gym\r\nDTSTART:20260305T110000Z\r\nDTEND:20260305T120000Z\r\n"
        "TRANSP:TRANSPARENT\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
    )
    engine.dispose()
    asked = {
        "title": "Call",
        "startAt": "2026-03-05T12:00:00+01:00",
        "endAt": "2026-03-05T13:00:00+01:00",
    }
    assert _overlaps(_proposal(app, "create_event", asked)) == []
    for minute in range(OVERLAPS_SHOWN + 2):
        start = f"2026-03-05T12:{minute:02d}:00+01:00"
        _event(app, f"Slot {minute}", start, "2026-03-05T12:59:00+01:00")
    rows = _overlaps(_proposal(app, "create_event", asked))
    assert len(rows) == OVERLAPS_SHOWN + 1 and rows[-1] == ("new event", "2 more events")
