"""The shared base of the EventKit fake (``fake.py``): permission, calendars, recorded calls."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from fruitctl.backends.eventkit.values import (
    FULL_ACCESS,
    NOT_DETERMINED,
    Entity,
    RawCalendar,
    RawReminder,
)

EK_ERROR_DOMAIN = "EKErrorDomain"


class FakeBase:
    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.status: dict[Entity, int] = {"reminder": FULL_ACCESS, "event": FULL_ACCESS}
        self.grant_on_request = True
        self.fail_next: dict[str, Exception] = {}
        self.lists: dict[Entity, dict[str, RawCalendar]] = {"reminder": {}, "event": {}}
        self.defaults: dict[Entity, str | None] = {"reminder": None, "event": None}
        self.reminders: dict[str, RawReminder] = {}
        self._ids = itertools.count(1)
        self.clock = datetime.now(UTC)

    # -- plumbing -------------------------------------------------------------------------------

    def record(self, method: str, *args: Any) -> None:
        self.calls.append((method, args))
        failure = self.fail_next.pop(method, None)
        if failure is not None:
            raise failure

    def new_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids):04d}"

    def tick(self) -> datetime:
        """Now, as EventKit stamps a save; strictly later than the last stamp."""
        now = datetime.now(UTC)
        self.clock = now if now > self.clock else self.clock + timedelta(microseconds=1)
        return self.clock

    def add_calendar(
        self, entity: Entity, title: str, *, default: bool = False, source: str = "iCloud"
    ) -> RawCalendar:
        """A calendar (a list, for reminders) in the account ``source``."""
        calendar = RawCalendar(self.new_id("cal"), title, True, source)
        self.lists[entity][calendar.id] = calendar
        if default or self.defaults[entity] is None:
            self.defaults[entity] = calendar.id
        return calendar

    # -- EventKitPort: permission and calendars --------------------------------------------------

    def authorization(self, entity: Entity) -> int:
        self.record("authorization", entity)
        return self.status[entity]

    def request_access(self, entity: Entity, timeout: float) -> bool:
        self.record("request_access", entity, timeout)
        if self.status[entity] == NOT_DETERMINED:
            self.status[entity] = FULL_ACCESS if self.grant_on_request else 2
        return self.status[entity] == FULL_ACCESS

    def calendars(self, entity: Entity) -> list[RawCalendar]:
        self.record("calendars", entity)
        return list(self.lists[entity].values())

    def default_calendar(self, entity: Entity) -> str | None:
        self.record("default_calendar", entity)
        return self.defaults[entity]

    def create_calendar(self, entity: Entity, title: str) -> RawCalendar:
        self.record("create_calendar", entity, title)
        return self.add_calendar(entity, title)

    def remove_calendar(self, calendar_id: str) -> None:
        self.record("remove_calendar", calendar_id)
        for entity, calendars in self.lists.items():
            if (
                calendars.pop(calendar_id, None) is not None
                and self.defaults[entity] == calendar_id
            ):
                self.defaults[entity] = next(iter(calendars), None)

    def refresh(self) -> None:
        self.record("refresh")
