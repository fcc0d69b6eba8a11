"""What crosses the EventKit adapter: plain values, and the one Protocol the adapter implements.

The adapter (``adapter.py`` and its helpers) is the only code that touches PyObjC: it turns
EventKit objects into these frozen values and these values into EventKit calls, and nothing
else - no choices, no mapping to fruitctl's domain. Everything above it (the backends,
``mapping.py``) works on these values and is tested on Linux through a fake of ``EventKitPort``.

Conventions:
- Instants are aware ``datetime`` objects (UTC is fine); the adapter converts ``NSDate``.
- ``DateParts`` is ``NSDateComponents``: a date, with a time of day when ``hour`` is set, and
  the components' own zone (``None``: floating). A due date without an hour is a date.
- A write carries only the fields it sets (``fields``); a key present with ``None`` clears.
- Failures are ``StoreError`` (an ``NSError``'s domain, code and description) and
  ``StoreTimeout`` (a completion handler that did not answer); the backends map them to the
  domain's errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

Entity = Literal["event", "reminder"]
ReminderStatus = Literal["incomplete", "completed", "all"]

# EKAuthorizationStatus, as EventKit answers it.
NOT_DETERMINED, RESTRICTED, DENIED, FULL_ACCESS, WRITE_ONLY = 0, 1, 2, 3, 4

# EKRecurrenceFrequency.
DAILY, WEEKLY, MONTHLY, YEARLY = 0, 1, 2, 3

REMINDER_FIELDS = frozenset(
    {
        *("calendar_id", "title", "notes", "priority", "due", "start", "alarms"),
        *("completion", "url", "rules"),
    }
)
"""What a ``ReminderWrite`` may set. ``completion``: a ``datetime`` completes the reminder at
that time, ``None`` makes it incomplete again. ``start``: ``startDateComponents``, what a
relative alarm counts from. ``alarms``: the reminder's time alarms, all of them (a tuple of
``RawAlarm``; its location alarms are left as they are)."""

EVENT_FIELDS = frozenset(
    {
        "calendar_id",
        "title",
        "start",
        "end",
        "all_day",
        "timezone",
        "location",
        "notes",
        "url",
        "rules",
        "alarms",
    }
)
"""What an ``EventWrite`` may set. ``timezone``: an IANA name, ``None`` for floating.
``alarms``: its time alarms, all of them (as a reminder's)."""


ADAPTER_DOMAIN = "fruitctl.eventkit"
"""The ``StoreError`` domain of failures the adapter itself reports (not an ``NSError``)."""
NOT_FOUND = 1
"""In ``ADAPTER_DOMAIN``: a write or removal named an item or calendar EventKit does not have."""
OBJC_EXCEPTION = 2
"""In ``ADAPTER_DOMAIN``: EventKit raised an Objective-C exception (``StoreError.exception``
names it, the message is its reason)."""
INVALID_VALUE = 3
"""In ``ADAPTER_DOMAIN``: a value EventKit has no form for (a zone name it does not know, a
text ``NSURL`` refuses)."""


class StoreError(Exception):
    """EventKit refused something: the ``NSError``'s domain, code and localized description."""

    def __init__(
        self, domain: str, code: int, message: str, *, exception: str | None = None
    ) -> None:
        super().__init__(f"{domain} {code}: {message}")
        self.domain = domain
        self.code = code
        self.message = message
        self.exception = exception
        """The Objective-C exception's name (``NSInvalidArgumentException``) for
        ``OBJC_EXCEPTION``."""


class StoreTimeout(Exception):
    """A completion handler did not answer in time; the fetch was cancelled."""


@dataclass(frozen=True)
class DateParts:
    year: int
    month: int
    day: int
    hour: int | None = None
    minute: int | None = None
    second: int | None = None
    timezone: str | None = None
    """The components' own zone (IANA name); ``None`` when floating."""

    @property
    def has_time(self) -> bool:
        return self.hour is not None


@dataclass(frozen=True)
class RawAlarm:
    """``EKAlarm`` at a time: ``absolute`` (``absoluteDate``) when set, else ``offset`` seconds
    from the item's start (``relativeOffset``; negative is before). Reminders.app notifies at a
    timed reminder's alarms only: it writes one at offset 0 and sets the start to the due."""

    offset: float = 0.0
    absolute: datetime | None = None


@dataclass(frozen=True)
class RawCalendar:
    id: str
    """``calendarIdentifier``."""
    title: str
    writable: bool
    """``allowsContentModifications``."""
    source: str | None = None
    """``source().title()``: the account (iCloud, On My Mac, Exchange …)."""
    color: str | None = None
    """``#RRGGBB`` when the adapter can read it."""


@dataclass(frozen=True)
class RawRule:
    """``EKRecurrenceRule`` as plain values (``recurrence_text`` in ``mapping`` makes an RRULE)."""

    frequency: int
    interval: int = 1
    days_of_week: tuple[tuple[int, int], ...] = ()
    """``(weekday, week)``: weekday 1 Sunday … 7 Saturday; week 0 every, else 1…53 / -1…-53."""
    days_of_month: tuple[int, ...] = ()
    months: tuple[int, ...] = ()
    weeks_of_year: tuple[int, ...] = ()
    days_of_year: tuple[int, ...] = ()
    set_positions: tuple[int, ...] = ()
    end: datetime | None = None
    count: int | None = None
    first_day_of_week: int = 0
    """0: the locale's default; else 1 Sunday … 7 Saturday."""


@dataclass(frozen=True)
class RawReminder:
    id: str
    """``calendarItemIdentifier``."""
    calendar_id: str
    title: str
    notes: str | None = None
    priority: int = 0
    """EventKit's 0-9: 0 none, 1-4 high, 5 medium, 6-9 low."""
    due: DateParts | None = None
    start: DateParts | None = None
    alarms: tuple[RawAlarm, ...] = ()
    """Its time alarms (location alarms are not read)."""
    completed: bool = False
    completion: datetime | None = None
    created: datetime | None = None
    modified: datetime | None = None
    """``lastModifiedDate``: what a proposal's conflict check compares."""
    url: str | None = None
    rules: tuple[RawRule, ...] = ()


@dataclass(frozen=True)
class RawEvent:
    id: str
    """``calendarItemIdentifier``: the same for every occurrence of a series."""
    calendar_id: str
    title: str
    start: datetime
    end: datetime
    all_day: bool = False
    timezone: str | None = None
    """The event's own zone (IANA name); ``None`` for floating and all-day events."""
    location: str | None = None
    notes: str | None = None
    url: str | None = None
    free: bool = False
    """``availability`` is free: the event does not take its time."""
    rules: tuple[RawRule, ...] = ()
    occurrence: datetime | None = None
    """``occurrenceDate``: the original start of this occurrence of a series (``None`` for an
    event that does not repeat)."""
    detached: bool = False
    """``isDetached``: an occurrence changed on its own."""
    created: datetime | None = None
    modified: datetime | None = None
    alarms: tuple[RawAlarm, ...] = ()
    """Its time alarms, an offset counted from its start."""


@dataclass(frozen=True)
class ReminderWrite:
    """A new reminder (``id`` None) or changes to one; ``fields`` keys from REMINDER_FIELDS."""

    id: str | None
    fields: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EventWrite:
    """A new event (``id`` None) or changes to one. ``occurrence``: the original start of the
    one occurrence of a series addressed; ``fields`` keys from EVENT_FIELDS."""

    id: str | None
    occurrence: datetime | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)


