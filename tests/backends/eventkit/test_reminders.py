"""The Apple Reminders backend over the fake adapter: the mapping both ways (date-only dues,
zones, priorities, recurrence), reads pushed into EventKit's predicates, one commit per batch,
the read cache, EventKit's failures as fruitctl's errors, permission, and tags/flags."""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from backends.eventkit.fake import EK_ERROR_DOMAIN, FakeEventKit
from backends.eventkit.test_tagstore import build, fill

from fruitctl.backends.eventkit import mapping
from fruitctl.backends.eventkit.permission import Access, Responsible
from fruitctl.backends.eventkit.reminders import EventKitReminders
from fruitctl.backends.eventkit.tagstore import TagStore
from fruitctl.backends.eventkit.values import (
    DAILY,
    DENIED,
    DateParts,
    RawAlarm,
    RawReminder,
    RawRule,
    StoreError,
    StoreTimeout,
)
from fruitctl.domain.errors import (
    InvalidParams,
    NotFound,
    PermissionDenied,
    Timeout,
    Unsupported,
)
from fruitctl.ports import NewReminder, ReminderQuery, ReminderScope

WHO = Responsible("iTerm", "/Applications/iTerm.app", "terminal")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fake() -> FakeEventKit:
    port = FakeEventKit()
    port.add_calendar("reminder", "Reminders", default=True)
    port.add_calendar("reminder", "Errands")
    return port


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def backend(fake: FakeEventKit, tmp_path: Path, clock: Clock) -> EventKitReminders:
    return EventKitReminders(
        fake, Access(fake, who=lambda: WHO), TagStore(tmp_path / "none"), clock=clock
    )


def list_id(fake: FakeEventKit, title: str) -> str:
    return next(c.id for c in fake.lists["reminder"].values() if c.title == title)


def count(fake: FakeEventKit, method: str) -> int:
    return sum(1 for name, _ in fake.calls if name == method)


# -- mapping ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "shown"),
    [(0, 0), (1, 1), (4, 1), (5, 5), (6, 9), (9, 9)],
)
def test_priorities_read_as_the_app_shows_them(stored: int, shown: int) -> None:
    assert mapping.priority(stored) == shown


