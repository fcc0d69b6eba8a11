"""Words a person reads when deciding what an agent asked: counts that agree with their noun and
dates with their weekday, the same at every door (CLI, approval page, notifications).

A person approving "Fri 2026-03-06 17:00" sees at once a date that is not the Friday they had
in mind; ``2026-03-06T17:00:00+01:00`` hides that behind an offset to do sums with.
"""

from __future__ import annotations

from datetime import date, datetime

from fruitctl.domain.dates import parse_date_or_datetime, wire_zone
from fruitctl.domain.errors import InvalidParams

# Fixed English names: ``%a`` follows the process locale, and every door must say the same.
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 reminder``, ``2 reminders``; ``plural`` where adding an s is wrong."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def spoken_when(value: str) -> str:
    """``Fri 2026-03-06 17:00`` for a date-time (in the person's zone, as every answer is),
    ``Fri 2026-03-06`` for a date alone; text that is no date comes back as it is."""
    try:
        parsed = parse_date_or_datetime(value)
    except InvalidParams:
        return value
    return spoken_moment(parsed)


def spoken_moment(value: date | datetime) -> str:
    if isinstance(value, datetime):
        placed = value.astimezone(wire_zone())
        return f"{WEEKDAYS[placed.weekday()]} {placed:%Y-%m-%d %H:%M}"
    return f"{WEEKDAYS[value.weekday()]} {value:%Y-%m-%d}"
