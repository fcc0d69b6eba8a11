"""Calendar tools: calendars, events in a range, one event, the upcoming window, and the
three writes (which the default governance turns into proposals)."""

from __future__ import annotations

from functools import partial
from typing import Any

from fruitctl.capabilities.calendar import changes, inputs, outputs
from fruitctl.capabilities.calendar.targets import CALENDARS
from fruitctl.capabilities.context import Context
from fruitctl.tools import model
from fruitctl.tools.inputs import parse

# A refusal by the store behind these tools names the calendar as the service refused.
tool = partial(model.tool, service="calendar")


def asks_the_store(args: Any, ctx: Context) -> bool:
    """Whether the calendar store answers this read at once (``Tool.at_once``)."""
    return ctx.calendar.answers_at_once(args)


@tool(
    returns=outputs.Calendars, category="read_only", risk="low", title="List calendars", parse=parse
)
def list_calendars(args: inputs.ListCalendars, ctx: Context) -> Any:
    """All calendars: id, name, the account it is in (account), whether it is the default
    one, read-only, color; a name two accounts share is named "Account/Name". None yet (an
    empty account): create_calendar makes one. No parameters: {}"""
    return ctx.calendar.list_calendars(args)


@tool(
    returns=outputs.Events,
    category="read_only",
    risk="low",
    title="Query events",
    parse=parse,
    at_once=asks_the_store,
)
def query_events(args: inputs.QueryEvents, ctx: Context) -> Any:
    """Events overlapping a range, recurring series expanded into occurrences, soonest first.

    from / to: ISO 8601 date-times, or dates (a date 'to' includes that whole day); default
    from now for 7 days; at most 366 days. calendar: a name (any case) or id; default all.
    limit: $(limit).

    Each occurrence of a series has its own startAt, seriesId (the series' id) and an id
    '<seriesId>@<occurrence>' to get, change or delete just that occurrence. Times carry
    the offset of the event's own zone (2026-02-24T09:00:00+01:00); an all-day event has
    dates (2026-02-24) and an exclusive end. Answers {"window": {"from", "to", "timezone"},
    "events": [...], "count"}: the window in the person's zone, which it names.

    Examples: {} · {"from": "2026-03-01", "to": "2026-03-07"} · {"calendar": "Work"}
    """
    return ctx.calendar.query_events(args)


@tool(returns=outputs.OneEvent, category="read_only", risk="low", title="Get an event", parse=parse)
def get_event(args: inputs.GetEvent, ctx: Context) -> Any:
    """One event with every field. A series id gives the series (its first start and its
    RRULE in recurrence); an occurrence id ('<seriesId>@<occurrence>') gives that occurrence
    as it is now. Example: {"id": "..."}"""
    return ctx.calendar.get_event(args)


@tool(
    returns=outputs.Upcoming,
    category="read_only",
    risk="low",
    title="Upcoming events",
    parse=parse,
    alias="calendar.upcoming",
    at_once=asks_the_store,
)
def calendar_upcoming(args: inputs.Upcoming, ctx: Context) -> Any:
    """The next days of events across all calendars, sorted by start.

    days: $(days). limit: $(limit). timezone: an IANA zone (default the
    person's): the window and every time are given with that zone's offset; an unknown zone is
    an error. Answers {"window": {"from", "to", "timezone"}, "events": [{"id", "calendarName",
    "title", "startAt", "endAt", "allDay", "location", "notesPreview"}], "count"}.

    Example: {"days": 3, "timezone": "Europe/Rome"}
    """
    return ctx.calendar.upcoming(args)


@tool(
    returns=outputs.FreeTime,
    category="read_only",
    risk="low",
    title="Find free time",
    parse=parse,
)
def find_free_time(args: inputs.FindFreeTime, ctx: Context) -> Any:
    """Free slots in a range: the time no busy event takes, inside working hours.

    from / to: ISO 8601 date-times, or dates (a date 'to' includes that whole day); default
    from now for 7 days; at most 31 days. calendars: names (any case) or ids; default all.
    hours: working hours 'HH:MM-HH:MM' in the person's zone, each day (default the whole
    day). weekdays: only these days ('mon' … 'sun'). minutes: $(minutes). limit: $(limit).
    An event marked free (iCalendar TRANSP:TRANSPARENT, availability free) does not block;
    all-day events do not either unless includeAllDay is true. Days the clocks change on count
    as long as they are.

    Answers {"window": {"from", "to", "timezone"}, "slots": [{"start", "end", "minutes"}],
    "count", "more"} - times in the person's zone; more: slots past the limit were left out.

    Examples: {"from": "2026-03-05", "to": "2026-03-05", "hours": "09:00-17:00"}
    · {"from": "2026-03-02", "to": "2026-03-13", "minutes": 60,
    "weekdays": ["mon", "tue", "wed", "thu", "fri"], "calendars": ["Work"]}
    """
    return ctx.calendar.find_free_time(args)


