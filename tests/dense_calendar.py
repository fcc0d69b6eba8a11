"""A dense calendar, as a busy work account holds one: 2,000 calendar objects whose occurrences
fall within 60 days (about 33 a day), written the way clients write them.

- 1,900 single events over the 60 days: most in UTC, a third in Europe/Berlin with its VTIMEZONE,
  a tenth all-day;
- 100 series, a third each weekly, weekly on three weekdays and daily on weekdays; a third of
  them end after a COUNT, half are in Europe/Berlin with its VTIMEZONE, most began weeks before
  the 60 days; a few have a moved occurrence and a skipped one (EXDATE).

The benchmark (``benchmarks/caldav_sync.py``, its dense profile) and the correctness test
(``tests/backends/test_dense_calendar.py``) read the same objects: ``events(origin, seed)`` is
the same list for the same arguments.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import icalendar

EVENTS = 2_000
SERIES = 100
DAYS = 60
ZONE = "Europe/Berlin"
WEEK = timedelta(days=7)
RULES = ("FREQ=WEEKLY", "FREQ=WEEKLY;BYDAY={three}", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")
WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


def span(origin: datetime) -> tuple[datetime, datetime]:
    """The 60 days the occurrences fall in: from the midnight (UTC) 30 days before ``origin``."""
    first = origin.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    first -= timedelta(days=DAYS // 2)
    return first, first + timedelta(days=DAYS)


def events(origin: datetime, seed: int) -> list[str]:
    """The 2,000 calendar objects (their texts), the series first."""
    rng = random.Random(seed)
    first, _ = span(origin)
    found = [series_text(i, first, rng) for i in range(SERIES)]
    found += [single_text(i, first, rng) for i in range(SERIES, EVENTS)]
    return found


def series_text(i: int, first: datetime, rng: random.Random) -> str:
    uid = f"dense-series-{i}"
    kind = i % 3
    zone = ZONE if i % 2 == 0 else None
    # most began weeks before the 60 days, some within them
    start = first + timedelta(days=rng.randrange(-70, 20), hours=rng.randrange(7, 18))
    if start.weekday() > 4:  # weekday series start on a weekday
        start += timedelta(days=7 - start.weekday())
    others = [d for d in WEEKDAYS[:5] if d != WEEKDAYS[start.weekday()]]
    three = [WEEKDAYS[start.weekday()], *rng.sample(others, 2)]
    rule = RULES[kind].format(three=",".join(sorted(three, key=WEEKDAYS.index)))
    if rng.random() < 1 / 3:
        rule += f";COUNT={rng.randrange(5, 60)}"
    lines = [f"UID:{uid}", f"DTSTAMP:{stamp(first)}", f"SUMMARY:series {i}"]
    lines += times(start, timedelta(minutes=rng.choice((15, 30, 60))), zone)
    lines.append(f"RRULE:{rule}")
    extra = ""
    if i % 10 == 3:  # a moved occurrence and a skipped one, both a few weeks into the series
        weeks = (first - start).days // 7 + rng.randrange(1, 6)
        original = start + weeks * WEEK
        lines.append(exdate(original + WEEK, zone))
        moved = [f"UID:{uid}", f"DTSTAMP:{stamp(first)}", f"SUMMARY:series {i} (moved)"]
        moved.append(recurrence_id(original, zone))
        moved += times(original + timedelta(hours=3), timedelta(minutes=45), zone)
        extra = component("VEVENT", moved)
    return wrap(lines, zone, first.year, extra)


def single_text(i: int, first: datetime, rng: random.Random) -> str:
    lines = [f"UID:dense-event-{i}", f"DTSTAMP:{stamp(first)}", f"SUMMARY:meeting {i}"]
    start = first + timedelta(days=rng.randrange(DAYS), hours=rng.randrange(6, 20))
    roll = rng.random()
    zone = None
    if roll < 0.1:
        lines += [
            f"DTSTART;VALUE=DATE:{start:%Y%m%d}",
            f"DTEND;VALUE=DATE:{start + timedelta(days=1):%Y%m%d}",
        ]
    else:
        zone = ZONE if roll < 0.4 else None
        lines += times(start, timedelta(minutes=rng.choice((15, 30, 60, 90))), zone)
    if rng.random() < 0.2:
        lines.append(f"LOCATION:room {rng.randrange(1, 40)}")
    return wrap(lines, zone, first.year)


@functools.cache
def vtimezone(zone: str, year: int) -> str:
    """The VTIMEZONE a client writes beside times in ``zone``."""
    block = icalendar.Timezone.from_tzinfo(
        ZoneInfo(zone), first_date=date(year - 4, 1, 1), last_date=date(year + 4, 1, 1)
    )
    return block.to_ical().decode()


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def times(start: datetime, length: timedelta, zone: str | None) -> list[str]:
    if zone is None:
        return [f"DTSTART:{stamp(start)}", f"DTEND:{stamp(start + length)}"]
    local = start.astimezone(ZoneInfo(zone))
    return [
        f"DTSTART;TZID={zone}:{local:%Y%m%dT%H%M%S}",
        f"DTEND;TZID={zone}:{local + length:%Y%m%dT%H%M%S}",
    ]


def recurrence_id(original: datetime, zone: str | None) -> str:
    if zone is None:
        return f"RECURRENCE-ID:{stamp(original)}"
    return f"RECURRENCE-ID;TZID={zone}:{original.astimezone(ZoneInfo(zone)):%Y%m%dT%H%M%S}"


def exdate(original: datetime, zone: str | None) -> str:
    if zone is None:
        return f"EXDATE:{stamp(original)}"
    return f"EXDATE;TZID={zone}:{original.astimezone(ZoneInfo(zone)):%Y%m%dT%H%M%S}"


def component(name: str, lines: Sequence[str]) -> str:
    return f"BEGIN:{name}\r\n" + "\r\n".join(lines) + f"\r\nEND:{name}\r\n"


def wrap(lines: Sequence[str], zone: str | None, year: int, more: str = "") -> str:
    head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//dense//EN\r\n"
    timezones = vtimezone(zone, year) if zone else ""
    return f"{head}{timezones}{component('VEVENT', lines)}{more}END:VCALENDAR\r\n"
