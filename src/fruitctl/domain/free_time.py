"""Free time: a range less the busy intervals, inside working hours, as plain arithmetic.

Everything is computed on instants (aware datetimes compared as instants), so a day on which
the clocks change is as long as it really is: Europe/Rome's last Sunday of March has 23 hours,
and 09:00-17:00 on it is still eight. Working hours are wall-clock times in the person's zone;
a day's window runs from the moment its clock reads the start to the moment it reads the end
(a time the clock skips is read as the zone's rules read it: 02:30 on a spring-forward night is
03:30). Nothing here knows about events: the caller turns them into busy intervals.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from fruitctl.domain.errors import InvalidParams

Interval = tuple[datetime, datetime]
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # date.weekday()'s order
_HOURS = re.compile(r"^(\d{2}):(\d{2})-(\d{2}):(\d{2})$")


@dataclass(frozen=True)
class WorkingHours:
    """From ``start`` to ``end`` (wall-clock, ``end`` after ``start``; 24:00 is ``None``)."""

    start: time
    end: time | None

    @classmethod
    def parse(cls, text: str, field: str = "hours") -> WorkingHours:
        """``HH:MM-HH:MM`` (``09:00-17:00``; ``24:00`` ends at midnight), or ``InvalidParams``."""
        found = _HOURS.match(text.strip())
        if found is None:
            raise InvalidParams.working_hours(text, field)
        h1, m1, h2, m2 = (int(part) for part in found.groups())
        if h1 > 23 or m1 > 59 or m2 > 59 or h2 > 24 or (h2 == 24 and m2):
            raise InvalidParams.working_hours(text, field)
        start, end = time(h1, m1), None if h2 == 24 else time(h2, m2)
        if end is not None and end <= start:
            raise InvalidParams.working_hours(text, field)
        return cls(start, end)

    def window(self, day: date, tz: ZoneInfo) -> Interval:
        """This day's working window, as instants (in UTC)."""
        start = datetime.combine(day, self.start, tz)
        if self.end is None:
            end = datetime.combine(day + timedelta(days=1), time(), tz)
        else:
            end = datetime.combine(day, self.end, tz)
        return as_utc(start), as_utc(end)


@dataclass(frozen=True)
class Slot:
    start: datetime
    end: datetime

    @property
    def minutes(self) -> int:
        return int((self.end - self.start).total_seconds() // 60)


def merged(busy: Iterable[Interval]) -> list[Interval]:
    """The busy intervals as disjoint ones in order, in UTC (touching ones joined; empty ones
    gone)."""
    out: list[Interval] = []
    for start, end in sorted((as_utc(s), as_utc(e)) for s, e in busy if e > s):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def windows(
    start: datetime,
    end: datetime,
    tz: ZoneInfo,
    hours: WorkingHours | None,
    weekdays: frozenset[int] | None,
) -> list[Interval]:
    """Where free time may lie in ``[start, end)``: the working window of each allowed day in
    ``tz`` (every day when ``weekdays`` is None), or the whole range without hours."""
    start, end = as_utc(start), as_utc(end)
    if hours is None and weekdays is None:
        return [(start, end)]
    out = []
    for day in _days(start, end, tz):
        if weekdays is not None and day.weekday() not in weekdays:
            continue
        low, high = (hours or WorkingHours(time(), None)).window(day, tz)
        low, high = max(low, start), min(high, end)
        if high > low:
            out.append((low, high))
    return merged(out)


def free_slots(allowed: list[Interval], busy: Iterable[Interval], minimum: timedelta) -> list[Slot]:
    """The parts of the ``allowed`` windows (disjoint, in order) no busy interval covers, at
    least ``minimum`` long - one sweep over both lists."""
    taken = merged(busy)
    slots: list[Slot] = []
    i = 0
    for low, high in allowed:
        while i < len(taken) and taken[i][1] <= low:
            i += 1  # busy before this window: never needed again
        cursor, j = low, i
        while j < len(taken) and taken[j][0] < high:
            slots += _slot(cursor, taken[j][0], minimum)
            cursor = max(cursor, taken[j][1])
            j += 1
        slots += _slot(cursor, high, minimum)
    return slots


def overlaps(a: Interval, b: Interval) -> bool:
    """Do two half-open intervals share an instant? (An empty one overlaps what strictly
    contains its instant: a zero-length event inside a meeting is in it.)"""
    return (a[0] < b[1] and b[0] < a[1]) or (a[0] == a[1] and b[0] < a[0] < b[1])


def _slot(start: datetime, end: datetime, minimum: timedelta) -> list[Slot]:
    return [Slot(start, end)] if end - start >= minimum and end > start else []


def _days(start: datetime, end: datetime, tz: ZoneInfo) -> Iterator[date]:
    day, last = start.astimezone(tz).date(), end.astimezone(tz).date()
    while day <= last:
        yield day
        day += timedelta(days=1)


def as_utc(value: datetime) -> datetime:
    """An instant in UTC: comparing and subtracting UTC datetimes is plain arithmetic (two
    datetimes in one ZoneInfo subtract as wall-clock times, wrong across a clock change)."""
    return value.astimezone(UTC)
