"""A reminder's repeat rule, alarms and start: checked together with its due before anything is
written, and a repeating reminder completed moved on to its next instance
(``domain.repeats``: as Reminders.app does, the done instance kept as a completed reminder).

Moving on is done here, above every store, with the store's plain writes (one update, one
create): the local store, a CalDAV server and Apple's Reminders then do the same thing, and
Apple's store is never handed a completed repeating reminder to advance its own way.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any, cast

from fruitctl.domain.alarms import Alarm, check_alarms
from fruitctl.domain.errors import InvalidParams
from fruitctl.domain.reminders import Reminder
from fruitctl.domain.repeats import moved, next_instance
from fruitctl.ports import NewReminder, ReminderChanges, RemindersBackend

Moment = date | datetime
# What makes an update look at the reminder as it is first: a rule or alarms that need its due,
# a due taken away from them, a completion that may move a repeating one on.
_TIMING = ("recurrence", "alarms", "dueDate", "startDate")


def check_timing(
    due: Moment | None, rule: str | None, alarms: Sequence[Alarm], start: Moment | None
) -> None:
    """A repeat rule needs a due to repeat from; an alarm in minutes before needs one too; a
    start and a due are of one kind (RFC 5545 wants DTSTART and DUE so)."""
    if rule is not None and due is None:
        raise InvalidParams.repeat_without_due()
    check_alarms(alarms, due, "alarms")
    if start is not None and due is not None and _timed(start) != _timed(due):
        raise InvalidParams.start_and_due_kinds()


def _timed(value: Moment) -> bool:
    return isinstance(value, datetime)


def update(backend: RemindersBackend, reminder_id: str, changes: ReminderChanges) -> Reminder:
    """``backend.update``, a repeating reminder's completion moving it on instead."""
    if not _needs_current(changes):
        return backend.update(reminder_id, changes)
    current = backend.get(reminder_id)
    given = cast(dict[str, Any], changes)
    due = given.get("dueDate", current.due)
    rule = given.get("recurrence", current.recurrence)
    start = given.get("startDate", current.start)
    check_timing(due, rule, given.get("alarms", current.alarms), start)
    done_at = given.get("completionDate")
    if done_at is None or rule is None or due is None or current.isCompleted:
        return backend.update(reminder_id, changes)
    return _move_on(backend, current, changes, rule, due)


def _needs_current(changes: ReminderChanges) -> bool:
    return any(key in changes for key in _TIMING) or changes.get("completionDate") is not None


def _move_on(
    backend: RemindersBackend,
    current: Reminder,
    changes: ReminderChanges,
    rule: str,
    due: Moment,
) -> Reminder:
    """The reminder at its next instance, and its done instance kept completed; the last
    instance of a rule is simply completed."""
    following = next_instance(rule, due)
    if following is None:
        return backend.update(current.id, changes)
    given = cast(dict[str, Any], changes)
    done_at = given["completionDate"]
    start = given.get("startDate", current.start)
    alarms: tuple[Alarm, ...] = given.get("alarms", current.alarms)
    ahead = {key: value for key, value in given.items() if key != "completionDate"}
    ahead.update(dueDate=following.due, recurrence=following.rule)
    if start is not None:
        ahead["startDate"] = moved(start, following.step)
    if any(alarm.at is not None for alarm in alarms):
        ahead["alarms"] = tuple(_moved(alarm, following.step) for alarm in alarms)
    updated = backend.update(current.id, cast(ReminderChanges, ahead))
    backend.create([_done(updated, due, start, done_at)])
    return updated


def _moved(alarm: Alarm, step: timedelta) -> Alarm:
    """An alarm at a moment moves with the instance; one in minutes before moves by itself."""
    if alarm.at is None:
        return alarm
    return Alarm(at=moved(datetime.fromisoformat(alarm.at), step))


def _done(updated: Reminder, due: Moment, start: Moment | None, at: datetime) -> NewReminder:
    """The instance just done, kept apart and completed, as Reminders.app keeps it: no rule,
    no alarms, no tags or flag (Apple's store cannot write those)."""
    return NewReminder(
        list_id=updated.listId,
        title=updated.title,
        notes=updated.notes,
        priority=updated.priority,
        due=due,
        completion=at,
        url=updated.url,
        start=start,
    )
