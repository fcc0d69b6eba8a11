"""Reminders as VTODOs (RFC 5545), both ways, field for field.

| reminder        | VTODO                                                                    |
|-----------------|--------------------------------------------------------------------------|
| id              | UID                                                                      |
| title / notes   | SUMMARY / DESCRIPTION                                                    |
| priority        | PRIORITY (1 high, 5 medium, 9 low; absent or 0 none)                     |
| dueDate         | DUE: ``VALUE=DATE`` for a date (never turned into midnight), else UTC    |
| completionDate  | COMPLETED (UTC) with STATUS:COMPLETED; STATUS:CANCELLED counts as done   |
| creationDate    | CREATED (else DTSTAMP)                                                   |
| modificationDate| LAST-MODIFIED (else the creation date)                                   |
| tags            | CATEGORIES (every CATEGORIES property, in order, de-duplicated)          |
| parentId        | RELATED-TO with RELTYPE=PARENT (the RFC default)                         |
| recurrence      | RRULE, anchored at DTSTART (RFC 5545): without a start of its own, a     |
|                 | DTSTART at the due marked ``X-FRUITCTL-ANCHOR`` (read as no start)       |
| startDate       | DTSTART                                                                  |
| alarms          | VALARM (``backends.ical_alarms``: relative to DUE; no location alarm)    |
| url             | URL                                                                      |
| isFlagged       | X-FRUITCTL-FLAGGED:TRUE (iCalendar has no flag; an X- property survives) |

RFC 5545 wants COMPLETED in UTC and the wire wants the caller's offset back, so a time we write
carries it in an ``X-FRUITCTL-OFFSET`` parameter; a time another client wrote is shown in the host
zone. Writes change only the properties they are about: everything else in the object (alarms,
other clients' X- properties, overridden instances) is kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, cast

import icalendar

from fruitctl.backends import ical_events, ical_plain
from fruitctl.backends.ical_alarms import read_alarms, set_alarms
from fruitctl.backends.ical_events import BrokenObject
from fruitctl.backends.ical_zones import without_known_zones
from fruitctl.backends.local.mirror import MirroredReminder
from fruitctl.domain.dates import DateOrDateTime, now, wire_zone
from fruitctl.ports import NewReminder, ReminderChanges

PRODID = "-//fruitctl//caldav//EN"
OFFSET = "X-FRUITCTL-OFFSET"
FLAG = "X-FRUITCTL-FLAGGED"
ANCHOR = "X-FRUITCTL-ANCHOR"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


# -- reading -------------------------------------------------------------------------------------


def master(cal: icalendar.Calendar) -> icalendar.Todo:
    """The VTODO itself (an overridden instance of a repeating one has a RECURRENCE-ID)."""
    todos = [c for c in cal.walk("VTODO") if "RECURRENCE-ID" not in c]
    if not todos or not str(todos[0].get("UID", "")):
        raise BrokenObject("no VTODO with a UID")
    return cast(icalendar.Todo, todos[0])


def read(text: str, list_id: str) -> MirroredReminder:
    """The reminder a calendar object holds, or ``BrokenObject``. A plain to-do is read from
    its content lines (``ical_plain``): a mirror's first sync reads every one."""
    try:
        cal = ical_plain.todo_calendar(text)
        if cal is None:
            cal = ical_events.read_calendar(without_known_zones(text))
        return _read(master(cal), list_id)
    except BrokenObject:
        raise
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise BrokenObject(f"unreadable VTODO: {exc}") from exc


def _read(todo: icalendar.Todo, list_id: str) -> MirroredReminder:
    created = _moment(todo, "CREATED") or _moment(todo, "DTSTAMP") or _EPOCH.astimezone()
    return MirroredReminder(
        id=str(todo["UID"]),
        list_id=list_id,
        title=_text(todo, "SUMMARY") or "",
        notes=_text(todo, "DESCRIPTION"),
        priority=_priority(todo.get("PRIORITY")),
        is_flagged=str(todo.get(FLAG, "")).upper() == "TRUE",
        due=_due(todo),
        completion=_completion(todo),
        created=created,
        modified=_moment(todo, "LAST-MODIFIED") or created,
        url=_text(todo, "URL"),
        parent_id=_parent(todo),
        recurrence=_ical(todo["RRULE"]) if "RRULE" in todo else None,
        tags=tuple(dict.fromkeys(_categories(todo.get("CATEGORIES")))),
        start=_start(todo),
        alarms=read_alarms(todo, "END", _value(todo, "DTSTART"), _value(todo, "DUE")),
    )


