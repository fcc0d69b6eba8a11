"""Things 3 to-dos, projects, areas and tags, as they travel on the wire.

Things keeps a scheduled date and a deadline as a packed integer, ``year << 16 | month << 12 |
day << 7`` (``pack_date`` / ``unpack_date``); fruitctl answers them as dates (``2026-03-02``),
never as midnight. Moments (created, modified, completed) are date-times with their offset.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, NamedTuple, get_args

from pydantic import BaseModel, ConfigDict

ThingsView = Literal["inbox", "today", "upcoming", "anytime", "someday", "logbook"]
VIEWS: tuple[ThingsView, ...] = get_args(ThingsView)
ToDoStatus = Literal["open", "completed", "canceled"]

WhenWord = Literal["today", "tomorrow", "evening", "anytime", "someday"]
"""What Things schedules a to-do or project by (its URL scheme's ``when``), besides a date."""
WHEN_WORDS: tuple[WhenWord, ...] = get_args(WhenWord)
REMINDER_DAYS = ("today", "tomorrow")
"""The words Things takes before ``@HH:MM`` (its "date time string"), besides a date."""
WHEN = (
    f"{', '.join(WHEN_WORDS)}, or a date YYYY-MM-DD; today, tomorrow or a date followed by "
    "@HH:MM (24-hour) also sets a reminder at that time, e.g. today@18:00"
)
"""The whole vocabulary of ``when``, in words: every description, help and error says this."""
# Things keeps a to-do's reminder as ``hour << 26 | minute << 20`` in ``reminderTime`` (things.py
# ``convert_thingstime_sql_expression_to_isotime``: masks 2080374784 and 66060288).
HOUR_SHIFT, MINUTE_SHIFT, HOUR_MASK, MINUTE_MASK = 26, 20, 0b11111, 0b111111


def unpack_date(packed: int | None) -> date | None:
    """The date of a packed Things date (``None`` stays ``None``)."""
    if packed is None:
        return None
    return date(packed >> 16, (packed >> 12) & 0xF, (packed >> 7) & 0x1F)


def pack_date(day: date) -> int:
    return day.year << 16 | day.month << 12 | day.day << 7


def unpack_time(packed: int | None) -> str | None:
    """``HH:MM`` of a packed Things reminder time (``None`` or 0: no reminder)."""
    if not packed:
        return None
    hour, minute = (packed >> HOUR_SHIFT) & HOUR_MASK, (packed >> MINUTE_SHIFT) & MINUTE_MASK
    return f"{hour:02d}:{minute:02d}"


class Ref(BaseModel):
    """A project, area or heading a to-do belongs to."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    title: str


class ChecklistItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str
    done: bool


class Repeating(BaseModel):
    """What makes a to-do one instance of a repeating to-do: Things keeps the rule on a hidden
    *template* (never a to-do itself) and makes each instance from it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    template: str
    """The id of the template; changing or completing it is refused (it is not a to-do)."""
    rule: str | None = None
    """How it repeats, in words (``every 2 weeks``); ``None`` when Things' rule is not one
    fruitctl knows how to say."""


class ToDo(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    title: str
    notes: str | None = None
    status: ToDoStatus = "open"
    view: ThingsView | None = None
    """Where the Things app shows it now; ``None`` for a to-do in the Trash."""
    startDate: str | None = None
    reminderTime: str | None = None
    """``HH:MM``, local time on ``startDate``, when Things reminds of it (``when`` with
    ``@HH:MM``); ``None`` without a reminder."""
    deadline: str | None = None
    tags: tuple[str, ...] = ()
    project: Ref | None = None
    area: Ref | None = None
    heading: Ref | None = None
    checklist: tuple[ChecklistItem, ...] = ()
    repeating: Repeating | None = None
    creationDate: str | None = None
    modificationDate: str | None = None
    completionDate: str | None = None

    def to_wire(self) -> dict[str, Any]:
        data = self.model_dump()
        data["tags"] = list(self.tags)
        data["checklist"] = [dict(item) for item in data["checklist"]]
        return data


@dataclass(frozen=True)
class ToDoQuery:
    """Which to-dos a read wants, narrowed by the reader before any is built."""

    view: ThingsView | None = None
    """One view; ``None``: every view but the Logbook."""
    search: str | None = None
    """Title or notes contain it, any case."""
    project: str | None = None
    """A project's id: its to-dos, under its headings too."""
    area: str | None = None
    """An area's id: its to-dos, and those of its projects."""
    tag: str | None = None
    """A tag's title."""
    limit: int | None = None
    """The most to-dos built and answered (the first, in the app's order); all when None."""


class ToDoPage(NamedTuple):
    todos: list[ToDo]
    total: int
    """How many the query found, the page's and the rest."""


class Project(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    title: str
    notes: str | None = None
    status: ToDoStatus = "open"
    area: Ref | None = None
    tags: tuple[str, ...] = ()
    startDate: str | None = None
    deadline: str | None = None
    openCount: int = 0
    creationDate: str | None = None
    modificationDate: str | None = None
    completionDate: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return {**self.model_dump(), "tags": list(self.tags)}


class Heading(BaseModel):
    """A heading in a project: a title its to-dos are grouped under."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    title: str
    project: Ref
    openCount: int = 0

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump()


class Area(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    title: str
    tags: tuple[str, ...] = ()

    def to_wire(self) -> dict[str, Any]:
        return {**self.model_dump(), "tags": list(self.tags)}


class Tag(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    title: str
    parent: str | None = None
    """The title of the tag this one is nested in."""

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump()
