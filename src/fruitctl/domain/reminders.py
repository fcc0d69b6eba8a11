"""Reminders and reminder lists, as they travel on the wire (seed 002 fields + GTD fields)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, PlainSerializer

from fruitctl.domain.dates import (
    format_date_or_datetime,
    format_datetime,
    instant,
)
from fruitctl.domain.errors import InvalidParams

WireDateTime = Annotated[datetime, PlainSerializer(format_datetime, return_type=str)]
WireDue = Annotated[date | datetime, PlainSerializer(format_date_or_datetime, return_type=str)]

Status = Literal["incomplete", "completed", "all"]
SortOrder = Literal["newest", "oldest", "priority", "dueDate"]
PriorityName = Literal["none", "low", "medium", "high"]

STATUSES: tuple[Status, ...] = ("incomplete", "completed", "all")
SORT_ORDERS: tuple[SortOrder, ...] = ("newest", "oldest", "priority", "dueDate")
PRIORITY_VALUES: dict[str, int] = {"none": 0, "low": 9, "medium": 5, "high": 1}

TITLE_MAX = 1_000
NOTES_MAX = 100_000
TAG_MAX = 64
TAGS_MAX = 32


class Reminder(BaseModel):
    """One reminder. Field names are the wire names (seed 002), so JMESPath sees exactly these."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    title: str
    notes: str | None = None
    listId: str
    listName: str
    isCompleted: bool = False
    priority: int = 0
    dueDate: WireDue | None = None
    completionDate: WireDateTime | None = None
    creationDate: WireDateTime
    modificationDate: WireDateTime
    tags: tuple[str, ...] = ()
    isFlagged: bool = False
    url: str | None = None
    parentId: str | None = None
    recurrence: str | None = None

    def to_wire(self) -> dict[str, Any]:
        """The reminder as JSON-ready data, dates as ISO 8601 with offsets."""
        data = self.model_dump()
        data["tags"] = list(self.tags)
        return data


class ReminderList(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str
    isDefault: bool
    count: int | None = None

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump()


def priority_value(name: str) -> int:
    """The stored priority for a seed 002 priority name."""
    try:
        return PRIORITY_VALUES[name]
    except (KeyError, TypeError):
        raise InvalidParams(
            f"Invalid priority: '{name}'. Must be one of: none, low, medium, high."
        ) from None


def priority_name(value: int) -> PriorityName:
    """The name a person sees; Apple spreads high over 1-4 and low over 6-9."""
    if value == 0:
        return "none"
    if value < 5:
        return "high"
    if value == 5:
        return "medium"
    return "low"


def priority_rank(value: int) -> int:
    """Sort rank for 'priority': high (1) first, then 5, then 9, and none (0) last."""
    return 10 if value == 0 else value


def check_text(field: str, value: str, *, limit: int, multiline: bool = False) -> str:
    """Reject control characters (NUL included) and oversized text, naming the field."""
    allowed = "\n\t\r" if multiline else "\t"
    if any(ord(ch) < 32 and ch not in allowed for ch in value) or "\x7f" in value:
        raise InvalidParams(f"'{field}' must not contain control characters.")
    if len(value) > limit:
        raise InvalidParams(f"'{field}' is longer than {limit} characters.")
    return value


def check_title(value: str) -> str:
    if not value.strip():
        raise InvalidParams("'title' must not be empty.")
    return check_text("title", value, limit=TITLE_MAX)


def check_tags(values: Iterable[str]) -> tuple[str, ...]:
    """Tags are kept as written (no case folding), trimmed, de-duplicated in order."""
    tags: list[str] = []
    for raw in values:
        tag = check_text("tags", raw, limit=TAG_MAX).strip()
        if not tag:
            raise InvalidParams("'tags' must not contain empty tags.")
        if tag not in tags:
            tags.append(tag)
    if len(tags) > TAGS_MAX:
        raise InvalidParams(f"'tags' holds more than {TAGS_MAX} tags.")
    return tuple(tags)


# Ordering. Each order is a list of (key, descending) terms, most significant first, and every
# order ends in a total tie-break, so results are deterministic and any backend can mirror it.

SortTerm = tuple[Callable[[Reminder], Any], bool]


def _created(r: Reminder) -> float:
    return r.creationDate.timestamp()


def _due(r: Reminder) -> tuple[int, float]:
    return (1, 0.0) if r.dueDate is None else (0, instant(r.dueDate))


def _id(r: Reminder) -> str:
    return r.id


_NEWEST: list[SortTerm] = [(_created, True), (_id, True)]

SORT_TERMS: dict[str, list[SortTerm]] = {
    "newest": _NEWEST,
    "oldest": [(_created, False), (_id, False)],
    "priority": [(lambda r: priority_rank(r.priority), False), *_NEWEST],
    "dueDate": [(_due, False), *_NEWEST],
    # seed 000's open view: due soonest (no due date last), flagged first, then title.
    "open": [
        (_due, False),
        (lambda r: r.isFlagged, True),
        (lambda r: r.title, False),
        (_id, False),
    ],
}


def sort_reminders(items: Iterable[Reminder], order: str) -> list[Reminder]:
    """Sort in memory exactly as a backend that sorts in its store must."""
    result = list(items)
    for key, descending in reversed(SORT_TERMS[order]):
        result.sort(key=key, reverse=descending)  # stable, so earlier terms win
    return result
