"""Free time and clashes on any ``CalendarBackend``: which events of a range take their time,
and what is left of the range (the arithmetic is ``fruitctl.domain.free_time``).

An event takes its time when it is busy (not marked free: iCalendar TRANSP, EventKit
availability) and, unless asked, not all-day - a calendar's all-day events are mostly
birthdays, holidays and reminders of someone else's trip. An all-day event that does count
takes its days from midnight to midnight in the person's zone.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from typing import Any

from fruitctl.capabilities.calendar import inputs
from fruitctl.capabilities.calendar.drafts import bound, check_range
from fruitctl.domain.calendar import Event
from fruitctl.domain.dates import format_datetime, now, wire_zone
from fruitctl.domain.free_time import (
    WEEKDAYS,
    Interval,
    WorkingHours,
    free_slots,
    overlaps,
    windows,
)
from fruitctl.ports import CalendarBackend, EventRange

WEEK = timedelta(days=7)


def taking_time(
    backend: CalendarBackend,
    span: Interval,
    calendar_ids: tuple[str, ...] | None,
    include_all_day: bool,
) -> list[Event]:
    """The events that take some of ``span``, soonest first."""
    found = backend.events(EventRange(span[0], span[1], calendar_ids))
    return [
        event
        for event in found
        if event.availability == "busy"
        and (include_all_day or not event.allDay)
        and overlaps(interval(event), span)
    ]


def interval(event: Event) -> Interval:
    """When an event takes place, as instants (an all-day one: its days in the person's zone)."""
    return instants(event.start, event.end)


def instants(start: date | datetime, end: date | datetime) -> Interval:
    return _instant(start), _instant(end)


def moved(event: Event, changes: Mapping[str, Any]) -> tuple[date | datetime, date | datetime]:
    """Where ``changes`` put ``event``: a new start keeps its length unless an end is given."""
    start = changes.get("startAt", event.start)
    end = changes.get("endAt")
    if end is None:
        length = _instant(event.end) - _instant(event.start)
        end = start + length if "startAt" in changes else event.end
    return start, end


def free_time(
    backend: CalendarBackend, request: inputs.FindFreeTime, calendar_ids: tuple[str, ...] | None
) -> dict[str, Any]:
    start = bound(request.start, "from") if request.start is not None else now()
    end = bound(request.to, "to", end_of_day=True) if request.to is not None else start + WEEK
    check_range(start, end, inputs.MAX_FREE_DAYS, ("from", "to"))
    hours = None if request.hours is None else WorkingHours.parse(request.hours)
    days = None if request.weekdays is None else frozenset(map(WEEKDAYS.index, request.weekdays))
    taken = taking_time(backend, (start, end), calendar_ids, request.includeAllDay)
    allowed = windows(start, end, wire_zone(), hours, days)
    slots = free_slots(allowed, map(interval, taken), timedelta(minutes=request.minutes))
    shown = slots[: request.limit]
    return {
        "window": _window(start, end),
        "slots": [
            {"start": format_datetime(s.start), "end": format_datetime(s.end), "minutes": s.minutes}
            for s in shown
        ],
        "count": len(shown),
        "more": len(slots) > len(shown),
    }


def conflicts(
    backend: CalendarBackend,
    request: inputs.CheckConflicts,
    calendar_ids: tuple[str, ...] | None,
) -> dict[str, Any]:
    start = bound(request.start, "start")
    end = bound(request.end, "end", end_of_day=True)
    check_range(start, end, inputs.MAX_FREE_DAYS, ("start", "end"))
    found = taking_time(backend, (start, end), calendar_ids, request.includeAllDay)
    return {
        "window": _window(start, end),
        "conflicts": [event.to_wire() for event in found],
        "count": len(found),
    }


def _window(start: datetime, end: datetime) -> dict[str, str]:
    return {"from": format_datetime(start), "to": format_datetime(end), "timezone": wire_zone().key}


def _instant(value: date | datetime) -> datetime:
    return value if isinstance(value, datetime) else datetime.combine(value, time(), wire_zone())
