"""``EventKitPort`` on Apple's EventKit through PyObjC: the only fruitctl code that touches it.

Why it is thin: PyObjC exists only on macOS and nobody can run this module off a Mac, so it
holds no decisions - it turns EventKit objects into the frozen values of ``values.py`` and those
values into EventKit calls, and nothing else. What priorities mean, date-only dues, splitting
ranges EventKit refuses, sorting and domain errors all live above, on plain values, tested on
Linux through a fake of the port. What is left here is held to EventKit's published selectors
by ``tests/backends/eventkit/test_selectors.py``, so a typo fails on Linux, not on a Mac.

One ``EKEventStore`` per process, created on first use (creating one is slow, and ``import
EventKit`` alone costs hundreds of milliseconds): the frameworks are imported inside functions.
Completion handlers run on EventKit's private queue and are waited for on a ``threading.Event``;
``NSError **`` out-parameters come back as ``(ok, error)`` and become ``StoreError``. Writes are
serialised, and a failed one resets the store so that no half-saved change is committed later.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from fruitctl.backends.eventkit.values import (
    ADAPTER_DOMAIN,
    NOT_FOUND,
    DateParts,
    Entity,
    EventWrite,
    RawCalendar,
    RawEvent,
    RawReminder,
    RawRule,
    ReminderStatus,
    ReminderWrite,
    StoreError,
    StoreTimeout,
)

ENTITY_TYPES: dict[Entity, int] = {"event": 0, "reminder": 1}  # EKEntityType
SPAN_THIS_EVENT, SPAN_FUTURE_EVENTS = 0, 1  # EKSpan
UNDEFINED = 2**63 - 1  # NSDateComponentUndefined (NSIntegerMax)
# An occurrence is looked up among the events around its original start; a moved (detached)
# occurrence stays findable while it is within this distance of where it was.
OCCURRENCE_WINDOW = timedelta(days=7)

Setter = Callable[[Any, Any, Any], None]  # (item, value, store)


def _eventkit() -> Any:
    import EventKit  # type: ignore[import-not-found,unused-ignore]

    return EventKit


def _foundation() -> Any:
    import Foundation  # type: ignore[import-not-found,unused-ignore]

    return Foundation


def _appkit() -> Any:
    import AppKit  # type: ignore[import-not-found,unused-ignore]

    return AppKit


class EventKitAdapter:
    """One warm ``EKEventStore``, as plain values (see ``EventKitPort``)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._handle: Any = None
        self._pending: set[_Completion] = set()

    def _store(self) -> Any:
        if self._handle is None:
            with self._lock:
                if self._handle is None:
                    self._handle = _eventkit().EKEventStore.alloc().init()
        return self._handle

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
        status = _eventkit().EKEventStore.authorizationStatusForEntityType_(ENTITY_TYPES[entity])
        return int(status)

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
        return bool(granted)

    # -- calendars ---------------------------------------------------------------------------

    def calendars(self, entity: Entity) -> list[RawCalendar]:
        found = self._store().calendarsForEntityType_(ENTITY_TYPES[entity])
        return [_calendar(calendar) for calendar in found or ()]

    def default_calendar(self, entity: Entity) -> str | None:
        calendar = _default(self._store(), entity)
        return None if calendar is None else str(calendar.calendarIdentifier())

    def create_calendar(self, entity: Entity, title: str) -> RawCalendar:
        with self._writing() as store:
            kind = _eventkit().EKCalendar
            calendar = kind.calendarForEntityType_eventStore_(ENTITY_TYPES[entity], store)
            calendar.setTitle_(title)
            default = _default(store, entity)
            if default is not None:  # else EventKit says which source is missing
                calendar.setSource_(default.source())
            _check(store.saveCalendar_commit_error_(calendar, True, None))
        return _calendar(calendar)

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
        return [_reminder(item) for item in found or ()]

    def reminder(self, item_id: str) -> RawReminder | None:
        item = _item(self._store(), item_id, _eventkit().EKReminder)
        return None if item is None else _reminder(item)

    def save_reminders(self, writes: Sequence[ReminderWrite]) -> list[RawReminder]:
        with self._writing() as store:
            items = [_saved_reminder(store, write) for write in writes]
            if items:
                _check(store.commit_(None))
        return [_reminder(item) for item in items]

    def remove_reminders(self, item_ids: Sequence[str]) -> None:
        with self._writing() as store:
            for item_id in item_ids:
                item = _existing(store, item_id, _eventkit().EKReminder, "reminder")
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
        return [_event(item) for item in _events_between(store, start, end, calendars)]

    def event(self, item_id: str) -> RawEvent | None:
        item = _item(self._store(), item_id, _eventkit().EKEvent)
        return None if item is None else _event(item)

    def save_event(self, write: EventWrite, future: bool) -> RawEvent:
        with self._writing() as store:
            if write.id is None:
                item = _eventkit().EKEvent.eventWithEventStore_(store)
            else:
                item = _occurrence(store, write.id, write.occurrence)
            _apply(item, write.fields, EVENT_SETTERS, store)
            _check(store.saveEvent_span_commit_error_(item, _span(future), True, None))
        return _event(item)

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
    item = _existing(store, item_id, _eventkit().EKEvent, "event")
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
        _date(start), _date(end), calendars
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
            _optional_date(due_from), _optional_date(due_to), calendars
        )
    if status == "completed":
        return store.predicateForCompletedRemindersWithCompletionDateStarting_ending_calendars_(
            None, None, calendars
        )
    return store.predicateForRemindersInCalendars_(calendars)