def _start(todo: icalendar.Todo) -> DateOrDateTime | None:
    prop = todo.get("DTSTART")
    if prop is None or prop.params.get(ANCHOR):
        return None
    return _shown(prop.dt, prop.params)


def _value(todo: icalendar.Todo, name: str) -> Any:
    prop = todo.get(name)
    return None if prop is None else prop.dt


def _text(todo: icalendar.Todo, name: str) -> str | None:
    value = todo.get(name)
    return None if value is None or str(value) == "" else str(value)


def _priority(value: Any) -> int:
    try:
        number = int(value or 0)
    except (TypeError, ValueError):
        return 0
    return number if 0 <= number <= 9 else 0


def _shown(value: DateOrDateTime, params: Any) -> DateOrDateTime:
    """A time as it was written: in the offset we wrote down (the wire then shows it in the
    person's zone); a floating time is the person's wall clock."""
    if not isinstance(value, datetime):
        return value
    if value.tzinfo is None:
        return value.replace(tzinfo=wire_zone())
    offset = params.get(OFFSET) if params else None
    if offset:
        try:
            return value.astimezone(_zone(str(offset)))
        except ValueError:
            pass
    return value if getattr(value.tzinfo, "key", "UTC") != "UTC" else value.astimezone()


def _moment(todo: icalendar.Todo, name: str) -> datetime | None:
    prop = todo.get(name)
    if prop is None:
        return None
    value = prop.dt
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    shown = _shown(value, prop.params)
    assert isinstance(shown, datetime)
    return shown.replace(microsecond=0)


def _due(todo: icalendar.Todo) -> DateOrDateTime | None:
    prop = todo.get("DUE")
    if prop is None:
        return None
    return _shown(prop.dt, prop.params)


def _completion(todo: icalendar.Todo) -> datetime | None:
    status = str(todo.get("STATUS", "")).upper()
    done = status in ("COMPLETED", "CANCELLED") or (not status and "COMPLETED" in todo)
    if not done:
        return None
    return _moment(todo, "COMPLETED") or _moment(todo, "LAST-MODIFIED") or now()


def _parent(todo: icalendar.Todo) -> str | None:
    related = todo.get("RELATED-TO")
    for value in related if isinstance(related, list) else [related]:
        if value is not None and str(value.params.get("RELTYPE", "PARENT")).upper() == "PARENT":
            return str(value)
    return None


def _categories(prop: Any) -> Iterable[str]:
    for item in prop if isinstance(prop, list) else [prop]:
        if item is not None:
            yield from (str(cat).strip() for cat in item.cats if str(cat).strip())


def _zone(offset: str) -> timezone:
    sign = -1 if offset.startswith("-") else 1
    hours, _, minutes = offset.lstrip("+-").partition(":")
    return timezone(sign * timedelta(hours=int(hours), minutes=int(minutes or 0)))


# -- writing -------------------------------------------------------------------------------------


def new_text(uid: str, item: NewReminder, stamp: datetime) -> str:
    """A calendar object for a new reminder."""
    cal = icalendar.Calendar()
    cal.add("PRODID", PRODID)
    cal.add("VERSION", "2.0")
    todo = icalendar.Todo()
    todo.add("UID", uid)
    _set_time(todo, "CREATED", stamp)
    fields: ReminderChanges = {
        "title": item.title,
        "notes": item.notes,
        "priority": item.priority,
        "dueDate": item.due,
        "completionDate": item.completion,
        "tags": item.tags,
        "isFlagged": item.is_flagged,
        "url": item.url,
        "recurrence": item.recurrence,
        "startDate": item.start,
        "alarms": item.alarms,
    }
    _apply(todo, fields, stamp)
    if item.parent_id:
        todo.add("RELATED-TO", item.parent_id, parameters={"RELTYPE": "PARENT"})
    cal.add_component(todo)
    return _serialize(cal)


def changed_text(text: str, changes: ReminderChanges, stamp: datetime) -> str:
    """``text`` with ``changes`` made to its VTODO and its stamps moved to ``stamp``."""
    cal = ical_events.read_calendar(text)
    _apply(master(cal), changes, stamp)
    return _serialize(cal)


