"""Calendars and events, as they travel on the wire.

A timed event's ``startAt``/``endAt`` carry the offset of the event's own zone (``timezone``), so an
event at 09:00 Europe/Rome reads 09:00+01:00 whatever zone the host is in. An all-day event's dates
are bare dates, and ``endAt`` is exclusive (a one-day event on the 24th ends on the 25th), as in
iCalendar.

A recurring series is one stored event (``recurrence`` holds its RRULE). Reading a range expands it
into occurrences: each has its own ``startAt``/``endAt``, ``seriesId`` naming the series, and
``occurrence`` - the original start of that occurrence in iCalendar basic form (``20260224T080000Z``
for a timed series, in UTC; ``20260224`` for an all-day one). Its ``id`` is
``<seriesId>@<occurrence>``: URL-safe, and enough to get, move or delete that one occurrence.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict

from fruitctl.domain.alarms import Alarm, wire_alarms
from fruitctl.domain.dates import canonical_datetime, canonical_moment, instant, spelled
from fruitctl.domain.errors import InvalidParams
from fruitctl.domain.recurrence import ALLOWED, parts_of, rule_problem

CALENDAR_NAME_MAX = 255
LOCATION_MAX = 1_000
OCCURRENCE_SEPARATOR = "@"
Availability = Literal["busy", "free"]
_OCCURRENCE_KEY = re.compile(r"^\d{8}(T\d{6}Z)?$")


def _wire_moment(value: Any) -> str:
    try:
        return canonical_moment(value)
    except InvalidParams as exc:
        raise ValueError(exc.message) from exc


def _spelled(name: str | None) -> str | None:
    return None if name is None else spelled(name)


# A date (all-day) or a date-time with its offset, held as canonical wire text.
WireMoment = Annotated[str, BeforeValidator(_wire_moment)]


def _wire_instant(value: Any) -> str:
    try:
        kept = canonical_moment(value)
        return kept if len(kept) == 10 else canonical_datetime(kept)  # a date stays a date
    except InvalidParams as exc:
        raise ValueError(exc.message) from exc


# When something happened to an event (made, changed): in the person's zone, as every date-time
# fruitctl answers but an event's own start and end.
WireInstant = Annotated[str, BeforeValidator(_wire_instant)]


class Calendar(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str
    isDefault: bool = False
    readOnly: bool = False
    color: str | None = None
    account: str | None = None
    """The account (source) the calendar belongs to (``domain.accounts``)."""

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump()


class Event(BaseModel):
    """One event, or one occurrence of a recurring series (``seriesId`` set)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    calendarId: str
    calendarName: str
    title: str
    startAt: WireMoment
    endAt: WireMoment
    allDay: bool = False
    availability: Availability = "busy"
    """Whether the event takes its time: ``free`` (iCalendar TRANSP:TRANSPARENT, EventKit's
    availability free) does not block it for free time or clashes; everything else does."""
    location: str | None = None
    notes: str | None = None
    url: str | None = None
    recurrence: str | None = None
    """The series' RRULE (without the ``RRULE:`` prefix), on the series and on each occurrence."""
    timezone: Annotated[str | None, AfterValidator(_spelled)] = None
    """The IANA zone the event was written in (UTC spelled ``UTC``, whatever alias a server
    wrote); ``None`` for all-day and floating events."""
    seriesId: str | None = None
    occurrence: str | None = None
    creationDate: WireInstant | None = None
    modificationDate: WireInstant | None = None
    alarms: tuple[Alarm, ...] = ()
    """Its alerts (``domain.alarms``: ``minutesBefore`` counts back from its start)."""

    def to_wire(self) -> dict[str, Any]:
        data = self.model_dump()
        data["alarms"] = wire_alarms(self.alarms)
        return data

    @property
    def start(self) -> date | datetime:
        return _parse(self.startAt)

    @property
    def end(self) -> date | datetime:
        return _parse(self.endAt)


def _parse(text: str) -> date | datetime:
    return date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)


def occurrence_key(original_start: date | datetime) -> str:
    """The ``occurrence`` of an instance that originally started at ``original_start``."""
    if isinstance(original_start, datetime):
        if original_start.tzinfo is None:
            original_start = original_start.astimezone()
        return original_start.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    return original_start.strftime("%Y%m%d")


def parse_occurrence_key(key: str) -> date | datetime:
    """The original start an ``occurrence`` names, or ``InvalidParams``."""
    try:
        if len(key) == 8:
            return datetime.strptime(key, "%Y%m%d").date()
        return datetime.strptime(key, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    except ValueError as exc:
        raise InvalidParams(
            f"Invalid occurrence: '{key}'. Expected YYYYMMDD or YYYYMMDDTHHMMSSZ."
        ) from exc


def split_event_id(event_id: str) -> tuple[str, str | None]:
    """``(seriesId, occurrence)`` for an occurrence id, ``(event_id, None)`` otherwise.

    Only a suffix that reads as an occurrence key makes an occurrence id: UIDs that come from
    CalDAV servers often hold an ``@`` themselves (``1234@example.com``) and are plain ids."""
    series, sep, key = event_id.rpartition(OCCURRENCE_SEPARATOR)
    if not sep or not series or not _OCCURRENCE_KEY.match(key):
        return event_id, None
    parse_occurrence_key(key)  # a well-shaped key naming no real date is an error, not an id
    return series, key


def occurrence_id(series_id: str, key: str) -> str:
    return f"{series_id}{OCCURRENCE_SEPARATOR}{key}"


def event_sort_key(event: Event) -> tuple[float, str]:
    """Events by start (an all-day event at its local midnight), then id: one total order."""
    return (instant(event.start), event.id)


_RRULE_PARTS = frozenset(
    {
        "FREQ", "UNTIL", "COUNT", "INTERVAL", "BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY",
        "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST",
    }
)  # fmt: skip
_FREQUENCIES = frozenset({"SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"})


def check_rrule(text: str, field: str = "recurrence") -> str:
    """An RRULE value (``FREQ=WEEKLY;BYDAY=FR``, an ``RRULE:`` prefix dropped) in upper case, or
    ``InvalidParams``: caught when a proposal is filed, not when it is approved. A rule finer
    than hourly, making more than ``recurrence.MAX_PER_DAY`` instances a day, or never making
    one (``FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30``), is refused here, by arithmetic
    (``fruitctl.domain.recurrence``). The backend's iCalendar library
    checks the rule in full when it writes."""
    rule = text.strip().removeprefix("RRULE:").removeprefix("rrule:").upper()
    parts = parts_of(rule)
    bad = sorted(set(parts) - _RRULE_PARTS)
    problem = None
    if not rule or any(not value for value in parts.values()):
        problem = "every part must be KEY=VALUE"
    elif bad:
        problem = f"unknown part '{bad[0]}'"
    elif parts.get("FREQ") not in _FREQUENCIES:
        problem = f"FREQ must be {ALLOWED}"
    elif "COUNT" in parts and "UNTIL" in parts:
        problem = "COUNT and UNTIL cannot both be given"
    if problem:
        raise InvalidParams(
            f"Invalid recurrence '{text}': {problem} (e.g. 'FREQ=WEEKLY;BYDAY=FR').", field=field
        )
    too_often = rule_problem(parts)
    if too_often:
        raise InvalidParams.recurrence(text, too_often, field)
    return rule
