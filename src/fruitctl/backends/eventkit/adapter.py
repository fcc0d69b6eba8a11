"""``EventKitPort`` on Apple's EventKit through PyObjC: with ``decode`` (EventKit objects to the
values of ``values.py``), ``encode`` (values to EventKit objects) and ``kit`` (the frameworks),
the only fruitctl code that touches it.

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
Completion handlers run on EventKit's private queue and are waited for on a ``threading.Event``;
``NSError **`` out-parameters come back as ``(ok, error)`` and become ``StoreError``. Writes are
serialised, and a failed one resets the store so that no half-saved change is committed later.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from fruitctl.backends.eventkit import decode, encode
from fruitctl.backends.eventkit.kit import eventkit
from fruitctl.backends.eventkit.values import (
    ADAPTER_DOMAIN,
    FULL_ACCESS,
    NOT_FOUND,
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

ENTITY_TYPES: dict[Entity, int] = {"event": 0, "reminder": 1}  # EKEntityType
SPAN_THIS_EVENT, SPAN_FUTURE_EVENTS = 0, 1  # EKSpan
# An occurrence is looked up among the events around its original start; a moved (detached)
# occurrence stays findable while it is within this distance of where it was.
OCCURRENCE_WINDOW = timedelta(days=7)


class EventKitAdapter:
    """One warm ``EKEventStore``, as plain values (see ``EventKitPort``)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._handle: Any = None
        self._sees: set[Entity] = set()
        """The entities this process had access to when the current store was made."""
        self._pending: set[_Completion] = set()

    def _store(self) -> Any:
        if self._handle is None:
            with self._lock:
                if self._handle is None:
                    kind = eventkit().EKEventStore
                    self._sees = {
                        entity for entity in ENTITY_TYPES if _status(kind, entity) == FULL_ACCESS
                    }
                    self._handle = kind.alloc().init()
        return self._handle

    def _granted(self, entity: Entity) -> None:
        """Access to ``entity`` is granted: a store made without it shows none of its data,
        so it is dropped, and the next use makes a fresh one."""
        with self._lock:
            if self._handle is not None and entity not in self._sees:
                self._handle = None

    @contextmanager
    def _writing(self) -> Iterator[Any]:
        """One write at a time; on any failure nothing saved-but-uncommitted survives."""
        store = self._store()
        with self._lock:
            try:
                yield store
            except BaseException:
                store.reset()
                raise

    # -- permission --------------------------------------------------------------------------

    def authorization(self, entity: Entity) -> int:
        status = _status(eventkit().EKEventStore, entity)
        if status == FULL_ACCESS:  # perhaps given in System Settings while this process ran
            self._granted(entity)
        return status

    def request_access(self, entity: Entity, timeout: float) -> bool:
        store = self._store()
        completion = _Completion(self._pending, 2)
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
        granted, _error = completion.wait(timeout, f"the {entity} access request")
        if granted:
            self._granted(entity)
        return bool(granted)

    # -- calendars ---------------------------------------------------------------------------

    def calendars(self, entity: Entity) -> list[RawCalendar]:
        found = self._store().calendarsForEntityType_(ENTITY_TYPES[entity])
        return [decode.calendar(calendar) for calendar in found or ()]

    def default_calendar(self, entity: Entity) -> str | None:
        calendar = _default(self._store(), entity)
        return None if calendar is None else str(calendar.calendarIdentifier())

    def create_calendar(self, entity: Entity, title: str) -> RawCalendar:
        with self._writing() as store:
            kind = eventkit().EKCalendar
            calendar = kind.calendarForEntityType_eventStore_(ENTITY_TYPES[entity], store)
            calendar.setTitle_(title)
            default = _default(store, entity)
            if default is not None:  # else EventKit says which source is missing
                calendar.setSource_(default.source())
            _check(store.saveCalendar_commit_error_(calendar, True, None))
        return decode.calendar(calendar)

    def remove_calendar(self, calendar_id: str) -> None:
        with self._writing() as store:
            calendar = store.calendarWithIdentifier_(calendar_id)
            if calendar is not None:  # already gone: nothing to remove
                _check(store.removeCalendar_commit_error_(calendar, True, None))

    # -- reminders ---------------------------------------------------------------------------

    def fetch_reminders(
        self,
        calendar_ids: Sequence[str] | None,
        status: ReminderStatus,
        due_from: datetime | None,
        due_to: datetime | None,
        timeout: float,
    ) -> list[RawReminder]:
        store = self._store()
        calendars = _calendars_by_id(store, calendar_ids)
        if calendars == []:  # an empty list would read as "every calendar"
            return []
        predicate = _reminder_predicate(store, status, calendars, due_from, due_to)
        completion = _Completion(self._pending, 1)
        request = store.fetchRemindersMatchingPredicate_completion_(predicate, completion.handler)
        try:
            (found,) = completion.wait(timeout, "the reminders fetch")
        except StoreTimeout:
            store.cancelFetchRequest_(request)
            raise
        return [decode.reminder(item) for item in found or ()]

    def reminder(self, item_id: str) -> RawReminder | None:
        item = _item(self._store(), item_id, eventkit().EKReminder)
        return None if item is None else decode.reminder(item)

    def save_reminders(self, writes: Sequence[ReminderWrite]) -> list[RawReminder]:
        with self._writing() as store:
            items = [_saved_reminder(store, write) for write in writes]
            if items:
                _check(store.commit_(None))
        return [decode.reminder(item) for item in items]

    def remove_reminders(self, item_ids: Sequence[str]) -> None:
        with self._writing() as store:
            for item_id in item_ids:
                item = _existing(store, item_id, eventkit().EKReminder, "reminder")
                _check(store.removeReminder_commit_error_(item, False, None))
            if item_ids:
                _check(store.commit_(None))

    # -- events ------------------------------------------------------------------------------

    def events(
        self, start: datetime, end: datetime, calendar_ids: Sequence[str] | None
    ) -> list[RawEvent]:
        store = self._store()
        calendars = _calendars_by_id(store, calendar_ids)
        if calendars == []:
            return []
        return [decode.event(item) for item in _events_between(store, start, end, calendars)]

    def event(self, item_id: str) -> RawEvent | None:
        item = _item(self._store(), item_id, eventkit().EKEvent)
        return None if item is None else decode.event(item)

    def save_event(self, write: EventWrite, future: bool) -> RawEvent:
        with self._writing() as store:
            if write.id is None:
                item = eventkit().EKEvent.eventWithEventStore_(store)
            else:
                item = _occurrence(store, write.id, write.occurrence)
            encode.apply(item, write.fields, encode.EVENT_SETTERS, store)
            _check(store.saveEvent_span_commit_error_(item, _span(future), True, None))
        return decode.event(item)

    def remove_event(self, item_id: str, occurrence: datetime | None, future: bool) -> None:
        with self._writing() as store:
            item = _occurrence(store, item_id, occurrence)
            _check(store.removeEvent_span_commit_error_(item, _span(future), True, None))

    def refresh(self) -> None:
        self._store().refreshSourcesIfNecessary()


