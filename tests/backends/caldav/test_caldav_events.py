"""Events through CalDAV: series written by other clients (EXDATE, a moved occurrence) read right,
occurrence edits land on the server as iCalendar says, and a change made elsewhere is a conflict."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from caldav_server import Account

from fruitctl.backends import caldav
from fruitctl.backends.caldav import CaldavCalendars
from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.domain.errors import Conflict
from fruitctl.ports import EventRange, NewEvent
from fruitctl.store import open_database

ROME = ZoneInfo("Europe/Rome")
MARCH = EventRange(datetime(2026, 3, 1, tzinfo=ROME), datetime(2026, 4, 30, tzinfo=ROME))
SERIES = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//another client//EN\r
BEGIN:VTIMEZONE\r
TZID:Europe/Rome\r
BEGIN:STANDARD\r
DTSTART:19701025T030000\r
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r
TZOFFSETFROM:+0200\r
TZOFFSETTO:+0100\r
END:STANDARD\r
BEGIN:DAYLIGHT\r
DTSTART:19700329T020000\r
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r
TZOFFSETFROM:+0100\r
TZOFFSETTO:+0200\r
END:DAYLIGHT\r
END:VTIMEZONE\r
BEGIN:VEVENT\r
UID:standup@example.com\r
DTSTAMP:20260101T090000Z\r
SUMMARY:Stand-up\r
DTSTART;TZID=Europe/Rome:20260316T090000\r
DTEND;TZID=Europe/Rome:20260316T091500\r
RRULE:FREQ=WEEKLY;COUNT=4\r
EXDATE;TZID=Europe/Rome:20260323T090000\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:standup@example.com\r
DTSTAMP:20260101T090000Z\r
RECURRENCE-ID;TZID=Europe/Rome:20260330T090000\r
SUMMARY:Stand-up (late)\r
DTSTART;TZID=Europe/Rome:20260330T110000\r
DTEND;TZID=Europe/Rome:20260330T111500\r
END:VEVENT\r
END:VCALENDAR\r
"""


@pytest.fixture
def backend(home: Path, caldav_account: Account) -> Iterator[CaldavCalendars]:
    engine = open_database(home / "caldav-events.db", "local")
    account = caldav_account
    settings = caldav.Settings(
        account.home, account.username, account.password, staleness_seconds=0
    )
    opened = caldav.calendars(settings, engine)
    yield opened
    opened.close()
    engine.dispose()


def test_a_series_from_another_client_with_an_exdate_and_a_moved_occurrence(
    backend: CaldavCalendars, caldav_account: Account
) -> None:
    assert caldav_account.put(caldav_account.made[1] + "standup.ics", SERIES) == 201
    found = [(e.title, e.startAt) for e in backend.events(MARCH)]
    assert found == [
        ("Stand-up", "2026-03-16T09:00:00+01:00"),
        # 03-23 is excluded; 03-30 moved to 11:00, in summer time (DST began on the 29th)
        ("Stand-up (late)", "2026-03-30T11:00:00+02:00"),
        ("Stand-up", "2026-04-06T09:00:00+02:00"),
    ]
    assert backend.get_event("standup@example.com").title == "Stand-up"


def test_removing_one_occurrence_is_an_exdate_on_the_server(
    backend: CaldavCalendars, caldav_account: Account
) -> None:
    calendar_id = backend.calendars()[0].id
    series = backend.create_event(
        NewEvent(
            calendar_id=calendar_id,
            title="Review",
            start=datetime(2026, 3, 20, 9, tzinfo=ROME),
            end=datetime(2026, 3, 20, 10, tzinfo=ROME),
            timezone="Europe/Rome",
            recurrence="FREQ=WEEKLY;COUNT=3",
        )
    )
    second = [e for e in backend.events(MARCH) if e.seriesId == series.id][1]
    backend.delete_event(second.id, "occurrence")
    (url,) = caldav_account.members(caldav_account.made[1])
    text, _ = caldav_account.get(url)
    assert "EXDATE" in text and "20260327T090000" in text
    assert [e.startAt[:10] for e in backend.events(MARCH)] == ["2026-03-20", "2026-04-03"]


