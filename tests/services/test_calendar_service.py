"""The calendar service on the real local store: seed 000's ``calendar.upcoming`` exactly, event
ranges and their bounds, and writes whose bad fields are named before anything is written."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.capabilities.calendar.service import CalendarService
from fruitctl.domain.errors import InvalidParams, NotFound
from fruitctl.store import open_database

ROME = ZoneInfo("Europe/Rome")
OFFSET = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$")
UPCOMING_KEYS = {
    "id",
    "calendarName",
    "title",
    "startAt",
    "endAt",
    "allDay",
    "location",
    "notesPreview",
}


@pytest.fixture
def calendar(home: Path) -> Iterator[CalendarService]:
    engine = open_database(home / "local.db", "local")
    yield CalendarService(LocalCalendars(engine), notes_preview_chars=20)
    engine.dispose()


def _soon(hours: float) -> str:
    moment = datetime.now(ROME).replace(microsecond=0) + timedelta(hours=hours)
    return moment.isoformat()


def _create(service: CalendarService, **args: Any) -> dict[str, Any]:
    args.setdefault("title", "An event")
    args.setdefault("startAt", _soon(2))
    return service.create_event(args)


def _invalid(call: Any, args: dict[str, Any]) -> InvalidParams:
    with pytest.raises(InvalidParams) as caught:
        call(args)
    return caught.value


# -- upcoming (seed 000) ----------------------------------------------------------------------


def test_upcoming_defaults_window_and_item_shape(calendar: CalendarService) -> None:
    _create(calendar, title="Review", location="Office", notes="GTD weekly review checklist")
    result = calendar.upcoming()
    window = result["window"]
    assert window["timezone"] == "Europe/Rome"
    start, end = (datetime.fromisoformat(window[k]) for k in ("from", "to"))
    assert end - start == timedelta(days=7)
    assert abs(start - datetime.now(ROME)) < timedelta(seconds=5)
    (item,) = result["events"]
    assert set(item) == UPCOMING_KEYS and result["count"] == 1
    assert (item["title"], item["location"], item["calendarName"]) == (
        "Review",
        "Office",
        "Calendar",
    )
    assert item["notesPreview"] == "GTD weekly review c…"  # cut to 20 characters
    for text in (window["from"], window["to"], item["startAt"], item["endAt"]):
        assert OFFSET.match(text) and not text.endswith("Z"), text


def test_upcoming_renders_times_in_the_zone_asked(calendar: CalendarService) -> None:
    made = _create(calendar, startAt=_soon(3), timezone="Europe/Rome")
    result = calendar.upcoming({"timezone": "Asia/Tokyo"})
    (item,) = result["events"]
    assert result["window"]["timezone"] == "Asia/Tokyo"
    assert item["startAt"].endswith("+09:00") and result["window"]["from"].endswith("+09:00")
    assert datetime.fromisoformat(item["startAt"]) == datetime.fromisoformat(made["startAt"])


def test_upcoming_sorts_limits_and_counts(calendar: CalendarService) -> None:
    for hours, title in ((30, "third"), (5, "first"), (10, "second"), (24 * 8, "too late")):
        _create(calendar, title=title, startAt=_soon(hours))
    result = calendar.upcoming({"limit": 2})
    assert [e["title"] for e in result["events"]] == ["first", "second"]
    assert result["count"] == 2
    assert [e["title"] for e in calendar.upcoming({"days": 2})["events"]] == [
        "first",
        "second",
        "third",
    ]


def test_upcoming_expands_series_and_keeps_all_day_dates(calendar: CalendarService) -> None:
    series = _create(calendar, title="Standup", startAt=_soon(1), recurrence="FREQ=DAILY")
    tomorrow = (datetime.now(ROME) + timedelta(days=1)).date().isoformat()
    _create(calendar, title="Holiday", startAt=tomorrow, allDay=True)
    events = calendar.upcoming({"days": 3})["events"]
    standups = [e for e in events if e["title"] == "Standup"]
    assert len(standups) == 3 and all(e["id"].startswith(series["id"] + "@") for e in standups)
    (holiday,) = [e for e in events if e["title"] == "Holiday"]
    assert (holiday["startAt"], holiday["allDay"]) == (tomorrow, True)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"days": 0}, "days"),
        ({"days": 31}, "days"),
        ({"limit": 0}, "limit"),
        ({"limit": 501}, "limit"),
        ({"days": "7"}, "days"),  # strict: a string is not a number
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"timezone": ""}, "timezone"),
        ({"hours": 3}, "hours"),
    ],
)
def test_upcoming_refuses_bad_params_naming_them(
    calendar: CalendarService, args: dict[str, Any], field: str
) -> None:
    error = _invalid(calendar.upcoming, args)
    assert error.code == "invalid_params" and field in error.message


# -- ranges -----------------------------------------------------------------------------------


def test_query_events_in_a_range_with_a_whole_last_day(calendar: CalendarService) -> None:
    _create(calendar, title="late", startAt="2026-03-07T23:00:00+01:00")
    _create(calendar, title="next day", startAt="2026-03-08T00:30:00+01:00")
    result = calendar.query_events({"from": "2026-03-01", "to": "2026-03-07"})
    assert [e["title"] for e in result["events"]] == ["late"]
    assert result["window"] == {
        "from": "2026-03-01T00:00:00+01:00",
        "to": "2026-03-08T00:00:00+01:00",
        "timezone": "Europe/Rome",
    }


def test_query_events_by_calendar_name_in_any_case(calendar: CalendarService) -> None:
    assert isinstance(calendar.backend, LocalCalendars)
    calendar.backend.create_calendar("Work")
    _create(calendar, title="work thing", calendar="work")
    _create(calendar, title="home thing")
    titles = [e["title"] for e in calendar.query_events({"calendar": "WORK"})["events"]]
    assert titles == ["work thing"]
    with pytest.raises(NotFound, match="Available calendars: Calendar, Work"):
        calendar.query_events({"calendar": "Play"})


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"from": "2026-03-01", "to": "2027-03-03"}, "to"),  # longer than 366 days
        ({"from": "2026-03-05", "to": "2026-03-01"}, "to"),
        ({"from": "yesterday"}, "from"),
        ({"to": "2026-02-30"}, "to"),
        ({"start": "2026-03-01"}, "start"),  # the wire name is 'from'
    ],
)
def test_query_events_refuses_bad_ranges(
    calendar: CalendarService, args: dict[str, Any], field: str
) -> None:
    assert field in _invalid(calendar.query_events, args).message


# -- writes -----------------------------------------------------------------------------------


def test_create_defaults_and_zone(calendar: CalendarService) -> None:
    made = _create(calendar, startAt="2026-03-02T09:00:00+01:00")
    assert (made["endAt"], made["timezone"]) == ("2026-03-02T10:00:00+01:00", "Europe/Rome")
    day = _create(calendar, startAt="2026-03-02T09:00:00+01:00", allDay=True)
    assert (day["startAt"], day["endAt"], day["allDay"]) == ("2026-03-02", "2026-03-03", True)
    elsewhere = _create(calendar, startAt="2026-03-02T09:00:00-05:00")
    assert elsewhere["startAt"] == "2026-03-02T14:00:00+00:00"  # no zone named: kept in UTC


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"endAt": "2026-03-02T08:00:00+01:00"}, "endAt"),
        ({"endAt": "2026-03-03"}, "endAt"),
        ({"recurrence": "EVERY=DAY"}, "recurrence"),
        ({"timezone": "Rome"}, "timezone"),
        ({"title": "  "}, "title"),
        ({"startAt": "tomorrow"}, "startAt"),
        ({"calendarId": "x"}, "calendarId"),
    ],
)
def test_create_names_the_bad_field_and_writes_nothing(
    calendar: CalendarService, args: dict[str, Any], field: str
) -> None:
    full = {"title": "t", "startAt": "2026-03-02T09:00:00+01:00", **args}
    assert field in _invalid(calendar.create_event, full).message
    assert calendar.query_events({"from": "2026-01-01", "to": "2026-12-31"})["count"] == 0


def test_update_and_delete_an_occurrence_by_its_date(calendar: CalendarService) -> None:
    series = _create(
        calendar, title="Review", startAt="2026-03-20T09:00:00+01:00", recurrence="FREQ=WEEKLY"
    )
    moved = calendar.update_event(
        {"id": series["id"], "occurrence": "2026-04-03", "startAt": "2026-04-03T15:00:00+02:00"}
    )
    assert moved["id"] == f"{series['id']}@20260403T070000Z"
    assert moved["startAt"] == "2026-04-03T15:00:00+02:00"
    done = calendar.delete_event({"id": series["id"], "occurrence": "2026-03-27"})
    assert done == {"deleted": f"{series['id']}@20260327T080000Z", "scope": "occurrence"}
    window = {"from": "2026-03-20", "to": "2026-04-10"}
    starts = [e["startAt"] for e in calendar.query_events(window)["events"]]
    assert starts == [
        "2026-03-20T09:00:00+01:00",
        "2026-04-03T15:00:00+02:00",
        "2026-04-10T09:00:00+02:00",
    ]
    with pytest.raises(NotFound, match="no occurrence on 2026-03-28"):
        calendar.delete_event({"id": series["id"], "occurrence": "2026-03-28"})


def test_update_scope_defaults_and_series_through_an_occurrence(
    calendar: CalendarService,
) -> None:
    series = _create(
        calendar, title="Review", startAt="2026-03-20T09:00:00+01:00", recurrence="FREQ=WEEKLY"
    )
    occurrence = f"{series['id']}@20260327T080000Z"
    one = calendar.update_event({"id": occurrence, "title": "Just this"})
    assert one["id"] == occurrence
    whole = calendar.update_event({"id": occurrence, "scope": "series", "location": "Home"})
    assert whole["id"] == series["id"] and whole["location"] == "Home"
    with pytest.raises(InvalidParams, match="Nothing to change"):
        calendar.update_event({"id": series["id"]})
    error = _invalid(calendar.update_event, {"id": series["id"], "title": None})
    assert "'title' cannot be null" in error.message
    with pytest.raises(InvalidParams, match="does not repeat"):
        single = _create(calendar)
        calendar.delete_event({"id": single["id"], "occurrence": "2026-03-27"})
