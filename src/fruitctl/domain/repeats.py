"""Completing a repeating reminder, as Reminders.app does it: the reminder moves on to the
rule's next instance after its due (its start and its alarms at a moment move by the same step,
in wall-clock time, so 09:00 stays 09:00 across a DST change), and the instance just done is
kept apart as a completed reminder. A rule with ``COUNT`` has one instance fewer left; the last
instance of a rule (its COUNT or UNTIL reached) is simply completed.

This is what CalDAV clients do with a repeating VTODO too (RFC 5545 gives no rule for it; Apple
and tasks.org move ``DUE``/``DTSTART`` to the next instance and keep the done one separately).
The rule is the reminder's own, checked when it was written (``domain.calendar.check_rrule``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from dateutil.rrule import rrule, rrulestr  # type: ignore[import-untyped]  # icalendar's

from fruitctl.domain.dates import wire_zone
from fruitctl.domain.recurrence import parts_of

Moment = date | datetime


@dataclass(frozen=True)
class Next:
    """Where a repeating reminder goes when its instance is done."""

    due: Moment
    rule: str
    step: timedelta
    """How far its wall-clock times move (its start, an alarm at a moment)."""


def next_instance(rule: str, due: Moment) -> Next | None:
    """The instance after ``due`` and the rule left for it; None when ``due`` was the last."""
    start = _wall(due)
    parts = parts_of(rule)
    count = parts.pop("COUNT", None)
    until = parts.pop("UNTIL", None)
    text = ";".join(f"{key}={value}" for key, value in parts.items())
    series: rrule = rrulestr(text, dtstart=start.replace(tzinfo=None))
    if until is not None:
        series = series.replace(until=_until(until))
    if count is not None:
        series = series.replace(count=int(count))
    following = series.after(start.replace(tzinfo=None))
    if following is None:
        return None
    step = following - start.replace(tzinfo=None)
    left = text if count is None else f"{text};COUNT={int(count) - 1}"
    if until is not None:
        left = f"{left};UNTIL={until}"
    return Next(_back(following, due), left, step)


def moved(value: Moment, step: timedelta) -> Moment:
    """``value`` moved by ``step`` of wall-clock time, in the person's zone for a date-time."""
    if not isinstance(value, datetime):
        return value + timedelta(days=step.days)
    wall = value.astimezone(wire_zone())
    return (wall.replace(tzinfo=None) + step).replace(tzinfo=wire_zone())


def _wall(due: Moment) -> datetime:
    if isinstance(due, datetime):
        return due.astimezone(wire_zone())
    return datetime.combine(due, time())


def _back(found: datetime, due: Moment) -> Moment:
    """The instance as the due was: a date stays a date; a time in the person's zone."""
    if not isinstance(due, datetime):
        return found.date()
    return found.replace(tzinfo=wire_zone())


def _until(text: str) -> datetime:
    """UNTIL as a wall time of the series: a date counts whole; a UTC time is placed in the
    person's zone (the series' times are wall times there)."""
    if len(text) == 8:
        return datetime.combine(date(int(text[:4]), int(text[4:6]), int(text[6:])), time.max)
    moment = datetime.strptime(text.rstrip("Z"), "%Y%m%dT%H%M%S")
    if text.endswith("Z"):
        return moment.replace(tzinfo=UTC).astimezone(wire_zone()).replace(tzinfo=None)
    return moment
