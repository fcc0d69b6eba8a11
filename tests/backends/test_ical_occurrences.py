"""Occurrences expanded once: every window of a kept timeline answers exactly what asking the
recurrence library's public API for that window answers (the reference below), whatever the
order of the windows - near, far ahead, back before the series, across the seams where a
timeline was widened - for series of every shape a server sends."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from occurrence_reference import aware as _aware
from occurrence_reference import reference

from fruitctl.backends import ical_occurrences
from fruitctl.backends.ical_events import BrokenObject
from fruitctl.domain.calendar import Calendar

CAL = Calendar(id="c1", name="Home", isDefault=True)
ROME, NEW_YORK, TOKYO = (
    ZoneInfo("Europe/Rome"),
    ZoneInfo("America/New_York"),
    ZoneInfo("Asia/Tokyo"),
)


def _object(*events: list[str]) -> str:
    body = "".join(
        "BEGIN:VEVENT\r\n" + "\r\n".join(lines) + "\r\nEND:VEVENT\r\n" for lines in events
    )
    return f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\n{body}END:VCALENDAR\r\n"


SERIES = {
    # a daily series three years old, in a zone with summer time, one day skipped, one moved
    "old daily": _object(
        [
            "UID:daily",
            "SUMMARY:Standup",
            "DTSTART;TZID=Europe/Rome:20231106T093000",
            "DTEND;TZID=Europe/Rome:20231106T094500",
            "RRULE:FREQ=DAILY",
            "EXDATE;TZID=Europe/Rome:20261202T093000",
        ],
        [
            "UID:daily",
            "SUMMARY:Standup (late)",
            "RECURRENCE-ID;TZID=Europe/Rome:20261203T093000",
            "DTSTART;TZID=Europe/Rome:20261203T113000",
            "DTEND;TZID=Europe/Rome:20261203T114500",
        ],
    ),
    "weekly in New York": _object(
        [
            "UID:weekly",
            "SUMMARY:Review",
            "DTSTART;TZID=America/New_York:20250107T170000",
            "DURATION:PT90M",
            "RRULE:FREQ=WEEKLY;BYDAY=TU,TH",
        ]
    ),
    "all-day yearly": _object(
        [
            "UID:birthday",
            "SUMMARY:Birthday",
            "DTSTART;VALUE=DATE:19900315",
            "DTEND;VALUE=DATE:19900316",
            "RRULE:FREQ=YEARLY",
        ]
    ),
    "floating monthly": _object(
        [
            "UID:floating",
            "SUMMARY:Rent",
            "DTSTART:20240101T233000",
            "DTEND:20240102T003000",
            "RRULE:FREQ=MONTHLY;BYMONTHDAY=1",
        ]
    ),
    "counted with extra dates": _object(
        [
            "UID:counted",
            "SUMMARY:Course",
            "DTSTART:20261110T080000Z",
            "DTEND:20261110T100000Z",
            "RRULE:FREQ=WEEKLY;COUNT=6",
            "RDATE:20261230T080000Z",
        ]
    ),
    # each occurrence runs into the next one: every instant, every seam, is inside one
    "overlapping daily": _object(
        [
            "UID:overlapping",
            "SUMMARY:Watch",
            "DTSTART:20240101T000000Z",
            "DURATION:PT25H",
            "RRULE:FREQ=DAILY",
        ]
    ),
    "single": _object(
        ["UID:single", "SUMMARY:Dentist", "DTSTART:20261125T140000Z", "DTEND:20261125T150000Z"]
    ),
}


def answered(text: str, start: datetime, end: datetime) -> list[tuple[Any, ...]]:
    zone = start.tzinfo or UTC
    found = []
    for event in ical_occurrences.expand(text, CAL, start, end):
        first, last = _aware(event.start, zone), _aware(event.end, zone)
        found.append((event.occurrence, first, last, event.title))
    return sorted(found, key=repr)


@pytest.mark.parametrize("name", sorted(SERIES))
def test_every_window_in_any_order_answers_what_the_library_answers(name: str) -> None:
    text = SERIES[name]
    ical_occurrences.timeline.cache_clear()
    rng = random.Random(name)
    origin = datetime(2026, 11, 25, tzinfo=UTC)
    # near, far ahead, far back (before some series began), then around the seams
    offsets = [0, 400, -1200, 7, 120, 123, -31, -35, 95, 2000, -110, 475, 1000]
    offsets += [rng.randrange(-1500, 1500) for _ in range(10)]
    for offset in offsets:
        zone = rng.choice((UTC, ROME, NEW_YORK, TOKYO))
        start = (origin + timedelta(days=offset, hours=rng.randrange(24))).astimezone(zone)
        end = start + timedelta(days=rng.choice((1, 7, 31)))
        assert answered(text, start, end) == reference(text, start, end), (name, start)


def test_an_old_series_is_expanded_once_not_on_every_read() -> None:
    text = SERIES["old daily"]
    ical_occurrences.timeline.cache_clear()
    start = datetime(2026, 11, 25, tzinfo=UTC)
    week = timedelta(days=7)
    ical_occurrences.expand(text, CAL, start, start + week)
    line = ical_occurrences.timeline(text)
    first = line._items
    ical_occurrences.expand(text, CAL, start + week / 2, start + week)  # the week after is held too
    assert line._items is first
    # A read past what the first one held expands months at once: the following weeks are held.
    ical_occurrences.expand(text, CAL, start + 2 * week, start + 3 * week)
    held = line._items
    assert held is not first
    for day in range(15, 80):
        ical_occurrences.expand(
            text, CAL, start + timedelta(days=day), start + timedelta(days=day) + week
        )
    assert line._items is held
    assert ical_occurrences.timeline(text) is line


def test_bounds_of_a_finite_series_end_at_its_last_occurrence() -> None:
    first, last = ical_occurrences.bounds(SERIES["counted with extra dates"])
    assert first == datetime(2026, 11, 10, 8, tzinfo=UTC).timestamp()
    assert last == datetime(2026, 12, 30, 10, tzinfo=UTC).timestamp()  # the RDATE is last
    assert ical_occurrences.bounds(SERIES["old daily"])[1] is None
    many = SERIES["counted with extra dates"].replace("COUNT=6", "COUNT=5000")
    assert ical_occurrences.bounds(many)[1] is None  # too many to walk: indexed as endless
    window = (datetime(2040, 1, 1, tzinfo=UTC), datetime(2040, 1, 8, tzinfo=UTC))
    assert answered(many, *window) == reference(many, *window) != []


def test_text_that_is_no_event_is_a_broken_object() -> None:
    with pytest.raises(BrokenObject):
        ical_occurrences.bounds("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")
