"""Free time is arithmetic on instants: held, on ranges and busy times drawn at random around
both of Europe/Rome's clock changes, to a scan that asks of every single minute whether it is
free; and a day the clocks change on is as long as it really is."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fruitctl.domain.errors import InvalidParams
from fruitctl.domain.free_time import (
    Slot,
    WorkingHours,
    free_slots,
    merged,
    overlaps,
    windows,
)

ROME = ZoneInfo("Europe/Rome")
MINUTE = timedelta(minutes=1)
# Two days before each clock change of 2026 (29 March: 23 hours; 25 October: 25), and June.
BASES = [datetime(2026, 3, 27, tzinfo=ROME), datetime(2026, 10, 23, tzinfo=ROME)]
BASES.append(datetime(2026, 6, 10, tzinfo=ROME))


def brute_force(
    start: datetime,
    end: datetime,
    busy: list[tuple[datetime, datetime]],
    hours: WorkingHours | None,
    weekdays: frozenset[int] | None,
    minimum: timedelta,
) -> list[tuple[datetime, datetime]]:
    """Every minute of the range asked in turn: free, in hours, on an allowed day?"""

    def free(minute: datetime) -> bool:
        wall = minute.astimezone(ROME)
        if weekdays is not None and wall.weekday() not in weekdays:
            return False
        if hours is not None:
            until = hours.end or time(23, 59, 59, 999999)
            if not hours.start <= wall.time() < until and not (
                hours.end is None and wall.time() >= hours.start
            ):
                return False
        return not any(b0 <= minute < b1 for b0, b1 in busy)

    runs: list[tuple[datetime, datetime]] = []
    minute = start.astimezone(UTC)
    while minute < end:
        if free(minute):
            if runs and runs[-1][1] == minute:
                runs[-1] = (runs[-1][0], minute + MINUTE)
            else:
                runs.append((minute, minute + MINUTE))
        minute += MINUTE
    return [(a, b) for a, b in runs if b - a >= minimum]


def _at(base: datetime, minutes: int) -> datetime:
    return base.astimezone(UTC) + timedelta(minutes=minutes)


# Working hours from 04:00: Rome's clock reads each of those times once a day, so "the wall
# clock is within the hours" and "between the moments it reads start and end" agree.
hours_strategy = st.one_of(
    st.none(),
    st.tuples(st.integers(4 * 60, 23 * 60 + 58), st.integers(1, 20 * 60)).map(
        lambda p: WorkingHours(
            time(p[0] // 60, p[0] % 60),
            None if p[0] + p[1] >= 24 * 60 else time((p[0] + p[1]) // 60, (p[0] + p[1]) % 60),
        )
    ),
)


@settings(deadline=None)  # the scan is slow by design: no clock in a test
@given(
    base=st.sampled_from(BASES),
    offset=st.integers(0, 2 * 24 * 60),
    length=st.integers(1, 3 * 24 * 60),
    busy=st.lists(st.tuples(st.integers(-600, 4 * 24 * 60), st.integers(0, 600)), max_size=12),
    hours=hours_strategy,
    weekdays=st.one_of(st.none(), st.frozensets(st.integers(0, 6))),
    minimum=st.integers(1, 240),
)
def test_free_slots_are_the_free_minutes_a_scan_finds(
    base: datetime,
    offset: int,
    length: int,
    busy: list[tuple[int, int]],
    hours: WorkingHours | None,
    weekdays: frozenset[int] | None,
    minimum: int,
) -> None:
    start = _at(base, offset)
    end = start + timedelta(minutes=length)
    # Busy times as the calendar hands them over: in Rome, with Rome's offsets.
    taken = [(_at(base, b).astimezone(ROME), _at(base, b + n).astimezone(ROME)) for b, n in busy]
    allowed = windows(start.astimezone(ROME), end.astimezone(ROME), ROME, hours, weekdays)
    found = free_slots(allowed, taken, timedelta(minutes=minimum))
    expected = brute_force(start, end, taken, hours, weekdays, timedelta(minutes=minimum))
    assert [(s.start, s.end) for s in found] == expected
    assert all(s.minutes == (s.end - s.start) // MINUTE for s in found)


@given(st.lists(st.tuples(st.integers(0, 2000), st.integers(0, 300)), max_size=20))
def test_merged_busy_covers_the_same_minutes_disjoint_and_in_order(
    spans: list[tuple[int, int]],
) -> None:
    base = BASES[0]
    busy = [(_at(base, a), _at(base, a + n)) for a, n in spans]
    joined = merged(busy)
    assert all(a[1] < b[0] for a, b in pairwise(joined))
    covered = {m for a, n in spans for m in range(a, a + n)}
    assert {
        m
        for a, b in joined
        for m in range(int((a - _at(base, 0)) / MINUTE), int((b - _at(base, 0)) / MINUTE))
    } == covered


def test_the_spring_forward_day_has_23_free_hours_and_still_8_working_ones() -> None:
    day, next_day = datetime(2026, 3, 29, tzinfo=ROME), datetime(2026, 3, 30, tzinfo=ROME)
    whole = free_slots(windows(day, next_day, ROME, None, None), [], MINUTE)
    assert [s.minutes for s in whole] == [23 * 60]
    lunch = (datetime(2026, 3, 29, 12, tzinfo=ROME), datetime(2026, 3, 29, 13, tzinfo=ROME))
    hours = WorkingHours.parse("09:00-17:00")
    work = free_slots(windows(day, next_day, ROME, hours, None), [lunch], MINUTE)
    assert [(s.start.astimezone(ROME).isoformat(), s.minutes) for s in work] == [
        ("2026-03-29T09:00:00+02:00", 180),
        ("2026-03-29T13:00:00+02:00", 240),
    ]


def test_the_fall_back_day_has_25_free_hours() -> None:
    day, next_day = datetime(2026, 10, 25, tzinfo=ROME), datetime(2026, 10, 26, tzinfo=ROME)
    assert [
        s.minutes for s in free_slots(windows(day, next_day, ROME, None, None), [], MINUTE)
    ] == [25 * 60]


def test_weekdays_leave_the_weekend_out() -> None:
    friday, monday = datetime(2026, 3, 27, tzinfo=ROME), datetime(2026, 3, 30, tzinfo=ROME)
    found = windows(friday, monday + timedelta(days=1), ROME, None, frozenset({0, 4}))
    assert [w[0].astimezone(ROME).date().isoformat() for w in found] == ["2026-03-27", "2026-03-30"]


def test_a_slot_shorter_than_the_minimum_is_left_out() -> None:
    day = datetime(2026, 6, 10, 9, tzinfo=ROME)
    busy = [(day + timedelta(minutes=20), day + timedelta(hours=1))]
    slots = free_slots([(day, day + timedelta(hours=2))], busy, timedelta(minutes=30))
    assert slots == [Slot((day + timedelta(hours=1)).astimezone(UTC), (day + timedelta(hours=2)))]


@pytest.mark.parametrize(
    "text", ["9-17", "17:00-09:00", "09:00-09:00", "25:00-26:00", "09:60-10:00"]
)
def test_working_hours_that_do_not_read_as_hours_are_refused(text: str) -> None:
    with pytest.raises(InvalidParams, match="HH:MM-HH:MM"):
        WorkingHours.parse(text)


def test_working_hours_may_end_at_midnight() -> None:
    assert WorkingHours.parse("18:00-24:00") == WorkingHours(time(18), None)


def test_an_instant_event_inside_a_meeting_overlaps_it_and_touching_ones_do_not() -> None:
    a, b, c = (datetime(2026, 6, 10, h, tzinfo=ROME) for h in (9, 10, 11))
    assert overlaps((a, c), (b, b)) and overlaps((a, c), (b, c))
    assert not overlaps((a, b), (b, c)) and not overlaps((a, b), (b, b))
