"""Reminders between EventKit's plain values (``values.py``) and fruitctl's domain: pure
functions, no EventKit and no I/O.

- A due date without a time of day is a date both ways (``2026-03-01``, never midnight); one
  with a time keeps the zone its components carry, and a floating one is read in the host zone.
- A due with a time notifies as Reminders.app makes it: an alarm at offset 0 from the start,
  and the start set to the due (the app shows and alerts at a reminder's earliest alarm, so a
  due moved without them would keep the old time). A date-only or cleared due has neither.
- Priorities: EventKit's 1-4 are high, 5 medium, 6-9 low, as the Reminders app shows them;
  fruitctl writes 1, 5 and 9, as the app does.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from fruitctl.backends.eventkit import timing
from fruitctl.backends.eventkit.rules import raw_rule, recurrence_text
from fruitctl.backends.eventkit.tagstore import Extras
from fruitctl.backends.eventkit.values import DateParts, RawAlarm, RawReminder
from fruitctl.backends.eventkit.zones import person_zone_for, zone_of
from fruitctl.domain.alarms import Alarm
from fruitctl.domain.dates import format_date_or_datetime, format_datetime, now
from fruitctl.domain.reminders import Reminder
from fruitctl.ports import NewReminder, ReminderChanges

NO_EXTRAS = Extras()
DUE_ALARM = RawAlarm(offset=0.0)
"""The alarm Reminders.app writes on a timed reminder: at its start, which is its due."""


def priority(value: int) -> int:
    """EventKit's 0-9 as fruitctl's 0 / 1 high / 5 medium / 9 low."""
    if 1 <= value <= 4:
        return 1
    if value == 5:
        return 5
    if 6 <= value <= 9:
        return 9
    return 0


def due_value(parts: DateParts | None) -> date | datetime | None:
    """Components as a ``date`` (no hour) or an aware ``datetime`` (their zone, else the
    host's)."""
    if parts is None:
        return None
    if not parts.has_time:
        return date(parts.year, parts.month, parts.day)
    naive = datetime(
        parts.year, parts.month, parts.day, parts.hour or 0, parts.minute or 0, parts.second or 0
    )
    zone = zone_of(parts.timezone)
    return naive.replace(tzinfo=zone) if zone is not None else naive.astimezone()


def due_parts(value: date | datetime | None) -> DateParts | None:
    """A due as components: a date has no hour; a date-time keeps its own zone - a named one,
    the person's for a bare offset that is theirs then, or a whole-hour offset as the IANA
    ``Etc/GMT`` zone that has it - else it is written in UTC (the same instant)."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        return DateParts(value.year, value.month, value.day)
    name = getattr(value.tzinfo, "key", None) or person_zone_for(value) or _fixed_zone(value)
    if name is None:
        value = value.astimezone(ZoneInfo("UTC"))
        name = "UTC"
    return DateParts(
        value.year, value.month, value.day, value.hour, value.minute, value.second, name
    )


def _fixed_zone(value: datetime) -> str | None:
    """``Etc/GMT+5`` for a -05:00 offset (the tz database's signs are inverted), if whole hours."""
    offset = value.utcoffset()
    if offset is None or offset.total_seconds() % 3600:
        return None
    hours = -int(offset.total_seconds() // 3600)
    return "Etc/GMT" if hours == 0 else f"Etc/GMT{hours:+d}"


def to_reminder(raw: RawReminder, list_name: str, extras: Extras = NO_EXTRAS) -> Reminder:
    created = raw.created or raw.modified or now()
    due = due_value(raw.due)
    start = due_value(timing.start_of(raw.start, raw.due))
    alarms = timing.alarms_of(raw.alarms, due, due_value(raw.start))
    return Reminder.model_validate(
        {
            "id": raw.id,
            "title": raw.title,
            "notes": raw.notes or None,
            "listId": raw.calendar_id,
            "listName": list_name,
            "isCompleted": raw.completed,
            "priority": priority(raw.priority),
            "dueDate": None if due is None else format_date_or_datetime(due),
            "completionDate": _stamp(raw.completion) if raw.completed else None,
            "creationDate": _stamp(created),
            "modificationDate": _stamp(raw.modified or created),
            "isFlagged": extras.flagged,
            "url": raw.url,
            "parentId": extras.parent_id,
            "recurrence": recurrence_text(raw.rules),
            "tags": extras.tags,
            "startDate": None if start is None else format_date_or_datetime(start),
            "alarms": [alarm.to_wire() for alarm in alarms],
        }
    )


def new_fields(item: NewReminder) -> dict[str, Any]:
    """The fields of a ``ReminderWrite`` creating ``item`` (tags, flag and parent are not
    EventKit's: the backend refuses them before this)."""
    fields: dict[str, Any] = {
        "calendar_id": item.list_id,
        "title": item.title,
        "notes": item.notes,
        "priority": item.priority,
    }
    if item.due is not None:
        fields.update(due_fields(item.due, RawReminder("", "", "")))
    if item.completion is not None:
        fields["completion"] = item.completion
    if item.url is not None:
        fields["url"] = item.url
    if item.recurrence is not None:
        fields["rules"] = (raw_rule(item.recurrence),)
    if item.start is not None or item.alarms:
        alarms = item.alarms or _due_alarm(item.due)
        fields.update(timing.timing_fields(item.due, item.start, alarms, due_parts))
    return fields


def _due_alarm(due: date | datetime | None) -> tuple[Alarm, ...]:
    """Reminders.app's alert at a timed due, kept when a start is given without alarms."""
    return (Alarm(minutesBefore=0),) if isinstance(due, datetime) else ()


WIRE_FIELDS: Mapping[str, str] = {
    "title": "title",
    "notes": "notes",
    "priority": "priority",
    "url": "url",
    "listId": "calendar_id",
    "completionDate": "completion",
}


def change_fields(changes: ReminderChanges, current: RawReminder) -> dict[str, Any]:
    """The fields of a ``ReminderWrite`` making ``changes`` to ``current`` (a key with ``None``
    clears)."""
    given: Mapping[str, Any] = changes
    fields = {field: given[key] for key, field in WIRE_FIELDS.items() if key in given}
    if "dueDate" in changes:
        fields.update(due_fields(changes["dueDate"], current))
    if "recurrence" in changes:
        rule = changes["recurrence"]
        fields["rules"] = () if rule is None else (raw_rule(rule),)
    if "startDate" in changes or "alarms" in changes:
        fields.update(_timing_changes(changes, current))
    return fields


def _timing_changes(changes: ReminderChanges, current: RawReminder) -> dict[str, Any]:
    """A new start or new alarms; the one not given is kept as it reads now."""
    due = changes["dueDate"] if "dueDate" in changes else due_value(current.due)
    start = due_value(timing.start_of(current.start, current.due))
    start = changes.get("startDate", start)
    alarms = changes.get("alarms")
    if alarms is None:
        alarms = timing.alarms_of(current.alarms, due_value(current.due), due_value(current.start))
    return timing.timing_fields(due, start, alarms, due_parts)


def due_fields(due: date | datetime | None, current: RawReminder) -> dict[str, Any]:
    """A new due, its start and its alarms: the due alarm of the old due goes (offset 0, or
    one at the old due's instant, as other apps write it), the person's other alarms stay,
    and a timed due gets Reminders.app's offset-0 alarm with the start at the due."""
    parts = due_parts(due)
    timed = parts is not None and parts.has_time
    old_due = due_value(current.due)
    kept = tuple(a for a in current.alarms if not _is_due_alarm(a, old_due))
    return {
        "due": parts,
        "start": parts if timed else None,
        "alarms": (*kept, DUE_ALARM) if timed else kept,
    }


def _is_due_alarm(alarm: RawAlarm, due: date | datetime | None) -> bool:
    if alarm.absolute is None:
        return alarm.offset == 0
    return isinstance(due, datetime) and alarm.absolute == due


def _stamp(value: datetime | None) -> str | None:
    return None if value is None else format_datetime(value.astimezone())
