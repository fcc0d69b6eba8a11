"""The real thing, on a Mac only: the PyObjC adapter against the person's own EventKit store.

Everywhere else these are skipped with the reason, and the fake-backed tests beside this file
prove everything above the adapter. On a Mac they also need ``FRUITCTL_TEST_EVENTKIT=1`` (they
make and remove a temporary list in the person's Reminders and a calendar): ``make test-mac``
sets it. macOS asks the app that runs them (your terminal) for access the first time. Asked for
on a Mac, they never pass by skipping: without PyObjC's bridge they fail and say how to get it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from fruitctl.backends import eventkit
from fruitctl.backends.eventkit.permission import Access
from fruitctl.ports import EventRange, NewEvent, NewReminder, ReminderQuery, ReminderScope

pytestmark = [
    pytest.mark.skipif(
        sys.platform != "darwin",
        reason="needs macOS with PyObjC's EventKit bridge (make test-mac on a Mac); on Linux "
        "the fake-backed tests cover the mapping, the selectors are checked against Apple's list",
    ),
    pytest.mark.skipif(
        os.environ.get("FRUITCTL_TEST_EVENTKIT") != "1",
        reason="writes a temporary list into the person's own Reminders: set "
        "FRUITCTL_TEST_EVENTKIT=1 to allow it (make test-mac does)",
    ),
]


@pytest.fixture(autouse=True)
def _bridge() -> None:
    if not eventkit.available():
        pytest.fail(
            "PyObjC's EventKit bridge is not importable here: `make setup` installs "
            "pyobjc-framework-EventKit (pinned in constraints.txt)"
        )


def test_a_round_trip_through_the_real_store() -> None:
    backend = eventkit.open_reminders(Access(eventkit.shared_port(), may_prompt=True))
    made = backend.create_list(f"fruitctl test {secrets.token_hex(3)}")
    try:
        (created,) = backend.create(
            [NewReminder(list_id=made.id, title="fruitctl test", priority=5)]
        )
        assert backend.get(created.id).title == "fruitctl test"
        scope = ReminderScope(list_ids=(made.id,))
        assert [r.id for r in backend.fetch(ReminderQuery(scope=scope))] == [created.id]
        backend.delete(created.id)
        assert backend.fetch(ReminderQuery(scope=scope)) == []
    finally:
        backend.delete_list(made.id)


def test_a_series_and_its_detached_occurrence_in_the_real_store() -> None:
    backend = eventkit.open_calendars(Access(eventkit.shared_port(), may_prompt=True))
    made = backend.create_calendar(f"fruitctl test {secrets.token_hex(3)}")
    start = datetime(2030, 3, 4, 9, 0, tzinfo=ZoneInfo("Europe/Rome"))
    try:
        series = backend.create_event(
            NewEvent(made.id, "Review", start, start + timedelta(hours=1), recurrence="FREQ=DAILY")
        )
        window = EventRange(start - timedelta(hours=1), start + timedelta(days=3))
        first, second, _ = backend.events(window)
        backend.update_event(second.id, {"title": "Moved alone"}, "occurrence")
        backend.update_event(first.id, {"title": "Renamed"}, "series")
        titles = [e.title for e in backend.events(window)]
        assert titles == ["Renamed", "Moved alone", "Renamed"], titles
        backend.delete_event(series.id, "series")
    finally:
        with contextlib.suppress(Exception):
            eventkit.shared_port().remove_calendar(made.id)


def test_a_change_another_app_commits_is_read_and_kept_by_the_next_write() -> None:
    """Another app's store (a second ``EKEventStore``, as Reminders.app has its own) renames
    the reminder after fruitctl's warm store read it: fruitctl reads the new title and its
    write keeps it (finding C3 of the macOS review)."""
    import EventKit  # type: ignore[import-not-found,unused-ignore]

    backend = eventkit.open_reminders(Access(eventkit.shared_port(), may_prompt=True))
    made = backend.create_list(f"fruitctl test {secrets.token_hex(3)}")
    try:
        (created,) = backend.create([NewReminder(list_id=made.id, title="fruitctl test")])
        backend.fetch(ReminderQuery(scope=ReminderScope(list_ids=(made.id,))))  # warm
        other = EventKit.EKEventStore.alloc().init()
        theirs = other.calendarItemWithIdentifier_(created.id)
        theirs.setTitle_("renamed elsewhere")
        ok, error = other.saveReminder_commit_error_(theirs, True, None)
        assert ok, error
        assert backend.get(created.id).title == "renamed elsewhere"
        backend.update(created.id, {"priority": 1})
        assert backend.get(created.id).title == "renamed elsewhere"
    finally:
        backend.delete_list(made.id)


def test_a_series_whose_first_occurrence_was_removed_is_changed_and_removed_whole() -> None:
    """Finding E2 of the macOS review: the series is addressed through what EventKit answers
    for its id, never an occurrence searched for near its first start."""
    backend = eventkit.open_calendars(Access(eventkit.shared_port(), may_prompt=True))
    made = backend.create_calendar(f"fruitctl test {secrets.token_hex(3)}")
    start = datetime(2030, 3, 4, 9, 0, tzinfo=ZoneInfo("Europe/Rome"))
    try:
        series = backend.create_event(
            NewEvent(made.id, "Review", start, start + timedelta(hours=1), recurrence="FREQ=DAILY")
        )
        window = EventRange(start - timedelta(hours=1), start + timedelta(days=3))
        first, second, _ = backend.events(window)
        backend.delete_event(first.id, "occurrence")
        backend.update_event(series.id, {"title": "Renamed"}, "series")
        assert [e.title for e in backend.events(window)] == ["Renamed", "Renamed"]
        assert backend.get_event(second.id).title == "Renamed"
        backend.delete_event(series.id, "series")
        assert backend.events(window) == []
    finally:
        with contextlib.suppress(Exception):
            eventkit.shared_port().remove_calendar(made.id)