def test_a_date_only_due_stays_a_date_both_ways(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    (made,) = backend.create(
        [NewReminder(list_id=list_id(fake, "Errands"), title="Bins", due=date(2026, 3, 2))]
    )
    assert made.dueDate == "2026-03-02"
    assert fake.reminders[made.id].due == DateParts(2026, 3, 2)  # no hour: a date in EventKit


def test_a_due_time_is_kept_in_its_own_zone_and_read_in_the_persons(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    rome = datetime(2026, 7, 1, 9, 30, tzinfo=ZoneInfo("Europe/Rome"))
    (made,) = backend.create(
        [NewReminder(list_id=list_id(fake, "Errands"), title="Call", due=rome)]
    )
    assert fake.reminders[made.id].due == DateParts(2026, 7, 1, 9, 30, 0, "Europe/Rome")
    assert made.dueDate == "2026-07-01T09:30:00+02:00"
    # An offset alone: the tz database's fixed zone with that offset (its sign inverted) ...
    fixed = datetime.fromisoformat("2026-07-01T09:30:00-05:00")
    shown = backend.update(made.id, {"dueDate": fixed})
    assert fake.reminders[made.id].due == DateParts(2026, 7, 1, 9, 30, 0, "Etc/GMT+5")
    assert shown.dueDate == "2026-07-01T16:30:00+02:00"  # read in the person's zone
    # ... and one that is not whole hours, the same instant in UTC.
    odd = datetime.fromisoformat("2026-07-01T09:30:00+05:45")
    backend.update(made.id, {"dueDate": odd})
    assert fake.reminders[made.id].due == DateParts(2026, 7, 1, 3, 45, 0, "UTC")


def test_a_reminder_from_the_app_maps_every_field(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    stamp = datetime(2026, 2, 1, 8, 0, tzinfo=UTC)
    fake.reminders["r1"] = RawReminder(
        "r1",
        list_id(fake, "Errands"),
        "Water plants",
        notes="the balcony",
        priority=3,
        due=DateParts(2026, 2, 3, 18, 0, 0, "America/New_York"),
        start=DateParts(2026, 2, 3, 9, 0, 0, "America/New_York"),
        # EventKit counts a relative alarm from the start: 15 minutes before 09:00 is 555
        # minutes before the 18:00 due.
        alarms=(RawAlarm(offset=-900), RawAlarm(absolute=datetime(2026, 2, 3, 20, 0, tzinfo=UTC))),
        completed=True,
        completion=stamp,
        created=stamp,
        modified=stamp,
        url="https://example.com/plants",
        rules=(RawRule(DAILY, interval=2),),
    )
    shown = backend.get("r1").to_wire()
    assert shown | {"creationDate": None, "modificationDate": None, "completionDate": None} == {
        "id": "r1",
        "title": "Water plants",
        "notes": "the balcony",
        "listId": list_id(fake, "Errands"),
        "listName": "Errands",
        "isCompleted": True,
        "priority": 1,
        "dueDate": "2026-02-04T00:00:00+01:00",
        "completionDate": None,
        "creationDate": None,
        "modificationDate": None,
        "isFlagged": False,
        "url": "https://example.com/plants",
        "parentId": None,
        "recurrence": "FREQ=DAILY;INTERVAL=2",
        "tags": [],
        "startDate": "2026-02-03T15:00:00+01:00",
        "alarms": [{"minutesBefore": 555}, {"at": "2026-02-03T21:00:00+01:00"}],
    }
    assert datetime.fromisoformat(shown["completionDate"]) == stamp


def test_writes_set_priority_completion_moves_and_recurrence(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    (made,) = backend.create(
        [
            NewReminder(
                list_id=list_id(fake, "Reminders"), title="Run", priority=5, recurrence="FREQ=DAILY"
            )
        ]
    )
    assert fake.reminders[made.id].rules == (RawRule(DAILY),)
    done = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    moved = backend.update(made.id, {"completionDate": done, "listId": list_id(fake, "Errands")})
    assert moved.isCompleted and moved.listName == "Errands"
    again = backend.update(made.id, {"completionDate": None, "priority": 9, "notes": None})
    assert not again.isCompleted and again.priority == 9
    assert fake.reminders[made.id].completion is None


# -- reads --------------------------------------------------------------------------------------


def test_list_status_and_due_range_go_into_the_predicate(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    errands = list_id(fake, "Errands")
    before = datetime(2026, 3, 10, tzinfo=UTC)
    query = ReminderQuery(
        scope=ReminderScope(list_ids=(errands,)), due_before=before, include_no_due=False
    )
    backend.fetch(query)
    assert ("fetch_reminders", ((errands,), "incomplete", None, before, 10.0)) in fake.calls
    # Undated reminders are wanted: EventKit's due range would drop them, so it is not used.
    backend.fetch(ReminderQuery(scope=ReminderScope(list_ids=(errands,)), due_before=before))
    assert fake.calls[-1][1][3] is None


def test_order_and_limit_are_fruitctls(backend: EventKitReminders, fake: FakeEventKit) -> None:
    target = list_id(fake, "Errands")
    backend.create(
        [
            NewReminder(list_id=target, title="late", due=date(2026, 5, 1)),
            NewReminder(list_id=target, title="none"),
            NewReminder(list_id=target, title="soon", due=date(2026, 4, 1), priority=1),
        ]
    )
    by_due = backend.fetch(ReminderQuery(order="dueDate"))
    assert [r.title for r in by_due] == ["soon", "late", "none"]
    newest = backend.fetch(ReminderQuery(order="newest", limit=2))
    assert [r.title for r in newest] == ["soon", "none"]
    due_soon = backend.fetch(ReminderQuery(due_before=datetime(2026, 4, 15, tzinfo=UTC)))
    assert sorted(r.title for r in due_soon) == ["none", "soon"]


def test_lists_put_the_default_first_and_count_open_reminders(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    fake.defaults["reminder"] = list_id(fake, "Errands")
    backend.create([NewReminder(list_id=list_id(fake, "Errands"), title="x")])
    shown = backend.lists()
    assert [(x.name, x.isDefault, x.count) for x in shown] == [
        ("Errands", True, 1),
        ("Reminders", False, 0),
    ]
    assert [x.count for x in backend.lists(with_counts=False)] == [None, None]


def test_reads_are_cached_briefly_and_every_write_drops_the_cache(
    backend: EventKitReminders, fake: FakeEventKit, clock: Clock
) -> None:
    backend.fetch(ReminderQuery())
    backend.fetch(ReminderQuery())
    assert count(fake, "fetch_reminders") == count(fake, "refresh") == 1
    clock.now += 2.5  # what other apps changed meanwhile is picked up
    backend.fetch(ReminderQuery())
    assert count(fake, "fetch_reminders") == count(fake, "refresh") == 2
    backend.create([NewReminder(list_id=list_id(fake, "Reminders"), title="new")])
    assert [r.title for r in backend.fetch(ReminderQuery())] == ["new"]


# -- writes -------------------------------------------------------------------------------------


def test_a_batch_is_one_save_and_all_or_nothing(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    target = list_id(fake, "Errands")
    made = backend.create([NewReminder(list_id=target, title=t) for t in ("a", "b", "c")])
    assert [r.title for r in made] == ["a", "b", "c"]
    assert count(fake, "save_reminders") == 1
    fake.fail_next["save_reminders"] = StoreError(EK_ERROR_DOMAIN, 26, "priority")
    with pytest.raises(InvalidParams, match="Could not save the reminders: the priority"):
        backend.create([NewReminder(list_id=target, title="d")])
    assert len(fake.reminders) == 3


def test_unknown_ids_and_lists_are_not_found_in_the_seeds_words(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    with pytest.raises(NotFound, match="No reminder found with ID: 'nope'"):
        backend.get("nope")
    with pytest.raises(NotFound, match="No reminder found with ID: 'nope'"):
        backend.update("nope", {"title": "x"})
    with pytest.raises(NotFound, match="No reminder found with ID: 'nope'"):
        backend.delete("nope")
    with pytest.raises(NotFound, match="No list found with ID: 'cal-9999'"):
        backend.create([NewReminder(list_id="cal-9999", title="x")])
    assert count(fake, "save_reminders") == 0


def test_tags_flags_and_subtasks_are_not_written_silently(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    target = list_id(fake, "Errands")
    with pytest.raises(Unsupported, match="cannot write tags or the flag"):
        backend.create([NewReminder(list_id=target, title="x", tags=("home",), is_flagged=True)])
    (made,) = backend.create([NewReminder(list_id=target, title="plain")])
    with pytest.raises(Unsupported, match="cannot write tags"):
        backend.update(made.id, {"tags": ("a",)})
    with pytest.raises(Unsupported, match="cannot write the flag"):
        backend.update(made.id, {"isFlagged": True})
    assert fake.reminders[made.id].title == "plain"


def test_a_list_made_and_removed(backend: EventKitReminders, fake: FakeEventKit) -> None:
    made = backend.create_list("Trip")
    with pytest.raises(InvalidParams, match="A list named 'trip' already exists"):
        backend.create_list("trip")
    backend.create([NewReminder(list_id=made.id, title="passport")])
    backend.delete_list(made.id)
    assert [x.name for x in backend.lists()] == ["Reminders", "Errands"]
    assert fake.reminders == {}


# -- failures and permission ----------------------------------------------------------------------


def test_a_fetch_that_does_not_answer_is_a_retryable_timeout(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    fake.fail_next["fetch_reminders"] = StoreTimeout()
    with pytest.raises(Timeout) as caught:
        backend.fetch(ReminderQuery())
    assert caught.value.retryable


def test_without_access_a_read_is_refused_with_instructions_not_an_empty_list(
    backend: EventKitReminders, fake: FakeEventKit
) -> None:
    fake.reminders["r1"] = RawReminder("r1", list_id(fake, "Errands"), "secret")
    fake.status["reminder"] = DENIED
    with pytest.raises(PermissionDenied) as caught:
        backend.fetch(ReminderQuery())
    details = caught.value.details
    assert details["service"] == "reminders" and details["status"] == "denied"
    assert "Enable access for iTerm (/Applications/iTerm.app)" in details["instructions"]
    assert count(fake, "fetch_reminders") == 0
    assert backend.permission_status() == "denied"
    assert backend.access_holder() == "iTerm (/Applications/iTerm.app)"


def test_tags_and_flags_come_from_the_reminders_store(fake: FakeEventKit, tmp_path: Path) -> None:
    fill(build(tmp_path))
    fake.reminders["parent-id"] = RawReminder("parent-id", list_id(fake, "Errands"), "Trip")
    fake.reminders["child-id"] = RawReminder("child-id", list_id(fake, "Errands"), "Pack")
    backend = EventKitReminders(fake, Access(fake), TagStore(tmp_path))
    shown = {r.id: r for r in backend.fetch(ReminderQuery())}
    assert shown["parent-id"].tags == ("Errand", "home") and shown["parent-id"].isFlagged
    assert shown["child-id"].parentId == "parent-id"
    assert backend.tags_status()["readable"] is True
    with sqlite3.connect(tmp_path / "Data-ABC.sqlite") as db:  # a macOS update renames a column
        db.execute("ALTER TABLE ZREMCDHASHTAGLABEL RENAME COLUMN ZNAME TO ZTITLE")
    backend.create([NewReminder(list_id=list_id(fake, "Errands"), title="drop the cache")])
    assert backend.get("parent-id").tags == ()
    assert "ZREMCDHASHTAGLABEL.ZNAME" in str(backend.tags_status()["reason"])
