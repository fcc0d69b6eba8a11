"""The index of a plain event read without a parse: the same UID the library reads, a span that
holds the library's exact one, and every object it is not sure of handed to the library."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from fruitctl.backends import ical_events, ical_index, ical_occurrences
from fruitctl.backends.ical_events import BrokenObject

ZONES = ("Europe/Rome", "America/New_York", "Pacific/Kiritimati", "Pacific/Pago_Pago")


def _object(lines: list[str], inside: str = "") -> str:
    event = "BEGIN:VEVENT\r\n" + "".join(f"{line}\r\n" for line in lines) + inside
    head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\n"
    return f"{head}{event}END:VEVENT\r\nEND:VCALENDAR\r\n"


def _exact(text: str) -> tuple[str, float, float | None]:
    return (ical_events.uid_of(text), *ical_occurrences.bounds(text))


def _plain(rng: random.Random, i: int) -> str:
    """A single event of a random shape a client writes."""
    start = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(
        minutes=15 * rng.randrange(-50_000, 50_000)
    )
    length = timedelta(minutes=rng.choice((0, 30, 90, 24 * 60 + 5)))
    lines = [f"UID:plain-{i}@example.com", "SUMMARY:A long title " + "x" * rng.randrange(80)]
    shape = rng.choice(("utc", "floating", "zone", "date", "date-none", "duration", "none"))
    zone = rng.choice(ZONES)
    if shape == "utc":
        lines += [f"DTSTART:{start:%Y%m%dT%H%M%SZ}", f"DTEND:{start + length:%Y%m%dT%H%M%SZ}"]
    elif shape == "floating":
        lines += [
            f"DTSTART:{start:%Y%m%dT%H%M%S}",
            f"DTEND;VALUE=DATE-TIME:{start + length:%Y%m%dT%H%M%S}",
        ]
    elif shape == "zone":
        lines += [
            f"DTSTART;TZID={zone}:{start:%Y%m%dT%H%M%S}",
            f"DTEND;TZID={zone}:{start + length:%Y%m%dT%H%M%S}",
        ]
    elif shape in ("date", "date-none"):
        lines.append(f"DTSTART;VALUE=DATE:{start:%Y%m%d}")
        if shape == "date":
            lines.append(f"DTEND;VALUE=DATE:{start + timedelta(days=rng.randrange(1, 4)):%Y%m%d}")
    elif shape == "duration":
        lines += [
            f"DTSTART;TZID={zone}:{start:%Y%m%dT%H%M%S}",
            rng.choice(("DURATION:PT1H30M", "DURATION:P1D", "DURATION:P2W", "DURATION:+PT45S")),
        ]
    else:
        lines.append(f"DTSTART:{start:%Y%m%dT%H%M%SZ}")
    rng.shuffle(lines)
    alarm = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nDURATION:PT5M\r\nEND:VALARM\r\n"
    text = _object(lines, inside=alarm if rng.random() < 0.3 else "")
    if rng.random() < 0.3:  # a client folds long lines anywhere, even inside a name
        text = text.replace("SUMMARY:A long", "SUMM\r\n ARY:A lo\r\n\tng")
    return text


def test_plain_events_are_indexed_without_a_parse_and_never_narrower_than_exactly() -> None:
    rng = random.Random(7)
    for i in range(400):
        text = _plain(rng, i)
        quick = ical_index._plain_event(text)
        assert quick is not None, text
        uid, first, last = _exact(text)
        assert quick[0] == uid
        assert quick[1] <= first and last is not None and quick[2] >= last, text
        assert quick[2] - quick[1] <= last - first + 2 * ical_index.DAY  # and not much wider
        assert ical_index.index(text) == quick


@pytest.mark.parametrize(
    "lines",
    [
        pytest.param(["UID:s", "DTSTART:20260105T100000Z", "RRULE:FREQ=WEEKLY"], id="series"),
        pytest.param(["UID:s", "DTSTART:20260105T100000Z", "RDATE:20260107T100000Z"], id="rdate"),
        pytest.param(
            ["UID:s", "RECURRENCE-ID:20260105T100000Z", "DTSTART:20260105T120000Z"], id="override"
        ),
        pytest.param(["UID:q", 'DTSTART;TZID="Europe/Rome":20260105T100000'], id="quoted"),
        pytest.param(["UID:a\\,b", "DTSTART:20260105T100000Z"], id="escaped uid"),
        pytest.param(
            ["UID:d", "DTSTART:20260105T100000Z", "DTEND:20260105T110000Z", "DURATION:PT1H"],
            id="end and duration",
        ),
        pytest.param(
            ["UID:d", "DTSTART;VALUE=DATE:20260105", "DTEND:20260106T100000Z"], id="kinds"
        ),
        pytest.param(["UID:d", "DTSTART;TZID=Europe/Rome:20260105T100000Z"], id="zone and Z"),
        pytest.param(["UID:d", "DTSTART:20260105T100000Z", "DURATION:-PT1H"], id="backwards"),
        pytest.param(["UID:d", "DTSTART;VALUE=DATE:20260105T100000"], id="date that is not"),
    ],
)
def test_what_the_scan_is_not_sure_of_is_read_by_the_library(lines: list[str]) -> None:
    text = _object(lines)
    assert ical_index._plain_event(text) is None
    assert ical_index.index(text) == _exact(text)


def test_two_events_in_one_object_go_to_the_library() -> None:
    one = _object(["UID:x", "DTSTART:20260105T100000Z"])
    two = one.replace(
        "END:VCALENDAR",
        "BEGIN:VEVENT\r\nUID:x\r\nDTSTART:20260106T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR",
    )
    assert ical_index._plain_event(two) is None
    assert ical_index.index(two) == _exact(two)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(_object(["UID:x", "SUMMARY:no start"]), id="no start"),
        pytest.param(_object(["UID:x", "DTSTART:20261399T100000Z"]), id="no such day"),
        pytest.param(_object(["SUMMARY:no uid", "DTSTART:20260105T100000Z"]), id="no uid"),
        pytest.param("BEGIN:VCARD\r\nFN:x\r\nEND:VCARD\r\n", id="not iCalendar"),
    ],
)
def test_a_broken_object_is_broken_whichever_way_it_is_read(text: str) -> None:
    assert ical_index._plain_event(text) is None
    with pytest.raises(BrokenObject):
        ical_index.index(text)
