"""The person's Apple Calendar through EventKit (the ``CalendarBackend`` port).

Ranges go to EventKit's event predicate, split into spans of at most four years (EventKit's
limit); EventKit expands recurring series itself, and each occurrence gets fruitctl's
occurrence id. Changing one occurrence saves it with ``EKSpanThisEvent`` (EventKit detaches
it); changing or removing the series addresses its master event - the one EventKit answers for
the series' id - with ``EKSpanFutureEvents``, never an occurrence searched for: a series whose
first occurrence was removed or moved alone is changed and removed all the same.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any, cast

from fruitctl.backends.eventkit import events as mapping
from fruitctl.backends.eventkit.errors import translated
from fruitctl.backends.eventkit.fresh import Refresher
from fruitctl.backends.eventkit.permission import Access
from fruitctl.backends.eventkit.values import Entity, EventKitPort, EventWrite, RawEvent
from fruitctl.domain.calendar import (
    CALENDAR_NAME_MAX,
    Calendar,
    Event,
    event_sort_key,
    parse_occurrence_key,
    split_event_id,
)
from fruitctl.domain.errors import InvalidParams, NotFound, PermissionDenied
from fruitctl.domain.reminders import check_text
from fruitctl.ports import EventChanges, EventRange, EventScope, NewEvent, PermissionStatus

ENTITY: Entity = "event"
SPAN = timedelta(days=4 * 365)  # EventKit's predicate refuses longer ones


def spans(start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
    """``[start, end)`` cut into pieces EventKit accepts."""
    pieces = []
    while start < end:
        stop = min(end, start + SPAN)
        pieces.append((start, stop))
        start = stop
    return pieces


class EventKitCalendars:
    """Calendars and events in the person's own Calendar app."""

    name = "eventkit"

    def __init__(self, port: EventKitPort, access: Access, *, refresh_seconds: float = 2.0) -> None:
        self._port = port
        self._access = access
        self._refresh = Refresher(port, refresh_seconds)

    def permission_status(self) -> PermissionStatus:
        return self._access.status(ENTITY)

    def request_access(self) -> PermissionStatus:
        return self._access.request(ENTITY)

    def access_holder(self) -> str:
        who = self._access.responsible()
        return f"{who.name} ({who.path})"

    # -- calendars -------------------------------------------------------------------------------

    def calendars(self) -> list[Calendar]:
        self._access.require(ENTITY)
        self._refresh()  # a calendar renamed or added in the app since
        with translated("read the calendars"):
            found = self._port.calendars(ENTITY)
            default = self._port.default_calendar(ENTITY)
        ordered = sorted(found, key=lambda c: c.id != default)
        return [mapping.to_calendar(c, default) for c in ordered]

    def create_calendar(self, name: str) -> Calendar:
        name = check_text("name", name, limit=CALENDAR_NAME_MAX).strip()
        if not name:
            raise InvalidParams.empty_name(field="name")
        if any(c.name.casefold() == name.casefold() for c in self.calendars()):
            raise InvalidParams.name_taken("calendar", name, field="name")
        with translated(f"create the calendar '{name}'"):
            made = self._port.create_calendar(ENTITY, name)
        return mapping.to_calendar(made, None)

    # -- reads -----------------------------------------------------------------------------------

    def events(self, query: EventRange) -> list[Event]:
        self._access.require(ENTITY)
        self._refresh()
        names = self._names()
        ids = query.calendar_ids
        seen: dict[str, Event] = {}
        for start, end in spans(query.start, query.end):
            with translated("read the events"):
                raws = self._port.events(start, end, ids)
            for raw in raws:
                event = mapping.to_event(raw, names.get(raw.calendar_id, ""))
                seen.setdefault(event.id, event)  # one spanning a cut comes back twice
        found = sorted(seen.values(), key=event_sort_key)
        return found if query.limit is None else found[: query.limit]

    def get_event(self, event_id: str) -> Event:
        self._access.require(ENTITY)
        raw, key = self._locate(event_id)
        return mapping.to_event(raw, self._names().get(raw.calendar_id, ""), as_series=key is None)

    # -- writes ----------------------------------------------------------------------------------

    def create_event(self, new: NewEvent) -> Event:
        self._access.require(ENTITY)
        self._writable(new.calendar_id)
        with translated("save the event"):
            saved = self._port.save_event(EventWrite(None, fields=mapping.new_fields(new)), True)
        return mapping.to_event(saved, self._names().get(saved.calendar_id, ""), as_series=True)

    def update_event(self, event_id: str, changes: EventChanges, scope: EventScope) -> Event:
        self._access.require(ENTITY)
        raw, key = self._locate(event_id)
        self._writable(raw.calendar_id)
        _check_change(event_id, raw, key, changes, scope)
        if "calendarId" in changes:
            self._writable(changes["calendarId"])
        one = key is not None and scope == "occurrence"
        if one:
            write = EventWrite(raw.id, raw.occurrence, mapping.change_fields(changes, raw))
        else:
            series = self._series(raw)
            through = raw if key is not None else None
            fields = mapping.change_fields(_shifted(changes, through, series), series)
            write = EventWrite(series.id, None, fields)
        with translated("save the event"):
            saved = self._port.save_event(write, not one)
        return mapping.to_event(saved, self._names().get(saved.calendar_id, ""), as_series=not one)

    def delete_event(self, event_id: str, scope: EventScope) -> None:
        self._access.require(ENTITY)
        raw, key = self._locate(event_id)
        self._writable(raw.calendar_id)
        if key is not None and scope == "occurrence":
            with translated("remove the occurrence"):
                self._port.remove_event(raw.id, raw.occurrence, False)
            return
        if key is None and scope == "occurrence" and mapping.is_series(raw):
            raise _series_needs_scope(event_id, "delete")
        series = self._series(raw)
        with translated("remove the event"):
            self._port.remove_event(series.id, None, True)

    # -- helpers ---------------------------------------------------------------------------------

    def _names(self) -> dict[str, str]:
        with translated("read the calendars"):
            return {c.id: c.title for c in self._port.calendars(ENTITY)}

    def _locate(self, event_id: str) -> tuple[RawEvent, str | None]:
        """The event an id names, and for an occurrence id that occurrence's key."""
        with translated("read the event"):
            whole = self._port.event(event_id)
        if whole is not None:
            return whole, None
        series_id, key = split_event_id(event_id)
        if key is not None:
            with translated("read the event"):
                series = self._port.event(series_id)
            if series is not None:
                found = self._occurrence(series, key)
                if found is not None:
                    return found, key
        raise NotFound.event(event_id)

    def _occurrence(self, series: RawEvent, key: str) -> RawEvent | None:
        original = parse_occurrence_key(key)
        moment = (
            datetime.combine(original, datetime.min.time()).astimezone()
            if not isinstance(original, datetime)
            else original
        )
        # A moved occurrence is still found near where it was (EventKit keeps its original).
        window = timedelta(days=7)
        with translated("read the events"):
            nearby = self._port.events(moment - window, moment + window, [series.calendar_id])
        for raw in nearby:
            same = mapping.original_start(raw) == original or raw.occurrence == moment
            if raw.id == series.id and raw.occurrence is not None and same:
                return raw
        return None

    def _series(self, raw: RawEvent) -> RawEvent:
        """The series an occurrence belongs to, as EventKit answers its id (the master)."""
        if raw.occurrence is None:
            return raw
        with translated("read the event"):
            series = self._port.event(raw.id)
        return series or raw

    def _writable(self, calendar_id: str) -> None:
        with translated("read the calendars"):
            found = {c.id: c for c in self._port.calendars(ENTITY)}
        calendar = found.get(calendar_id)
        if calendar is None:
            raise NotFound.calendar(calendar_id)
        if not calendar.writable:
            raise PermissionDenied.read_only_calendar(calendar.title)


