"""Events between EventKit's plain values (``values.py``) and fruitctl's domain: pure functions.

- A timed event reads in its own zone (``timeZone``; a name that is not an IANA key is read as
  ``zones.py`` says), a floating one in the host zone. One written here is never floating
  (EventKit would move it with the Mac's zone): it keeps the zone asked for, its start's own,
  the person's for a bare offset that is theirs at that instant, else UTC.
- An all-day event is dates with an exclusive end, as everywhere in fruitctl. EventKit keeps it
  floating, from local midnight of its first day to the last second of its last day; the end is
  read as "the day after the last second" so either way EventKit answers, the date is right.
- An occurrence of a series gets fruitctl's occurrence id, ``<series id>@<original start>``,
  from ``occurrenceDate`` (EventKit gives every occurrence the series' identifier).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from typing import Any

from fruitctl.backends.eventkit.rules import raw_rule, recurrence_text
from fruitctl.backends.eventkit.timing import alarms_of, raw_alarms
from fruitctl.backends.eventkit.values import RawCalendar, RawEvent
from fruitctl.backends.eventkit.zones import iana_name, person_zone_for, zone_of
from fruitctl.domain.calendar import Calendar, Event, occurrence_id, occurrence_key
from fruitctl.domain.dates import format_datetime, format_keeping_offset
from fruitctl.domain.errors import InvalidParams
from fruitctl.ports import EventChanges, NewEvent

ONE_SECOND = timedelta(seconds=1)


def to_calendar(raw: RawCalendar, default: str | None) -> Calendar:
    return Calendar(
        id=raw.id,
        name=raw.title,
        isDefault=raw.id == default,
        readOnly=not raw.writable,
        color=raw.color,
        account=raw.source,
    )


def is_series(raw: RawEvent) -> bool:
    return bool(raw.rules) or raw.occurrence is not None


def original_start(raw: RawEvent) -> date | datetime | None:
    """The occurrence's original start as fruitctl keys it (a date for an all-day series)."""
    if raw.occurrence is None:
        return None
    return _local(raw.occurrence).date() if raw.all_day else raw.occurrence


def to_event(raw: RawEvent, calendar_name: str, *, as_series: bool = False) -> Event:
    """One event, or one occurrence of a series; ``as_series``: the series itself (what
    ``get_event`` of a series id answers)."""
    start, end = span(raw)
    series = is_series(raw)
    key = None
    if series and not as_series and raw.occurrence is not None:
        original = original_start(raw)
        assert original is not None
        key = occurrence_key(original)
    return Event(
        id=raw.id if key is None else occurrence_id(raw.id, key),
        calendarId=raw.calendar_id,
        calendarName=calendar_name,
        title=raw.title,
        startAt=format_keeping_offset(start),
        endAt=format_keeping_offset(end),
        allDay=raw.all_day,
        availability="free" if raw.free else "busy",
        location=raw.location or None,
        notes=raw.notes or None,
        url=raw.url,
        recurrence=recurrence_text(raw.rules, all_day=raw.all_day),
        timezone=None if raw.all_day else iana_name(raw.timezone),
        seriesId=raw.id if key is not None else None,
        occurrence=key,
        creationDate=None if raw.created is None else format_datetime(_local(raw.created)),
        modificationDate=None if raw.modified is None else format_datetime(_local(raw.modified)),
        alarms=alarms_of(raw.alarms, None, None),  # an event's offsets count from its start
    )


def span(raw: RawEvent) -> tuple[date | datetime, date | datetime]:
    """``(start, end)`` as fruitctl shows them: dates (end exclusive) for an all-day event."""
    if raw.all_day:
        first = _local(raw.start).date()
        # Whole days, rounded: a day across a clock change lasts 23 or 25 hours.
        days = round((raw.end + ONE_SECOND - raw.start).total_seconds() / 86_400)
        return first, first + timedelta(days=max(1, days))
    zone = zone_of(raw.timezone)
    if zone is None:
        return _local(raw.start), _local(raw.end)
    return raw.start.astimezone(zone), raw.end.astimezone(zone)


