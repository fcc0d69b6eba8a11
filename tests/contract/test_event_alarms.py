"""An event's alarms on every calendar backend (``conftest.CALENDARS``): written, read back on
the event and on each occurrence of a series, replaced and cleared; a location alarm refused
where iCalendar and EventKit's published selectors have no place for it."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from fruitctl.domain.alarms import Alarm, Place
from fruitctl.domain.calendar import Event
from fruitctl.domain.errors import Unsupported
from fruitctl.ports import CalendarBackend, EventRange, NewEvent

ROME = ZoneInfo("Europe/Rome")
MARCH = EventRange(datetime(2026, 3, 1, tzinfo=ROME), datetime(2026, 4, 1, tzinfo=ROME))


def _create(backend: CalendarBackend, **fields: object) -> Event:
    (calendar, *_) = backend.calendars()
    fields.setdefault("title", "stand-up")
    fields.setdefault("start", datetime(2026, 3, 2, 9, tzinfo=ROME))
    fields.setdefault("end", datetime(2026, 3, 2, 10, tzinfo=ROME))
    return backend.create_event(NewEvent(calendar_id=calendar.id, **fields))  # type: ignore[arg-type]


def test_alarms_are_kept_and_read_back(calendar_backend: CalendarBackend) -> None:
    alarms = (Alarm(minutesBefore=15), Alarm(at="2026-03-01T20:00:00+01:00"))
    made = _create(calendar_backend, alarms=alarms)
    assert made.alarms == alarms
    assert calendar_backend.get_event(made.id).alarms == alarms
    assert made.to_wire()["alarms"] == [
        {"minutesBefore": 15},
        {"at": "2026-03-01T20:00:00+01:00"},
    ]


def test_every_occurrence_of_a_series_has_them(calendar_backend: CalendarBackend) -> None:
    series = _create(
        calendar_backend,
        recurrence="FREQ=WEEKLY;COUNT=3",
        timezone="Europe/Rome",
        alarms=(Alarm(minutesBefore=10),),
    )
    found = [e for e in calendar_backend.events(MARCH) if e.seriesId == series.id]
    assert len(found) == 3
    assert all(e.alarms == (Alarm(minutesBefore=10),) for e in found)


def test_alarms_are_replaced_and_cleared(calendar_backend: CalendarBackend) -> None:
    made = _create(calendar_backend, alarms=(Alarm(minutesBefore=15),))
    changed = calendar_backend.update_event(
        made.id, {"alarms": (Alarm(minutesBefore=-5),)}, "series"
    )
    assert changed.alarms == (Alarm(minutesBefore=-5),)
    assert changed.title == made.title
    cleared = calendar_backend.update_event(made.id, {"alarms": ()}, "series")
    assert cleared.alarms == ()
    assert calendar_backend.get_event(made.id).alarms == ()


def test_a_location_alarm_is_refused(calendar_backend: CalendarBackend) -> None:
    office = Alarm(location=Place(title="Office", latitude=45.46, longitude=9.19))
    with pytest.raises(Unsupported, match="not supported by the"):
        _create(calendar_backend, alarms=(office,))
    assert calendar_backend.events(MARCH) == []