class _Completion:
    """A completion handler EventKit calls on its own queue, and the wait for its answer. It
    stays in ``pending`` (a strong reference) until it has run."""

    def __init__(self, pending: set[_Completion], arity: int) -> None:
        self._pending = pending
        self._done = threading.Event()
        self._args: tuple[Any, ...] = ()
        self.handler = self._handler(arity)
        pending.add(self)

    def _handler(self, arity: int) -> Callable[..., None]:
        # PyObjC matches a callable's arity to the block's: one function per arity.
        def one(first: Any) -> None:
            self._finish(first)

        def two(first: Any, second: Any) -> None:
            self._finish(first, second)

        return one if arity == 1 else two

    def _finish(self, *args: Any) -> None:
        self._args = args
        self._pending.discard(self)
        self._done.set()

    def wait(self, timeout: float, what: str) -> tuple[Any, ...]:
        if not self._done.wait(timeout):
            raise StoreTimeout(f"EventKit did not answer {what} within {timeout:g} s")
        return self._args


# -- errors --------------------------------------------------------------------------------------


def _check(result: tuple[Any, Any]) -> None:
    """An ``NSError **`` call's ``(ok, error)``: raise ``StoreError`` when it failed."""
    ok, error = result
    if ok:
        return
    if error is None:
        raise StoreError(ADAPTER_DOMAIN, 0, "EventKit refused without an error")
    raise StoreError(str(error.domain()), int(error.code()), str(error.localizedDescription()))