def moment_fields(start: date | datetime, end: date | datetime) -> dict[str, Any]:
    """The ``start``/``end``/``all_day`` fields of an ``EventWrite`` for fruitctl's moments."""
    if not isinstance(start, datetime):
        last_day = (end if not isinstance(end, datetime) else end.date()) - timedelta(days=1)
        return {
            "start": _midnight(start),
            "end": _midnight(max(last_day, start) + timedelta(days=1)) - ONE_SECOND,
            "all_day": True,
        }
    assert isinstance(end, datetime)
    return {"start": start, "end": end, "all_day": False}


def zone_name(moment: datetime) -> str:
    """The zone a timed event written at ``moment`` keeps: its own named zone, the person's
    when a bare offset is theirs then, else UTC (another bare offset names no zone; UTC keeps
    the instant)."""
    key = getattr(moment.tzinfo, "key", None)
    if isinstance(key, str):
        return key
    return person_zone_for(moment) or "UTC"


def new_fields(new: NewEvent) -> dict[str, Any]:
    fields: dict[str, Any] = {"calendar_id": new.calendar_id, "title": new.title}
    if isinstance(new.start, datetime):
        # Before the dates: whatever EventKit does to them on a zone change, ours are last.
        fields["timezone"] = new.timezone or zone_name(new.start)
    fields.update(moment_fields(new.start, new.end))
    for name in ("location", "notes", "url"):
        value = getattr(new, name)
        if value is not None:
            fields[name] = value
    if new.recurrence is not None:
        fields["rules"] = (raw_rule(new.recurrence),)
    if new.alarms:
        fields["alarms"] = raw_alarms(new.alarms, None, None)
    return fields


SIMPLE: Mapping[str, str] = {
    "title": "title",
    "location": "location",
    "notes": "notes",
    "url": "url",
    "timezone": "timezone",
    "calendarId": "calendar_id",
}


def change_fields(changes: EventChanges, current: RawEvent) -> dict[str, Any]:
    """The fields of an ``EventWrite`` making ``changes`` to ``current`` (a start or end alone
    keeps the other where it was; a date start makes the event all-day)."""
    given: Mapping[str, Any] = changes
    fields = {field: given[key] for key, field in SIMPLE.items() if key in given}
    if "startAt" in changes or "endAt" in changes:
        start, end = span(current)
        new_start = changes.get("startAt", start)
        # A new start alone keeps the event's length.
        new_end = changes["endAt"] if "endAt" in changes else _same_length(new_start, start, end)
        if isinstance(new_start, datetime) != isinstance(new_end, datetime):
            new_end = _same_length(new_start, start, end)
        if _instant(new_end) <= _instant(new_start) and not (
            isinstance(new_start, datetime) and new_end == new_start
        ):
            raise InvalidParams.end_before_start()
        if current.all_day and isinstance(new_start, datetime) and "timezone" not in changes:
            fields["timezone"] = zone_name(new_start)  # all-day events are floating
        fields.update(moment_fields(new_start, new_end))
    if "recurrence" in changes:
        text = changes["recurrence"]
        fields["rules"] = () if text is None else (raw_rule(text),)
    if "alarms" in changes:
        fields["alarms"] = raw_alarms(changes["alarms"], None, None)
    return fields


def _same_length(
    new_start: date | datetime, start: date | datetime, end: date | datetime
) -> date | datetime:
    """An end for ``new_start`` keeping the event's length (an hour, or a day, when the kind of
    start changed)."""
    if isinstance(new_start, datetime):
        if isinstance(start, datetime) and isinstance(end, datetime):
            return new_start + (end - start)
        return new_start + timedelta(hours=1)
    days = max(1, (_as_date(end) - _as_date(start)).days)
    return new_start + timedelta(days=days)


def _instant(value: date | datetime) -> float:
    return _midnight(value).timestamp() if not isinstance(value, datetime) else value.timestamp()


def _as_date(value: date | datetime) -> date:
    return value.date() if isinstance(value, datetime) else value


def _local(moment: datetime) -> datetime:
    return moment.astimezone()


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time()).astimezone()
