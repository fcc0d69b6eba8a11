"""Alarms as VALARMs (RFC 5545 3.6.6), both ways, for a VTODO (relative to its DUE) and a
VEVENT (relative to its DTSTART).

| alarm                | VALARM                                                       |
|----------------------|--------------------------------------------------------------|
| ``at``               | ``TRIGGER;VALUE=DATE-TIME`` in UTC                            |
| ``minutesBefore: m`` | ``TRIGGER;RELATED=END:-PTmM`` on a VTODO (before its due),    |
|                      | ``TRIGGER:-PTmM`` on a VEVENT (before its start)              |
| ``location``         | none in RFC 5545: refused (``Unsupported``), never dropped    |

Each is ``ACTION:DISPLAY`` with the item's title as its ``DESCRIPTION`` (which DISPLAY requires).
Reading takes any trigger another client wrote: one relative to the other end of the item is
turned into minutes before the due (the start) when both ends are known, else left out of the
answer (it is kept in the object: only a write of ``alarms`` replaces the VALARMs).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal

import icalendar

from fruitctl.domain.alarms import Alarm, not_here
from fruitctl.domain.dates import format_datetime

Anchor = Literal["START", "END"]
"""What ``minutesBefore`` counts from: a VTODO's due is its END, a VEVENT's start its START."""


def read_alarms(
    item: icalendar.Component, anchor: Anchor, start: Any, end: Any
) -> tuple[Alarm, ...]:
    """The VALARMs of ``item`` that say a time, as alarms (see the module's docstring)."""
    found = []
    for valarm in item.walk("VALARM"):
        alarm = _alarm(valarm.get("TRIGGER"), anchor, start, end)
        if alarm is not None:
            found.append(alarm)
    return tuple(found)


def _alarm(trigger: Any, anchor: Anchor, start: Any, end: Any) -> Alarm | None:
    if trigger is None:
        return None
    value = trigger.dt
    if isinstance(value, datetime):
        return Alarm(at=format_datetime(value if value.tzinfo else value.replace(tzinfo=UTC)))
    if not isinstance(value, timedelta):
        return None
    related = str(trigger.params.get("RELATED", "START")).upper()
    if related != anchor:  # counted from the other end: move it over, when both are known
        other, mine = (start, end) if anchor == "END" else (end, start)
        if other is None or mine is None:
            return None
        value += _as_datetime(other) - _as_datetime(mine)
    return Alarm(minutesBefore=-round(value.total_seconds() / 60))


def _as_datetime(value: date | datetime) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.astimezone()
    return datetime(value.year, value.month, value.day).astimezone()


def set_alarms(
    item: icalendar.Component, alarms: Sequence[Alarm], anchor: Anchor, store: str
) -> None:
    """Replace every VALARM of ``item`` with ``alarms`` (a location one is refused first)."""
    not_here(alarms, store)
    item.subcomponents = [c for c in item.subcomponents if c.name != "VALARM"]
    for alarm in alarms:
        item.add_component(_valarm(alarm, str(item.get("SUMMARY", "") or "Reminder"), anchor))


def _valarm(alarm: Alarm, title: str, anchor: Anchor) -> icalendar.Alarm:
    valarm = icalendar.Alarm()
    valarm.add("ACTION", "DISPLAY")
    valarm.add("DESCRIPTION", title)
    if alarm.at is not None:
        moment = datetime.fromisoformat(alarm.at).astimezone(UTC)
        valarm.add("TRIGGER", moment, parameters={"VALUE": "DATE-TIME"})
    else:
        offset = timedelta(minutes=-(alarm.minutesBefore or 0))
        valarm.add("TRIGGER", offset, parameters={"RELATED": anchor} if anchor == "END" else {})
    return valarm
