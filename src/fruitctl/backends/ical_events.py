"""Events as iCalendar text, for every backend that keeps VEVENTs (the local store, CalDAV).

One *calendar object* is the text of a VCALENDAR holding one event: a single VEVENT, or a series -
a master VEVENT with RRULE/RDATE/EXDATE plus overriding VEVENTs (same UID, a RECURRENCE-ID naming
the occurrence they replace) - and the VTIMEZONEs its times use. That text is the source of
truth; this module reads it (``series_event``, ``occurrence_event``),
``fruitctl.backends.ical_occurrences`` says when it happens (``expand``, ``bounds``) and
``fruitctl.backends.ical_edit`` writes it. Nothing here knows where the text is stored.

Times keep their own zone: DTSTART;TZID=Europe/Rome:...T090000 reads 09:00+01:00 in winter and
09:00+02:00 in summer whatever the host zone. All-day events are dates, DTEND exclusive. A floating
time (no zone) is read in the zone of the range asked for, as RFC 5545 says.

Errors: text that is not an event is ``BrokenObject`` (a mirror skips it with a warning);
anything a caller got wrong is a ``fruitctl.domain.errors`` error.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

import icalendar
import recurring_ical_events

from fruitctl.backends import ical_bounds, ical_plain
from fruitctl.backends.ical_alarms import read_alarms
from fruitctl.backends.ical_zones import without_known_zones
from fruitctl.domain.calendar import (
    Availability,
    Calendar,
    Event,
    occurrence_id,
    occurrence_key,
    parse_occurrence_key,
)
from fruitctl.domain.errors import InvalidParams, NotFound, Unsupported

log = logging.getLogger(__name__)

Moment = date | datetime


class BrokenObject(ValueError):
    """Text that cannot be read as the calendar object expected (an event, a to-do)."""


# -- parsing ---------------------------------------------------------------------------------


def read_calendar(text: str) -> icalendar.Calendar:
    """A fresh, mutable parse of a calendar object's text (events or to-dos); ``BrokenObject``
    if it is not a VCALENDAR."""
    try:
        cal = icalendar.Calendar.from_ical(text)
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise BrokenObject(f"not iCalendar: {exc}") from exc
    if not isinstance(cal, icalendar.Calendar):
        raise BrokenObject("not a VCALENDAR")
    return cal


def parse(text: str) -> icalendar.Calendar:
    """A fresh, mutable parse of ``text`` (``BrokenObject`` if it holds no readable event)."""
    return _checked(read_calendar(text))


def _checked(cal: icalendar.Calendar) -> icalendar.Calendar:
    """``cal``, if it holds an event: one UID, and a start for each VEVENT."""
    events = cal.walk("VEVENT")
    if not events:
        raise BrokenObject("no VEVENT in the calendar object")
    uids = {str(e.get("UID", "")) for e in events}
    if len(uids) != 1 or "" in uids:
        raise BrokenObject("a calendar object holds exactly one UID")
    for event in events:
        start_of(event)
    return cal


@lru_cache(maxsize=4096)
def parsed(text: str) -> icalendar.Calendar:
    # Reads parse the same stored texts again and again (every upcoming query): keep them.
    # Only read paths use this; writers take a fresh `parse`, since a Calendar is mutable.
    # An object of VEVENTs alone is read from its content lines (``ical_plain``).
    return _checked(ical_plain.events_calendar(text) or read_calendar(without_known_zones(text)))


def moment(component: icalendar.Component, name: str) -> Moment:
    """The date or date-time of a DTSTART/DTEND/RECURRENCE-ID property."""
    try:
        value: Any = getattr(component.get(name), "dt", None)
    except ValueError as exc:  # the library kept a value it could not read as a broken one
        raise BrokenObject(f"{name} is not a date or date-time") from exc
    if not isinstance(value, date):
        raise BrokenObject(f"{name} is not a date or date-time")
    return value


def start_of(component: icalendar.Component) -> Moment:
    return moment(component, "DTSTART")


def key_of(component: icalendar.Component) -> str:
    """The occurrence key of an override (or of an expanded occurrence)."""
    return occurrence_key(moment(component, "RECURRENCE-ID"))


def uid_of(text: str) -> str:
    return str(parsed(text).walk("VEVENT")[0]["UID"])


def master(cal: icalendar.Calendar) -> icalendar.Component:
    """The VEVENT without RECURRENCE-ID (a lone override stands for itself)."""
    events = cal.walk("VEVENT")
    return next((e for e in events if "RECURRENCE-ID" not in e), events[0])


def overrides(cal: icalendar.Calendar) -> list[icalendar.Component]:
    return [e for e in cal.walk("VEVENT") if "RECURRENCE-ID" in e]


def is_series(cal: icalendar.Calendar) -> bool:
    main = master(cal)
    return "RRULE" in main or "RDATE" in main or bool(overrides(cal))


def rule_text(component: icalendar.Component) -> str | None:
    rule = component.get("RRULE")
    if isinstance(rule, list):
        rule = rule[0] if rule else None
    return None if rule is None else rule.to_ical().decode()


# -- reading ---------------------------------------------------------------------------------


def series_event(text: str, calendar: Calendar) -> Event:
    """The event as a whole: a single event, or a series as its master (first start, RRULE)."""
    cal = parsed(text)
    main = master(cal)
    return to_event(main, calendar, rule=rule_text(main))


def occurrence_event(text: str, calendar: Calendar, key: str) -> Event:
    """One occurrence of a series by its key, as it is now (moved, retitled ...); ``NotFound``
    if the series has no such occurrence (never had, or it was deleted)."""
    cal = parsed(text)
    for override in overrides(cal):
        if key_of(override) == key:
            return _occurrence(cal, override, calendar)
    if not generates(cal, key):
        raise NotFound.occurrence(key, uid_of(text))
    main = master(cal)
    original = original_start(main, key)
    length = duration_of(main)
    return to_event(
        main,
        calendar,
        rule=rule_text(main),
        key=key,
        times=(original, original + length),
    )


def generates(cal: icalendar.Calendar, key: str) -> bool:
    """Does the series' rule (less its EXDATEs) produce the occurrence named ``key``?"""
    main = master(cal)
    if "RRULE" not in main and "RDATE" not in main:
        return False
    try:
        original = original_start(main, key)
    except NotFound:
        return False
    _check_walk(main, key, original)
    alone = icalendar.Calendar()
    alone.add_component(main)  # overrides left out: a moved occurrence still counts
    if isinstance(original, datetime):
        found = recurring_ical_events.of(alone).between(original, original + timedelta(seconds=1))
    else:
        found = recurring_ical_events.of(alone).at(original)
    return any(key_of(c) == key for c in found)