class EventKitPort(Protocol):
    """One warm ``EKEventStore``, as plain values. Every method may raise ``StoreError``."""

    def authorization(self, entity: Entity) -> int:
        """``EKAuthorizationStatus`` for the entity type (see the constants above)."""
        ...

    def request_access(self, entity: Entity, timeout: float) -> bool:
        """Ask the person (the system prompt, once); whether access was granted."""
        ...

    def calendars(self, entity: Entity) -> list[RawCalendar]: ...

    def default_calendar(self, entity: Entity) -> str | None:
        """The id of the default calendar for new reminders / events, if any."""
        ...

    def create_calendar(self, entity: Entity, title: str) -> RawCalendar:
        """A new calendar (a reminder list) in the default calendar's account."""
        ...

    def remove_calendar(self, calendar_id: str) -> None:
        """Remove a calendar and everything in it (``removeCalendar:commit:error:``)."""
        ...

    def fetch_reminders(
        self,
        calendar_ids: Sequence[str] | None,
        status: ReminderStatus,
        due_from: datetime | None,
        due_to: datetime | None,
        timeout: float,
    ) -> list[RawReminder]:
        """Through EventKit's predicates: the reminders of those calendars (``None``: all) of
        that status; ``due_from``/``due_to`` narrow incomplete ones by due date. Raises
        ``StoreTimeout`` (after cancelling the fetch) when no answer comes in ``timeout`` s."""
        ...

    def reminder(self, item_id: str) -> RawReminder | None:
        """The reminder as saved now: read after dropping what the store had cached, so one
        changed in another app since is read as it is (what a write and a proposal's conflict
        check compare against)."""
        ...

    def save_reminders(self, writes: Sequence[ReminderWrite]) -> list[RawReminder]:
        """Apply every write to the reminders as saved now (never a cached copy) and commit
        once; on failure nothing is kept (the store is reset) and ``StoreError`` is raised.
        Returns the reminders as saved, in order."""
        ...

    def remove_reminders(self, item_ids: Sequence[str]) -> None:
        """Remove them and commit once; an id that names nothing raises ``StoreError``."""
        ...

    def events(
        self, start: datetime, end: datetime, calendar_ids: Sequence[str] | None
    ) -> list[RawEvent]:
        """Events overlapping ``[start, end)`` (at most four years: EventKit's limit), series
        expanded into occurrences, as EventKit answers them."""
        ...

    def event(self, item_id: str) -> RawEvent | None:
        """An event by id as saved now (as ``reminder``); for a series, its master event: the
        series' own first start and rules (``occurrence`` is that first start), even when
        that first occurrence was since removed or moved alone."""
        ...

    def save_event(self, write: EventWrite, future: bool) -> RawEvent:
        """Apply and commit. ``write.occurrence`` None addresses the event itself (a series'
        master: with ``future``, the whole series); else the occurrence of its series with
        that original start. ``future``: this and the following occurrences (EventKit's
        ``EKSpanFutureEvents``), else this occurrence only (``EKSpanThisEvent``)."""
        ...

    def remove_event(self, item_id: str, occurrence: datetime | None, future: bool) -> None:
        """Remove the event, the occurrence or the series, addressed as ``save_event``."""
        ...

    def refresh(self) -> None:
        """Pick up changes other apps made: drop every object the store has cached (``reset``;
        nothing is held across calls) and pull the accounts (``refreshSourcesIfNecessary``)."""
        ...
