"""The Protocols backends implement: one per capability, matched structurally."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal, Protocol, TypedDict, cast, runtime_checkable

from fruitctl.domain.alarms import Alarm
from fruitctl.domain.calendar import Calendar, Event
from fruitctl.domain.query import Query
from fruitctl.domain.reminders import Reminder, ReminderList, Status
from fruitctl.domain.things import (
    Area,
    Heading,
    Project,
    Tag,
    ThingsView,
    ToDo,
    ToDoPage,
    ToDoQuery,
)

PermissionStatus = Literal["authorized", "denied", "not_determined", "restricted"]
FetchOrder = Literal["newest", "oldest", "priority", "dueDate", "open"]


@dataclass(frozen=True)
class ReminderScope:
    """Which reminders a read looks at: some lists (``None`` = every list), a status, and
    (``text``) only those whose title or notes contain a text, in any case
    (``domain.reminders.mentioning`` is the reference)."""

    list_ids: tuple[str, ...] | None = None
    status: Status = "incomplete"
    text: str | None = None


@dataclass(frozen=True)
class ReminderQuery:
    """A fetch a backend must answer in full: filter, order (see ``domain.reminders.SORT_TERMS``)
    and limit are all its job, so it can push them down into its store."""

    scope: ReminderScope = field(default_factory=ReminderScope)
    order: FetchOrder = "newest"
    limit: int | None = None
    offset: int = 0
    """How many of the ordered reminders to skip before ``limit`` counts (paging)."""
    due_before: datetime | None = None
    """Only reminders due before this instant (plus undated ones if ``include_no_due``)."""
    include_no_due: bool = True


@dataclass(frozen=True)
class NewReminder:
    list_id: str
    title: str
    notes: str | None = None
    priority: int = 0
    due: date | datetime | None = None
    completion: datetime | None = None
    tags: tuple[str, ...] = ()
    is_flagged: bool = False
    url: str | None = None
    parent_id: str | None = None
    recurrence: str | None = None
    start: date | datetime | None = None
    alarms: tuple[Alarm, ...] = ()
    """All its alarms; a backend that cannot keep one (a location alarm) raises
    ``Unsupported`` rather than drop it."""


class ReminderChanges(TypedDict, total=False):
    """Fields to change, by wire name. A key present with ``None`` clears that field;
    ``completionDate`` decides ``isCompleted``; ``alarms`` replaces all of them (``()``
    clears)."""

    title: str
    notes: str | None
    listId: str
    dueDate: date | datetime | None
    priority: int
    completionDate: datetime | None
    tags: tuple[str, ...]
    isFlagged: bool
    url: str | None
    recurrence: str | None
    startDate: date | datetime | None
    alarms: tuple[Alarm, ...]


class RemindersBackend(Protocol):
    """Where reminders live. It raises ``fruitctl.domain.errors`` errors, never foreign ones."""

    name: str

    def permission_status(self) -> PermissionStatus: ...

    def lists(self, *, with_counts: bool = True) -> list[ReminderList]:
        """Every list, the default one first; ``count`` (incomplete reminders) only when asked,
        since resolving a list name must not cost a scan of the store."""
        ...

    def create_list(self, name: str) -> ReminderList: ...

    def fetch(self, query: ReminderQuery) -> list[Reminder]: ...

    def get(self, reminder_id: str) -> Reminder:
        """The reminder, or ``NotFound``."""
        ...

    def create(self, items: Sequence[NewReminder]) -> list[Reminder]:
        """Create all of ``items`` (or none of them), returned in input order."""
        ...

    def update(self, reminder_id: str, changes: ReminderChanges) -> Reminder: ...

    def delete(self, reminder_id: str) -> None: ...


@runtime_checkable
class DefaultListChoice(Protocol):
    """Optional: a backend where fruitctl may choose which list is the default (the store's
    own, or a CalDAV mirror's); Apple's Reminders keeps the person's choice in the app."""

    def set_default_list(self, list_id: str) -> None:
        """Make ``list_id`` the default list (``NotFound`` when there is no such list)."""
        ...


@runtime_checkable
class ReminderSearch(Protocol):
    """Optional: a backend that can run (part of) a JMESPath query in its store."""

    def search(self, scope: ReminderScope, query: Query, limit: int, offset: int = 0) -> Any:
        """The result of ``query`` over the reminders of ``scope`` in base order (newest first),
        exactly as evaluating it in memory would give, a list result cut to
        ``[offset:offset + limit]``."""
        ...


@runtime_checkable
class AnswersAtOnce(Protocol):
    """Optional: a store that knows which of its reads are a few bounded index reads in this
    process - short enough to answer on a front door's event loop, with no deadline to keep.
    A backend without it is never asked to: its reads keep a worker thread and a deadline."""

    def answers_at_once(self, query: ReminderQuery | EventRange | None) -> bool:
        """For ``query`` - a fetch, a range of events, or None for a lookup by id or the lists -
        whether it is such a read. False whenever in doubt."""
        ...


def answering_at_once(backend: object) -> AnswersAtOnce | None:
    """``backend`` as an ``AnswersAtOnce``, or None. Asked before every read a door may run on
    its event loop: decided once per class of store, as a Protocol's ``isinstance`` walks its
    members on every call (a sixteenth of a socket read's time)."""
    kind = type(backend)
    answers = _ANSWERS_AT_ONCE.get(kind)
    if answers is None:
        answers = _ANSWERS_AT_ONCE[kind] = issubclass(kind, AnswersAtOnce)
    return cast(AnswersAtOnce, backend) if answers else None


_ANSWERS_AT_ONCE: dict[type, bool] = {}


# Calendars -------------------------------------------------------------------------------------

EventScope = Literal["occurrence", "series"]


@dataclass(frozen=True)
class EventRange:
    """Events overlapping ``[start, end)`` (both aware), recurring series expanded into their
    occurrences, sorted by ``domain.calendar.event_sort_key``, at most ``limit``."""

    start: datetime
    end: datetime
    calendar_ids: tuple[str, ...] | None = None
    limit: int | None = None


@dataclass(frozen=True)
class NewEvent:
    calendar_id: str
    title: str
    start: date | datetime
    """A ``date`` for an all-day event, else an aware ``datetime``."""
    end: date | datetime
    timezone: str | None = None
    """IANA zone the times are kept in (``None``: the offset of ``start`` as given)."""
    location: str | None = None
    notes: str | None = None
    url: str | None = None
    recurrence: str | None = None
    """An RRULE value, e.g. ``FREQ=WEEKLY;BYDAY=FR``."""
    alarms: tuple[Alarm, ...] = ()


class EventChanges(TypedDict, total=False):
    """Fields to change, by wire name; a key present with ``None`` clears that field."""

    title: str
    startAt: date | datetime
    endAt: date | datetime
    timezone: str | None
    location: str | None
    notes: str | None
    url: str | None
    recurrence: str | None
    calendarId: str
    alarms: tuple[Alarm, ...]


class CalendarBackend(Protocol):
    """Where calendars live. It raises ``fruitctl.domain.errors`` errors, never foreign ones."""

    name: str

    def permission_status(self) -> PermissionStatus: ...

    def calendars(self) -> list[Calendar]:
        """Every calendar, the default one first."""
        ...

    def events(self, query: EventRange) -> list[Event]: ...

    def get_event(self, event_id: str) -> Event:
        """A single event or series (its master), or one occurrence by its occurrence id."""
        ...

    def create_event(self, new: NewEvent) -> Event: ...

    def update_event(self, event_id: str, changes: EventChanges, scope: EventScope) -> Event:
        """``scope="occurrence"`` with an occurrence id changes only that occurrence (a moved
        instance) and returns it; ``"series"`` changes the whole series - through an occurrence
        id, a new start moves every occurrence by the step that one takes - and returns the
        series (its occurrence ids change when its start does). A series id with
        ``"occurrence"``, or ``recurrence``/``calendarId`` on one occurrence, is
        ``InvalidParams``."""
        ...

    def delete_event(self, event_id: str, scope: EventScope) -> None:
        """``"occurrence"`` with an occurrence id removes that one instance (EXDATE);
        ``"series"`` removes the event and every occurrence. A series id with ``"occurrence"``
        is ``InvalidParams``; a single event's id with it removes the event."""
        ...


@runtime_checkable
class CalendarCreation(Protocol):
    """Optional: a backend where a new calendar can be made (the demo data uses it; a CalDAV
    server may not allow it, so it is not part of ``CalendarBackend``)."""

    def create_calendar(self, name: str) -> Calendar: ...


# Things 3 ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewToDo:
    title: str
    notes: str | None = None
    when: str | None = None
    """A word of ``domain.things.WHEN_WORDS`` or YYYY-MM-DD, either maybe with ``@HH:MM``."""
    deadline: date | None = None
    tags: tuple[str, ...] = ()
    checklist: tuple[str, ...] = ()
    list_id: str | None = None
    """A project's or an area's id."""
    heading: str | None = None
    """A heading's title in that project."""


class ToDoChanges(TypedDict, total=False):
    title: str
    notes: str
    when: str
    deadline: date | None
    tags: tuple[str, ...]
    list_id: str
    """Move it to this project or area."""
    heading_id: str
    """Move it under this heading (of its project, or of the one ``list_id`` names)."""
    prepend_checklist: tuple[str, ...]
    append_checklist: tuple[str, ...]
    """Checklist items added before / after those it has."""
    status: str
    """``completed``, ``canceled`` or ``open``."""


@dataclass(frozen=True)
class Sent:
    """A write launched: the to-do as read back, ``confirmed`` when the change was seen."""

    todo: ToDo | None
    confirmed: bool
    waited: float = 0.0
    url_params: tuple[str, ...] = field(default=())
    """The parameter names sent (never their values)."""


@dataclass(frozen=True)
class NewProject:
    title: str
    notes: str | None = None
    when: str | None = None
    deadline: date | None = None
    tags: tuple[str, ...] = ()
    area_id: str | None = None
    todos: tuple[str, ...] = ()
    """Titles of to-dos to add to it."""
    headings: tuple[str, ...] = ()
    """Titles of (empty) headings to add to it, after its to-dos."""


class ProjectChanges(TypedDict, total=False):
    title: str
    notes: str
    when: str
    deadline: date | None
    tags: tuple[str, ...]
    status: str
    """``completed``, ``canceled`` or ``open``."""


@dataclass(frozen=True)
class SentProject:
    """A project write launched: the project as read back, ``confirmed`` when seen."""

    project: Project | None
    confirmed: bool
    waited: float = 0.0


class ThingsWrites(Protocol):
    """Writes to Things, each confirmed (or not) by reading the store back."""

    def create(self, new: NewToDo) -> Sent: ...

    def check_create(self, new: NewToDo) -> None:
        """Refuse now what ``create`` would refuse before sending (a to-do too long for one
        URL), sending nothing: a proposal is checked when filed, not when approved."""
        ...

    def create_many(self, items: Sequence[NewToDo]) -> list[Sent]:
        """All of ``items`` in one go; one ``Sent`` each, in order."""
        ...

    def update(self, todo_id: str, changes: ToDoChanges) -> Sent: ...

    def create_project(self, new: NewProject) -> SentProject: ...

    def update_project(self, project_id: str, changes: ProjectChanges) -> SentProject: ...


class ThingsBackend(Protocol):
    """Where Things to-dos live. It raises ``fruitctl.domain.errors`` errors, never foreign ones."""

    def todos(
        self, today: date, view: ThingsView | None = None, search: str | None = None
    ) -> list[ToDo]:
        """Every to-do outside the Trash (of one view, in the app's order, when ``view`` is
        given; whose title or notes contain ``search``, any case, when it is given); ``today``
        decides what the app would show in Today and Upcoming."""
        ...

    def query(self, today: date, wanted: ToDoQuery) -> ToDoPage:
        """The to-dos ``wanted`` asks for, in the app's order (its view's, when it names one),
        the first ``wanted.limit`` of them built, with how many there are in all."""
        ...

    def todo(self, todo_id: str, today: date) -> ToDo:
        """One to-do (one in the Trash has no ``view``), or ``NotFound``."""
        ...

    def projects(self) -> list[Project]: ...

    def project(self, project_id: str) -> Project:
        """One project outside the Trash, or ``NotFound``."""
        ...

    def headings(self, project_id: str) -> list[Heading]:
        """A project's headings outside the Trash, in the app's order; ``NotFound`` for an
        unknown project."""
        ...

    def areas(self) -> list[Area]: ...

    def tags(self) -> list[Tag]: ...

    def status(self) -> dict[str, Any]:
        """Whether the store can be read and, if not, why."""
        ...


# -- web search ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str


class SearchProvider(Protocol):
    @property
    def name(self) -> str:
        """What the result calls the provider: ``duckduckgo``, ``searxng``, ``none``."""
        ...

    @property
    def hosts(self) -> tuple[str, ...]:
        """Every host a search contacts (what the outbound gate checks)."""
        ...

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        """Best first; at least ``max_results`` when the provider has them (more is fine: the
        service drops what the rules refuse, then keeps ``max_results``)."""
        ...
