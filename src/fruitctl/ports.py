"""The Protocols backends implement: one per capability, matched structurally."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal, Protocol, TypedDict, runtime_checkable

from fruitctl.domain.query import Query
from fruitctl.domain.reminders import Reminder, ReminderList, Status

PermissionStatus = Literal["authorized", "denied", "not_determined", "restricted"]
FetchOrder = Literal["newest", "oldest", "priority", "dueDate", "open"]


@dataclass(frozen=True)
class ReminderScope:
    """Which reminders a read looks at: some lists (``None`` = every list) and a status."""

    list_ids: tuple[str, ...] | None = None
    status: Status = "incomplete"


@dataclass(frozen=True)
class ReminderQuery:
    """A fetch a backend must answer in full: filter, order (see ``domain.reminders.SORT_TERMS``)
    and limit are all its job, so it can push them down into its store."""

    scope: ReminderScope = field(default_factory=ReminderScope)
    order: FetchOrder = "newest"
    limit: int | None = None
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


class ReminderChanges(TypedDict, total=False):
    """Fields to change, by wire name. A key present with ``None`` clears that field;
    ``completionDate`` decides ``isCompleted``."""

    title: str
    notes: str | None
    listId: str
    dueDate: date | datetime | None
    priority: int
    completionDate: datetime | None
    tags: tuple[str, ...]
    isFlagged: bool
    url: str | None


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
class ReminderSearch(Protocol):
    """Optional: a backend that can run (part of) a JMESPath query in its store."""

    def search(self, scope: ReminderScope, query: Query, limit: int) -> Any:
        """The result of ``query`` over the reminders of ``scope`` in base order (newest first),
        exactly as evaluating it in memory would give, a list result cut to ``limit``."""
        ...
