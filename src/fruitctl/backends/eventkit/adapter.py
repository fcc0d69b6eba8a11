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
from datetime import datetime, timedelta
from functools import wraps
from typing import Any, Concatenate, ParamSpec, TypeVar

from fruitctl.backends.eventkit import decode, encode
from fruitctl.backends.eventkit.kit import eventkit
from fruitctl.backends.eventkit.owner import Completion, StoreThread
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

P = ParamSpec("P")
T = TypeVar("T")

ENTITY_TYPES: dict[Entity, int] = {"event": 0, "reminder": 1}  # EKEntityType
SPAN_THIS_EVENT, SPAN_FUTURE_EVENTS = 0, 1  # EKSpan
# An occurrence is looked up among the events around its original start; a moved (detached)
# occurrence stays findable while it is within this distance of where it was.
OCCURRENCE_WINDOW = timedelta(days=7)


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
            self._sees = {entity for entity in ENTITY_TYPES if _status(kind, entity) == FULL_ACCESS}
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
        """A write on the saved state; on any failure nothing saved-but-uncommitted survives."""
        store = self._saved_state()
        try:
            yield store
        except BaseException:
            store.reset()
            raise

    # -- permission --------------------------------------------------------------------------

    @owned
    def authorization(self, entity: Entity) -> int:
        status = _status(eventkit().EKEventStore, entity)
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
        calendar = _default(self._store(), entity)
        return None if calendar is None else str(calendar.calendarIdentifier())

    @owned
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
        calendars = _calendars_by_id(store, calendar_ids)
        if calendars == []:  # an empty list would read as "every calendar"
            return []
        predicate = _reminder_predicate(store, status, calendars, due_from, due_to)
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
        item = _item(self._saved_state(), item_id, eventkit().EKReminder)
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
                item = _existing(store, item_id, eventkit().EKReminder, "reminder")
                _check(store.removeReminder_commit_error_(item, False, None))
            if item_ids:
                _check(store.commit_(None))

    # -- events ------------------------------------------------------------------------------

    @owned
    def events(
        self, start: datetime, end: datetime, calendar_ids: Sequence[str] | None
    ) -> list[RawEvent]:
        store = self._store()
        calendars = _calendars_by_id(store, calendar_ids)
        if calendars == []:
            return []
        return [decode.event(item) for item in _events_between(store, start, end, calendars)]

    @owned
    def event(self, item_id: str) -> RawEvent | None:
        item = _item(self._saved_state(), item_id, eventkit().EKEvent)
        return None if item is None else decode.event(item)

    @owned
    def save_event(self, write: EventWrite, future: bool) -> RawEvent:
        with self._writing() as store:
            if write.id is None:
                item = eventkit().EKEvent.eventWithEventStore_(store)
            else:
                item = _occurrence(store, write.id, write.occurrence)
            encode.apply(item, write.fields, encode.EVENT_SETTERS, store)
            _check(store.saveEvent_span_commit_error_(item, _span(future), True, None))
        return decode.event(item)

    @owned
    def remove_event(self, item_id: str, occurrence: datetime | None, future: bool) -> None:
        with self._writing() as store:
            item = _occurrence(store, item_id, occurrence)
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
    """The item with that ``calendarItemIdentifier`` if it is a ``kind`` (a series: its master
    event, which a change or removal with ``EKSpanFutureEvents`` applies to the whole series),
    else None."""
    item = store.calendarItemWithIdentifier_(item_id)
    return item if item is not None and item.isKindOfClass_(kind) else None


def _existing(store: Any, item_id: str, kind: Any, name: str) -> Any:
    item = _item(store, item_id, kind)
    if item is None:
        raise _missing(name, item_id)
    return item


def _occurrence(store: Any, item_id: str, occurrence: datetime | None) -> Any:
    """The event (a series' master), or the occurrence of its series whose original start is
    ``occurrence`` - searched for near it, so only for a write to that one occurrence."""
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
