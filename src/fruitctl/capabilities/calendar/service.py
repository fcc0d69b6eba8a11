"""Calendars and events on any ``CalendarBackend``, and seed 000's ``calendar.upcoming``.

Every public method takes the wire arguments (a mapping or a validated input model) and returns
JSON-ready data. Times on the wire always carry an offset (never ``Z``); an event's times keep
the offset of its own zone, except in ``upcoming``, which renders them in the zone asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any, cast
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from fruitctl.capabilities.calendar import busy, inputs
from fruitctl.capabilities.calendar.drafts import (
    bound,
    changes_of,
    check_range,
    draft_of,
    moment,
    preview,
)
from fruitctl.domain import accounts
from fruitctl.domain.calendar import (
    Calendar,
    Event,
    occurrence_id,
    occurrence_key,
    split_event_id,
)
from fruitctl.domain.dates import (
    format_datetime,
    format_keeping_offset,
    now,
    wire_zone,
    zone,
)
from fruitctl.domain.errors import FruitctlError, InvalidParams, NotFound
from fruitctl.ports import (
    CalendarBackend,
    EventChanges,
    EventRange,
    EventScope,
    NewEvent,
    answering_at_once,
)
from fruitctl.tools.inputs import parse

Args = Mapping[str, Any] | BaseModel | None
WEEK = timedelta(days=7)


@dataclass(frozen=True)
class CalendarService:
    backend: CalendarBackend
    notes_preview_chars: int = 80

    # -- reads -----------------------------------------------------------------------------------

    def list_calendars(self, args: Args = None) -> list[dict[str, Any]]:
        parse(inputs.ListCalendars, args, "calendars")
        return [c.to_wire() for c in self.backend.calendars()]

    def query_events(self, args: Args = None) -> dict[str, Any]:
        request = parse(inputs.QueryEvents, args, "query_events")
        asked = self._range(request)
        found = self.backend.events(asked)
        start, end = asked.start, asked.end
        return {
            "window": {
                "from": format_datetime(start),
                "to": format_datetime(end),
                "timezone": wire_zone().key,  # the zone of the window, and of a person's view
            },
            "events": [e.to_wire() for e in found],
            "count": len(found),
        }

    def get_event(self, args: Args) -> dict[str, Any]:
        request = parse(inputs.GetEvent, args, "get_event")
        return self.backend.get_event(request.id).to_wire()

    def find_free_time(self, args: Args = None) -> dict[str, Any]:
        request = parse(inputs.FindFreeTime, args, "find_free_time")
        return busy.free_time(self.backend, request, self._ids(request.calendars))

    def check_conflicts(self, args: Args) -> dict[str, Any]:
        """The busy events a proposed start/end overlaps (also what a proposal shows)."""
        request = parse(inputs.CheckConflicts, args, "check_conflicts")
        return busy.conflicts(self.backend, request, self._ids(request.calendars))

    def overlapped(self, args: Args, write: str) -> list[dict[str, Any]]:
        """The busy events an event ``write`` (create_event, update_event) would overlap at
        its new time - none when it sets no time. The event itself (its series) is left out;
        a new series is checked at its first occurrence."""
        if write == "create_event":
            draft = draft_of(parse(inputs.CreateEvent, args, write))
            span, own = (draft["start"], draft["end"]), None
        else:
            request = parse(inputs.UpdateEvent, args, write)
            changes = changes_of(request)
            if "startAt" not in changes and "endAt" not in changes:
                return []
            event_id = self.target(request)[0]
            span = busy.moved(self.backend.get_event(event_id), changes)
            own = split_event_id(event_id)[0]
        found = busy.taking_time(self.backend, busy.instants(*span), None, False)
        return [e.to_wire() for e in found if own is None or own not in (e.id, e.seriesId)]

    def answers_at_once(self, request: BaseModel) -> bool:
        """Whether the store answers this read (the parsed arguments of ``query_events`` or
        ``upcoming``) with a few bounded reads in this process - so a front door may run it on
        its event loop. A store that cannot tell (``AnswersAtOnce``) never does."""
        backend = answering_at_once(self.backend)
        if backend is None:
            return False
        try:
            match request:
                case inputs.Upcoming():
                    return backend.answers_at_once(EventRange(*_upcoming_window(request)[1:]))
                case inputs.QueryEvents():
                    return backend.answers_at_once(self._range(request))
        except FruitctlError:
            return False  # the call reports it, wherever it runs
        return False

    def upcoming(self, args: Args = None) -> dict[str, Any]:
        """Seed 000: the next ``days`` of events in ``timezone``, sorted by start."""
        request = parse(inputs.Upcoming, args, "calendar.upcoming")
        tz, start, end = _upcoming_window(request)
        # Sorted here, in the zone asked for (an all-day event starts at *its* midnight),
        # then cut: the backend's order uses the person's zone.
        found = sorted(self.backend.events(EventRange(start, end)), key=_in_zone_key(tz))
        events = [self._upcoming_item(e, tz) for e in found[: request.limit]]
        return {
            "window": {
                "from": format_keeping_offset(start),
                "to": format_keeping_offset(end),
                "timezone": tz.key,
            },
            "events": events,
            "count": len(events),
        }

    def _range(self, request: inputs.QueryEvents) -> EventRange:
        start = bound(request.start, "from") if request.start is not None else now()
        end = bound(request.to, "to", end_of_day=True) if request.to is not None else None
        end = end or start + WEEK
        check_range(start, end, inputs.MAX_RANGE_DAYS, ("from", "to"))
        ids = None if request.calendar is None else (self._calendar(request.calendar).id,)
        return EventRange(start, end, ids, request.limit)

    # -- writes ----------------------------------------------------------------------------------

    def create_event(self, args: Args) -> dict[str, Any]:
        request = parse(inputs.CreateEvent, args, "create_event")
        draft = draft_of(request)  # every field checked before the backend is asked anything
        calendar = self._calendar(request.calendar)
        return self.backend.create_event(NewEvent(calendar_id=calendar.id, **draft)).to_wire()

    def update_event(self, args: Args) -> dict[str, Any]:
        request = parse(inputs.UpdateEvent, args, "update_event")
        changes = changes_of(request)
        if request.calendar is not None:
            changes["calendarId"] = self._calendar(request.calendar).id
        if not changes:
            raise InvalidParams.nothing_to_change()
        event_id, scope = self.target(request)
        return self.backend.update_event(event_id, cast(EventChanges, changes), scope).to_wire()

    def delete_event(self, args: Args) -> dict[str, Any]:
        request = parse(inputs.DeleteEvent, args, "delete_event")
        event_id, scope = self.target(request)
        self.backend.delete_event(event_id, scope)
        return {"deleted": event_id, "scope": scope}

    def precheck(self, args: Args, write: str) -> None:
        """Raise what the event ``write`` (create_event, update_event, delete_event) with
        ``args`` would raise before it writes - a malformed call, an unknown calendar, event or
        occurrence - without writing (a proposal fails fast)."""
        if write == "create_event":
            request = parse(inputs.CreateEvent, args, write)
            draft_of(request)
            self._calendar(request.calendar)
            return
        target: inputs.Target
        if write == "update_event":
            target = update = parse(inputs.UpdateEvent, args, write)
            if update.calendar is not None:
                self._calendar(update.calendar)
            if not changes_of(update) and update.calendar is None:
                raise InvalidParams.nothing_to_change()
        else:
            target = parse(inputs.DeleteEvent, args, write)
        self.backend.get_event(self.target(target)[0])

    # -- naming things ---------------------------------------------------------------------------

    def target(self, request: inputs.Target) -> tuple[str, EventScope]:
        """The event id a write addresses (an ``occurrence`` date resolved) and its scope."""
        event_id = request.id
        if request.occurrence is not None:
            event_id = self._occurrence(request.id, request.occurrence)
        named = split_event_id(event_id)[1] is not None
        scope = request.scope or ("occurrence" if named else "series")
        return event_id, scope

    def addressed(self, args: Mapping[str, Any]) -> tuple[str, EventScope]:
        """What a write with ``args`` changes: the occurrence id, or the series' (or single
        event's) own id, and the scope - for approvals to snapshot exactly that."""
        picked = {key: args[key] for key in ("id", "occurrence", "scope") if key in args}
        event_id, scope = self.target(parse(inputs.Target, picked, "target"))
        if scope == "series":
            event_id = split_event_id(event_id)[0]
        return event_id, scope

    def _occurrence(self, series_id: str, when: str) -> str:
        """The id of the occurrence of ``series_id`` originally at ``when`` (a date: that day,
        at the series' time of day)."""
        if split_event_id(series_id)[1] is not None:
            raise InvalidParams("Give 'occurrence' with a series id, not an occurrence id.")
        series = self.backend.get_event(series_id)
        if series.recurrence is None:
            raise InvalidParams(
                f"Event '{series_id}' does not repeat: it has no occurrences to choose.",
                field="occurrence",
            )
        original = _original(series, moment(when, "occurrence"))
        candidate = occurrence_id(series_id, occurrence_key(original))
        try:
            return self.backend.get_event(candidate).id
        except NotFound as exc:
            raise NotFound(
                f"Event '{series_id}' has no occurrence on {when}.", field="occurrence"
            ) from exc

    def _ids(self, wanted: list[str] | None) -> tuple[str, ...] | None:
        return None if wanted is None else tuple(self._calendar(name).id for name in wanted)

    def _calendar(self, wanted: str | None) -> Calendar:
        return find_calendar(self.backend.calendars(), wanted)

    def _upcoming_item(self, event: Event, tz: ZoneInfo) -> dict[str, Any]:
        return {
            "id": event.id,
            "calendarName": event.calendarName,
            "title": event.title,
            "startAt": _rendered(event.start, tz),
            "endAt": _rendered(event.end, tz),
            "allDay": event.allDay,
            "location": event.location,
            "notesPreview": preview(event.notes, self.notes_preview_chars),
        }


