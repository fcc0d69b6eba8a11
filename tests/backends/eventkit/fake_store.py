"""The store half of the EventKit stand-in (``fake_framework.py``): ``EKEventStore`` and the
objects it hands out - ``EKReminder``, ``EKEvent``, the recurrence classes - as property bags.

A store loads an item from the Mac's database (``Tcc.saved``) the first time it is asked for it
and hands out that same object until ``reset``, as users report of EventKit; saves wait for a
commit, which stamps ``lastModifiedDate``. Kept dumb: a fetch filters on list and completion
only (a due range is not modelled), and a series is its master event alone (no occurrences).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from backends.eventkit.fake_framework import (
    REQUESTS,
    Confined,
    FakeCalendar,
    NSError,
    Tcc,
    nsexception,
)

from fruitctl.backends.eventkit.values import FULL_ACCESS, NOT_DETERMINED

Answer = tuple[bool, NSError | None]
EK_ERROR_DOMAIN = "EKErrorDomain"


class FakeStore(Confined):
    """``EKEventStore``: what it shows is fixed when it is made (or ``reset``)."""

    tcc: Tcc

    def __init__(self) -> None:
        self._view: dict[int, list[FakeCalendar]] = {}
        self._loaded: dict[str, FakeItem] = {}
        self._staged: dict[str, FakeItem | None] = {}
        self.tcc.stores.append(self)
        self.reset()

    def reset(self) -> None:
        granted = {t for t, status in self.tcc.status.items() if status == FULL_ACCESS}
        # Its own copies, as of now: a list renamed in the app later is not in them.
        self._view = {t: [] for t in (0, 1)}
        for t in granted:
            self._view[t] = [self._own(calendar) for calendar in self.tcc.calendars[t]]
        self._loaded, self._staged = {}, {}

    def _own(self, calendar: FakeCalendar) -> FakeCalendar:
        mine = replace(calendar)
        mine._mac = self.tcc
        return mine

    # -- permission ------------------------------------------------------------------------------

    def respondsToSelector_(self, selector: str) -> bool:
        return selector in REQUESTS

    def _request(self, entity_type: int, handler: Callable[[bool, Any], None]) -> None:
        # EventKit answers on a queue of its own, after the person has chosen.
        self.tcc.requests.append(entity_type)
        if self.tcc.status[entity_type] == NOT_DETERMINED:
            self.tcc.status[entity_type] = FULL_ACCESS if self.tcc.answer else 2
        granted = self.tcc.status[entity_type] == FULL_ACCESS
        threading.Thread(target=handler, args=(granted, None)).start()

    def requestFullAccessToRemindersWithCompletion_(self, handler: Any) -> None:
        self._request(1, handler)

    def requestFullAccessToEventsWithCompletion_(self, handler: Any) -> None:
        self._request(0, handler)

    def refreshSourcesIfNecessary(self) -> None:
        """Apple: pulls the accounts' data - it drops none of the objects handed out."""

    # -- calendars -------------------------------------------------------------------------------

    def calendarsForEntityType_(self, entity_type: int) -> list[FakeCalendar]:
        return list(self._view[entity_type])

    def defaultCalendarForNewReminders(self) -> FakeCalendar | None:
        return next(iter(self._view[1]), None)

    def defaultCalendarForNewEvents(self) -> FakeCalendar | None:
        return next(iter(self._view[0]), None)

    def calendarWithIdentifier_(self, ident: str | None) -> FakeCalendar | None:
        found = (c for calendars in self._view.values() for c in calendars if c.ident == ident)
        return next(found, None)

    def saveCalendar_commit_error_(self, calendar: FakeCalendar, commit: bool, _: None) -> Answer:
        self.tcc.calendars[calendar.entity].append(calendar)
        self._view[calendar.entity].append(calendar)
        return True, None

    def removeCalendar_commit_error_(self, calendar: FakeCalendar, commit: bool, _: None) -> Answer:
        for calendars in (*self.tcc.calendars.values(), *self._view.values()):
            calendars[:] = [kept for kept in calendars if kept.ident != calendar.ident]
        saved = self.tcc.saved.items()
        self.tcc.saved = {k: row for k, row in saved if row.get("calendar") != calendar.ident}
        return True, None

    # -- reading ---------------------------------------------------------------------------------

    def predicateForIncompleteRemindersWithDueDateStarting_ending_calendars_(
        self, start: Any, end: Any, calendars: Any
    ) -> tuple[Any, ...]:
        return ("incomplete", _ids(calendars))

    def predicateForCompletedRemindersWithCompletionDateStarting_ending_calendars_(
        self, start: Any, end: Any, calendars: Any
    ) -> tuple[Any, ...]:
        return ("completed", _ids(calendars))

    def predicateForRemindersInCalendars_(self, calendars: Any) -> tuple[Any, ...]:
        return ("all", _ids(calendars))

    def fetchRemindersMatchingPredicate_completion_(
        self, predicate: tuple[Any, ...], handler: Callable[[list[Any]], None]
    ) -> int:
        status, ids = predicate
        found = [
            self._load(ident)
            for ident, row in list(self.tcc.saved.items())
            if row["kind"] == "reminder"
            and (ids is None or row.get("calendar") in ids)
            and status in ("all", "completed" if row.get("completionDate") else "incomplete")
        ]
        threading.Thread(target=handler, args=(found,)).start()
        return 1

    def cancelFetchRequest_(self, request: int) -> None:
        """Nothing is in flight here."""

    def predicateForEventsWithStartDate_endDate_calendars_(
        self, start: Any, end: Any, calendars: Any
    ) -> tuple[Any, ...]:
        return (
            "events",
            start.timeIntervalSince1970(),
            end.timeIntervalSince1970(),
            _ids(calendars),
        )

    def eventsMatchingPredicate_(self, predicate: tuple[Any, ...]) -> list[Any]:
        _, start, end, ids = predicate
        return [
            self._load(ident)
            for ident, row in list(self.tcc.saved.items())
            if row["kind"] == "event"
            and (ids is None or row.get("calendar") in ids)
            and row["startDate"].timeIntervalSince1970() < end
            and row["endDate"].timeIntervalSince1970() > start
        ]

    def calendarItemWithIdentifier_(self, ident: str) -> FakeItem | None:
        return self._load(ident)

    def _load(self, ident: str) -> FakeItem | None:
        if ident not in self._loaded:
            row = self.tcc.saved.get(ident)
            if row is None:
                return None
            kind = EKReminder if row["kind"] == "reminder" else EKEvent
            self._loaded[ident] = kind(self, ident, row)
        return self._loaded[ident]

    # -- writing ---------------------------------------------------------------------------------

    def saveReminder_commit_error_(self, item: FakeItem, commit: bool, _: None) -> Answer:
        return self._stage(item, item, commit, None)

    def removeReminder_commit_error_(self, item: FakeItem, commit: bool, _: None) -> Answer:
        return self._stage(item, None, commit, None)

    def saveEvent_span_commit_error_(
        self, item: FakeItem, span: int, commit: bool, _: None
    ) -> Answer:
        return self._stage(item, item, commit, span)

    def removeEvent_span_commit_error_(
        self, item: FakeItem, span: int, commit: bool, _: None
    ) -> Answer:
        return self._stage(item, None, commit, span)

    def commit_(self, _: None) -> Answer:
        for ident, item in self._staged.items():
            if item is None:
                self.tcc.saved.pop(ident, None)
                self._loaded.pop(ident, None)
            else:
                self.tcc.saved[ident] = item._committed(self.tcc.stamp())
                self._loaded[ident] = item
        self._staged = {}
        return True, None

    def _stage(
        self, item: FakeItem, kept: FakeItem | None, commit: bool, span: int | None
    ) -> Answer:
        refusal = self.tcc.refusals.pop(0) if self.tcc.refusals else None
        if kept is not None and kept._props.get("calendar") is None:
            refusal = NSError(EK_ERROR_DOMAIN, 1, "No calendar has been set.")  # EKErrorNoCalendar
        if refusal is not None:
            return False, refusal
        ident = item.calendarItemIdentifier()
        self.tcc.writes.append(("save" if kept else "remove", ident, span))
        self._staged[ident] = kept
        return self.commit_(None) if commit else (True, None)