def _apply(todo: icalendar.Todo, changes: ReminderChanges, stamp: datetime) -> None:
    given = cast(dict[str, Any], changes)
    for key, name in (("title", "SUMMARY"), ("notes", "DESCRIPTION"), ("url", "URL")):
        if key in given:
            _replace(todo, name, given[key] or None)
    if "priority" in given:
        _replace(todo, "PRIORITY", given["priority"] or None)
    if "isFlagged" in given:
        _replace(todo, FLAG, "TRUE" if given["isFlagged"] else None)
    if "tags" in given:
        _replace(todo, "CATEGORIES", list(given["tags"]) or None)
    if "dueDate" in given:
        _set_due(todo, given["dueDate"])
    if "completionDate" in given:
        _set_completion(todo, given["completionDate"])
    _set_repeat(todo, given)
    if "alarms" in given:
        set_alarms(todo, given["alarms"], "END", "caldav")
    _set_time(todo, "LAST-MODIFIED", stamp)
    _set_time(todo, "DTSTAMP", stamp)
    if "CREATED" not in todo:
        _set_time(todo, "CREATED", stamp)


def _replace(todo: icalendar.Todo, name: str, value: Any) -> None:
    todo.pop(name, None)
    if value is not None:
        todo.add(name, value)


def _set_time(todo: icalendar.Todo, name: str, value: datetime) -> None:
    """A UTC time (as RFC 5545 wants for COMPLETED and the stamps) that remembers its offset."""
    todo.pop(name, None)
    offset = value.astimezone().strftime("%z") if value.tzinfo is None else value.strftime("%z")
    todo.add(
        name,
        value.astimezone(UTC).replace(microsecond=0),
        parameters={OFFSET: f"{offset[:3]}:{offset[3:]}"},
    )


def _set_due(todo: icalendar.Todo, due: DateOrDateTime | None) -> None:
    todo.pop("DURATION", None)  # DUE and DURATION cannot both be there
    if due is None:
        todo.pop("DUE", None)
        return
    start = todo.get("DTSTART")
    if start is not None and isinstance(start.dt, datetime) != isinstance(due, datetime):
        todo.pop("DTSTART")  # DTSTART and DUE must be of one kind (date vs date-time)
    _set_moment(todo, "DUE", due)


def _set_completion(todo: icalendar.Todo, completion: datetime | None) -> None:
    for name in ("COMPLETED", "PERCENT-COMPLETE", "STATUS"):
        todo.pop(name, None)
    if completion is None:
        todo.add("STATUS", "NEEDS-ACTION")
        return
    todo.add("STATUS", "COMPLETED")
    todo.add("PERCENT-COMPLETE", 100)
    _set_time(todo, "COMPLETED", completion)


def _set_repeat(todo: icalendar.Todo, given: dict[str, Any]) -> None:
    if "startDate" in given:
        todo.pop("DTSTART", None)
        if given["startDate"] is not None:
            _set_moment(todo, "DTSTART", given["startDate"])
    if "recurrence" in given:
        _replace(todo, "RRULE", None)
        if given["recurrence"]:
            todo.add("RRULE", icalendar.vRecur.from_ical(given["recurrence"]))
    _anchor(todo)


def _anchor(todo: icalendar.Todo) -> None:
    """A repeating VTODO counts its instances from DTSTART (RFC 5545): without a start of its
    own, it gets one at its due, marked so that it is read as no start and moves with the due."""
    start = todo.get("DTSTART")
    if start is not None and not start.params.get(ANCHOR):
        return
    todo.pop("DTSTART", None)
    due = todo.get("DUE")
    if "RRULE" in todo and due is not None:
        todo.add("DTSTART", due.dt, parameters={**due.params, ANCHOR: "TRUE"})


def _set_moment(todo: icalendar.Todo, name: str, value: DateOrDateTime) -> None:
    if isinstance(value, datetime):
        _set_time(todo, name, value)
    else:
        _replace(todo, name, value)


def _serialize(cal: icalendar.Calendar) -> str:
    return _ical(cal)


def _ical(value: Any) -> str:
    text = value.to_ical()
    return text.decode("utf-8") if isinstance(text, bytes) else str(text)