def _span(future: bool) -> int:
    return SPAN_FUTURE_EVENTS if future else SPAN_THIS_EVENT


# -- EventKit to values --------------------------------------------------------------------------


def _calendar(calendar: Any) -> RawCalendar:
    source = calendar.source()
    return RawCalendar(
        id=str(calendar.calendarIdentifier()),
        title=_text(calendar.title()) or "",
        writable=bool(calendar.allowsContentModifications()),
        source=None if source is None else _text(source.title()),
        color=_hex(calendar.color()),
    )


def _reminder(item: Any) -> RawReminder:
    return RawReminder(
        id=str(item.calendarItemIdentifier()),
        calendar_id=_calendar_id(item),
        title=_text(item.title()) or "",
        notes=_text(item.notes()),
        priority=int(item.priority()),
        due=_parts(item.dueDateComponents()),
        start=_parts(item.startDateComponents()),
        completed=bool(item.isCompleted()),
        completion=_instant(item.completionDate()),
        created=_instant(item.creationDate()),
        modified=_instant(item.lastModifiedDate()),
        url=_url(item.URL()),
        rules=_rules(item.recurrenceRules()),
    )


def _event(item: Any) -> RawEvent:
    repeats = bool(item.hasRecurrenceRules()) or bool(item.isDetached())
    return RawEvent(
        id=str(item.calendarItemIdentifier()),
        calendar_id=_calendar_id(item),
        title=_text(item.title()) or "",
        start=_when(item.startDate()),
        end=_when(item.endDate()),
        all_day=bool(item.isAllDay()),
        timezone=_zone_name(item.timeZone()),
        location=_text(item.location()),
        notes=_text(item.notes()),
        url=_url(item.URL()),
        rules=_rules(item.recurrenceRules()),
        occurrence=_instant(item.occurrenceDate()) if repeats else None,
        detached=bool(item.isDetached()),
        created=_instant(item.creationDate()),
        modified=_instant(item.lastModifiedDate()),
    )


def _calendar_id(item: Any) -> str:
    calendar = item.calendar()
    return "" if calendar is None else str(calendar.calendarIdentifier())


def _rules(rules: Any) -> tuple[RawRule, ...]:
    return tuple(_rule(rule) for rule in rules or ())


def _rule(rule: Any) -> RawRule:
    end, count = _rule_end(rule.recurrenceEnd())
    return RawRule(
        frequency=int(rule.frequency()),
        interval=int(rule.interval()),
        days_of_week=tuple(
            (int(day.dayOfTheWeek()), int(day.weekNumber())) for day in rule.daysOfTheWeek() or ()
        ),
        days_of_month=_ints(rule.daysOfTheMonth()),
        months=_ints(rule.monthsOfTheYear()),
        weeks_of_year=_ints(rule.weeksOfTheYear()),
        days_of_year=_ints(rule.daysOfTheYear()),
        set_positions=_ints(rule.setPositions()),
        end=end,
        count=count,
        first_day_of_week=int(rule.firstDayOfTheWeek()),
    )


def _rule_end(end: Any) -> tuple[datetime | None, int | None]:
    if end is None:
        return None, None
    return _instant(end.endDate()), int(end.occurrenceCount()) or None


def _parts(components: Any) -> DateParts | None:
    """``NSDateComponents`` as ``DateParts``; None when it names no day."""
    if components is None:
        return None
    year, month, day = (
        _defined(components.year()),
        _defined(components.month()),
        _defined(components.day()),
    )
    if year is None or month is None or day is None:
        return None
    return DateParts(
        year,
        month,
        day,
        hour=_defined(components.hour()),
        minute=_defined(components.minute()),
        second=_defined(components.second()),
        timezone=_zone_name(components.timeZone()),
    )


def _defined(value: Any) -> int | None:
    return None if value is None or int(value) == UNDEFINED else int(value)


def _ints(values: Any) -> tuple[int, ...]:
    return tuple(int(value) for value in values or ())


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _url(url: Any) -> str | None:
    return None if url is None else str(url.absoluteString())


def _zone_name(zone: Any) -> str | None:
    return None if zone is None else str(zone.name())


def _when(date: Any) -> datetime:
    return datetime.fromtimestamp(float(date.timeIntervalSince1970()), UTC)


def _instant(date: Any) -> datetime | None:
    return None if date is None else _when(date)


def _hex(color: Any) -> str | None:
    """``#RRGGBB`` of an ``NSColor`` in sRGB; None when it has no such form (a pattern)."""
    if color is None:
        return None
    rgb = color.colorUsingColorSpace_(_appkit().NSColorSpace.sRGBColorSpace())
    if rgb is None:
        return None
    channels = (rgb.redComponent(), rgb.greenComponent(), rgb.blueComponent())
    return "#" + "".join(f"{min(255, max(0, round(float(c) * 255))):02X}" for c in channels)


