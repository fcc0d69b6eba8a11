"""The event half of the EventKit fake (see ``fake.py``): what ``EventKitPort`` answers about
events, kept as plain values in memory.

A series is one stored ``RawEvent`` with rules. Reads expand it the way EventKit documents -
every occurrence carries the series' identifier and its original start (``occurrenceDate``) -
but only for what the tests use: daily and weekly rules with an interval, a count or an end.
An occurrence saved alone is kept beside the series as a detached one; one removed alone is
remembered as gone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from backends.eventkit.fake_base import FakeBase

from fruitctl.backends.eventkit.values import (
    ADAPTER_DOMAIN,
    DAILY,
    NOT_FOUND,
    WEEKLY,
    EventWrite,
    RawEvent,
    StoreError,
)

STEPS = {DAILY: timedelta(days=1), WEEKLY: timedelta(weeks=1)}


class FakeEvents(FakeBase):
    def __init__(self) -> None:
        super().__init__()
        self.events_by_id: dict[str, RawEvent] = {}
        self.detached: dict[tuple[str, datetime], RawEvent] = {}
        self.removed: set[tuple[str, datetime]] = set()

    def add_event(self, event: RawEvent) -> RawEvent:
        self.events_by_id[event.id] = event
        return event

    # -- EventKitPort: events --------------------------------------------------------------------

    def events(
        self, start: datetime, end: datetime, calendar_ids: Sequence[str] | None
    ) -> list[RawEvent]:
        self.record("events", start, end, None if calendar_ids is None else tuple(calendar_ids))
        if end - start > timedelta(days=4 * 366):
            raise StoreError("EKErrorDomain", 9, "The date range is too long.")  # as EventKit
        found = []
        for stored in self.events_by_id.values():
            if calendar_ids is not None and stored.calendar_id not in calendar_ids:
                continue
            for item in self._instances(stored):
                if item.start < end and (item.end > start or item.start == item.end >= start):
                    found.append(item)
        return found

    def event(self, item_id: str) -> RawEvent | None:
        """The event; for a series its master - the series' own start, whatever became of its
        first occurrence (removed or moved alone)."""
        self.record("event", item_id)
        stored = self.events_by_id.get(item_id)
        if stored is None or not stored.rules:
            return stored
        return replace(stored, occurrence=stored.start)

    def save_event(self, write: EventWrite, future: bool) -> RawEvent:
        self.record("save_event", write, future)
        fields = dict(write.fields)
        if "calendar_id" in fields and fields["calendar_id"] not in self.lists["event"]:
            raise StoreError("EKErrorDomain", 1, "No calendar has been set.")
        stamp = self.tick()
        if write.id is None:
            made = RawEvent(self.new_id("evt"), "", "", stamp, stamp, created=stamp)
            made = replace(made, modified=stamp, **fields)
            self.events_by_id[made.id] = made
            return next(self._instances(made))
        stored = self._stored(write.id)
        if write.occurrence is not None:
            instance = self._addressed(stored, write.occurrence, future)
            moved = replace(instance, detached=True, modified=stamp, **fields)
            self.detached[(stored.id, write.occurrence)] = moved
            return moved
        changed = replace(stored, modified=stamp, **fields)
        self.events_by_id[stored.id] = changed
        return changed if not changed.rules else replace(changed, occurrence=changed.start)

    def remove_event(self, item_id: str, occurrence: datetime | None, future: bool) -> None:
        self.record("remove_event", item_id, occurrence, future)
        stored = self._stored(item_id)
        if occurrence is not None:
            self._addressed(stored, occurrence, future)
            self.removed.add((item_id, occurrence))
            self.detached.pop((item_id, occurrence), None)
            return
        del self.events_by_id[item_id]

    # -- plumbing --------------------------------------------------------------------------------

    def _stored(self, item_id: str) -> RawEvent:
        stored = self.events_by_id.get(item_id)
        if stored is None:
            raise StoreError(ADAPTER_DOMAIN, NOT_FOUND, f"no event with id {item_id!r}")
        return stored

    def _addressed(self, stored: RawEvent, occurrence: datetime, future: bool) -> RawEvent:
        """The occurrence a write names (EventKit finds none that was removed); "this and
        future" from one is a split of the series, which this fake does not model."""
        instance = self._instance(stored, occurrence)
        if future:
            raise NotImplementedError("the fake does not split a series at an occurrence")
        return instance

    def _instance(self, stored: RawEvent, occurrence: datetime) -> RawEvent:
        for item in self._instances(stored):
            if item.occurrence == occurrence:
                return item
        raise StoreError(ADAPTER_DOMAIN, NOT_FOUND, f"no occurrence at {occurrence}")

    def _instances(self, stored: RawEvent) -> Iterator[RawEvent]:
        if not stored.rules:
            yield stored
            return
        (rule,) = stored.rules
        step = STEPS[rule.frequency] * rule.interval
        length = stored.end - stored.start
        start, made = stored.start, 0
        while made < (rule.count or 10_000) and (rule.end is None or start <= rule.end):
            key = (stored.id, start)
            if key not in self.removed:
                plain = replace(stored, start=start, end=start + length, occurrence=start)
                yield self.detached.get(key, plain)
            start, made = start + step, made + 1