def _check_walk(main: icalendar.Component, key: str, original: Moment) -> None:
    """The library walks the rule from its first start to ``original``: refuse a rule that
    repeats too often (``Unsupported``) or an occurrence too far out (``InvalidParams``)
    before walking (``ical_bounds``)."""
    unbounded = ical_bounds.why_unbounded(main)
    if unbounded:
        raise Unsupported(f"Event '{main['UID']}' is not expanded: {unbounded}.")
    too_far = ical_bounds.why_too_far(main, start_of(main), original)
    if too_far:
        raise InvalidParams(
            f"Occurrence '{key}' of event '{main['UID']}' is not looked up: {too_far}. Name an "
            "occurrence nearer the series' start.",
            field="id",
        )


def original_start(main: icalendar.Component, key: str) -> date | datetime:
    """The original start ``key`` names, in the form of the master's DTSTART (zone, kind)."""
    named = parse_occurrence_key(key)
    start = start_of(main)
    if isinstance(start, datetime) != isinstance(named, datetime):
        raise NotFound(f"'{key}' is not an occurrence of event '{main['UID']}'.")
    if not isinstance(named, datetime) or not isinstance(start, datetime):
        return named
    if start.tzinfo is None:  # floating: keys were made in the host zone
        return named.astimezone().replace(tzinfo=None)
    return named.astimezone(start.tzinfo)


# -- components to events --------------------------------------------------------------------


