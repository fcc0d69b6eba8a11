"""The person's Apple Reminders through EventKit (the ``RemindersBackend`` port).

Reads push list selection, completion status and (for open reminders) the due range down into
EventKit's predicates; the order and the limit are fruitctl's own sort (``sort_reminders``), so
every backend answers alike. A short read cache (``cache_seconds``) absorbs an agent's bursts -
EventKit has no cheap change check without a run loop - and every write drops it; past it, a
read has the store drop what it had cached (``Refresher``), so the daemon is never more than
``cache_seconds`` behind the Reminders app. ``get`` and every write read the item as saved now.
Tags, the flag and subtasks come from the Reminders app's store when it can be read
(``tagstore``); EventKit cannot write them, so a write of them is ``unsupported`` here, never
silently dropped.

Every call first makes sure this process has access (``Access.require``): without it the answer
is ``permission_denied`` with the instructions, never an empty list.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime

from fruitctl.backends.eventkit import mapping
from fruitctl.backends.eventkit.errors import translated
from fruitctl.backends.eventkit.fresh import Refresher
from fruitctl.backends.eventkit.permission import Access
from fruitctl.backends.eventkit.tagstore import TagStore
from fruitctl.backends.eventkit.values import Entity, EventKitPort, RawReminder, ReminderWrite
from fruitctl.domain.dates import instant
from fruitctl.domain.errors import InvalidParams, NotFound, Unsupported
from fruitctl.domain.reminders import (
    Reminder,
    ReminderList,
    Status,
    check_text,
    mentioning,
    sort_reminders,
)
from fruitctl.ports import (
    NewReminder,
    PermissionStatus,
    ReminderChanges,
    ReminderQuery,
)

ENTITY: Entity = "reminder"
NOT_WRITABLE = (
    "Apple's EventKit cannot write {what}: change them in the Reminders app (fruitctl reads them "
    "from its store when it may)."
)


class EventKitReminders:
    """Reminders in the person's own Reminders app."""

    name = "eventkit"

    def __init__(
        self,
        port: EventKitPort,
        access: Access,
        tags: TagStore,
        *,
        fetch_timeout: float = 10.0,
        cache_seconds: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._port = port
        self._access = access
        self._tags = tags
        self._timeout = fetch_timeout
        self._cache_seconds = cache_seconds
        self._clock = clock
        self._cache: dict[ReminderQuery, tuple[float, tuple[Reminder, ...]]] = {}
        self._refresh = Refresher(port, cache_seconds, clock)
        self._lock = threading.Lock()

    # -- what the doctor and system.info ask -----------------------------------------------------

    def permission_status(self) -> PermissionStatus:
        return self._access.status(ENTITY)

    def request_access(self) -> PermissionStatus:
        """Show macOS's prompt now if the person has not answered it (``fruitctl doctor``)."""
        return self._access.request(ENTITY)

    def access_holder(self) -> str:
        """The app macOS asks about: the one to enable in System Settings."""
        who = self._access.responsible()
        return f"{who.name} ({who.path})"

    def tags_status(self) -> dict[str, object]:
        return self._tags.status()

    # -- lists -----------------------------------------------------------------------------------

    def lists(self, *, with_counts: bool = True) -> list[ReminderList]:
        self._access.require(ENTITY)
        self._refresh()  # a list renamed or added in the app since
        with translated("read the reminder lists"):
            calendars = self._port.calendars(ENTITY)
            default = self._port.default_calendar(ENTITY)
        counts: dict[str, int] = {}
        if with_counts:
            for raw in self._fetch_raw(None, "incomplete", None):
                counts[raw.calendar_id] = counts.get(raw.calendar_id, 0) + 1
        ordered = sorted(calendars, key=lambda c: c.id != default)  # stable: the app's order
        return [
            ReminderList(
                id=c.id,
                name=c.title,
                isDefault=c.id == default,
                count=counts.get(c.id, 0) if with_counts else None,
                account=c.source,
            )
            for c in ordered
        ]

    def create_list(self, name: str) -> ReminderList:
        name = check_text("name", name, limit=200).strip()
        if not name:
            raise InvalidParams.empty_name()
        self._access.require(ENTITY)
        if any(known.name.casefold() == name.casefold() for known in self.lists(with_counts=False)):
            raise InvalidParams.name_taken("list", name)
        with translated(f"create the list '{name}'"):
            made = self._port.create_calendar(ENTITY, name)
        self._forget()
        return ReminderList(
            id=made.id, name=made.title, isDefault=False, count=0, account=made.source
        )

    def delete_list(self, list_id: str) -> None:
        """Remove a list and its reminders (``fruitctl doctor --write-test`` cleans up with it)."""
        self._access.require(ENTITY)
        with translated("remove the list"):
            self._port.remove_calendar(list_id)
        self._forget()

    # -- reads -----------------------------------------------------------------------------------

    def fetch(self, query: ReminderQuery) -> list[Reminder]:
        self._access.require(ENTITY)
        now = self._clock()
        with self._lock:
            cached = self._cache.get(query)
        if cached is not None and now - cached[0] < self._cache_seconds:
            return list(cached[1])
        self._refresh()
        found = tuple(self._fetch(query))
        with self._lock:
            self._cache[query] = (now, found)
        return list(found)

    def _fetch(self, query: ReminderQuery) -> list[Reminder]:
        scope, due_before = query.scope, query.due_before
        # EventKit's due range leaves out reminders without a due date: push it down only when
        # those are not wanted, and for open reminders (the only predicate that takes one).
        pushed = due_before if scope.status == "incomplete" and not query.include_no_due else None
        raws = self._fetch_raw(scope.list_ids, scope.status, pushed)
        found = self._reminders(raws)
        if scope.text is not None:  # EventKit's predicates cannot match a text
            found = mentioning(found, scope.text)
        if due_before is not None or not query.include_no_due:
            found = [r for r in found if _due_ok(r, due_before, query.include_no_due)]
        ordered = sort_reminders(found, query.order)
        end = None if query.limit is None else query.offset + query.limit
        return ordered[query.offset : end]

    def get(self, reminder_id: str) -> Reminder:
        self._access.require(ENTITY)
        return self._reminders([self._existing(reminder_id)])[0]

    # -- writes ----------------------------------------------------------------------------------

    def create(self, items: Sequence[NewReminder]) -> list[Reminder]:
        self._access.require(ENTITY)
        for item in items:
            _refuse_extras(bool(item.tags), item.is_flagged, item.parent_id is not None)
        self._require_lists({item.list_id for item in items})
        writes = [ReminderWrite(None, mapping.new_fields(item)) for item in items]
        with translated("save the reminders"):
            saved = self._port.save_reminders(writes)  # one commit for the batch
        self._forget()
        return self._reminders(saved)

    def update(self, reminder_id: str, changes: ReminderChanges) -> Reminder:
        self._access.require(ENTITY)
        _refuse_extras("tags" in changes, "isFlagged" in changes, False)
        current = self._existing(reminder_id)
        if "listId" in changes:
            self._require_lists({changes["listId"]})
        write = ReminderWrite(reminder_id, mapping.change_fields(changes, current))
        with translated("save the reminder"):
            (saved,) = self._port.save_reminders([write])
        self._forget()
        return self._reminders([saved])[0]

    def delete(self, reminder_id: str) -> None:
        self._access.require(ENTITY)
        self._existing(reminder_id)
        with translated("remove the reminder"):
            self._port.remove_reminders([reminder_id])
        self._forget()

    # -- helpers ---------------------------------------------------------------------------------

    def _fetch_raw(
        self, list_ids: Sequence[str] | None, status: Status, due_to: datetime | None
    ) -> list[RawReminder]:
        with translated("read the reminders"):
            return self._port.fetch_reminders(list_ids, status, None, due_to, self._timeout)

    def _reminders(self, raws: Sequence[RawReminder]) -> list[Reminder]:
        if not raws:
            return []
        with translated("read the reminder lists"):
            names = {c.id: c.title for c in self._port.calendars(ENTITY)}
        extras = self._tags.extras([raw.id for raw in raws])
        return [
            mapping.to_reminder(
                raw, names.get(raw.calendar_id, ""), extras.get(raw.id, mapping.NO_EXTRAS)
            )
            for raw in raws
        ]

    def _existing(self, reminder_id: str) -> RawReminder:
        with translated("read the reminder"):
            found = self._port.reminder(reminder_id)
        if found is None:
            raise NotFound.reminder(reminder_id)
        return found

    def _require_lists(self, list_ids: set[str]) -> None:
        with translated("read the reminder lists"):
            known = {c.id for c in self._port.calendars(ENTITY)}
        missing = sorted(list_ids - known)
        if missing:
            raise NotFound.reminder_list(missing[0])

    def _forget(self) -> None:
        with self._lock:
            self._cache.clear()


def _refuse_extras(tags: bool, flag: bool, parent: bool) -> None:
    asked = [
        what for what, given in (("tags", tags), ("the flag", flag), ("subtasks", parent)) if given
    ]
    if asked:
        raise Unsupported(NOT_WRITABLE.format(what=" or ".join(asked)), backend="eventkit")


def _due_ok(reminder: Reminder, before: datetime | None, include_no_due: bool) -> bool:
    due = reminder.due
    if due is None:
        return include_no_due
    return before is None or instant(due) < before.timestamp()
