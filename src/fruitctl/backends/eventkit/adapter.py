"""``EventKitPort`` on Apple's EventKit through PyObjC: with ``decode`` (EventKit objects to the
values of ``values.py``), ``encode`` (values to EventKit objects), ``find`` (items, occurrences,
predicates), ``owner`` (the store's thread) and ``kit`` (the frameworks), the only fruitctl code
that touches it.

Why it is thin: PyObjC exists only on macOS and nobody can run this code off a Mac, so it
holds no decisions - it turns EventKit objects into the frozen values of ``values.py`` and those
values into EventKit calls, and nothing else. What priorities mean, date-only dues, splitting
ranges EventKit refuses, sorting and domain errors all live above, on plain values, tested on
Linux through a fake of the port. What is left here is held to EventKit's published selectors
by ``tests/backends/eventkit/test_selectors.py``, so a typo fails on Linux, not on a Mac.

One ``EKEventStore`` per process, created on first use (creating one is slow, and ``import
EventKit`` alone costs hundreds of milliseconds): the frameworks are imported on first use. A
store made before access was granted keeps the empty view it had then (no lists on the first
run), so a grant - answered here, or given in System Settings while this process runs - makes
the next use create a new one.

Every call runs on the one thread that owns the store, in an autorelease pool of its own
(``owner.py``: why a thread and not a lock), and hands back plain values only. Completion
handlers run on EventKit's private queue and are waited for on a ``threading.Event``; ``NSError
**`` out-parameters come back as ``(ok, error)`` and become ``StoreError``, and so do
Objective-C exceptions. A failed write resets the store so that no half-saved change is
committed later.

Fresh, not cached: a store keeps handing out the objects it loaded until it is reset (it hears of
other apps' changes only through a notification, which needs a run loop this process does not
run). So a read by id and every write start from the saved state (``reset`` first: the base a
write changes and a proposal's conflict check compares is never a stale copy), and ``refresh``
resets too - the backends call it before list reads, at most every few seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import wraps
from typing import Any, Concatenate, ParamSpec, TypeVar

from fruitctl.backends.eventkit import decode, encode, find
from fruitctl.backends.eventkit.find import ENTITY_TYPES
from fruitctl.backends.eventkit.kit import eventkit
from fruitctl.backends.eventkit.owner import Completion, StoreThread
from fruitctl.backends.eventkit.values import (
    ADAPTER_DOMAIN,
    FULL_ACCESS,
    Entity,
    EventWrite,
    RawCalendar,
    RawEvent,
    RawReminder,
    ReminderStatus,
    ReminderWrite,
    StoreError,
    StoreTimeout,
)
from fruitctl.domain.writes import entering

P = ParamSpec("P")
T = TypeVar("T")

SPAN_THIS_EVENT, SPAN_FUTURE_EVENTS = 0, 1  # EKSpan


def owned(
    method: Callable[Concatenate[EventKitAdapter, P], T],
) -> Callable[Concatenate[EventKitAdapter, P], T]:
    """The method runs on the store's own thread (``StoreThread``), in a pool of its own."""

    @wraps(method)
    def call(adapter: EventKitAdapter, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return adapter._owner.run(lambda: method(adapter, *args, **kwargs))

    return call


class EventKitAdapter:
    """One warm ``EKEventStore``, as plain values (see ``EventKitPort``)."""

    def __init__(self) -> None:
        self._owner = StoreThread()
        self._handle: Any = None
        self._sees: set[Entity] = set()
        """The entities this process had access to when the current store was made."""
        self._pending: set[Completion] = set()

    # What is not ``@owned`` below runs on the owner thread only, called from what is.

    def _store(self) -> Any:
        if self._handle is None:
            kind = eventkit().EKEventStore
            self._sees = {
                entity for entity in ENTITY_TYPES if find.authorization(kind, entity) == FULL_ACCESS
            }
            self._handle = kind.alloc().init()
        return self._handle

    def _saved_state(self) -> Any:
        """The store with nothing cached: what it reads next is what is saved now."""
        store = self._store()
        store.reset()
        return store

    def _granted(self, entity: Entity) -> None:
        """Access to ``entity`` is granted: a store made without it shows none of its data,
        so it is dropped, and the next use makes a fresh one."""
        if self._handle is not None and entity not in self._sees:
            self._handle = None

    @contextmanager
    def _writing(self) -> Iterator[Any]:
        """A write on the saved state; on any failure nothing saved-but-uncommitted survives.
        One whose caller's deadline passed while it waited for this thread changes nothing."""
        entering()
        store = self._saved_state()
        try:
            yield store
        except BaseException:
            store.reset()
            raise

    # -- permission --------------------------------------------------------------------------

    @owned
    def authorization(self, entity: Entity) -> int:
        status = find.authorization(eventkit().EKEventStore, entity)
        if status == FULL_ACCESS:  # perhaps given in System Settings while this process ran
            self._granted(entity)
        return status

    def request_access(self, entity: Entity, timeout: float) -> bool:
        # The person's answer is waited for here, not on the owner thread: other calls go on.
        completion = self._owner.run(lambda: self._ask(entity))
        granted, _error = completion.wait(timeout, f"the {entity} access request")
        if granted:
            self._owner.run(lambda: self._granted(entity))
        return bool(granted)

    def _ask(self, entity: Entity) -> Completion:
        store = self._store()
        completion = Completion(self._pending, 2)
        handler = completion.handler
        if entity == "reminder" and store.respondsToSelector_(
            "requestFullAccessToRemindersWithCompletion:"
        ):
            store.requestFullAccessToRemindersWithCompletion_(handler)
        elif entity == "event" and store.respondsToSelector_(
            "requestFullAccessToEventsWithCompletion:"
        ):
            store.requestFullAccessToEventsWithCompletion_(handler)
        else:
            store.requestAccessToEntityType_completion_(ENTITY_TYPES[entity], handler)
        return completion

    # -- calendars ---------------------------------------------------------------------------

    @owned
    def calendars(self, entity: Entity) -> list[RawCalendar]:
        found = self._store().calendarsForEntityType_(ENTITY_TYPES[entity])
        return [decode.calendar(calendar) for calendar in found or ()]

    @owned
    def default_calendar(self, entity: Entity) -> str | None:
        calendar = find.default_calendar(self._store(), entity)
        return None if calendar is None else str(calendar.calendarIdentifier())

    @owned
    def create_calendar(self, entity: Entity, title: str) -> RawCalendar:
        with self._writing() as store:
            kind = eventkit().EKCalendar
            calendar = kind.calendarForEntityType_eventStore_(ENTITY_TYPES[entity], store)
            calendar.setTitle_(title)
            default = find.default_calendar(store, entity)
            if default is not None:  # else EventKit says which source is missing
                calendar.setSource_(default.source())
            _check(store.saveCalendar_commit_error_(calendar, True, None))
        return decode.calendar(calendar)

    @owned
    def remove_calendar(self, calendar_id: str) -> None:
        with self._writing() as store:
            calendar = store.calendarWithIdentifier_(calendar_id)
            if calendar is not None:  # already gone: nothing to remove
                _check(store.removeCalendar_commit_error_(calendar, True, None))

    # -- reminders ---------------------------------------------------------------------------

    @owned
    def fetch_reminders(
        self,
        calendar_ids: Sequence[str] | None,
        status: ReminderStatus,
        due_from: datetime | None,
        due_to: datetime | None,
        timeout: float,
    ) -> list[RawReminder]:
        store = self._store()
        calendars = find.calendars_by_id(store, calendar_ids)
        if calendars == []:  # an empty list would read as "every calendar"
            return []
        predicate = find.reminder_predicate(store, status, calendars, due_from, due_to)
        completion = Completion(self._pending, 1)
        request = store.fetchRemindersMatchingPredicate_completion_(predicate, completion.handler)
        try:
            (found,) = completion.wait(timeout, "the reminders fetch")
        except StoreTimeout:
            store.cancelFetchRequest_(request)
            raise
        return [decode.reminder(item) for item in found or ()]

    @owned
    def reminder(self, item_id: str) -> RawReminder | None:
        item = find.by_id(self._saved_state(), item_id, eventkit().EKReminder)
        return None if item is None else decode.reminder(item)

    @owned
    def save_reminders(self, writes: Sequence[ReminderWrite]) -> list[RawReminder]:
        with self._writing() as store:
            items = [_saved_reminder(store, write) for write in writes]
            if items:
                _check(store.commit_(None))
        return [decode.reminder(item) for item in items]

    @owned
    def remove_reminders(self, item_ids: Sequence[str]) -> None:
        with self._writing() as store:
            for item_id in item_ids:
                item = find.existing(store, item_id, eventkit().EKReminder, "reminder")
                _check(store.removeReminder_commit_error_(item, False, None))
            if item_ids:
                _check(store.commit_(None))

    # -- events ------------------------------------------------------------------------------

    @owned
    def events(
        self, start: datetime, end: datetime, calendar_ids: Sequence[str] | None
    ) -> list[RawEvent]:
        store = self._store()
        calendars = find.calendars_by_id(store, calendar_ids)
        if calendars == []:
            return []
        return [decode.event(item) for item in find.events_between(store, start, end, calendars)]

    @owned
    def event(self, item_id: str) -> RawEvent | None:
        item = find.by_id(self._saved_state(), item_id, eventkit().EKEvent)
        return None if item is None else decode.event(item)

    @owned
    def save_event(self, write: EventWrite, future: bool) -> RawEvent:
        with self._writing() as store:
            if write.id is None:
                item = eventkit().EKEvent.eventWithEventStore_(store)
            else:
                item = find.event_or_occurrence(store, write.id, write.occurrence)
            encode.apply(item, write.fields, encode.EVENT_SETTERS, store)
            _check(store.saveEvent_span_commit_error_(item, _span(future), True, None))
        return decode.event(item)

    @owned
    def remove_event(self, item_id: str, occurrence: datetime | None, future: bool) -> None:
        with self._writing() as store:
            item = find.event_or_occurrence(store, item_id, occurrence)
            _check(store.removeEvent_span_commit_error_(item, _span(future), True, None))

    @owned
    def refresh(self) -> None:
        self._saved_state().refreshSourcesIfNecessary()


# -- errors --------------------------------------------------------------------------------------


def _check(result: tuple[Any, Any]) -> None:
    """An ``NSError **`` call's ``(ok, error)``: raise ``StoreError`` when it failed."""
    ok, error = result
    if ok:
        return
    if error is None:
        raise StoreError(ADAPTER_DOMAIN, 0, "EventKit refused without an error")
    raise StoreError(str(error.domain()), int(error.code()), str(error.localizedDescription()))


def _span(future: bool) -> int:
    return SPAN_FUTURE_EVENTS if future else SPAN_THIS_EVENT


def _saved_reminder(store: Any, write: ReminderWrite) -> Any:
    """The reminder with the write applied, saved without committing."""
    if write.id is None:
        item = eventkit().EKReminder.reminderWithEventStore_(store)
    else:
        item = find.existing(store, write.id, eventkit().EKReminder, "reminder")
    encode.apply(item, write.fields, encode.REMINDER_SETTERS, store)
    _check(store.saveReminder_commit_error_(item, False, None))
    return item