# -- values to EventKit --------------------------------------------------------------------------


def _date(when: datetime) -> Any:
    return _foundation().NSDate.dateWithTimeIntervalSince1970_(when.timestamp())


def _optional_date(when: datetime | None) -> Any:
    return None if when is None else _date(when)


def _zone(name: str | None) -> Any:
    if name is None:
        return None
    zone = _foundation().NSTimeZone.timeZoneWithName_(name)
    if zone is None:
        raise ValueError(f"EventKit knows no time zone {name!r}")
    return zone


def _ns_url(text: str | None) -> Any:
    if not text:
        return None
    url = _foundation().NSURL.URLWithString_(text)
    if url is None:
        raise ValueError(f"not a URL: {text!r}")
    return url


def _components(parts: DateParts | None) -> Any:
    if parts is None:
        return None
    components = _foundation().NSDateComponents.alloc().init()
    components.setYear_(parts.year)
    components.setMonth_(parts.month)
    components.setDay_(parts.day)
    if parts.hour is not None:
        components.setHour_(parts.hour)
    if parts.minute is not None:
        components.setMinute_(parts.minute)
    if parts.second is not None:
        components.setSecond_(parts.second)
    components.setTimeZone_(_zone(parts.timezone))
    return components


def _ek_rules(rules: Sequence[RawRule] | None) -> list[Any] | None:
    """EventKit rules; ``firstDayOfTheWeek`` is read-only in EventKit, so it is not written."""
    return [_ek_rule(rule) for rule in rules] if rules else None


def _ek_rule(rule: RawRule) -> Any:
    kit = _eventkit()
    days = [
        kit.EKRecurrenceDayOfWeek.dayOfWeek_weekNumber_(day, week)
        for day, week in rule.days_of_week
    ]
    return kit.EKRecurrenceRule.alloc().initRecurrenceWithFrequency_interval_daysOfTheWeek_daysOfTheMonth_monthsOfTheYear_weeksOfTheYear_daysOfTheYear_setPositions_end_(  # noqa: E501
        rule.frequency,
        rule.interval,
        days or None,
        list(rule.days_of_month) or None,
        list(rule.months) or None,
        list(rule.weeks_of_year) or None,
        list(rule.days_of_year) or None,
        list(rule.set_positions) or None,
        _ek_rule_end(rule),
    )


def _ek_rule_end(rule: RawRule) -> Any:
    if rule.end is not None:
        return _eventkit().EKRecurrenceEnd.recurrenceEndWithEndDate_(_date(rule.end))
    if rule.count is not None:
        return _eventkit().EKRecurrenceEnd.recurrenceEndWithOccurrenceCount_(rule.count)
    return None


def _saved_reminder(store: Any, write: ReminderWrite) -> Any:
    """The reminder with the write applied, saved without committing."""
    if write.id is None:
        item = _eventkit().EKReminder.reminderWithEventStore_(store)
    else:
        item = _existing(store, write.id, _eventkit().EKReminder, "reminder")
    _apply(item, write.fields, REMINDER_SETTERS, store)
    _check(store.saveReminder_commit_error_(item, False, None))
    return item


def _apply(item: Any, fields: Mapping[str, Any], setters: Mapping[str, Setter], store: Any) -> None:
    for name, value in fields.items():
        if name not in setters:
            raise ValueError(f"EventKit cannot set {name!r} here")
        setters[name](item, value, store)


def _set_calendar(item: Any, calendar_id: str | None, store: Any) -> None:
    item.setCalendar_(None if calendar_id is None else store.calendarWithIdentifier_(calendar_id))


def _set_completion(item: Any, when: datetime | None, store: Any) -> None:
    # A date completes the reminder at that time; None makes it incomplete again.
    item.setCompletionDate_(_optional_date(when))


COMMON_SETTERS: dict[str, Setter] = {
    "calendar_id": _set_calendar,
    "title": lambda item, value, _: item.setTitle_(value),
    "notes": lambda item, value, _: item.setNotes_(value),
    "url": lambda item, value, _: item.setURL_(_ns_url(value)),
    "rules": lambda item, value, _: item.setRecurrenceRules_(_ek_rules(value)),
}
REMINDER_SETTERS: dict[str, Setter] = {
    **COMMON_SETTERS,
    "priority": lambda item, value, _: item.setPriority_(int(value or 0)),
    "due": lambda item, value, _: item.setDueDateComponents_(_components(value)),
    "completion": _set_completion,
}
EVENT_SETTERS: dict[str, Setter] = {
    **COMMON_SETTERS,
    "start": lambda item, value, _: item.setStartDate_(_optional_date(value)),
    "end": lambda item, value, _: item.setEndDate_(_optional_date(value)),
    "all_day": lambda item, value, _: item.setAllDay_(bool(value)),
    "timezone": lambda item, value, _: item.setTimeZone_(_zone(value)),
    "location": lambda item, value, _: item.setLocation_(value),
}