def _ids(calendars: Any) -> list[str] | None:
    return None if calendars is None else [calendar.ident for calendar in calendars]


def _key(name: str) -> str:
    """A setter's property: ``setDueDateComponents_`` -> ``dueDateComponents``, ``setURL_`` ->
    ``URL``."""
    return name if name.isupper() else name[0].lower() + name[1:]


class FakeItem(Confined):
    """An ``EKCalendarItem``: its properties as set (``PROPERTIES`` by getter and setter)."""

    KIND = ""
    PROPERTIES: frozenset[str] = frozenset()

    def __init__(self, store: FakeStore, ident: str, row: dict[str, Any]) -> None:
        self._store = store
        self._ident = ident
        self._props = {k: list(v) if isinstance(v, list) else v for k, v in row.items()}
        self._mac = store.tcc

    @classmethod
    def _new(cls, store: FakeStore, selector: str) -> FakeItem:
        store.tcc.check(selector)
        return cls(store, store.tcc.new_id(cls.KIND), {"kind": cls.KIND, "priority": 0})

    def _committed(self, stamp: Any) -> dict[str, Any]:
        self._props.setdefault("creationDate", stamp)
        self._props["lastModifiedDate"] = stamp
        return {k: list(v) if isinstance(v, list) else v for k, v in self._props.items()}

    def __getattr__(self, name: str) -> Any:
        props, kind = self.__dict__["_props"], type(self)
        if name.startswith("set") and name.endswith("_") and _key(name[3:-1]) in kind.PROPERTIES:
            self.__dict__["_mac"].check(name)
            return lambda value: props.__setitem__(_key(name[3:-1]), value)
        if name in kind.PROPERTIES:
            self.__dict__["_mac"].check(name)
            return lambda: props.get(name)
        raise AttributeError(name)

    def calendarItemIdentifier(self) -> str:
        return self._ident

    def isKindOfClass_(self, kind: type[Any]) -> bool:
        return isinstance(self, kind)

    def calendar(self) -> FakeCalendar | None:
        return self._store.calendarWithIdentifier_(self._props.get("calendar"))

    def setCalendar_(self, calendar: FakeCalendar | None) -> None:
        self._props["calendar"] = None if calendar is None else calendar.ident

    def alarms(self) -> list[Any]:
        return list(self._props.get("alarms") or [])

    def addAlarm_(self, alarm: Any) -> None:
        self._props.setdefault("alarms", []).append(alarm)

    def removeAlarm_(self, alarm: Any) -> None:
        self._props["alarms"].remove(alarm)

    def recurrenceRules(self) -> list[Any] | None:
        return self._props.get("recurrenceRules")

    def setRecurrenceRules_(self, rules: list[Any] | None) -> None:
        self._props["recurrenceRules"] = list(rules) if rules else None

    def hasRecurrenceRules(self) -> bool:
        return bool(self._props.get("recurrenceRules"))


