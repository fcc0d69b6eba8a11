"""The reference the occurrence tests hold expansions to: what the recurrence library's public
API answers for a calendar object and a range."""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import icalendar
import recurring_ical_events

from fruitctl.backends.ical_events import end_of, key_of, start_of


def reference(text: str, start: datetime, end: datetime) -> list[tuple[Any, ...]]:
    """The occurrences overlapping [start, end) as the library's public API gives them."""
    cal = _calendar(text)
    zone = start.tzinfo or UTC
    found = []
    for component in recurring_ical_events.of(cal).between(
        start - timedelta(days=1), end + timedelta(days=1)
    ):
        first, last = aware(start_of(component), zone), aware(end_of(component), zone)
        if first < end and (last > start or (last == first and first >= start)):
            series = "RRULE" in cal.walk("VEVENT")[0] or len(cal.walk("VEVENT")) > 1
            key = key_of(component) if series else None
            found.append((key, first, last, str(component["SUMMARY"])))
    return sorted(found, key=repr)


def aware(value: date | datetime, zone: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=zone)
    return datetime.combine(value, time(), zone)


@functools.cache
def _calendar(text: str) -> Any:
    """The library's own parse of ``text``, once (its expansion does not change it)."""
    return icalendar.Calendar.from_ical(text)
