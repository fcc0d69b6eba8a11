"""Every expansion of a calendar object is bounded: a series from elsewhere whose rules repeat
too often is broken before anything walks it (a mirror skips it, a read skips it, an edit
refuses it), a range too far from a series' start is not walked, and the recurrence library's
occurrences are taken one at a time - never past ``limit + 1`` - counted through a wrapper
around the library's own generator."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from recurring_ical_events.series import Series
from sqlalchemy import Engine

from fruitctl.backends import ical_bounds, ical_edit, ical_index, ical_occurrences
from fruitctl.backends.ical_events import BrokenObject, parse
from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.backends.local.tables import events
from fruitctl.domain.calendar import Calendar
from fruitctl.domain.errors import InvalidParams, Unsupported
from fruitctl.ports import EventRange
from fruitctl.store import open_database

CAL = Calendar(id="c1", name="Home")
EVERY_MINUTE = ",".join(str(m) for m in range(60))
SECONDS = ",".join(str(s) for s in range(60))
WEEK_OF = datetime(2026, 3, 2, tzinfo=UTC)


def _object(uid: str, *lines: str, start: str = "20260302T090000Z") -> str:
    body = "\r\n".join([f"UID:{uid}", "SUMMARY:s", f"DTSTART:{start}", "DURATION:PT30M", *lines])
    head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\n"
    return f"{head}{body}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"


POISONED = {
    "every second for a year": _object("s", "RRULE:FREQ=SECONDLY;UNTIL=20270101T000000Z"),
    "every minute, endless": _object("m", "RRULE:FREQ=MINUTELY"),
    "hourly with every minute and second": _object(
        "h", f"RRULE:FREQ=HOURLY;BYMINUTE={EVERY_MINUTE};BYSECOND={SECONDS}"
    ),
    "five daily rules": _object("r", *[f"RRULE:FREQ=DAILY;BYHOUR={h}" for h in range(5)]),
    "two rules, 144 a day together": _object(
        "t", "RRULE:FREQ=HOURLY;BYMINUTE=0,20,40", "RRULE:FREQ=HOURLY;BYMINUTE=10,30,50"
    ),
    # dateutil makes its first instance for ever: an expansion never moves past it.
    "an interval of nothing": _object("z", "RRULE:FREQ=DAILY;INTERVAL=0"),
}


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many occurrences the library's series have handed out: a real wrapper around its
    generator (``Series.between``), counting as the expansion consumes them."""
    count = [0]
    real = Series.between

    def counted(self: Series, start: Any, end: Any) -> Iterator[Any]:
        for occurrence in real(self, start, end):
            count[0] += 1
            yield occurrence

    monkeypatch.setattr(Series, "between", counted)
    ical_occurrences.timeline.cache_clear()
    return count


@pytest.mark.parametrize("name", sorted(POISONED))
def test_a_series_that_repeats_too_often_is_broken_before_any_walk(
    name: str, taken: list[int]
) -> None:
    text = POISONED[name]
    with pytest.raises(BrokenObject) as caught:
        ical_index.index(text)
    assert "not expanded" in str(caught.value)
    assert ical_index.broken(text) == str(caught.value)
    with pytest.raises(BrokenObject):
        ical_occurrences.expand(text, CAL, WEEK_OF, WEEK_OF + timedelta(days=7))
    assert taken[0] == 0  # nothing was walked


def test_the_reason_names_the_rule_and_what_is_allowed() -> None:
    assert "FREQ=SECONDLY" in (ical_index.broken(POISONED["every second for a year"]) or "")
    assert "at most 4" in (ical_index.broken(POISONED["five daily rules"]) or "")
    assert "144 times a day" in (ical_index.broken(POISONED["two rules, 144 a day together"]) or "")
    assert "INTERVAL=0 must be a whole number" in (
        ical_index.broken(POISONED["an interval of nothing"]) or ""
    )
    assert ical_index.broken(_object("ok", "RRULE:FREQ=HOURLY")) is None
    assert ical_index.broken("no calendar") is not None


def test_a_long_finite_series_is_indexed_as_endless_having_taken_limit_plus_one(
    taken: list[int],
) -> None:
    daily = _object("d", "RRULE:FREQ=DAILY;UNTIL=21000101T000000Z")  # 27,000 occurrences
    assert ical_occurrences.bounds(daily)[1] is None
    assert taken[0] == ical_occurrences.FINITE_LIMIT + 1
    taken[0] = 0
    week = ical_occurrences.expand(daily, CAL, WEEK_OF, WEEK_OF + timedelta(days=7))
    assert len(week) == 7 and taken[0] < 7 * 12  # the week and its margins, not the series


