"""What each tool answers, as types: the source of the ``returns`` schemas in ``aai.json`` and of
MCP's ``outputSchema`` (a test calls every tool and validates its answer against them).

Domain objects are their wire models (``Reminder``, ``Event``, ``ToDo`` ...); the envelopes around
them are TypedDicts, since the services answer plain JSON data. A write may also answer the
pending-proposal shape (``Pending``) when a person has to approve it first; the tool model adds
that to every write's schema. ``Pending`` and ``Proposal`` are declared here once, as models:
``approvals.views`` builds them, the HTTP API's OpenAPI and every door's schemas reuse them.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field, with_config
from typing_extensions import TypedDict

from fruitctl.domain.calendar import Calendar, Event
from fruitctl.domain.reminders import Reminder, ReminderList
from fruitctl.domain.things import Area, Project, Tag, ToDo

# -- answers of every write ---------------------------------------------------------------------


class Shape(BaseModel):
    """An answer the approvals build themselves, validated as it is built: no key more or less
    than declared (the HTTP API's OpenAPI and MCP's outputSchema say so too)."""

    model_config = ConfigDict(extra="forbid")


# An item that could not work, in a batch's answer or a pending one. Its own config, so that it is
# one schema everywhere rather than taking ``Pending``'s (no extra keys) in there alone.
@with_config(ConfigDict(extra="ignore"))
class IndexFailure(TypedDict):
    index: int
    error: str


@with_config(ConfigDict(extra="ignore"))
class IdFailure(TypedDict):
    id: str
    error: str


class Pending(Shape):
    """A write waiting for a person: approve it at ``url`` or with ``approve``, or poll it."""

    status: Literal["pending"]
    proposalId: str
    summary: str
    expiresAt: str
    approve: str = Field(description="The CLI command that approves it")
    url: str | None = Field(description="The approval page, when one is served")
    failed: list[IndexFailure | IdFailure] = Field(
        default_factory=list,
        description="Only in a batch some of whose items cannot work: those items, left out of "
        "the proposal (the rest waits for the person)",
    )


# -- reminders --------------------------------------------------------------------------------


class CreatedPartly(TypedDict):
    """Some items could not be made: those that could are in ``created``."""

    created: list[Reminder]
    failed: list[IndexFailure]


class UpdatedPartly(TypedDict):
    updated: list[Reminder]
    failed: list[IdFailure]


class Deleted(TypedDict):
    deleted: list[str]
    failed: list[IdFailure]


class OpenItem(TypedDict):
    id: str
    listName: str
    title: str
    dueAt: str | None
    priority: int
    isFlagged: bool
    tags: list[str]
    notesPreview: str | None


class OpenReminders(TypedDict):
    generatedAt: str
    items: list[OpenItem]
    count: int


OneReminder = Reminder
QueryReminders = list[Reminder] | Any
"""The reminders (an array); with ``query``, whatever the JMESPath expression yields."""
Reminders = list[Reminder]
CreateReminders = list[Reminder] | CreatedPartly
UpdateReminders = list[Reminder] | UpdatedPartly
Lists = list[ReminderList]

# -- calendars --------------------------------------------------------------------------------

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

# -- proposals ----------------------------------------------------------------------------------


Status = Literal["PENDING", "APPROVED", "EXECUTED", "REJECTED", "EXPIRED", "FAILED"]
"""Where a proposal stands (``APPROVED``: being executed)."""


class DiffRow(Shape):
    """One value a write changes, as a person reads it."""

    target: str
    field: str
    before: Any
    after: Any


class Proposal(Shape):
    """A whole proposal: what was asked, its before -> after diff, and what became of it."""

    id: str
    tool: str
    status: Status
    summary: str
    actor: str
    createdAt: str
    expiresAt: str
    resolvedAt: str | None
    resolvedBy: str | None
    reason: str | None
    args: dict[str, Any]
    diff: list[DiffRow]
    result: Any = Field(description="What the execution answered (EXECUTED)")
    error: dict[str, Any] | None
    canUndo: bool
    undoOf: str | None
    idempotencyKey: str | None


# -- files --------------------------------------------------------------------------------------


class FileRead(TypedDict):
    path: str
    size: int
    content: str


class Entry(TypedDict):
    name: str
    type: str
    size: int
    modified: str


class Directory(TypedDict):
    path: str
    entries: list[Entry]
    count: int


class FileWritten(TypedDict):
    path: str
    size: int
    created: bool


# -- system health ------------------------------------------------------------------------------


class Cpu(TypedDict):
    percent: float
    per_core_percent: list[float]
    logical_cores: int | None
    physical_cores: int | None


LoadAverage = TypedDict("LoadAverage", {"1m": float, "5m": float, "15m": float})


class Memory(TypedDict):
    total_bytes: int
    available_bytes: int
    used_percent: float


class Swap(TypedDict):
    total_bytes: int
    used_bytes: int
    used_percent: float


class Disk(TypedDict):
    path: str
    total_bytes: int
    used_bytes: int
    free_bytes: int
    used_percent: float


class Disks(TypedDict):
    root: Disk | None
    home: Disk | None


class Gpu(TypedDict):
    name: str
    utilization_percent: float | None
    memory_used_mb: float | None
    memory_total_mb: float | None


class Metrics(TypedDict):
    captured_at: str
    cpu: Cpu
    load_average: LoadAverage
    memory: Memory
    swap: Swap
    disk: Disks
    boot_time: str
    uptime_seconds: int
    gpu: list[Gpu] | None
    gpu_error: str | None


class ProcessQuery(TypedDict):
    name: str | None
    pid: int | None


class Process(TypedDict):
    pid: int
    name: str | None
    running: bool
    status: str | None
    cpu_percent: float | None
    rss_bytes: int | None
    started_at: str | None
    uptime_seconds: int | None


class ProcessHealth(TypedDict):
    query: ProcessQuery
    running: bool
    count: int
    processes: list[Process]


class LogEntry(TypedDict):
    time: str | None
    level: str | None
    process: str | None
    pid: int | None
    message: str


class Logs(TypedDict):
    source: str
    since_minutes: int
    level: str | None
    process: str | None
    count: int
    truncated: bool
    warning: str | None
    entries: list[LogEntry]


# -- web ------------------------------------------------------------------------------------------


class SearchResult(TypedDict):
    title: str
    url: str
    snippet: str


class SearchAnswer(TypedDict):
    query: str
    provider: str
    results: list[SearchResult]
    count: int


# -- Things -------------------------------------------------------------------------------------


class ToDos(TypedDict):
    todos: list[ToDo]
    count: int
    total: int


class Unconfirmed(TypedDict):
    """Handed to Things, but not seen in its database in time: sent, never reported done."""

    status: Literal["sent"]
    confirmed: Literal[False]
    message: str


class ToDoConfirmed(TypedDict):
    status: Literal["confirmed"]
    todo: ToDo


class ProjectConfirmed(TypedDict):
    status: Literal["confirmed"]
    project: Project


class ToDosSent(TypedDict):
    status: Literal["confirmed", "sent"]
    todos: list[ToDo]
    confirmed: NotRequired[bool]
    message: NotRequired[str]
    failed: NotRequired[list[IndexFailure]]


OneToDo = ToDo
ToDoWrite = ToDoConfirmed | Unconfirmed
ProjectWrite = ProjectConfirmed | Unconfirmed
Projects = list[Project]
Areas = list[Area]
Tags = list[Tag]