def _check_change(
    event_id: str, raw: RawEvent, key: str | None, changes: EventChanges, scope: EventScope
) -> None:
    """``InvalidParams`` for what ``CalendarBackend.update_event`` refuses, and for switching
    between all-day and timed through an occurrence id (its key would name it no more)."""
    if key is None:
        if scope == "occurrence" and mapping.is_series(raw):
            raise _series_needs_scope(event_id, "change")
        return
    for field in ("recurrence", "calendarId"):
        if scope == "occurrence" and field in changes:
            raise InvalidParams(
                f"'{field}' belongs to the whole series: use scope 'series' to change it.",
                field=field,
            )
    if "startAt" in changes and isinstance(changes["startAt"], datetime) == raw.all_day:
        raise InvalidParams.series_all_day_switch()


def _shifted(changes: EventChanges, occurrence: RawEvent | None, series: RawEvent) -> EventChanges:
    """Changes given through one occurrence (``None``: through the series' own id) for the
    whole series: a new start or end moves the series by the step that occurrence takes."""
    if occurrence is None or not ({"startAt", "endAt"} & set(changes)):
        return changes
    moved: dict[str, Any] = dict(changes)
    here_start, here_end = mapping.span(occurrence)
    first_start, first_end = mapping.span(series)
    for key, here, first in (("startAt", here_start, first_start), ("endAt", here_end, first_end)):
        if key in moved:
            moved[key] = first + _step(here, moved[key])
    return cast(EventChanges, moved)


def _step(here: date | datetime, wanted: date | datetime) -> timedelta:
    if isinstance(here, datetime) and isinstance(wanted, datetime):
        return wanted - here
    return _day(wanted) - _day(here)


def _day(value: date | datetime) -> date:
    return value.date() if isinstance(value, datetime) else value


def _series_needs_scope(event_id: str, verb: str) -> InvalidParams:
    return InvalidParams(
        f"Event '{event_id}' is a recurring series: give an occurrence id to {verb} one "
        f"occurrence, or scope 'series' to {verb} them all.",
        field="scope",
    )
