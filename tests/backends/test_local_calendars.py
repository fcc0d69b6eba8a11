"""The local calendar store beyond the port: the mirror API another backend writes through,
write tokens (an approved write replayed after a crash is not done twice), read-only
calendars, range pruning, and an unreadable stored object skipped rather than fatal."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, text

from fruitctl.backends.ical_events import BrokenObject
from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.domain.errors import InvalidParams, NotFound, PermissionDenied
from fruitctl.domain.writes import writing
from fruitctl.ports import EventRange, NewEvent
from fruitctl.store import open_database

ROME = ZoneInfo("Europe/Rome")
MARCH = EventRange(datetime(2026, 3, 1, tzinfo=ROME), datetime(2026, 4, 1, tzinfo=ROME))

GOOGLE_STYLE = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Google Inc//Google Calendar 70.9054//EN
BEGIN:VEVENT
UID:{uid}
DTSTART;TZID=Europe/Rome:20260310T183000
DTEND;TZID=Europe/Rome:20260310T200000
SUMMARY:{title}
RRULE:FREQ=WEEKLY;COUNT=3
END:VEVENT
END:VCALENDAR
"""


@pytest.fixture
def engine(home: Path) -> Iterator[Engine]:
    engine = open_database(home / "local.db", "local")
    yield engine
    engine.dispose()


@pytest.fixture
def store(engine: Engine) -> LocalCalendars:
    return LocalCalendars(engine)


def _new(store: LocalCalendars, **fields: object) -> NewEvent:
    fields.setdefault("calendar_id", store.calendars()[0].id)
    fields.setdefault("title", "Dentist")
    fields.setdefault("start", datetime(2026, 3, 2, 9, tzinfo=ROME))
    fields.setdefault("end", datetime(2026, 3, 2, 10, tzinfo=ROME))
    return NewEvent(**fields)  # type: ignore[arg-type]