class EKReminder(FakeItem):
    KIND = "reminder"
    PROPERTIES = frozenset(
        {
            *("title", "notes", "priority", "dueDateComponents", "startDateComponents"),
            *("completionDate", "creationDate", "lastModifiedDate", "URL"),
        }
    )

    @classmethod
    def reminderWithEventStore_(cls, store: FakeStore) -> FakeItem:
        return cls._new(store, "reminderWithEventStore:")

    def isCompleted(self) -> bool:
        return self._props.get("completionDate") is not None


class EKEvent(FakeItem):
    KIND = "event"
    PROPERTIES = frozenset(
        {
            *("title", "notes", "location", "startDate", "endDate", "timeZone"),
            *("creationDate", "lastModifiedDate", "URL", "availability"),
        }
    )

    @classmethod
    def eventWithEventStore_(cls, store: FakeStore) -> FakeItem:
        return cls._new(store, "eventWithEventStore:")

    def isAllDay(self) -> bool:
        return bool(self._props.get("allDay"))

    def setAllDay_(self, value: bool) -> None:
        self._props["allDay"] = value

    def isDetached(self) -> bool:
        return False  # a series is its master alone here

    def occurrenceDate(self) -> Any:
        return self._props.get("startDate")  # the master's: the series' own first start


class EKRecurrenceRule(Confined):
    @classmethod
    def alloc(cls) -> EKRecurrenceRule:
        _check(cls, "alloc")
        return cls()

    def initRecurrenceWithFrequency_interval_daysOfTheWeek_daysOfTheMonth_monthsOfTheYear_weeksOfTheYear_daysOfTheYear_setPositions_end_(  # noqa: E501
        self, frequency: int, interval: int, *lists_and_end: Any
    ) -> EKRecurrenceRule:
        if interval < 1:  # Apple's header: "If interval is 0, an exception is raised."
            raise nsexception("NSInvalidArgumentException", "interval must be > 0")
        self._frequency, self._interval = frequency, interval
        self._lists, self._end = lists_and_end[:-1], lists_and_end[-1]
        return self

    def frequency(self) -> int:
        return self._frequency

    def interval(self) -> int:
        return self._interval

    def daysOfTheWeek(self) -> Any:
        return self._lists[0]

    def daysOfTheMonth(self) -> Any:
        return self._lists[1]

    def monthsOfTheYear(self) -> Any:
        return self._lists[2]

    def weeksOfTheYear(self) -> Any:
        return self._lists[3]

    def daysOfTheYear(self) -> Any:
        return self._lists[4]

    def setPositions(self) -> Any:
        return self._lists[5]

    def recurrenceEnd(self) -> Any:
        return self._end

    def firstDayOfTheWeek(self) -> int:
        return 0