def _missing(kind: str, item_id: str) -> StoreError:
    return StoreError(ADAPTER_DOMAIN, NOT_FOUND, f"no {kind} with id {item_id!r}")


# -- finding items -------------------------------------------------------------------------------


def _status(kind: Any, entity: Entity) -> int:
    """``EKAuthorizationStatus`` of this process for the entity type."""
    return int(kind.authorizationStatusForEntityType_(ENTITY_TYPES[entity]))


def _default(store: Any, entity: Entity) -> Any:
    if entity == "reminder":
        return store.defaultCalendarForNewReminders()
    return store.defaultCalendarForNewEvents()


def _calendars_by_id(store: Any, ids: Sequence[str] | None) -> list[Any] | None:
    """The calendars with those ids that exist; None (every calendar) for None."""
    if ids is None:
        return None
    found = [store.calendarWithIdentifier_(calendar_id) for calendar_id in ids]
    return [calendar for calendar in found if calendar is not None]


def _item(store: Any, item_id: str, kind: Any) -> Any:
    """The item with that ``calendarItemIdentifier`` if it is a ``kind`` (a series: its first
    occurrence), else None."""
    item = store.calendarItemWithIdentifier_(item_id)
    return item if item is not None and item.isKindOfClass_(kind) else None


def _existing(store: Any, item_id: str, kind: Any, name: str) -> Any:
    item = _item(store, item_id, kind)
    if item is None:
        raise _missing(name, item_id)
    return item


def _occurrence(store: Any, item_id: str, occurrence: datetime | None) -> Any:
    """The event, or the occurrence of its series whose original start is ``occurrence``."""
    item = _existing(store, item_id, eventkit().EKEvent, "event")
    if occurrence is None:
        return item
    start, end = occurrence - OCCURRENCE_WINDOW, occurrence + OCCURRENCE_WINDOW
    wanted = occurrence.timestamp()
    for candidate in _events_between(store, start, end, [item.calendar()]):
        original = candidate.occurrenceDate()
        if (
            str(candidate.calendarItemIdentifier()) == item_id
            and original is not None
            and abs(original.timeIntervalSince1970() - wanted) < 1
        ):
            return candidate
    raise _missing("occurrence", f"{item_id} at {occurrence}")


def _events_between(store: Any, start: datetime, end: datetime, calendars: Any) -> list[Any]:
    predicate = store.predicateForEventsWithStartDate_endDate_calendars_(
        encode.date(start), encode.date(end), calendars
    )
    return list(store.eventsMatchingPredicate_(predicate) or ())


def _reminder_predicate(
    store: Any,
    status: ReminderStatus,
    calendars: list[Any] | None,
    due_from: datetime | None,
    due_to: datetime | None,
) -> Any:
    if status == "incomplete":
        return store.predicateForIncompleteRemindersWithDueDateStarting_ending_calendars_(
            encode.optional_date(due_from), encode.optional_date(due_to), calendars
        )
    if status == "completed":
        return store.predicateForCompletedRemindersWithCompletionDateStarting_ending_calendars_(
            None, None, calendars
        )
    return store.predicateForRemindersInCalendars_(calendars)


def _span(future: bool) -> int:
    return SPAN_FUTURE_EVENTS if future else SPAN_THIS_EVENT


def _saved_reminder(store: Any, write: ReminderWrite) -> Any:
    """The reminder with the write applied, saved without committing."""
    if write.id is None:
        item = eventkit().EKReminder.reminderWithEventStore_(store)
    else:
        item = _existing(store, write.id, eventkit().EKReminder, "reminder")
    encode.apply(item, write.fields, encode.REMINDER_SETTERS, store)
    _check(store.saveReminder_commit_error_(item, False, None))
    return item