def test_an_event_changed_elsewhere_is_a_conflict(
    home: Path, backend: CaldavCalendars, caldav_account: Account
) -> None:
    created = backend.create_event(
        NewEvent(
            calendar_id=backend.calendars()[0].id,
            title="Dentist",
            start=datetime(2026, 3, 2, 9, tzinfo=ROME),
            end=datetime(2026, 3, 2, 10, tzinfo=ROME),
        )
    )
    engine = open_database(home / "patient.db", "local")
    account = caldav_account
    settings = caldav.Settings(
        account.home, account.username, account.password, staleness_seconds=3600
    )
    patient = caldav.calendars(settings, engine)
    try:
        assert patient.get_event(created.id).title == "Dentist"
        backend.update_event(created.id, {"title": "Dentist, moved"}, "series")
        with pytest.raises(Conflict):
            patient.update_event(created.id, {"location": "Studio"}, "series")
        assert patient.get_event(created.id).title == "Dentist, moved"  # the server's version
    finally:
        patient.close()
        engine.dispose()


def test_configured_calendars_select_and_the_first_is_the_default(
    home: Path, caldav_account: Account
) -> None:
    caldav_account.make_calendar("Work", ["VEVENT"])
    caldav_account.make_calendar("Birthdays", ["VEVENT"])
    engine = open_database(home / "some.db", "local")
    account = caldav_account
    settings = caldav.Settings(
        account.home, account.username, account.password, calendars=("Work", "calendar")
    )
    chosen = caldav.calendars(settings, engine)
    try:
        found = [(c.name, c.isDefault) for c in chosen.calendars()]
        assert found == [("Work", True), ("Calendar", False)]
    finally:
        chosen.close()
        engine.dispose()


def test_cut_ranges_answer_exactly_what_the_local_store_answers(
    backend: CaldavCalendars, caldav_account: Account
) -> None:
    calendar = caldav_account.made[1]
    assert caldav_account.put(calendar + "standup.ics", SERIES) == 201
    events = {
        "allday.ics": ("VALUE=DATE:20260317", "VALUE=DATE:20260319"),
        "deadline.ics": ("TZID=Europe/Rome:20260318T100000", "TZID=Europe/Rome:20260318T100000"),
        "floating.ics": (":20260318T123000", ":20260318T133000"),
    }
    for name, (start, end) in events.items():
        text = SERIES.split("BEGIN:VEVENT")[0] + (
            f"BEGIN:VEVENT\r\nUID:{name}\r\nDTSTAMP:20260101T090000Z\r\nSUMMARY:{name}\r\n"
            f"DTSTART;{start}\r\nDTEND;{end}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        ).replace(";:", ":")
        assert caldav_account.put(calendar + name, text) == 201
    backend.sync()
    local = LocalCalendars(backend.mirror.engine)
    zones = [ROME, ZoneInfo("America/New_York"), UTC]
    starts = [datetime(2026, 3, 16, 0, tzinfo=UTC) + timedelta(minutes=293 * i) for i in range(20)]
    starts += [datetime(2026, 3, 18, 10, tzinfo=ROME)] * 3  # the deadline's own instant
    for i, start in enumerate(starts):
        zone = zones[i % 3]
        for hours in (0.5, 3, 30, 24 * 7):
            query = EventRange(
                start.astimezone(zone), start.astimezone(zone) + timedelta(hours=hours)
            )
            assert backend.events(query) == local.events(query), query
    limited = EventRange(starts[0], starts[0] + timedelta(days=30), limit=2)
    assert backend.events(limited) == local.events(limited)


def test_a_transparent_event_from_another_client_reads_free(
    backend: CaldavCalendars, caldav_account: Account
) -> None:
    free = SERIES.replace("UID:standup@example.com", "UID:free@example.com").replace(
        "RRULE:FREQ=WEEKLY;COUNT=4\r\n", "RRULE:FREQ=WEEKLY;COUNT=4\r\nTRANSP:TRANSPARENT\r\n"
    )
    assert caldav_account.put(caldav_account.made[1] + "standup.ics", SERIES) == 201
    assert caldav_account.put(caldav_account.made[1] + "free.ics", free) == 201
    found = [(e.seriesId, e.title, e.availability) for e in backend.events(MARCH)]
    # The moved occurrence's own VEVENT says nothing: opaque, as RFC 5545 reads it.
    assert found == [
        ("free@example.com", "Stand-up", "free"),
        ("standup@example.com", "Stand-up", "busy"),
        ("free@example.com", "Stand-up (late)", "busy"),
        ("standup@example.com", "Stand-up (late)", "busy"),
        ("free@example.com", "Stand-up", "free"),
        ("standup@example.com", "Stand-up", "busy"),
    ]
