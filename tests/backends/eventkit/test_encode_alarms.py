"""A reminder's due, start and alarms through the adapter's writing and reading halves
(``encode.py``, ``decode.py``) on stand-ins for PyObjC's objects: what ``mapping`` decides is
what EventKit is told, and read back the same; a location alarm the person set stays."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

import pytest
from backends.eventkit.fake_objc import EVENTKIT, FOUNDATION, EKAlarm, EKReminder

from fruitctl.backends.eventkit import decode, encode, mapping
from fruitctl.backends.eventkit.values import DateParts, RawAlarm

AT_NINE = DateParts(2026, 3, 2, 9, 0, 0, "Europe/Rome")
EARLY = RawAlarm(offset=-900.0)


@pytest.fixture(autouse=True)
def _pyobjc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "EventKit", EVENTKIT)
    monkeypatch.setitem(sys.modules, "Foundation", FOUNDATION)


def write(item: EKReminder, fields: dict[str, object]) -> None:
    encode.apply(item, fields, encode.REMINDER_SETTERS, store=None)


def test_a_timed_due_is_told_to_eventkit_with_its_alarm_and_start() -> None:
    item = EKReminder()
    write(item, mapping.due_fields(datetime(2026, 3, 2, 8, tzinfo=UTC), decode.reminder(item)))
    read = decode.reminder(item)
    assert read.due == DateParts(2026, 3, 2, 8, 0, 0, "Etc/GMT")
    assert read.start == read.due and read.alarms == (mapping.DUE_ALARM,)


def test_a_due_change_keeps_a_location_alarm_and_the_persons_early_one() -> None:
    place = EKAlarm.at_a_place("Home")
    item = EKReminder([EKAlarm(-900.0), EKAlarm(0.0), place])
    write(item, {"due": AT_NINE, "start": AT_NINE})
    assert decode.reminder(item).alarms == (EARLY, mapping.DUE_ALARM)  # location not read
    write(item, mapping.due_fields(None, decode.reminder(item)))
    read = decode.reminder(item)
    assert (read.due, read.start, read.alarms) == (None, None, (EARLY,))
    assert place in item.alarms()


def test_an_absolute_alarm_round_trips() -> None:
    when = datetime(2026, 3, 1, 18, tzinfo=UTC)
    item = EKReminder()
    write(item, {"alarms": (RawAlarm(absolute=when), EARLY)})
    assert decode.reminder(item).alarms == (RawAlarm(absolute=when), EARLY)