@tool(
    returns=outputs.Conflicts,
    category="read_only",
    risk="low",
    title="Check for conflicts",
    parse=parse,
)
def check_conflicts(args: inputs.CheckConflicts, ctx: Context) -> Any:
    """The busy events a proposed time overlaps - before creating or moving an event.

    start / end: ISO 8601 date-times (or dates: an 'end' date includes that day). calendars:
    names or ids, default all. Events marked free, and all-day events unless includeAllDay,
    do not conflict; an event that only touches the proposed time (ends at its start) does
    not either. Answers {"window": {"from", "to", "timezone"}, "conflicts": [events],
    "count"}: none is {"conflicts": [], "count": 0}.

    Example: {"start": "2026-03-05T10:00:00+01:00", "end": "2026-03-05T11:00:00+01:00"}
    """
    return ctx.calendar.check_conflicts(args)


@tool(
    returns=outputs.OneEvent,
    category="pim_write",
    risk="medium",
    title="Create an event",
    parse=parse,
    change=changes.CREATE_EVENT,
    targets=(CALENDARS,),
)
def create_event(args: inputs.CreateEvent, ctx: Context) -> Any:
    """Create an event (or a recurring series with recurrence) and answer it.

    title and startAt are required. startAt/endAt: ISO 8601 date-times, or dates for an
    all-day event (endAt exclusive); endAt defaults to one hour (one day) later. timezone:
    the IANA zone the event keeps, so a weekly 09:00 stays 09:00 across DST. calendar: name or
    id (the default calendar when omitted). recurrence: an RRULE such as 'FREQ=WEEKLY;BYDAY=FR'.

    Examples: {"title": "Dentist", "startAt": "2026-03-02T09:00:00+01:00"}
    · {"title": "Holiday", "startAt": "2026-08-10", "endAt": "2026-08-15"}
    · {"title": "Weekly review", "startAt": "2026-03-06T17:00:00+01:00",
    "timezone": "Europe/Rome", "recurrence": "FREQ=WEEKLY;BYDAY=FR"}
    """
    return ctx.calendar.create_event(args)


@tool(
    returns=outputs.OneEvent,
    category="pim_write",
    risk="medium",
    title="Update an event",
    parse=parse,
    change=changes.UPDATE_EVENT,
    targets=(CALENDARS,),
)
def update_event(args: inputs.UpdateEvent, ctx: Context) -> Any:
    """Change an event; only the fields given change (null clears location, notes, url;
    recurrence null makes a series a single event).

    id: an event id, or an occurrence id to change one occurrence. occurrence: with a series
    id, the date of the occurrence instead. scope: 'occurrence' (that one only: it becomes a
    moved/changed occurrence) or 'series' (all of them; a new startAt moves every occurrence
    by the same step). Default: 'occurrence' when an occurrence is named, else 'series'.

    Examples: {"id": "...", "title": "Review (short)"}
    · {"id": "abc@20260306T160000Z", "startAt": "2026-03-06T18:00:00+01:00"}
    · {"id": "abc", "occurrence": "2026-03-13", "location": "Home"}
    """
    return ctx.calendar.update_event(args)


@tool(
    returns=outputs.EventDeleted,
    category="pim_write",
    risk="high",
    title="Delete an event",
    destructive=True,
    parse=parse,
    change=changes.DELETE_EVENT,
    targets=(CALENDARS,),
)
def delete_event(args: inputs.DeleteEvent, ctx: Context) -> Any:
    """Delete an event, a whole series, or one occurrence of a series.

    id: an event id, or an occurrence id. occurrence: with a series id, the date of the
    occurrence to remove. scope: 'occurrence' or 'series' (default: 'occurrence' when an
    occurrence is named, else 'series'). Answers {"deleted": id, "scope": scope}.

    Examples: {"id": "..."} · {"id": "abc", "occurrence": "2026-03-13"}
    """
    return ctx.calendar.delete_event(args)


TOOLS = [
    list_calendars,
    query_events,
    get_event,
    calendar_upcoming,
    find_free_time,
    check_conflicts,
    create_event,
    update_event,
    delete_event,
]
