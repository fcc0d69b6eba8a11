"""Checking what a caller asks to write into an event, field by field, before any backend is
asked anything - so a proposal with a bad field is refused when filed, not when approved."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from fruitctl.capabilities.calendar import inputs
from fruitctl.domain.calendar import LOCATION_MAX, check_rrule
from fruitctl.domain.dates import parse_date_or_datetime, wire_zone, zone
from fruitctl.domain.errors import InvalidParams
from fruitctl.domain.reminders import NOTES_MAX, check_text, check_title
from fruitctl.tools.alarms import domain_alarms

URL_MAX = 2_048
Moment = date | datetime


def moment(text: str, field: str, wall: ZoneInfo | None = None) -> Moment:
    """A date or aware date-time from wire text, the error naming ``field``; an offset-less
    time is a wall time in ``wall`` (the zone named beside it), else in the person's zone."""
    try:
        return parse_date_or_datetime(text, wall)
    except InvalidParams as exc:
        raise InvalidParams(f"'{field}': {exc.message}", field=field) from exc


def bound(text: str, field: str, *, end_of_day: bool = False) -> datetime:
    """A range bound: a date is its midnight in the person's zone, or with ``end_of_day`` the
    next one (so ``to: 2026-03-07`` takes the whole 7th in)."""
    value = moment(text, field)
    if isinstance(value, datetime):
        return value
    return datetime.combine(value + timedelta(days=int(end_of_day)), time(), wire_zone())


def draft_of(request: inputs.CreateEvent) -> dict[str, Any]:
    """The fields of a ``NewEvent`` (all but the calendar), every one checked."""
    wall = _wall(request.timezone)
    start = moment(request.startAt, "startAt", wall)
    end = moment(request.endAt, "endAt", wall) if request.endAt is not None else None
    if request.allDay:
        start, end = _day(start), None if end is None else _day(end)
    if end is None:
        end = start + (timedelta(hours=1) if isinstance(start, datetime) else timedelta(days=1))
    check_order(start, end)
    return {
        "title": check_title(request.title),
        "start": start,
        "end": end,
        "timezone": _zone_for(start, request.timezone),
        "location": _text("location", request.location, LOCATION_MAX),
        "notes": _text("notes", request.notes, NOTES_MAX, multiline=True),
        "url": _text("url", request.url, URL_MAX),
        "recurrence": None if request.recurrence is None else check_rrule(request.recurrence),
        "alarms": domain_alarms(request.alarms or []),
    }


def check_range(start: datetime, end: datetime, most_days: int, names: tuple[str, str]) -> None:
    """A range asked for (``names``: its fields, e.g. ``("from", "to")``) runs forward, at
    most ``most_days`` long."""
    first, last = names
    if end <= start:
        raise InvalidParams(f"'{last}' must be after '{first}'.", field=last)
    if end - start > timedelta(days=most_days):
        raise InvalidParams(
            f"The range from '{first}' to '{last}' is longer than {most_days} days; "
            "ask for a shorter one.",
            field=last,
        )


def changes_of(request: inputs.UpdateEvent) -> dict[str, Any]:
    """``EventChanges`` from the fields given (``null`` clears where that means something)."""
    changes: dict[str, Any] = {}
    wall = _wall(request.timezone)
    for name in sorted(request.model_fields_set - {"id", "occurrence", "scope", "calendar"}):
        value = getattr(request, name)
        if value is None and name not in _CLEARABLE:
            raise InvalidParams.null(name)
        if value is None:
            changes[name] = () if name == "alarms" else None
        elif name in _MOMENTS:
            changes[name] = moment(value, name, wall)
        else:
            changes[name] = _CHECKS[name](value)
    if "startAt" in changes and "endAt" in changes:
        check_order(changes["startAt"], changes["endAt"])
    return changes


def check_order(start: Moment, end: Moment) -> None:
    if isinstance(start, datetime) != isinstance(end, datetime):
        raise InvalidParams.mixed_all_day()
    if end < start or (end == start and not isinstance(start, datetime)):
        raise InvalidParams.end_before_start()


def preview(notes: str | None, chars: int) -> str | None:
    """Notes on one line, cut to ``chars`` with an ellipsis (the open reminders' view)."""
    if not notes or chars <= 0:
        return None
    flat = " ".join(notes.split())
    return flat if len(flat) <= chars else flat[: chars - 1].rstrip() + "…"


def _wall(timezone: str | None) -> ZoneInfo | None:
    """The zone an offset-less start or end is read in: the one the event is to keep (a person
    writing ``--start 17:00 --timezone Europe/Rome`` means 17:00 in Rome, wherever this runs)."""
    return None if timezone is None else zone(timezone)


def _day(value: Moment) -> date:
    return value.date() if isinstance(value, datetime) else value


def _zone_for(start: Moment, wanted: str | None) -> str | None:
    """The zone a new event keeps: the one asked for; else the person's when ``start`` is in it
    (a person typing 09:00 means 09:00 here, every week); else none - the backend then keeps
    the instant (in UTC), since a bare offset names no zone that repeats."""
    if wanted is not None:
        return zone(wanted).key
    if not isinstance(start, datetime):
        return None
    mine = wire_zone()
    return mine.key if start.utcoffset() == start.astimezone(mine).utcoffset() else None


def _text(field: str, value: str | None, limit: int, *, multiline: bool = False) -> str | None:
    if value is None:
        return None
    return check_text(field, value, limit=limit, multiline=multiline).strip() or None


_CHECKS: dict[str, Any] = {
    "title": check_title,
    "timezone": lambda v: zone(v).key,
    "location": lambda v: _text("location", v, LOCATION_MAX),
    "notes": lambda v: _text("notes", v, NOTES_MAX, multiline=True),
    "url": lambda v: _text("url", v, URL_MAX),
    "recurrence": check_rrule,
    "alarms": domain_alarms,
}
_MOMENTS = frozenset({"startAt", "endAt"})
_CLEARABLE = frozenset({"location", "notes", "url", "recurrence", "alarms"})
