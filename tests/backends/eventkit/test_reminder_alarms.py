"""Timed reminders notify as Reminders.app makes them (finding E1 of the macOS review): a due
with a time writes the offset-0 alarm and the start at the due; a due change moves them and
keeps the person's other alarms; a date-only or cleared due removes them. Over the fake port,
which stores what it is given: what the assertions read is what EventKit would be told."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from backends.eventkit.fake import FakeEventKit

from fruitctl.backends.eventkit.permission import Access, Responsible
from fruitctl.backends.eventkit.reminders import EventKitReminders
from fruitctl.backends.eventkit.tagstore import TagStore
from fruitctl.backends.eventkit.values import REMINDER_FIELDS, DateParts, RawAlarm, RawReminder
from fruitctl.ports import NewReminder

WHO = Responsible("iTerm", "/Applications/iTerm.app", "terminal")
NINE = datetime(2026, 3, 2, 9, 0, tzinfo=ZoneInfo("Europe/Rome"))
AT_NINE = DateParts(2026, 3, 2, 9, 0, 0, "Europe/Rome")
DUE_ALARM = RawAlarm(offset=0.0)
EARLY = RawAlarm(offset=-900.0)  # "15 minutes before", the person's own


@pytest.fixture
def fake() -> FakeEventKit:
    port = FakeEventKit()
    port.add_calendar("reminder", "Reminders", default=True)
    return port


@pytest.fixture
def backend(fake: FakeEventKit, tmp_path: Path) -> EventKitReminders:
    return EventKitReminders(fake, Access(fake, who=lambda: WHO), TagStore(tmp_path / "none"))


def home(fake: FakeEventKit) -> str:
    return next(iter(fake.lists["reminder"]))


def stored(fake: FakeEventKit, item_id: str) -> RawReminder:
    return fake.reminders[item_id]


def test_the_port_can_say_a_start_and_alarms() -> None:
    assert {"start", "alarms"} <= REMINDER_FIELDS


def test_a_timed_due_is_created_with_the_apps_alarm_and_start(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    (made,) = backend.create([NewReminder(home(fake), "Call the bank", due=NINE)])
    item = stored(fake, made.id)
    assert item.due == AT_NINE and item.start == AT_NINE
    assert item.alarms == (DUE_ALARM,)


@pytest.mark.parametrize("due", [date(2026, 3, 2), None])
def test_a_date_only_or_no_due_is_created_without_alarm_or_start(
    backend: EventKitReminders, fake: FakeEventKit, due: date | None
) -> None:
    (made,) = backend.create([NewReminder(home(fake), "Some day", due=due)])
    item = stored(fake, made.id)
    assert (item.start, item.alarms) == (None, ())


def test_a_due_change_moves_the_alarm_and_start_and_keeps_the_persons_others(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    fake.reminders["r1"] = RawReminder(
        "r1", home(fake), "Dentist", due=AT_NINE, start=AT_NINE, alarms=(EARLY, DUE_ALARM)
    )
    later = NINE + timedelta(hours=2)
    backend.update("r1", {"dueDate": later})
    item = stored(fake, "r1")
    at_eleven = DateParts(2026, 3, 2, 11, 0, 0, "Europe/Rome")
    assert item.due == at_eleven and item.start == at_eleven
    assert item.alarms == (EARLY, DUE_ALARM)  # one due alarm, never two


def test_an_absolute_alarm_at_the_old_due_is_the_due_alarm(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    # As other apps write it (reminders-cli: EKAlarm(absoluteDate: dueDate)).
    elsewhere = RawAlarm(absolute=NINE - timedelta(days=1))
    fake.reminders["r1"] = RawReminder(
        "r1", home(fake), "Dentist", due=AT_NINE, alarms=(RawAlarm(absolute=NINE), elsewhere)
    )
    backend.update("r1", {"dueDate": NINE + timedelta(days=1)})
    assert stored(fake, "r1").alarms == (elsewhere, DUE_ALARM)


@pytest.mark.parametrize("due", [date(2026, 3, 3), None])
def test_a_date_only_or_cleared_due_removes_the_alarm_and_start(
    backend: EventKitReminders, fake: FakeEventKit, due: date | None
) -> None:
    fake.reminders["r1"] = RawReminder(
        "r1", home(fake), "Dentist", due=AT_NINE, start=AT_NINE, alarms=(EARLY, DUE_ALARM)
    )
    backend.update("r1", {"dueDate": due})
    item = stored(fake, "r1")
    assert item.due == (None if due is None else DateParts(2026, 3, 3))
    assert (item.start, item.alarms) == (None, (EARLY,))


def test_a_change_that_leaves_the_due_alone_leaves_the_alarms_alone(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    fake.reminders["r1"] = RawReminder(
        "r1", home(fake), "Dentist", due=AT_NINE, start=AT_NINE, alarms=(EARLY, DUE_ALARM)
    )
    backend.update("r1", {"title": "Dentist at 9"})
    item = stored(fake, "r1")
    assert (item.start, item.alarms) == (AT_NINE, (EARLY, DUE_ALARM))
    (writes,) = [args[0] for name, args in fake.calls if name == "save_reminders"]
    assert [set(write.fields) for write in writes] == [{"title"}]
