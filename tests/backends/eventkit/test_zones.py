"""EventKit's time, as the person's own Mac has it: zone names that are not IANA keys never
break a read, an all-day series ends on its local date both ways, and a bare offset that is the
person's own is saved in their zone (findings E3, E5, E6 of the macOS review)."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from backends.eventkit.fake import FakeEventKit

from fruitctl.backends.eventkit import events, mapping
from fruitctl.backends.eventkit.calendars import EventKitCalendars
from fruitctl.backends.eventkit.hosts import Responsible
from fruitctl.backends.eventkit.permission import Access
from fruitctl.backends.eventkit.rules import raw_rule, recurrence_text
from fruitctl.backends.eventkit.values import DAILY, DateParts, RawEvent, RawRule
from fruitctl.backends.eventkit.zones import iana_name, zone_of
from fruitctl.ports import EventRange, NewEvent

START = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)  # 09:00 in Rome and Berlin, 17:00 in Tokyo
ITERM = Responsible("iTerm", "/Applications/iTerm.app", "terminal")


def host_zone(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("TZ", name)
    time.tzset()  # the autouse fixture in conftest.py puts it back


def meeting(item_id: str, zone: str | None) -> RawEvent:
    return RawEvent(item_id, "home", item_id, START, START + timedelta(hours=1), timezone=zone)


# -- E5: NSTimeZone names that are not IANA keys --------------------------------------------------


@pytest.mark.parametrize(
    ("name", "start", "key"),
    [
        ("GMT+0100", "2026-03-02T09:00:00+01:00", "Etc/GMT-1"),
        ("GMT-0530", "2026-03-02T02:30:00-05:30", None),  # no Etc/ zone has half hours
        ("GMT", "2026-03-02T08:00:00+00:00", "GMT"),
        ("W. Europe Standard Time", "2026-03-02T09:00:00+01:00", "Europe/Berlin"),
        ("Tokyo Standard Time", "2026-03-02T17:00:00+09:00", "Asia/Tokyo"),
        # Unknown: the instant, in the person's zone (Rome, as conftest.py sets it).
        ("Invalid/Random/Zone", "2026-03-02T09:00:00+01:00", None),
        ("Customized Time Zone", "2026-03-02T09:00:00+01:00", None),
    ],
)
def test_a_zone_name_that_is_no_iana_key_reads_as_its_instant(
    name: str, start: str, key: str | None
) -> None:
    shown = events.to_event(meeting("m", name), "Work")
    assert (shown.startAt, shown.timezone) == (start, key)
    start_at, end_at = datetime.fromisoformat(shown.startAt), datetime.fromisoformat(shown.endAt)
    assert end_at - start_at == timedelta(hours=1) and end_at.utcoffset() == start_at.utcoffset()


def test_one_odd_zone_does_not_break_the_whole_calendar_read() -> None:
    fake = FakeEventKit()
    home = fake.add_calendar("event", "Home", default=True).id
    for item_id, zone in (("a", "Europe/Rome"), ("b", "GMT+0100"), ("c", "Pacific Standard Time")):
        fake.add_event(replace(meeting(item_id, zone), calendar_id=home))
    backend = EventKitCalendars(fake, Access(fake, who=lambda: ITERM))
    found = backend.events(EventRange(START - timedelta(days=1), START + timedelta(days=1)))
    assert [(e.id, e.timezone, e.startAt) for e in found] == [
        ("a", "Europe/Rome", "2026-03-02T09:00:00+01:00"),
        ("b", "Etc/GMT-1", "2026-03-02T09:00:00+01:00"),
        ("c", "America/Los_Angeles", "2026-03-02T00:00:00-08:00"),
    ]


def test_a_reminder_due_in_an_offset_zone_keeps_its_time() -> None:
    parts = DateParts(2026, 3, 2, 9, 0, 0, "GMT+0100")
    assert mapping.due_value(parts) == datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    odd = mapping.due_value(DateParts(2026, 3, 2, 9, 0, 0, "Not A Zone"))
    assert odd == datetime(2026, 3, 2, 9, 0, tzinfo=timezone(timedelta(hours=1)))  # Rome


def test_offset_names_out_of_range_or_malformed_are_unknown() -> None:
    assert zone_of("GMT+2500") is None and iana_name("GMT+2500") is None
    assert zone_of("GMT+01:30") == timezone(timedelta(hours=1, minutes=30))
    assert zone_of(None) is None and iana_name("") is None
    assert zone_of("Europe") is None  # a folder of the tz database, not a zone


# -- E3: an all-day UNTIL is a local date --------------------------------------------------------


@pytest.mark.parametrize("zone", ["Asia/Tokyo", "America/Los_Angeles", "Europe/Rome", "UTC"])
def test_an_all_day_until_is_the_local_date_both_ways(
    monkeypatch: pytest.MonkeyPatch, zone: str
) -> None:
    host_zone(monkeypatch, zone)
    end = raw_rule("FREQ=DAILY;UNTIL=20260310").end
    assert end is not None
    local = end.astimezone()
    assert (local.date(), local.hour, local.minute, local.second) == (date(2026, 3, 10), 23, 59, 59)
    # EventKit's end of an all-day series at local midnight of its last day.
    midnight = datetime(2026, 3, 10).astimezone()
    rule = RawRule(DAILY, end=midnight)
    assert recurrence_text((rule,), all_day=True) == "FREQ=DAILY;UNTIL=20260310"
    written = raw_rule("FREQ=DAILY;UNTIL=20260310")
    assert recurrence_text((written,), all_day=True) == "FREQ=DAILY;UNTIL=20260310"


def test_an_all_day_series_written_and_read_ends_on_its_date(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    host_zone(monkeypatch, "Asia/Tokyo")
    fake = FakeEventKit()
    home = fake.add_calendar("event", "Home", default=True).id
    backend = EventKitCalendars(fake, Access(fake, who=lambda: ITERM))
    made = backend.create_event(
        NewEvent(
            calendar_id=home,
            title="Holiday",
            start=date(2026, 3, 5),
            end=date(2026, 3, 6),
            recurrence="FREQ=DAILY;UNTIL=20260310",
        )
    )
    assert made.recurrence == "FREQ=DAILY;UNTIL=20260310"
    # What EventKit was given: the end of 10 March in Tokyo, not 08:59 on the 11th.
    saved = fake.events_by_id[made.id].rules[0].end
    assert saved is not None and saved.astimezone().date() == date(2026, 3, 10)


# -- E6: a bare offset that is the person's own ---------------------------------------------------


@pytest.mark.parametrize(
    ("start", "zone"),
    [
        (datetime(2026, 3, 2, 9, tzinfo=timezone(timedelta(hours=1))), "Europe/Berlin"),
        (datetime(2026, 7, 6, 9, tzinfo=timezone(timedelta(hours=2))), "Europe/Berlin"),
        # Summer time is not Berlin's in March: someone else's offset keeps the instant in UTC.
        (datetime(2026, 3, 2, 9, tzinfo=timezone(timedelta(hours=2))), "UTC"),
        (datetime(2026, 3, 2, 9, tzinfo=timezone(timedelta(hours=-5))), "UTC"),
    ],
)
def test_a_weekly_event_at_the_persons_offset_keeps_their_zone(
    monkeypatch: pytest.MonkeyPatch, start: datetime, zone: str
) -> None:
    host_zone(monkeypatch, "Europe/Berlin")
    new = NewEvent(
        calendar_id="home",
        title="Review",
        start=start,
        end=start + timedelta(hours=1),
        recurrence="FREQ=WEEKLY",
    )
    assert events.new_fields(new)["timezone"] == zone


@pytest.mark.parametrize(
    ("offset", "zone"),
    [(1, "Europe/Berlin"), (-5, "Etc/GMT+5"), (0, "Etc/GMT")],
)
def test_a_timed_due_at_the_persons_offset_keeps_their_zone(
    monkeypatch: pytest.MonkeyPatch, offset: int, zone: str
) -> None:
    host_zone(monkeypatch, "Europe/Berlin")
    due = datetime(2026, 3, 2, 9, tzinfo=timezone(timedelta(hours=offset)))
    parts = mapping.due_parts(due)
    assert parts == DateParts(2026, 3, 2, 9, 0, 0, zone)
    assert mapping.due_value(parts) == due