class EKRecurrenceEnd(Confined):
    def __init__(self, date: Any, count: int) -> None:
        self._date, self._count = date, count

    @classmethod
    def recurrenceEndWithEndDate_(cls, date: Any) -> EKRecurrenceEnd:
        _check(cls, "recurrenceEndWithEndDate:")
        return cls(date, 0)

    @classmethod
    def recurrenceEndWithOccurrenceCount_(cls, count: int) -> EKRecurrenceEnd:
        _check(cls, "recurrenceEndWithOccurrenceCount:")
        return cls(None, count)

    def endDate(self) -> Any:
        return self._date

    def occurrenceCount(self) -> int:
        return self._count


class EKRecurrenceDayOfWeek(Confined):
    def __init__(self, day: int, week: int) -> None:
        self._day, self._week = day, week

    @classmethod
    def dayOfWeek_weekNumber_(cls, day: int, week: int) -> EKRecurrenceDayOfWeek:
        _check(cls, "dayOfWeek:weekNumber:")
        return cls(day, week)

    def dayOfTheWeek(self) -> int:
        return self._day

    def weekNumber(self) -> int:
        return self._week


def _check(kind: type[Confined], selector: str) -> None:
    if kind._mac is not None:
        kind._mac.check(selector)


def recurrence_kinds(tcc: Tcc) -> dict[str, Any]:
    """``EKRecurrenceRule``, ``EKRecurrenceEnd`` and ``EKRecurrenceDayOfWeek`` of ``tcc``."""
    kinds = (EKRecurrenceRule, EKRecurrenceEnd, EKRecurrenceDayOfWeek)
    return {kind.__name__: type(kind.__name__, (kind,), {"_mac": tcc}) for kind in kinds}
