"""find_free_time and check_conflicts through the gateway, on the local store and on a real
Radicale: busy events block, free (transparent) ones and - unless asked - all-day ones do not,
working hours hold on the day the clocks change, and the bounds are refused in words."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from caldav_server import Account
from foreign_calendar import calendar_on

from fruitctl import bootstrap
from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import InvalidParams, NotFound
from fruitctl.store import open_database

AGENT = Actor("agent", "test-agent")
PutRaw = Callable[[str, str], None]
FREE_EVENT = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//someone//EN\r\nBEGIN:VEVENT\r\n"
    "UID:{uid}\r\nDTSTAMP:20260101T090000Z\r\nSUMMARY:{uid}\r\n"
    "DTSTART;TZID=Europe/Rome:{start}\r\nDTEND;TZID=Europe/Rome:{end}\r\n"
    "TRANSP:TRANSPARENT\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


@pytest.fixture(params=["local", pytest.param("caldav", marks=pytest.mark.process)])
def store(
    request: pytest.FixtureRequest, home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[bootstrap.App, PutRaw]]:
    """The app on the backend, and how another client puts a raw event into its calendar."""
    if request.param == "caldav":
        account: Account = request.getfixturevalue("caldav_account")
        calendar_on(home, account)
        with (home / "config.toml").open("a") as config:
            config.write("staleness_seconds = 0\n")
        monkeypatch.setenv("FRUITCTL_CALDAV_PASSWORD", account.password)
        app = bootstrap.build()

        def put(uid: str, text: str) -> None:
            assert account.put(account.made[1] + f"{uid}.ics", text) == 201

        yield app, put
        app.close()
        return
    app = bootstrap.build()
    engine = open_database(home / "local.db", "local")
    local = LocalCalendars(engine)

    def put_local(uid: str, text: str) -> None:
        local.put_object(local.calendars()[0].id, text)

    yield app, put_local
    engine.dispose()
    app.close()


def _event(app: bootstrap.App, title: str, start: str, end: str, **more: Any) -> dict[str, Any]:
    created: dict[str, Any] = app.call(
        "create_event", {"title": title, "startAt": start, "endAt": end, **more}
    )
    return created


def _slots(answer: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [(s["start"], s["end"], s["minutes"]) for s in answer["slots"]]


def test_busy_events_block_and_free_ones_do_not(store: tuple[bootstrap.App, PutRaw]) -> None:
    app, put = store
    _event(app, "Stand-up", "2026-03-05T09:30:00+01:00", "2026-03-05T10:00:00+01:00")
    _event(app, "Lunch", "2026-03-05T12:30:00+01:00", "2026-03-05T13:30:00+01:00")
    _event(app, "Overlapping", "2026-03-05T13:00:00+01:00", "2026-03-05T14:00:00+01:00")
    _event(app, "Holiday", "2026-03-05", "2026-03-06", allDay=True)
    put(
        "maybe-gym",
        FREE_EVENT.format(uid="maybe-gym", start="20260305T150000", end="20260305T160000"),
    )
    answer = app.call(
        "find_free_time",
        {"from": "2026-03-05", "to": "2026-03-05", "hours": "09:00-17:00", "minutes": 30},
        AGENT,
    )
    assert _slots(answer) == [
        ("2026-03-05T09:00:00+01:00", "2026-03-05T09:30:00+01:00", 30),
        ("2026-03-05T10:00:00+01:00", "2026-03-05T12:30:00+01:00", 150),
        ("2026-03-05T14:00:00+01:00", "2026-03-05T17:00:00+01:00", 180),
    ]
    assert answer["window"] == {
        "from": "2026-03-05T00:00:00+01:00",
        "to": "2026-03-06T00:00:00+01:00",
        "timezone": "Europe/Rome",
    }
    assert (answer["count"], answer["more"]) == (3, False)
    with_all_day = app.call(
        "find_free_time", {"from": "2026-03-05", "to": "2026-03-05", "includeAllDay": True}, AGENT
    )
    assert with_all_day["slots"] == []


def test_conflicts_are_the_busy_events_the_time_overlaps(
    store: tuple[bootstrap.App, PutRaw],
) -> None:
    app, put = store
    lunch = _event(app, "Lunch", "2026-03-05T12:30:00+01:00", "2026-03-05T13:30:00+01:00")
    _event(app, "Before", "2026-03-05T11:00:00+01:00", "2026-03-05T12:00:00+01:00")  # touches
    put(
        "maybe-gym",
        FREE_EVENT.format(uid="maybe-gym", start="20260305T120000", end="20260305T130000"),
    )
    found = app.call(
        "check_conflicts",
        {"start": "2026-03-05T12:00:00+01:00", "end": "2026-03-05T13:00:00+01:00"},
        AGENT,
    )
    assert [e["id"] for e in found["conflicts"]] == [lunch["id"]] and found["count"] == 1
    assert found["conflicts"][0]["availability"] == "busy"
    clear = app.call(
        "check_conflicts",
        {"start": "2026-03-05T14:00:00+01:00", "end": "2026-03-05T15:00:00+01:00"},
        AGENT,
    )
    assert clear["conflicts"] == [] and clear["count"] == 0


def test_the_day_the_clocks_go_forward_keeps_its_working_hours(
    store: tuple[bootstrap.App, PutRaw],
) -> None:
    app, _ = store
    _event(app, "Brunch", "2026-03-29T11:00:00+02:00", "2026-03-29T12:00:00+02:00")
    answer = app.call("find_free_time", {"from": "2026-03-29", "to": "2026-03-29"}, AGENT)
    assert _slots(answer) == [
        ("2026-03-29T00:00:00+01:00", "2026-03-29T11:00:00+02:00", 600),  # 23-hour day
        ("2026-03-29T12:00:00+02:00", "2026-03-30T00:00:00+02:00", 720),
    ]
    hours = app.call(
        "find_free_time",
        {"from": "2026-03-27", "to": "2026-03-30", "hours": "09:00-17:00", "weekdays": ["sun"]},
        AGENT,
    )
    assert _slots(hours) == [
        ("2026-03-29T09:00:00+02:00", "2026-03-29T11:00:00+02:00", 120),
        ("2026-03-29T12:00:00+02:00", "2026-03-29T17:00:00+02:00", 300),
    ]


def test_calendars_pick_and_bounds_are_refused_in_words(
    store: tuple[bootstrap.App, PutRaw],
) -> None:
    app, _ = store
    _event(app, "Lunch", "2026-03-05T12:30:00+01:00", "2026-03-05T13:30:00+01:00")
    default = app.call("list_calendars", {})[0]["name"]
    picked = app.call(
        "check_conflicts",
        {
            "start": "2026-03-05T12:00:00+01:00",
            "end": "2026-03-05T13:00:00+01:00",
            "calendars": [default.upper()],
        },
        AGENT,
    )
    assert picked["count"] == 1
    with pytest.raises(NotFound, match="No calendar found with name: 'Nowhere'"):
        app.call("find_free_time", {"calendars": ["Nowhere"]}, AGENT)
    with pytest.raises(InvalidParams, match="longer than 31 days"):
        app.call("find_free_time", {"from": "2026-03-01", "to": "2026-04-15"}, AGENT)
    with pytest.raises(InvalidParams, match="Invalid working hours '17-9'"):
        app.call("find_free_time", {"hours": "17-9"}, AGENT)
    with pytest.raises(InvalidParams, match="'end' must be after 'start'"):
        app.call(
            "check_conflicts",
            {"start": "2026-03-05T12:00:00+01:00", "end": "2026-03-05T11:00:00+01:00"},
            AGENT,
        )
    few = app.call(
        "find_free_time",
        {"from": "2026-03-01", "to": "2026-03-07", "limit": 2, "hours": "09:00-10:00"},
        AGENT,
    )
    assert few["count"] == 2 and few["more"] is True