def _count(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM events")).scalar_one())


def test_a_new_store_has_the_default_calendar(store: LocalCalendars) -> None:
    (only,) = store.calendars()
    assert (only.name, only.isDefault, only.readOnly) == ("Calendar", True, False)


def test_calendar_names_are_unique_in_any_case(store: LocalCalendars) -> None:
    store.create_calendar("Work")
    with pytest.raises(InvalidParams, match="already exists"):
        store.create_calendar("WORK")
    with pytest.raises(InvalidParams):
        store.create_calendar("  ")


# -- the mirror API ---------------------------------------------------------------------------


def test_a_mirror_puts_calendars_and_raw_objects_with_their_own_ids(
    store: LocalCalendars,
) -> None:
    store.put_calendar("https://dav.example/cal/work/", "Work", color="#ff0000")
    uid = "7kq0v3@google.com"  # an '@' in a UID is common: it is still a plain id
    ics = GOOGLE_STYLE.format(uid=uid, title="Choir")
    assert store.put_object("https://dav.example/cal/work/", ics, remote='{"etag": "1"}') == uid
    assert store.object_uids() == {uid: '{"etag": "1"}'}
    assert store.get_object(uid).ics == ics
    found = store.events(MARCH)
    assert [(e.id, e.startAt, e.calendarName) for e in found] == [
        (f"{uid}@20260310T173000Z", "2026-03-10T18:30:00+01:00", "Work"),
        (f"{uid}@20260317T173000Z", "2026-03-17T18:30:00+01:00", "Work"),
        (f"{uid}@20260324T173000Z", "2026-03-24T18:30:00+01:00", "Work"),
    ]
    assert store.get_event(uid).recurrence == "FREQ=WEEKLY;COUNT=3"


def test_put_object_replaces_by_uid_and_remove_object_removes(store: LocalCalendars) -> None:
    store.put_calendar("a", "A")
    store.put_calendar("b", "B")
    store.put_object("a", GOOGLE_STYLE.format(uid="x", title="old"))
    store.put_object("b", GOOGLE_STYLE.format(uid="x", title="new"), remote="etag-2")
    assert store.object_uids("a") == {} and store.object_uids("b") == {"x": "etag-2"}
    assert {e.title for e in store.events(MARCH)} == {"new"}
    assert store.remove_object("x") is True
    assert store.remove_object("x") is False
    assert store.events(MARCH) == []


def test_a_mirror_refuses_what_it_cannot_keep(store: LocalCalendars, engine: Engine) -> None:
    store.put_calendar("a", "A")
    for broken in ("not ics at all", "BEGIN:VCALENDAR\nVERSION:2.0\nEND:VCALENDAR\n"):
        with pytest.raises(BrokenObject):
            store.put_object("a", broken)
    with pytest.raises(NotFound):
        store.put_object("no-such-calendar", GOOGLE_STYLE.format(uid="x", title="t"))
    assert _count(engine) == 0


def test_removing_a_calendar_removes_its_events(store: LocalCalendars) -> None:
    store.put_calendar("a", "A")
    store.put_object("a", GOOGLE_STYLE.format(uid="x", title="t"))
    store.remove_calendar("a")
    store.remove_calendar("a")  # not there any more: no error
    assert store.object_uids() == {} and [c.name for c in store.calendars()] == ["Calendar"]


def test_a_new_default_takes_the_flag(store: LocalCalendars) -> None:
    store.put_calendar("a", "A", is_default=True)
    assert (store.calendars()[0].id, store.calendars()[0].isDefault) == ("a", True)
    assert sum(c.isDefault for c in store.calendars()) == 1


def test_an_unreadable_stored_object_is_skipped_with_a_warning(
    store: LocalCalendars, engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    good = store.create_event(_new(store))
    bad = store.create_event(_new(store, title="soon broken"))
    with engine.begin() as conn:
        conn.execute(text("UPDATE events SET ics = 'garbage' WHERE uid = :u"), {"u": bad.id})
    with caplog.at_level(logging.WARNING):
        assert [e.id for e in store.events(MARCH)] == [good.id]
    assert bad.id in caplog.text


# -- writes -----------------------------------------------------------------------------------


def test_a_replayed_approved_create_is_not_done_twice(
    store: LocalCalendars, engine: Engine
) -> None:
    with writing("p1"):
        first = store.create_event(_new(store))
    with writing("p1"):  # the same proposal run again after a crash
        again = store.create_event(_new(store))
    assert again.id == first.id and _count(engine) == 1


def test_replayed_update_and_delete_are_not_done_twice(store: LocalCalendars) -> None:
    created = store.create_event(_new(store, recurrence="FREQ=DAILY"))
    occurrence = f"{created.id}@20260303T080000Z"
    with writing("p2"):
        store.delete_event(occurrence, "occurrence")
    with writing("p2"):
        store.delete_event(occurrence, "occurrence")  # would be NotFound if done again
    with writing("p3"):
        store.update_event(created.id, {"title": "Standup"}, "series")
    store.update_event(created.id, {"title": "Changed since"}, "series")
    with writing("p3"):  # replayed: reports the event, does not write the old title again
        assert store.update_event(created.id, {"title": "Standup"}, "series").title == (
            "Changed since"
        )


def test_a_failed_write_records_no_token(store: LocalCalendars, engine: Engine) -> None:
    with writing("p4"), pytest.raises(NotFound):
        store.create_event(_new(store, calendar_id="nope"))
    with writing("p4"):
        created = store.create_event(_new(store))
    assert _count(engine) == 1 and store.get_event(created.id).title == "Dentist"


def test_read_only_calendars_refuse_writes(store: LocalCalendars) -> None:
    store.put_calendar("holidays", "Holidays", read_only=True)
    store.put_object("holidays", GOOGLE_STYLE.format(uid="h", title="Holiday"))
    with pytest.raises(PermissionDenied):
        store.create_event(_new(store, calendar_id="holidays"))
    with pytest.raises(PermissionDenied):
        store.update_event("h", {"title": "mine now"}, "series")
    with pytest.raises(PermissionDenied):
        store.delete_event("h", "series")
    assert store.get_event("h").title == "Holiday"


# -- pruning ----------------------------------------------------------------------------------


def _bounds(engine: Engine, uid: str) -> tuple[float, float | None]:
    with engine.connect() as conn:
        row = conn.execute(
            text("SELECT first_start, last_end FROM events WHERE uid = :u"), {"u": uid}
        ).one()
    return row[0], row[1]


def test_rows_carry_the_span_a_range_query_prunes_by(store: LocalCalendars, engine: Engine) -> None:
    single = store.create_event(_new(store))
    endless = store.create_event(_new(store, recurrence="FREQ=WEEKLY"))
    counted = store.create_event(_new(store, recurrence="FREQ=DAILY;COUNT=3"))
    start = datetime(2026, 3, 2, 9, tzinfo=ROME).timestamp()
    assert _bounds(engine, single.id) == (start, start + 3600)
    assert _bounds(engine, endless.id) == (start, None)
    assert _bounds(engine, counted.id) == (start, start + 2 * 86400 + 3600)


def test_the_range_query_uses_the_span_index(engine: Engine) -> None:
    with engine.connect() as conn:
        plan = conn.execute(
            text(
                "EXPLAIN QUERY PLAN SELECT uid FROM events WHERE first_start < 2 "
                "AND (last_end IS NULL OR last_end >= 1)"
            )
        ).all()
    assert any("ix_events_range" in str(row) for row in plan), plan


# -- availability ---------------------------------------------------------------------------


def test_a_transparent_series_reads_free_and_stays_free_when_one_occurrence_moves(
    store: LocalCalendars,
) -> None:
    """TRANSP:TRANSPARENT is free on every occurrence; an occurrence fruitctl moves keeps it
    (a new override copies TRANSP: without it, RFC 5545 reads the override opaque)."""
    calendar = store.calendars()[0].id
    free = GOOGLE_STYLE.format(uid="free", title="Gym (maybe)").replace(
        "RRULE:", "TRANSP:TRANSPARENT\nRRULE:"
    )
    store.put_object(calendar, free)
    store.put_object(calendar, GOOGLE_STYLE.format(uid="busy", title="Choir"))
    found = {(e.seriesId, e.availability) for e in store.events(MARCH)}
    assert found == {("free", "free"), ("busy", "busy")}
    first = next(e for e in store.events(MARCH) if e.seriesId == "free")
    moved = store.update_event(
        first.id, {"startAt": datetime(2026, 3, 10, 20, tzinfo=ROME)}, "occurrence"
    )
    assert moved.availability == "free"
    assert "TRANSP:TRANSPARENT" in store.get_object("free").ics.split("RECURRENCE-ID")[1]