def test_a_range_holding_too_many_occurrences_stops_at_the_limit(
    taken: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ical_occurrences, "EXPANSION_LIMIT", 50)
    dates = ",".join(f"20260303T{h:02d}{m:02d}00Z" for h in range(10) for m in range(0, 60, 5))
    many = _object("rd", f"RDATE:{dates}")  # 120 extra occurrences on one day
    with pytest.raises(BrokenObject, match="more than 50 occurrences"):
        ical_occurrences.expand(many, CAL, WEEK_OF, WEEK_OF + timedelta(days=7))
    assert taken[0] == 51


def test_a_range_too_far_from_an_hourly_start_is_not_walked(taken: list[int]) -> None:
    hourly = _object("far", "RRULE:FREQ=HOURLY", start="19900101T000000Z")
    near = ical_occurrences.expand(hourly, CAL, WEEK_OF, WEEK_OF + timedelta(hours=3))
    assert len(near) == 3
    far = datetime(2100, 1, 1, tzinfo=UTC)
    walked = taken[0]
    with pytest.raises(BrokenObject, match="at most 500000 are walked"):
        ical_occurrences.expand(hourly, CAL, far, far + timedelta(hours=3))
    assert taken[0] == walked
    with pytest.raises(InvalidParams, match="nearer the series' start"):
        ical_edit.remove_occurrence(hourly, "21000101T000000Z", datetime.now(UTC))
    assert ical_bounds.why_too_far(parse(hourly).walk("VEVENT")[0], WEEK_OF, far) is not None


def test_an_edit_never_writes_a_poisoned_object_back() -> None:
    text = POISONED["every minute, endless"]
    with pytest.raises(InvalidParams, match="FREQ=MINUTELY"):
        ical_edit.apply_changes(text, {"title": "renamed"}, "series", None, datetime.now(UTC))
    with pytest.raises(Unsupported, match="not expanded"):
        ical_edit.remove_occurrence(text, "20260302T090100Z", datetime.now(UTC))


@pytest.fixture
def store(home: Path) -> Iterator[tuple[LocalCalendars, Engine]]:
    engine = open_database(home / "local.db", "local")
    yield LocalCalendars(engine), engine
    engine.dispose()


def test_a_stored_poisoned_object_is_skipped_by_reads_and_the_rest_answered(
    store: tuple[LocalCalendars, Engine], caplog: pytest.LogCaptureFixture
) -> None:
    """A mirror indexed before these bounds may hold one: reads skip it, with a warning."""
    local, engine = store
    calendar_id = local.calendars()[0].id
    local.put_object(calendar_id, _object("fine", "RRULE:FREQ=DAILY"))
    with pytest.raises(BrokenObject):
        local.put_object(calendar_id, POISONED["every minute, endless"])
    with engine.begin() as conn:  # as an older fruitctl stored it
        conn.execute(
            events.insert().values(
                uid="m",
                calendar_id=calendar_id,
                ics=POISONED["every minute, endless"],
                first_start=WEEK_OF.timestamp(),
                last_end=None,
                created="2026-01-01T00:00:00+00:00",
                modified="2026-01-01T00:00:00+00:00",
            )
        )
    found = local.events(EventRange(WEEK_OF, WEEK_OF + timedelta(days=2)))
    assert [e.seriesId for e in found] == ["fine", "fine"]
    assert "skipping unreadable event m" in caplog.text
    with pytest.raises(Unsupported, match="FREQ=MINUTELY"):
        local.get_event("m@20260302T090100Z")


def test_a_timeline_read_far_and_wide_holds_at_most_its_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ical_occurrences, "HELD_LIMIT", 500)
    hourly = _object("wide", "RRULE:FREQ=HOURLY;BYHOUR=9,12,18")  # three a day
    ical_occurrences.timeline.cache_clear()
    line = ical_occurrences.timeline(hourly)
    for week in range(0, 80, 4):  # reading on, week after week: the held span would grow
        start = WEEK_OF + timedelta(weeks=week)
        found = ical_occurrences.expand(hourly, CAL, start, start + timedelta(days=7))
        assert len(found) == 21
        assert len(line._items) <= 500
