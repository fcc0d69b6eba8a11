"""A fake of ``EventKitPort`` for Linux: thin and dumb. It keeps the plain values EventKit would
hand back in dictionaries, records every call, and answers the way EventKit's documentation
says it does (predicates, ids, errors) - no fruitctl logic lives here: the mapping above the
port is what the tests exercise.

``fail_next`` makes the next call of a method raise (an ``NSError`` as ``StoreError``, or a
``StoreTimeout``); ``status`` sets the authorization per entity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from backends.eventkit.fake_base import EK_ERROR_DOMAIN, FakeBase
from backends.eventkit.fake_events import FakeEvents

from fruitctl.backends.eventkit.values import (
    ADAPTER_DOMAIN,
    NOT_FOUND,
    DateParts,
    RawReminder,
    ReminderStatus,
    ReminderWrite,
    StoreError,
)

__all__ = ["EK_ERROR_DOMAIN", "FakeEventKit"]


class FakeReminders(FakeBase):
    """The reminder half: EventKit's predicates as their documentation says (an incomplete
    reminder's due range leaves out undated ones), saves applied field by field."""

    def fetch_reminders(
        self,
        calendar_ids: Sequence[str] | None,
        status: ReminderStatus,
        due_from: datetime | None,
        due_to: datetime | None,
        timeout: float,
    ) -> list[RawReminder]:
        self.record("fetch_reminders", calendar_ids, status, due_from, due_to, timeout)
        found = []
        for item in self.reminders.values():
            if calendar_ids is not None and item.calendar_id not in calendar_ids:
                continue
            if status != "all" and item.completed != (status == "completed"):
                continue
            if status == "incomplete" and (due_from or due_to):
                when = _instant(item.due)
                if when is None or (due_from and when < due_from) or (due_to and when > due_to):
                    continue
            found.append(item)
        return found

    def reminder(self, item_id: str) -> RawReminder | None:
        self.record("reminder", item_id)
        return self.reminders.get(item_id)

    def save_reminders(self, writes: Sequence[ReminderWrite]) -> list[RawReminder]:
        self.record("save_reminders", tuple(writes))
        staged = dict(self.reminders)  # all or nothing, like commit + reset
        saved = []
        for write in writes:
            fields = dict(write.fields)
            if "calendar_id" in fields and fields["calendar_id"] not in self.lists["reminder"]:
                raise StoreError(EK_ERROR_DOMAIN, 1, "No calendar has been set.")
            if "completion" in fields:
                fields["completed"] = fields["completion"] is not None
            stamp = self.tick()
            if write.id is None:
                item = RawReminder(self.new_id("rem"), "", "", created=stamp, modified=stamp)
            elif write.id in staged:
                item = replace(staged[write.id], modified=stamp)
            else:
                raise StoreError(ADAPTER_DOMAIN, NOT_FOUND, f"no reminder with id {write.id!r}")
            item = replace(item, **fields)
            staged[item.id] = item
            saved.append(item)
        self.reminders = staged
        return saved

    def remove_reminders(self, item_ids: Sequence[str]) -> None:
        self.record("remove_reminders", tuple(item_ids))
        missing = [i for i in item_ids if i not in self.reminders]
        if missing:
            raise StoreError(ADAPTER_DOMAIN, NOT_FOUND, f"no reminder with id {missing[0]!r}")
        for item_id in item_ids:
            del self.reminders[item_id]

    def remove_calendar(self, calendar_id: str) -> None:
        super().remove_calendar(calendar_id)
        self.reminders = {k: r for k, r in self.reminders.items() if r.calendar_id != calendar_id}


def _instant(parts: DateParts | None) -> datetime | None:
    if parts is None:
        return None
    zone = ZoneInfo(parts.timezone) if parts.timezone else UTC
    return datetime(
        parts.year, parts.month, parts.day, parts.hour or 0, parts.minute or 0, tzinfo=zone
    )


class FakeEventKit(FakeReminders, FakeEvents):
    """The whole fake port."""
