"""The dense calendar of the CalDAV benchmark (``tests/dense_calendar.py``: 2,000 objects within
60 days, 100 series) read through the CalDAV calendar backend on its mirror - each object indexed
as a sync indexes it, each range pruned by the store's SQL, each day expanded once and the range
cut from its days - answers, window after window, exactly what the recurrence library's public API
answers for every object (``test_ical_occurrences.reference``); and a plain event read from its
content lines (``ical_plain``) is the event a whole parse gives."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import dense_calendar
import pytest
from occurrence_reference import aware, reference

from fruitctl.backends import caldav, ical_events, ical_occurrences, ical_plain
from fruitctl.backends.caldav import state
from fruitctl.backends.caldav.events import CaldavCalendars, EventKind
from fruitctl.backends.caldav.state import Known
from fruitctl.backends.ical_zones import without_known_zones
from fruitctl.backends.local.tables import calendars
from fruitctl.ports import EventRange
from fruitctl.store import open_database

ORIGIN = datetime(2026, 11, 25, 9, 30, tzinfo=UTC)
TEXTS = dense_calendar.events(ORIGIN, seed=20_260_224)
YEAR = timedelta(days=365)


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[CaldavCalendars]:
    """The calendar backend on a mirror file holding the dense calendar, its rows written as a
    sync writes them and its last sync just now: every read is answered from the mirror (the
    server it names is never asked)."""
    engine = open_database(tmp_path / "mirror.db", "local")
    settings = caldav.Settings("http://127.0.0.1:9/dav/", "someone", "x", staleness_seconds=3600)
    caldav.calendars(settings, engine).close()  # the mirror file belongs to that account now
    kind = EventKind(None)
    known = Known("c1", "/c1/", "Work", frozenset({"VEVENT"}), None, None, 0)
    with engine.begin() as conn:
        conn.execute(calendars.delete())
        kind.containers(conn, [known])
        kind.put(conn, [kind.read(text, "c1")[2] for text in TEXTS])
        state.set_meta(conn, "synced_at", repr(time.time()))
    opened = caldav.calendars(settings, engine)
    yield opened
    opened.close()
    engine.dispose()


def _library(start: datetime, end: datetime) -> list[tuple[Any, ...]]:
    return sorted((row for text in TEXTS for row in reference(text, start, end)), key=repr)


def _answered(backend: CaldavCalendars, start: datetime, end: datetime) -> list[tuple[Any, ...]]:
    zone = start.tzinfo or UTC
    rows = []
    for event in backend.events(EventRange(start, end)):
        first, last = aware(event.start, zone), aware(event.end, zone)
        rows.append((event.occurrence, first, last, event.title))
    return sorted(rows, key=repr)


@pytest.mark.slow
def test_every_window_of_the_dense_calendar_answers_what_the_library_answers(
    backend: CaldavCalendars,
) -> None:
    ical_occurrences.timeline.cache_clear()
    first, last = dense_calendar.span(ORIGIN)
    zones = (UTC, ZoneInfo("Europe/Berlin"), ZoneInfo("America/New_York"))
    # the days in order (as the benchmark reads them), then back before the 60 days, then
    # some at random, each in a zone of its own
    offsets = [0, 1, 9, 52, -20, 31]
    for n, offset in enumerate(offsets):
        zone = zones[n % len(zones)]
        start = (first + timedelta(days=offset, hours=7 * n % 24)).astimezone(zone)
        end = start + timedelta(days=7)
        found = _answered(backend, start, end)
        assert found == _library(start, end), start
        assert len(found) > (200 if first <= start < last - timedelta(days=7) else -1)


@pytest.mark.slow
def test_a_plain_event_read_from_its_lines_is_the_event_a_whole_parse_gives() -> None:
    read_alone = 0
    for text in [*TEXTS, *_ODD]:
        cal = ical_plain.calendar(text)
        if cal is None:
            continue
        read_alone += 1
        whole = ical_events.parsed(text)
        quick = ical_occurrences.Timeline(cal).between(-1e12, 1e12)
        assert quick == ical_occurrences.Timeline(whole).between(-1e12, 1e12), text
    # every plain event of the dense calendar, and the odd ones this reader is sure of
    assert read_alone == dense_calendar.EVENTS - dense_calendar.SERIES + 4


def test_objects_the_line_reader_is_not_sure_of_are_parsed_whole() -> None:
    for text in _REFUSED:
        assert ical_plain.calendar(text) is None, text


def _object(*lines: str, more: str = "") -> str:
    body = "\r\n".join(lines)
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\n"
        f"BEGIN:VEVENT\r\n{body}\r\nEND:VEVENT\r\n{more}END:VCALENDAR\r\n"
    )


_BASE = ("UID:odd", "DTSTART;TZID=Europe/Berlin:20261125T090000")
_ODD = [
    # escapes, a folded line, a lower-case name, dates, a duration, stamps, transparency
    _object(
        *_BASE,
        "DURATION:PT45M",
        "SUMMARY:Plan\\, review\\; and \\n more",
        "DESCRIPTION:a long\r\n  folded line",
        "location:Room 1",
        "TRANSP:TRANSPARENT",
        "CREATED:20260101T120000Z",
        "LAST-MODIFIED:20260102T120000Z",
        "URL:https://example.org/a?b=c",
    ),
    _object("UID:day", "DTSTART;VALUE=DATE:20261125", "SUMMARY:All day"),
    _object("UID:floating", "DTSTART:20261125T090000", "DTEND:20261125T100000", "X-ANY:1"),
    _object(*_BASE, 'SUMMARY;ALTREP="cid:a:b":Quoted: yes', 'LOCATION;X-A="c:d":Room'),
]
_REFUSED = [
    _object(*_BASE, "RRULE:FREQ=DAILY"),
    _object(*_BASE, more="BEGIN:VEVENT\r\nUID:odd\r\nDTSTART:20261126T090000Z\r\nEND:VEVENT\r\n"),
    _object(*_BASE, "BEGIN:VALARM", "TRIGGER:-PT5M", "ACTION:DISPLAY", "END:VALARM"),
    _object(*_BASE, "SUMMARY;X-A=b\\:c:Escaped"),
    _object(*_BASE, "SUMMARY:one", "SUMMARY:two"),
    _object("UID:odd", "DTSTART;TZID=Mars/Olympus:20261125T090000"),
    _object("UID:odd", "DTSTART:2026-11-25"),
]


_SERIES = [
    _object(*_BASE, "RRULE:FREQ=WEEKLY;COUNT=5", "EXDATE;TZID=Europe/Berlin:20261202T090000"),
    _object(
        *_BASE,
        "RRULE:FREQ=DAILY;UNTIL=20261230T000000Z",
        "SEQUENCE:2",
        "CATEGORIES:a\\,b,c",
        'X-ANY;X-P="q:r":s\\,t',
        more="BEGIN:VEVENT\r\nUID:odd\r\nRECURRENCE-ID;TZID=Europe/Berlin:20261126T090000\r\n"
        "DTSTART;TZID=Europe/Berlin:20261126T110000\r\nSUMMARY:moved\r\nEND:VEVENT\r\n",
    ).replace("PRODID:x", "PRODID:x\r\nCALSCALE:GREGORIAN"),
]
_SERIES_REFUSED = [
    _object(*_BASE, "RRULE:FREQ=DAILY", "EXDATE:20261126T090000Z", "EXDATE:20261127T090000Z"),
    _object(*_BASE, "RRULE:FREQ=DAILY", "RDATE:"),
    _object(*_BASE, "RDATE;VALUE=DATE:20270105,20270106"),
    _object(*_BASE, "RRULE:FREQ=DAILY").replace("PRODID:x", "PRODID:x\r\nX-WR-TIMEZONE:UTC"),
    _object(*_BASE, "RRULE:FREQ=DAILY", "BEGIN:VALARM", "TRIGGER:-PT5M", "END:VALARM"),
    _object(*_BASE, "RRULE:FREQ=DAILY", "SEQUENCE:two"),
]


def test_an_object_of_events_read_from_its_lines_is_what_a_whole_parse_reads() -> None:
    read_alone = 0
    for text in [*TEXTS, *_ODD, *_SERIES]:
        cal = ical_plain.events_calendar(text)
        if cal is None:
            continue
        read_alone += 1
        whole = ical_events.read_calendar(without_known_zones(text))
        assert cal.to_ical() == whole.to_ical(), text
        window = ((ORIGIN - YEAR).timestamp(), (ORIGIN + YEAR).timestamp())
        quick = ical_occurrences.Timeline(cal).between(*window)
        assert quick == ical_occurrences.Timeline(whole).between(*window), text
    assert read_alone == len(TEXTS) + len(_ODD) + len(_SERIES)
    for text in _SERIES_REFUSED:
        assert ical_plain.events_calendar(text) is None, text