def _rendered(value: date | datetime, tz: ZoneInfo) -> str:
    """A time in ``tz`` with its offset; a date (all-day) stays a date."""
    if isinstance(value, datetime):
        value = value.astimezone(tz)
    return format_keeping_offset(value)


def _in_zone_key(tz: ZoneInfo) -> Any:
    def key(event: Event) -> tuple[float, str]:
        start = event.start
        if not isinstance(start, datetime):
            start = datetime.combine(start, time(), tz)
        return (start.timestamp(), event.id)

    return key


def _original(series: Event, when: date | datetime) -> date | datetime:
    """The original start of the occurrence ``when`` names, in the series' own terms."""
    first = series.start
    if not isinstance(first, datetime):
        return when.date() if isinstance(when, datetime) else when
    if isinstance(when, datetime):
        return when
    own = zone(series.timezone) if series.timezone else first.tzinfo
    return datetime.combine(when, first.astimezone(own).timetz().replace(tzinfo=None), own)


def _upcoming_window(request: inputs.Upcoming) -> tuple[ZoneInfo, datetime, datetime]:
    """The zone of an ``upcoming`` call and its window, from now."""
    tz = wire_zone() if request.timezone is None else zone(request.timezone)
    start = now().astimezone(tz)
    return tz, start, start + timedelta(days=request.days)


def find_calendar(found: list[Calendar], wanted: str | None) -> Calendar:
    """The calendar ``wanted`` names - an id, a name or ``Account/Name`` (``domain.accounts``);
    None: the default one. ``NotFound`` for none, ``Ambiguous`` for a name two accounts share."""
    if wanted is None:
        for calendar in found:
            if calendar.isDefault:
                return calendar
        if found:
            return found[0]
        raise NotFound("No calendar found: the store holds none.")
    for calendar in found:
        if calendar.id == wanted:
            return calendar
    named = accounts.resolve(found, wanted, "calendar")
    if named is not None:
        return named
    names = ", ".join(accounts.shown(c, found) for c in found)
    raise NotFound(f"No calendar found with name: '{wanted}'. Available calendars: {names}.")
