"""Calendar objects read without the library's whole parse: a plain event (one VEVENT that does
not repeat, no alarm), a plain to-do (one VTODO, no alarm, no override), an object of VEVENTs
alone (a series and its overrides).

A read of a new range parses every calendar object in it that it has not read before; in a dense
calendar that is tens of plain events a day, and a mirror's first sync reads every to-do. A full
parse costs a few hundred microseconds each - most of it the content lines no read uses (the
VCALENDAR's own, DTSTAMP, BEGIN/END) and the parameters of each, split by the library's general
content-line parser. Here each content line the read needs is parsed exactly as the library's
own parser does it (its content-line split - taken only for a line with parameters -, its value
type for the property, the TZID of a date-time, the raw value of an unknown type, the unescaped
commas of CATEGORIES) into a VEVENT (VTODO) of a VCALENDAR, and the same readers then read that:

- ``calendar``: the content lines an occurrence is made of (``shared_fields``, ``start_of``,
  ``end_of``) - an event's other properties are never read, and the library keeps a value it
  cannot read in a VEVENT rather than fail;
- ``todo_calendar``: every property of the VTODO (the library refuses an object with a value it
  cannot read in a VTODO, so each is parsed to find out, as a whole parse would);
- ``events_calendar``: every property of each VEVENT and the VCALENDAR's own text ones - the
  object as a whole parse reads it, for ``ical_events.parsed`` (a series is read at a sync to
  index it, and its timeline expanded from it).

Anything it is not sure of is None, and the caller parses the object whole: not one VCALENDAR
holding VEVENTs (one VEVENT, one VTODO) and VTIMEZONEs of zones zoneinfo knows, a component
inside one (an alarm), a property that repeats a plain event or says it repeats, an override or
a list of dates (a to-do), a list of dates (RDATE: an empty one the library drops), a property
read twice, a VCALENDAR property other than the usual text ones (which
never fail to parse), a line the library would read differently (a backslash before its
value, a line that is no content line), a value the library cannot read, a zone only the
object's VTIMEZONE defines.

Only reads use it (``ical_occurrences.timeline``, ``ical_events.parsed``, a mirror's to-dos):
writers parse the object whole, with its VTIMEZONEs.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import icalendar
from icalendar.parser import Contentline, Parameters, split_on_unescaped_comma, unescape_backslash
from icalendar.parser.content_line import NEWLINE, UFOLD
from icalendar.parser.ical import ComponentIcalParser

from fruitctl.backends.ical_zones import is_iana, without_known_zones

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
# A to-do's rule is read as its text; an override, dates listed (an empty RDATE the library
# drops) and periods (split on commas) are read whole.
TODO_REFUSED = {"RECURRENCE-ID", "RDATE", "EXDATE", "EXRULE", "FREEBUSY"}
CALENDAR_TEXT = {"VERSION", "PRODID", "CALSCALE", "METHOD"}
ZONED = frozenset(ComponentIcalParser.datetime_names)  # read with their TZID
_FACTORY = icalendar.Event.types_factory
_TOKEN = re.compile(r"[\w.-]+")  # a name the library's content-line split accepts


class _Every:
    """Every property name (a to-do's are all parsed)."""

    def __contains__(self, name: object) -> bool:
        return True


@dataclass(frozen=True)
class _Shape:
    """What a reader takes: components of ``kind`` (one, or ``several``), the properties of
    each it ``read``s, those it is not sure of (``refused``), and whether the VCALENDAR's own
    text properties are kept (``whole``: the object as a parse reads it)."""

    kind: str
    read: Container[str]
    refused: Container[str]
    several: bool = False
    whole: bool = False


_PLAIN_EVENT = _Shape("VEVENT", READ, REPEATS)
_PLAIN_TODO = _Shape("VTODO", _Every(), TODO_REFUSED)
# RDATE: an empty one the library drops; FREEBUSY: split on commas.
_EVENTS = _Shape("VEVENT", _Every(), {"RDATE", "FREEBUSY"}, several=True, whole=True)
Line = tuple[str, str, str]
"""A content line with its name (upper case) and what comes before its value."""


def calendar(text: str) -> icalendar.Calendar | None:
    """A VCALENDAR holding the VEVENT of a plain event, as much of it as reads use; None for
    any other object (parse it whole)."""
    return _calendar(text, _PLAIN_EVENT)


def todo_calendar(text: str) -> icalendar.Calendar | None:
    """A VCALENDAR holding the VTODO of a plain to-do, every property of it; None for any
    other object (parse it whole)."""
    return _calendar(text, _PLAIN_TODO)


def events_calendar(text: str) -> icalendar.Calendar | None:
    """The VCALENDAR of an object holding VEVENTs alone (a series and its overrides), every
    property of each and the VCALENDAR's own, less the VTIMEZONEs of zones zoneinfo knows -
    what ``ical_events.parsed`` reads; None for any other object (parse it whole)."""
    return _calendar(text, _EVENTS)


def _calendar(text: str, shape: _Shape) -> icalendar.Calendar | None:
    found = _lines(without_known_zones(text), shape)
    if found is None:
        return None
    own, blocks = found
    cal = icalendar.Calendar()
    for name, head, line in own:
        if not _add(cal, name, head, line):
            return None
    for block in blocks:
        component = icalendar.Event() if shape.kind == "VEVENT" else icalendar.Todo()
        for name, head, line in block:
            if not _add(component, name, head, line):
                return None
        if "UID" not in component or (shape.kind == "VEVENT" and "DTSTART" not in component):
            return None
        cal.add_component(component)
    return cal


def _lines(text: str, shape: _Shape) -> tuple[list[Line], list[list[Line]]] | None:
    """The content lines that are read (split as the library splits them): the VCALENDAR's
    own (when the shape keeps them) and those of each ``kind`` component; None if the object
    is not one this reader is sure of."""
    path: list[str] = []
    calendars = 0
    own: list[Line] = []
    blocks: list[list[Line]] = []
    for line in NEWLINE.split(UFOLD.sub("", text)):
        if not line:
            continue
        named = _named(line)
        if named is None:
            return None
        name, head = named
        value = line[len(head) + 1 :]
        if name in ("BEGIN", "END"):
            if not _walk(path, name, value.upper(), shape.kind):
                return None
            calendars += name == "BEGIN" and len(path) == 1
            if name == "BEGIN" and len(path) == 2:
                blocks.append([])
        elif not _sure(path, name, shape.refused):
            return None
        elif len(path) == 2 and name in shape.read:
            blocks[-1].append((name, head, line))
        elif len(path) == 1 and shape.whole:
            own.append((name, head, line))
    closed = calendars == 1 and not path
    counted = len(blocks) == 1 or (len(blocks) > 1 and shape.several)
    return (own, blocks) if closed and counted else None


def _named(line: str) -> tuple[str, str] | None:
    """The name of a content line (upper case) and what comes before its value; None for a
    line the library would split otherwise (a backslash before the value, a name that is no
    token, blanks around it) or that is no content line."""
    head = _head(line)
    if head is None or "\\" in head or head != head.strip():
        return None
    name = head.upper().partition(";")[0]
    return (name, head) if _TOKEN.fullmatch(name) else None


def _head(line: str) -> str | None:
    """What comes before the value: up to the first colon outside a quoted parameter value
    (the library's split, where no backslash precedes it); None for a line without one."""
    head, colon, _ = line.partition(":")
    if '"' in head:
        at = Contentline(line).value_separator_index()  # type: ignore[no-untyped-call]
        return None if at < 0 else line[:at]
    return head if colon else None


def _walk(path: list[str], step: str, component: str, kind: str) -> bool:
    """Enter or leave a component; False where the object is more than a VCALENDAR holding a
    ``kind``, or an END closes none that is open."""
    if step == "BEGIN":
        path.append(component)
        return path in (["VCALENDAR"], ["VCALENDAR", kind])
    return bool(path) and path.pop() == component


def _sure(path: list[str], name: str, refused: Container[str]) -> bool:
    """Whether a property ``name`` at ``path`` leaves the object one this reader is sure of."""
    if len(path) == 2:
        return name not in refused
    return path == ["VCALENDAR"] and name in CALENDAR_TEXT


def _add(component: icalendar.Component, name: str, head: str, line: str) -> bool:
    """Add one property (``name``, upper case, and ``head``, what comes before its value) as
    the library's parser does; False if it would not read it so."""
    rest = line[len(head) + 1 :]
    if ";" in head:  # parameters: the library's own split
        try:
            _, params, value = Contentline(line).parts()  # type: ignore[no-untyped-call]
        except ValueError:
            return False
    else:  # what that split makes of NAME:value
        params, value = Parameters(), unescape_backslash(rest)
    if name in component:
        return False
    tzid = params.get("TZID") if params and name in ZONED else None
    if tzid is not None and not is_iana(tzid):
        return False
    factory, verbatim = _factory(name, params.value if params else None)
    if name == "CATEGORIES":  # split on the commas the raw value does not escape
        made = factory(split_on_unescaped_comma(rest))
    else:
        if verbatim:  # a type whose value is taken as it is written
            value = rest
        try:
            found = factory.from_ical(value, tzid) if tzid else factory.from_ical(value)
        except (ValueError, TypeError):
            return False
        made = factory(found)
    made.params = params
    component[name] = made  # what ``add`` does with a value it need not encode, once
    return True


@lru_cache(maxsize=256)
def _factory(name: str, value_type: str | None) -> tuple[Any, bool]:
    """The library's value type of a property (with its VALUE parameter), and whether its
    value is taken verbatim (``get_value_from_content_line``: not unescaped)."""
    factory = _FACTORY.for_property(name, value_type)
    return factory, hasattr(factory, "get_value_from_content_line")
