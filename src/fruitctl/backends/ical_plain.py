"""A plain event (one VEVENT that does not repeat, no alarm) read for its occurrence without
parsing the whole object.

A read of a new range parses every calendar object in it that it has not read before; in a dense
calendar that is tens of plain events a day, and a full parse costs a few hundred microseconds
each - most of it the content lines no read uses (the VCALENDAR's own, DTSTAMP, BEGIN/END) and
the parameters of each. ``calendar`` hands the library only the content lines an occurrence is
made of - ``shared_fields``, ``start_of``, ``end_of`` - each parsed exactly as the library's own
parser does it (its content-line split, its value type for the property, the TZID of a date-time)
into a VEVENT of a VCALENDAR, and the same readers then read that.

Anything it is not sure of is None, and the caller parses the object whole: not one VCALENDAR
holding one VEVENT and VTIMEZONEs of zones zoneinfo knows, a component inside the VEVENT (an
alarm), a property that repeats it or says it repeats, a property read twice, a VCALENDAR
property other than the usual text ones (which never fail to parse), a line the library would
read differently (a quote or backslash before its value, a line that is no content line), a value
the library cannot read, a zone only the object's VTIMEZONE defines.

Only reads use it (``ical_occurrences.timeline``): the calendar it gives holds what those reads
need, not the object.
"""

from __future__ import annotations

from typing import Any

import icalendar
from icalendar.parser import Contentline, Parameters, unescape_backslash
from icalendar.parser.content_line import NEWLINE, UFOLD

from fruitctl.backends.ical_events import is_iana, without_known_zones

# What an occurrence is made of (``ical_events.shared_fields``, ``start_of``, ``end_of``).
READ = {
    "UID",
    "SUMMARY",
    "LOCATION",
    "DESCRIPTION",
    "URL",
    "TRANSP",
    "CREATED",
    "LAST-MODIFIED",
    "DTSTART",
    "DTEND",
    "DURATION",
}
REPEATS = {"RRULE", "RDATE", "EXRULE", "EXDATE", "RECURRENCE-ID"}
CALENDAR_TEXT = {"VERSION", "PRODID", "CALSCALE", "METHOD"}
ZONED = {"DTSTART", "DTEND"}  # of READ, those the library reads with their TZID
_FACTORY = icalendar.Event.types_factory


def calendar(text: str) -> icalendar.Calendar | None:
    """A VCALENDAR holding the VEVENT of a plain event, as much of it as reads use; None for
    any other object (parse it whole)."""
    lines = _lines(without_known_zones(text))
    if lines is None:
        return None
    event = icalendar.Event()
    for line in lines:
        if not _add(event, line):
            return None
    if "UID" not in event or "DTSTART" not in event:
        return None
    cal = icalendar.Calendar()
    cal.add_component(event)
    return cal


def _lines(text: str) -> list[str] | None:
    """The content lines of the one VEVENT that are read (split as the library splits them), or
    None if the object is not a plain event this reader is sure of."""
    path: list[str] = []
    calendars = events = 0
    read: list[str] = []
    for line in NEWLINE.split(UFOLD.sub("", text)):
        if not line:
            continue
        head, colon, value = line.partition(":")
        if not colon or '"' in head or "\\" in head or head != head.strip():
            return None
        name = head.upper().partition(";")[0]
        if name in ("BEGIN", "END"):
            if not _walk(path, name, value.upper()):
                return None
            calendars += name == "BEGIN" and len(path) == 1
            events += name == "BEGIN" and len(path) == 2
        elif not _sure(path, name):
            return None
        elif len(path) == 2 and name in READ:
            read.append(line)
    return read if calendars == events == 1 and not path else None


def _walk(path: list[str], step: str, component: str) -> bool:
    """Enter or leave a component; False where the object is more than a VCALENDAR holding a
    VEVENT, or an END closes none that is open."""
    if step == "BEGIN":
        path.append(component)
        return path in (["VCALENDAR"], ["VCALENDAR", "VEVENT"])
    return bool(path) and path.pop() == component


def _sure(path: list[str], name: str) -> bool:
    """Whether a property ``name`` at ``path`` leaves the object one this reader is sure of."""
    if len(path) == 2:
        return name not in REPEATS
    return path == ["VCALENDAR"] and name in CALENDAR_TEXT


def _add(event: icalendar.Event, line: str) -> bool:
    """Add one property as the library's parser does; False if it would not read it so."""
    head, _, rest = line.partition(":")
    if ";" in head:  # parameters: the library's own split
        try:
            name, params, value = Contentline(line).parts()  # type: ignore[no-untyped-call]
        except ValueError:
            return False
    else:  # what that split makes of NAME:value
        name, params, value = head, Parameters(), unescape_backslash(rest)
    name = name.upper()
    if name in event:
        return False
    tzid = params.get("TZID") if params and name in ZONED else None
    if tzid is not None and not is_iana(tzid):
        return False
    factory: Any = _FACTORY.for_property(name, params.value)
    try:
        found = factory.from_ical(value, tzid) if tzid else factory.from_ical(value)
    except (ValueError, TypeError):
        return False
    made = factory(found)
    made.params = params
    event.add(name, made, encode=False)
    return True
