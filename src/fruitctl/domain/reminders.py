"""Reminders and reminder lists, as they travel on the wire (seed 002 fields + GTD fields)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict

from fruitctl.domain.alarms import Alarm, alarms_of, wire_alarms
from fruitctl.domain.dates import canonical_datetime, canonical_due, instant, parse_wire
from fruitctl.domain.errors import InvalidParams
from fruitctl.domain.priorities import PriorityName as PriorityName
from fruitctl.domain.priorities import priority_name as priority_name
from fruitctl.domain.text import check_text as check_text  # its old home: callers import it here


# Dates are held as their canonical wire text (ISO 8601, explicit +HH:MM offset; a due date may
# be a bare date). A backend may hand in datetime/date objects or any ISO text: validation turns
# them into that text once, so reading a reminder out is a copy, never a parse and a format.
def _model_check(convert: Callable[[Any], str]) -> Callable[[Any], str]:
    # Bad data inside a model is a validation failure of that data, not of the caller's call.
    def check(value: Any) -> str:
        try:
            return convert(value)
        except InvalidParams as exc:
            raise ValueError(exc.message) from exc

    return check


WireDateTime = Annotated[str, BeforeValidator(_model_check(canonical_datetime))]
WireDue = Annotated[str, BeforeValidator(_model_check(canonical_due))]

Status = Literal["incomplete", "completed", "all"]
SortOrder = Literal["newest", "oldest", "priority", "dueDate"]

PRIORITY_VALUES: dict[str, int] = {"none": 0, "low": 9, "medium": 5, "high": 1}

TITLE_MAX = 1_000
NOTES_MAX = 100_000
TAG_MAX = 64
TAGS_MAX = 32


class Reminder(BaseModel):
    """One reminder. Field names are the wire names, so JMESPath sees exactly these."""

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
    isFlagged: bool = False
    url: str | None = None
    parentId: str | None = None
    recurrence: str | None = None
    tags: tuple[str, ...] = ()
    startDate: WireDue | None = None
    alarms: tuple[Alarm, ...] = ()

    @classmethod
    def trusted(cls, wire: dict[str, Any]) -> Reminder:
        """A reminder from wire data a store wrote itself, already canonical, without validation.

        Reading is the hot path; this costs a dict copy where ``model_construct`` costs ten
        times more. A test holds it equal to ``model_validate`` of the same data."""
        reminder = cls.__new__(cls)
        data = dict(wire)
        data["tags"] = tuple(data["tags"])
        data["startDate"] = data.get("startDate")
        data["alarms"] = alarms_of(data.get("alarms") or ())
        object.__setattr__(reminder, "__dict__", data)
        object.__setattr__(reminder, "__pydantic_fields_set__", _REMINDER_FIELDS)
        object.__setattr__(reminder, "__pydantic_extra__", None)
        object.__setattr__(reminder, "__pydantic_private__", None)
        return reminder

    def to_wire(self) -> dict[str, Any]:
        """The reminder as JSON-ready data, dates as ISO 8601 with offsets."""
        data = dict(self.__dict__)
        data["tags"] = list(self.tags)
        data["alarms"] = wire_alarms(self.alarms)
        return data

    @property
    def due(self) -> date | datetime | None:
        return None if self.dueDate is None else parse_wire(self.dueDate)

    @property
    def start(self) -> date | datetime | None:
        return None if self.startDate is None else parse_wire(self.startDate)

    @property
    def created(self) -> datetime:
        return datetime.fromisoformat(self.creationDate)


_REMINDER_FIELDS = frozenset(Reminder.model_fields)


class ReminderList(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str
    isDefault: bool
    count: int | None = None
    account: str | None = None
    """The account (source) the list belongs to - ``iCloud``, a CalDAV server, the embedded
    store: two lists may share a name in two accounts (``domain.accounts``)."""

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump()


def priority_value(name: str) -> int:
    """The stored priority for a seed 002 priority name."""
    try:
        return PRIORITY_VALUES[name]
    except (KeyError, TypeError) as exc:
        raise InvalidParams(
            f"Invalid priority: '{name}'. Must be one of: none, low, medium, high."
        ) from exc


def priority_rank(value: int) -> int:
    """Sort rank for 'priority': high (1) first, then 5, then 9, and none (0) last."""
    return 10 if value == 0 else value


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
    return r.created.timestamp()


def _due(r: Reminder) -> tuple[int, float]:
    due = r.due
    return (1, 0.0) if due is None else (0, instant(due))


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


def mentioning(items: Iterable[Reminder], text: str) -> list[Reminder]:
    """The reminders whose title or notes contain ``text`` in any case (Unicode case folding:
    "STRASSE" finds "Straße"), in their order."""
    wanted = text.casefold()
    return [
        r for r in items if wanted in r.title.casefold() or wanted in (r.notes or "").casefold()
    ]


def sort_reminders(items: Iterable[Reminder], order: str) -> list[Reminder]:
    """Sort in memory exactly as a backend that sorts in its store must."""
    result = list(items)
    for key, descending in reversed(SORT_TERMS[order]):
        result.sort(key=key, reverse=descending)  # stable, so earlier terms win
    return result
