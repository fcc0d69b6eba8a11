"""What the calendar tools answer, as types (their ``returns`` and ``outputSchema``)."""

from __future__ import annotations

from typing_extensions import TypedDict

from fruitctl.domain.calendar import Calendar, Event

ZonedWindow = TypedDict("ZonedWindow", {"from": str, "to": str, "timezone": str})


class Events(TypedDict):
    window: ZonedWindow
    events: list[Event]
    count: int


class UpcomingEvent(TypedDict):
    id: str
    calendarName: str
    title: str
    startAt: str
    endAt: str
    allDay: bool
    location: str | None
    notesPreview: str | None


class Upcoming(TypedDict):
    window: ZonedWindow
    events: list[UpcomingEvent]
    count: int


class EventDeleted(TypedDict):
    deleted: str
    scope: str


Calendars = list[Calendar]
OneEvent = Event


class Slot(TypedDict):
    start: str
    end: str
    minutes: int


class FreeTime(TypedDict):
    window: ZonedWindow
    slots: list[Slot]
    count: int
    more: bool


class Conflicts(TypedDict):
    window: ZonedWindow
    conflicts: list[Event]
    count: int
