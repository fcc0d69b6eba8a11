"""The iCalendar mapping itself, as a CalDAV server would see it: the text written (VTIMEZONE,
TZIDs, RECURRENCE-ID, EXDATE, SEQUENCE), and the shapes real servers send that fruitctl never
writes (DURATION, no DTEND, floating times, UTC, a lone override)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import icalendar
import pytest

from fruitctl.backends import ical_edit, ical_events, ical_occurrences
from fruitctl.domain.calendar import Calendar
from fruitctl.domain.errors import InvalidParams
from fruitctl.ports import NewEvent

ROME = ZoneInfo("Europe/Rome")
CAL = Calendar(id="c1", name="Home", isDefault=True)
STAMP = datetime(2026, 2, 1, 12, tzinfo=UTC)
WEEK = (datetime(2026, 3, 16, tzinfo=ROME), datetime(2026, 3, 23, tzinfo=ROME))


def _weekly() -> str:
    new = NewEvent(
        calendar_id="c1",
        title="Review",
        start=datetime(2026, 3, 20, 9, tzinfo=ROME),
        end=datetime(2026, 3, 20, 10, tzinfo=ROME),
        timezone="Europe/Rome",
        recurrence="FREQ=WEEKLY",
    )
    return ical_edit.new_object("uid-1", new, STAMP)


def _wrap(*lines: str) -> str:
    body = "\n".join(lines)
    return (
        f"BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:x\nBEGIN:VEVENT\n{body}\nEND:VEVENT\nEND:VCALENDAR\n"
    )


def test_a_new_object_is_what_a_caldav_server_expects() -> None:
    text = _weekly()
    cal = icalendar.Calendar.from_ical(text)
    assert [tz["TZID"] for tz in cal.walk("VTIMEZONE")] == ["Europe/Rome"]
    assert "DTSTART;TZID=Europe/Rome:20260320T090000" in text
    assert "RRULE:FREQ=WEEKLY" in text and "PRODID:-//fruitctl//fruitctl//EN" in text
    (event,) = cal.walk("VEVENT")
    assert str(event["UID"]) == "uid-1" and int(event["SEQUENCE"]) == 0
    assert event["DTSTAMP"].dt == STAMP and event["CREATED"].dt == STAMP


def test_an_occurrence_change_writes_an_override_and_bumps_sequence() -> None:
    key = "20260327T080000Z"
    later = STAMP + timedelta(days=1)
    text = ical_edit.apply_changes(_weekly(), {"title": "Moved"}, "occurrence", key, later)
    assert "RECURRENCE-ID;TZID=Europe/Rome:20260327T090000" in text
    cal = icalendar.Calendar.from_ical(text)
    override = ical_events.overrides(cal)[0]
    assert (str(override["SUMMARY"]), str(override["UID"])) == ("Moved", "uid-1")
    assert override["LAST-MODIFIED"].dt == later
    again = ical_edit.apply_changes(text, {"title": "Again"}, "occurrence", key, later)
    assert int(ical_events.overrides(icalendar.Calendar.from_ical(again))[0]["SEQUENCE"]) == 1


def test_an_occurrence_delete_writes_an_exdate_in_the_series_zone() -> None:
    text = ical_edit.remove_occurrence(_weekly(), "20260327T080000Z", STAMP)
    assert "EXDATE;TZID=Europe/Rome:20260327T090000" in text


def test_a_bare_offset_without_a_zone_is_kept_as_its_instant_in_utc() -> None:
    start = datetime(2026, 3, 2, 9, tzinfo=timezone(timedelta(hours=-5)))
    new = NewEvent("c1", "call", start, start + timedelta(hours=1))
    text = ical_edit.new_object("u", new, STAMP)
    assert "DTSTART:20260302T140000Z" in text
    event = ical_events.series_event(text, CAL)
    assert (event.startAt, event.timezone) == ("2026-03-02T14:00:00+00:00", "UTC")


def test_an_unknown_zone_or_rule_is_refused() -> None:
    start = datetime(2026, 3, 2, 9, tzinfo=ROME)
    with pytest.raises(InvalidParams) as zone_error:
        ical_edit.new_object("u", NewEvent("c1", "t", start, start, timezone="Mars/Olympus"), STAMP)
    assert zone_error.value.details["field"] == "timezone"
    with pytest.raises(InvalidParams) as rule_error:
        ical_edit.new_object("u", NewEvent("c1", "t", start, start, recurrence="FREQ=OFTEN"), STAMP)
    assert rule_error.value.details["field"] == "recurrence"


def test_duration_and_missing_dtend_follow_rfc_5545() -> None:
    timed = _wrap("UID:a", "DTSTART;TZID=Europe/Rome:20260318T100000", "DURATION:PT90M")
    assert ical_events.series_event(timed, CAL).endAt == "2026-03-18T11:30:00+01:00"
    day = _wrap("UID:b", "DTSTART;VALUE=DATE:20260318")
    assert ical_events.series_event(day, CAL).endAt == "2026-03-19"
    instant = _wrap("UID:c", "DTSTART:20260318T100000Z")
    event = ical_events.series_event(instant, CAL)
    assert event.endAt == event.startAt == "2026-03-18T10:00:00+00:00"


def test_a_floating_time_is_read_in_the_zone_of_the_range() -> None:
    text = _wrap("UID:f", "DTSTART:20260318T233000", "DTEND:20260318T234500")
    in_rome = ical_occurrences.expand(text, CAL, datetime(2026, 3, 18, tzinfo=ROME), WEEK[1])
    assert len(in_rome) == 1
    tokyo = ZoneInfo("Asia/Tokyo")
    next_day = datetime(2026, 3, 19, tzinfo=tokyo)
    assert ical_occurrences.expand(text, CAL, next_day, next_day + timedelta(days=1)) == []


def test_a_lone_override_is_read_as_its_own_occurrence() -> None:
    # Servers hand out a single moved instance when the user is invited to only that one.
    text = _wrap(
        "UID:o",
        "RECURRENCE-ID;TZID=Europe/Rome:20260317T090000",
        "DTSTART;TZID=Europe/Rome:20260318T090000",
        "DTEND;TZID=Europe/Rome:20260318T100000",
        "SUMMARY:Only this one",
    )
    (found,) = ical_occurrences.expand(text, CAL, *WEEK)
    assert (found.id, found.seriesId, found.startAt) == (
        "o@20260317T080000Z",
        "o",
        "2026-03-18T09:00:00+01:00",
    )
    assert ical_events.occurrence_event(text, CAL, "20260317T080000Z") == found


def test_unreadable_text_is_a_broken_object() -> None:
    for text in ("", "garbage", _wrap("UID:x"), _wrap("DTSTART:20260318T100000Z")):
        with pytest.raises(ical_events.BrokenObject):
            ical_events.parse(text)


def test_bounds_widen_dates_by_the_zones_a_day_can_be_in() -> None:
    day = _wrap("UID:b", "DTSTART;VALUE=DATE:20260318", "DTEND;VALUE=DATE:20260319")
    first, last = ical_occurrences.bounds(day)
    midnight = datetime(2026, 3, 18, tzinfo=UTC).timestamp()
    assert first == midnight - 14 * 3600
    assert last == datetime(2026, 3, 19, tzinfo=UTC).timestamp() + 14 * 3600


def test_a_custom_vtimezone_is_honoured() -> None:
    # Outlook-style zone names are not IANA names: their VTIMEZONE is the only definition.
    text = (
        "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:x\nBEGIN:VTIMEZONE\nTZID:My Office Time\n"
        "BEGIN:STANDARD\nDTSTART:19700101T000000\nTZOFFSETFROM:+0300\nTZOFFSETTO:+0300\n"
        "END:STANDARD\nEND:VTIMEZONE\nBEGIN:VEVENT\nUID:z\n"
        "DTSTART;TZID=My Office Time:20260318T090000\nDTEND;TZID=My Office Time:20260318T100000\n"
        "END:VEVENT\nEND:VCALENDAR\n"
    )
    assert ical_events.series_event(text, CAL).startAt == "2026-03-18T09:00:00+03:00"
