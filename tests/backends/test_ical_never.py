"""A series from elsewhere whose rule never happens is broken before the recurrence library
walks it: looking for its next instance, dateutil would walk day by day (hour by hour) to the
year 9999, seconds to minutes of CPU on every read. Counted through a wrapper around dateutil's
own walk (``rrule._iter``): it is never started for such a series, and is for a rare one."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from dateutil.rrule import rrule

from fruitctl.backends import ical_edit, ical_index, ical_occurrences
from fruitctl.backends.ical_events import BrokenObject
from fruitctl.domain.calendar import Calendar
from fruitctl.domain.errors import InvalidParams
from fruitctl.ports import NewEvent

CAL = Calendar(id="c1", name="Home")
MONDAY = datetime(2026, 3, 2, 9, tzinfo=UTC)


def _object(rule: str, start: str = "20260302T090000Z") -> str:
    body = f"UID:u\r\nSUMMARY:s\r\nDTSTART:{start}\r\nDURATION:PT30M\r\nRRULE:{rule}"
    head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\n"
    return f"{head}{body}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"


NEVER = {
    "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30": "no date matches BYMONTH=2;BYMONTHDAY=30",
    "FREQ=HOURLY;BYMONTH=4;BYMONTHDAY=31": "no date matches BYMONTH=4;BYMONTHDAY=31",
    "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=31;COUNT=5": "BYMONTH=2;BYMONTHDAY=31",
    "FREQ=DAILY;BYMONTH=1;BYYEARDAY=366": "BYMONTH=1;BYYEARDAY=366",
    "FREQ=HOURLY;BYSETPOS=2": "BYSETPOS=2 asks for more instances than any hour holds",
    "FREQ=WEEKLY;BYDAY=MO;BYSETPOS=2;UNTIL=29991231T000000Z": "than any week holds",
    # what the rule takes from its start on Monday 2 March 2026 (09:00 UTC)
    "FREQ=DAILY;INTERVAL=7;BYDAY=TU": "from its start on 2026-03-02 matches BYDAY=TU",
    "FREQ=MONTHLY;INTERVAL=12;BYMONTH=4": "from its start on 2026-03-02 matches BYMONTH=4",
}


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many walks dateutil has started: a real wrapper around its generator."""
    count = [0]
    real = rrule._iter

    def counted(self: rrule) -> Iterator[Any]:
        count[0] += 1
        yield from real(self)

    monkeypatch.setattr(rrule, "_iter", counted)
    ical_occurrences.timeline.cache_clear()
    return count


@pytest.mark.parametrize("rule", sorted(NEVER))
def test_a_series_that_never_happens_is_broken_before_any_walk(rule: str, walks: list[int]) -> None:
    text = _object(rule)
    with pytest.raises(BrokenObject, match="it never happens: ") as caught:
        ical_index.index(text)
    assert NEVER[rule] in str(caught.value)
    assert ical_index.broken(text) == str(caught.value)
    with pytest.raises(BrokenObject, match=NEVER[rule]):
        ical_occurrences.expand(text, CAL, MONDAY, MONDAY + timedelta(days=7))
    with pytest.raises(InvalidParams, match="never happens"):
        ical_edit.apply_changes(text, {"title": "renamed"}, "series", None, datetime.now(UTC))
    assert walks[0] == 0


def test_a_rare_series_is_walked_and_found(walks: list[int]) -> None:
    """The counter counts: a leap day on a Monday (28 years apart) is expanded as before."""
    text = _object("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO")
    assert ical_index.broken(text) is None
    leap_day = datetime(2044, 2, 29, tzinfo=UTC)
    found = ical_occurrences.expand(text, CAL, leap_day, leap_day + timedelta(days=1))
    assert [e.start.date() for e in found] == [leap_day.date()]
    assert walks[0] > 0


def test_a_new_series_that_never_happens_from_its_start_is_refused() -> None:
    """At input the rule alone passes (from the 28th it happens); written from the 30th of
    January, every step is a 30th of February."""
    start = datetime(2026, 1, 30, 9, tzinfo=UTC)
    rule = "FREQ=MONTHLY;BYMONTH=2"
    new = NewEvent("c1", "s", start, start + timedelta(hours=1), recurrence=rule)
    with pytest.raises(InvalidParams, match="from its start on 2026-01-30 matches BYMONTH=2"):
        ical_edit.new_object("u", new, datetime.now(UTC))
    earlier = NewEvent("c1", "s", start - timedelta(days=2), start, recurrence=new.recurrence)
    assert "RRULE:FREQ=MONTHLY;BYMONTH=2" in ical_edit.new_object("u", earlier, datetime.now(UTC))


def test_a_series_whose_ordinal_dateutil_cannot_read_is_broken_not_a_crash() -> None:
    """dateutil indexes past its tables for a 21st Friday of December: an IndexError in the
    middle of a read, before this judgement."""
    text = _object("FREQ=MONTHLY;BYDAY=2MO,21FR")
    assert "a weekday comes at most 5 times a month" in str(ical_index.broken(text))
    december = datetime(2026, 12, 1, tzinfo=UTC)
    with pytest.raises(BrokenObject):
        ical_occurrences.expand(text, CAL, december, december + timedelta(days=31))
