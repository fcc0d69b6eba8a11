"""Input models of the calendar operations: strict JSON types, unknown keys refused, bounds
declared so that the tool schemas say them too (``tools.inputs.parse`` turns a failure into
``InvalidParams`` naming the field)."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from fruitctl.domain.alarms import ALARMS_MAX
from fruitctl.domain.recurrence import MAX_PER_DAY
from fruitctl.tools.alarms import ALARMS_HELP, AlarmInput
from fruitctl.tools.inputs import Input

Scope = Literal["occurrence", "series"]

MAX_RANGE_DAYS = 366
WHEN = "ISO 8601: 2026-02-24T09:00:00+01:00, or a date 2026-02-24"
REPEATS = f"It repeats at most hourly, at most {MAX_PER_DAY} times a day."


class ListCalendars(Input):
    pass


class QueryEvents(Input):
    # `from` is a Python keyword: the field is `start`, its wire name `from`.
    model_config = ConfigDict(serialize_by_alias=True)

    start: str | None = Field(
        None, alias="from", description=f"Start of the range ({WHEN}); default now."
    )
    to: str | None = Field(
        None,
        description=f"End of the range ({WHEN}; a date counts whole); default 7 days after "
        f"'from'. At most {MAX_RANGE_DAYS} days after 'from'.",
    )
    calendar: str | None = Field(
        None, description="Only this calendar (name, any case, 'Account/Name', or id)"
    )
    limit: int = Field(200, ge=1, le=1000, description="Maximum events to return")


class GetEvent(Input):
    id: str = Field(description="Event id, or an occurrence id '<id>@<occurrence>'")


class CreateEvent(Input):
    title: str = Field(description="Event title")
    startAt: str = Field(description=f"Start ({WHEN}; a date makes an all-day event)")
    endAt: str | None = Field(
        None,
        description="End, the same kind as startAt; an all-day end is exclusive (a one-day "
        "event on the 24th ends on the 25th). Default: one hour, or one day.",
    )
    allDay: bool = Field(False, description="All-day: the dates of startAt/endAt are used")
    timezone: str | None = Field(
        None,
        description="IANA zone the event keeps (e.g. 'Europe/Rome'), so 09:00 stays 09:00 "
        "across DST; a startAt or endAt without an offset is a time in it. Default: the "
        "person's zone when startAt's offset is its own.",
    )
    calendar: str | None = Field(
        None, description="Calendar name, 'Account/Name' or id; the default calendar"
    )
    location: str | None = Field(None, description="Where")
    notes: str | None = Field(None, description="Notes")
    url: str | None = Field(None, description="A link kept with the event")
    recurrence: str | None = Field(
        None,
        description="An RRULE, e.g. 'FREQ=WEEKLY;BYDAY=FR' or 'FREQ=DAILY;COUNT=5'. " + REPEATS,
    )
    alarms: list[AlarmInput] | None = Field(
        None, max_length=ALARMS_MAX, description=ALARMS_HELP + " (minutes before its start)"
    )


class Target(Input):
    id: str = Field(description="Event id, or an occurrence id '<id>@<occurrence>'")
    occurrence: str | None = Field(
        None,
        description="With a series id: the occurrence originally on this date (or at this "
        "date-time) instead of an occurrence id",
    )
    scope: Scope | None = Field(
        None,
        description="'occurrence' (just that one) or 'series' (all of them). Default: "
        "'occurrence' when an occurrence is named, else 'series'.",
    )


class UpdateEvent(Target):
    title: str | None = Field(None, description="New title")
    startAt: str | None = Field(None, description="New start; a new start keeps the length")
    endAt: str | None = Field(None, description="New end")
    timezone: str | None = Field(
        None,
        description="IANA zone the event keeps; a startAt or endAt without an offset is a "
        "time in it",
    )
    calendar: str | None = Field(
        None, description="Move to this calendar (name, 'Account/Name' or id)"
    )
    location: str | None = Field(None, description="New location; null clears")
    notes: str | None = Field(None, description="New notes; null clears")
    url: str | None = Field(None, description="New link; null clears")
    recurrence: str | None = Field(
        None, description="New RRULE for the series; null makes it a single event. " + REPEATS
    )
    alarms: list[AlarmInput] | None = Field(
        None,
        max_length=ALARMS_MAX,
        description=ALARMS_HELP + " (minutes before its start). Replaces all of them; [] or "
        "null clears.",
    )


class DeleteEvent(Target):
    pass


class Upcoming(Input):
    """The next days of events across all calendars."""

    days: int = Field(7, ge=1, le=30, description="How many days ahead (1-30)")
    limit: int = Field(100, ge=1, le=500, description="Maximum events (1-500)")
    timezone: str | None = Field(
        None, description="IANA zone for the window and the times; default the person's zone"
    )


# A month: the question free time answers is about days or weeks, and every busy event of the
# range is read (no limit cuts them), so the span bounds that read.
MAX_FREE_DAYS = 31
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
ALL_DAY_BLOCKS = (
    "All-day events take their days too (default: they do not - birthdays, holidays, "
    "a colleague's trip)"
)
CALENDARS = "Only these calendars (names, any case, or ids); default all"


class FindFreeTime(Input):
    model_config = ConfigDict(serialize_by_alias=True)

    start: str | None = Field(
        None, alias="from", description=f"Start of the range ({WHEN}); default now."
    )
    to: str | None = Field(
        None,
        description=f"End of the range ({WHEN}; a date counts whole); default 7 days after "
        f"'from'. At most {MAX_FREE_DAYS} days after 'from'.",
    )
    calendars: list[str] | None = Field(None, min_length=1, description=CALENDARS)
    hours: str | None = Field(
        None,
        description="Working hours 'HH:MM-HH:MM' in the person's zone (e.g. '09:00-17:00'; "
        "'24:00' ends at midnight); default the whole day",
    )
    weekdays: list[Weekday] | None = Field(
        None, description="Only these days (mon, tue, wed, thu, fri, sat, sun); default every day"
    )
    minutes: int = Field(30, ge=1, le=1440, description="Shortest free slot to answer, in minutes")
    includeAllDay: bool = Field(False, description=ALL_DAY_BLOCKS)
    limit: int = Field(200, ge=1, le=1000, description="Maximum slots to return")


class CheckConflicts(Input):
    start: str = Field(description=f"Proposed start ({WHEN})")
    end: str = Field(description=f"Proposed end ({WHEN}; a date counts whole)")
    calendars: list[str] | None = Field(None, min_length=1, description=CALENDARS)
    includeAllDay: bool = Field(False, description=ALL_DAY_BLOCKS)