def to_event(
    component: icalendar.Component,
    calendar: Calendar,
    *,
    rule: str | None = None,
    key: str | None = None,
    times: tuple[date | datetime, date | datetime] | None = None,
) -> Event:
    """The domain event of a VEVENT; ``key`` makes it the occurrence ``<uid>@<key>``."""
    start, end = times or (start_of(component), end_of(component))
    return assemble(shared_fields(component), calendar, start, end, rule=rule, key=key)


def shared_fields(component: icalendar.Component) -> dict[str, Any]:
    """What every occurrence made from ``component`` has in common (a fresh dict)."""
    start = start_of(component)
    return {
        "uid": str(component["UID"]),
        "alarms": read_alarms(component, "START", start, None),
        "title": str(component.get("SUMMARY", "")),
        "location": _text(component, "LOCATION"),
        "notes": _text(component, "DESCRIPTION"),
        "url": _text(component, "URL"),
        "availability": availability_of(component),
        "timezone": zone_name(start),
        "creationDate": _stamp(component, "CREATED"),
        "modificationDate": _stamp(component, "LAST-MODIFIED"),
    }


def assemble(
    shared: dict[str, Any],
    calendar: Calendar,
    start: Moment,
    end: Moment,
    *,
    rule: str | None,
    key: str | None,
) -> Event:
    """The event (or occurrence, with ``key``) of ``shared_fields`` at ``start``-``end``."""
    fields = dict(shared)
    uid = fields.pop("uid")
    return Event(
        id=uid if key is None else occurrence_id(uid, key),
        calendarId=calendar.id,
        calendarName=calendar.name,
        startAt=start,
        endAt=end,
        allDay=not isinstance(start, datetime),
        recurrence=rule,
        seriesId=None if key is None else uid,
        occurrence=key,
        **fields,
    )


def _occurrence(cal: icalendar.Calendar, component: Any, calendar: Calendar) -> Event:
    key = key_of(component)
    return to_event(component, calendar, rule=rule_text(master(cal)), key=key)


def end_of(component: icalendar.Component) -> date | datetime:
    """DTEND, else DTSTART + DURATION, else RFC 5545's default (a day, or the start itself)."""
    start = start_of(component)
    if "DTEND" in component:
        return moment(component, "DTEND")
    return start + duration_of(component)


def duration_of(component: icalendar.Component) -> timedelta:
    start = start_of(component)
    if "DTEND" in component:
        return span(moment(component, "DTEND"), start)
    length: Any = getattr(component.get("DURATION"), "dt", None)
    if isinstance(length, timedelta):
        return length
    return timedelta(0) if isinstance(start, datetime) else timedelta(days=1)


def zone_name(value: date | datetime) -> str | None:
    """The IANA name of a time's zone; ``None`` for dates, floating times and bare offsets."""
    if not isinstance(value, datetime) or value.tzinfo is None:
        return None
    key = getattr(value.tzinfo, "key", None)
    if isinstance(key, str):
        return key
    return "UTC" if value.utcoffset() == timedelta(0) else None


def values_of(prop: Any) -> Iterable[date | datetime]:
    """The dates of an RDATE/EXDATE property, which may be repeated and may hold lists."""
    props = prop if isinstance(prop, list) else [] if prop is None else [prop]
    for item in props:
        yield from (entry.dt for entry in getattr(item, "dts", [item]))


def availability_of(component: icalendar.Component) -> Availability:
    """RFC 5545's TRANSP: TRANSPARENT is free; OPAQUE, the default, is busy (each VEVENT says
    its own: an override without TRANSP is opaque, whatever its master says)."""
    transp = str(component.get("TRANSP", "OPAQUE")).strip().upper()
    return "free" if transp == "TRANSPARENT" else "busy"


def _text(component: icalendar.Component, name: str) -> str | None:
    value = component.get(name)
    return None if value is None or str(value) == "" else str(value)


def _stamp(component: icalendar.Component, name: str) -> datetime | None:
    value = component.get(name)
    moment = getattr(value, "dt", None)
    return moment if isinstance(moment, datetime) else None


def span(end: Moment, start: Moment) -> timedelta:
    """``end - start`` for two moments of one kind (dates, or date-times)."""
    if isinstance(end, datetime) != isinstance(start, datetime):
        raise BrokenObject("DTSTART and DTEND are of different kinds")
    return end - start  # type: ignore[operator]  # same kind, checked above
