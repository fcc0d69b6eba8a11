"""The Apple Calendar backend over the fake adapter: ranges split at EventKit's four years,
occurrence ids, all-day dates, each event in its zone, one occurrence vs the series, and
EventKit's failures and permission as fruitctl's errors."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from backends.eventkit.fake import EK_ERROR_DOMAIN, FakeEventKit

from fruitctl.backends.eventkit.calendars import EventKitCalendars, spans
from fruitctl.backends.eventkit.hosts import Responsible
from fruitctl.backends.eventkit.permission import Access
from fruitctl.backends.eventkit.values import (
    DAILY,
    DENIED,
    WEEKLY,
    RawCalendar,
    RawEvent,
    RawRule,
    StoreError,
    StoreTimeout,
)
from fruitctl.domain.errors import (
    BackendUnavailable,
    InvalidParams,
    NotFound,
    PermissionDenied,
    Timeout,
)
from fruitctl.ports import EventRange, NewEvent

ROME = ZoneInfo("Europe/Rome")
ITERM = Responsible("iTerm", "/Applications/iTerm.app", "terminal")
START = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)  # 09:00 in Rome


@pytest.fixture
def fake() -> FakeEventKit:
    port = FakeEventKit()
    port.add_calendar("event", "Home", default=True)
    port.lists["event"]["ro"] = RawCalendar("ro", "Holidays", False, "Subscribed")
    return port


@pytest.fixture
def backend(fake: FakeEventKit) -> EventKitCalendars:
    return EventKitCalendars(fake, Access(fake, who=lambda: ITERM))


def home(fake: FakeEventKit) -> str:
    return next(iter(fake.lists["event"]))


def standup(fake: FakeEventKit, **rule: int) -> RawEvent:
    return fake.add_event(
        RawEvent(
            "series-1",
            home(fake),
            "Stand-up",
            START,
            START + timedelta(minutes=15),
            timezone="Europe/Rome",
            rules=(RawRule(DAILY, **rule),),
        )
    )


def last_save(fake: FakeEventKit) -> tuple[Any, ...]:
    return [args for name, args in fake.calls if name == "save_event"][-1]


def week(start: datetime = START) -> EventRange:
    return EventRange(start - timedelta(hours=1), start + timedelta(days=7))


def test_calendars_default_first_and_read_only_marked(backend: EventKitCalendars) -> None:
    shown = [(c.name, c.isDefault, c.readOnly) for c in backend.calendars()]
    assert shown == [("Home", True, False), ("Holidays", False, True)]


def test_a_range_over_four_years_is_split_and_nothing_counted_twice(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    start = datetime(2020, 1, 1, tzinfo=UTC)
    cut = start + timedelta(days=4 * 365)
    fake.add_event(
        RawEvent("across", home(fake), "Long", cut - timedelta(hours=1), cut + timedelta(hours=1))
    )
    found = backend.events(EventRange(start, start + timedelta(days=10 * 365)))
    ranges = [args[:2] for name, args in fake.calls if name == "events"]
    assert (
        len(ranges) == 3 and ranges[0][0] == start and ranges[-1][1] == start + timedelta(days=3650)
    )
    assert all(b - a <= timedelta(days=4 * 365) for a, b in ranges)
    assert [e.id for e in found] == ["across"]
    assert spans(start, start) == []


def test_occurrences_get_fruitctls_ids_in_the_events_own_zone(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    standup(fake, count=3)
    found = backend.events(week())
    assert [e.id for e in found] == [
        "series-1@20260302T080000Z",
        "series-1@20260303T080000Z",
        "series-1@20260304T080000Z",
    ]
    first = found[0]
    assert first.startAt == "2026-03-02T09:00:00+01:00" and first.timezone == "Europe/Rome"
    assert first.seriesId == "series-1" and first.recurrence == "FREQ=DAILY;COUNT=3"
    assert backend.get_event("series-1@20260303T080000Z").startAt == "2026-03-03T09:00:00+01:00"
    series = backend.get_event("series-1")
    assert series.id == "series-1" and series.seriesId is None


def test_all_day_events_are_dates_with_an_exclusive_end_both_ways(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    made = backend.create_event(
        NewEvent(calendar_id=home(fake), title="Trip", start=date(2026, 3, 5), end=date(2026, 3, 7))
    )
    assert (made.startAt, made.endAt, made.allDay, made.timezone) == (
        "2026-03-05",
        "2026-03-07",
        True,
        None,
    )
    stored = fake.events_by_id[made.id]
    assert stored.all_day and stored.start.astimezone().date() == date(2026, 3, 5)
    assert stored.end.astimezone().date() == date(2026, 3, 6)  # EventKit: the last day, inclusive
    found = backend.events(
        EventRange(datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 3, 10, tzinfo=UTC))
    )
    assert [(e.startAt, e.endAt) for e in found] == [("2026-03-05", "2026-03-07")]


def test_a_new_timed_event_keeps_its_zone(backend: EventKitCalendars, fake: FakeEventKit) -> None:
    start = datetime(2026, 7, 1, 9, 0, tzinfo=ROME)
    made = backend.create_event(
        NewEvent(home(fake), "Dentist", start, start + timedelta(hours=1), location="Via Roma 1")
    )
    assert fake.events_by_id[made.id].timezone == "Europe/Rome"
    assert made.startAt == "2026-07-01T09:00:00+02:00" and made.location == "Via Roma 1"


def test_a_time_with_a_bare_offset_keeps_its_instant_in_utc_never_floating(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    for start in (START, datetime(2026, 3, 2, 14, 0, tzinfo=timezone(timedelta(hours=6)))):
        made = backend.create_event(NewEvent(home(fake), "Call", start, start + timedelta(hours=1)))
        assert fake.events_by_id[made.id].timezone == "UTC"
        assert (made.startAt, made.timezone) == ("2026-03-02T08:00:00+00:00", "UTC")
    write = last_save(fake)[0]
    assert list(write.fields).index("timezone") < list(write.fields).index("start")


def test_a_series_switches_between_all_day_and_timed_through_its_own_id(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    made = backend.create_event(
        NewEvent(home(fake), "Bins", date(2026, 3, 2), date(2026, 3, 3), recurrence="FREQ=DAILY")
    )
    timed = backend.update_event(
        made.id, {"startAt": datetime(2026, 3, 2, 7, 0, tzinfo=ROME)}, "series"
    )
    assert (timed.startAt, timed.endAt, timed.allDay, timed.timezone) == (
        "2026-03-02T07:00:00+01:00",
        "2026-03-02T08:00:00+01:00",
        False,
        "Europe/Rome",
    )
    back = backend.update_event(made.id, {"startAt": date(2026, 3, 3)}, "series")
    assert (back.startAt, back.endAt, back.allDay, back.timezone) == (
        "2026-03-03",
        "2026-03-04",
        True,
        None,
    )


@pytest.mark.parametrize("scope", ["occurrence", "series"])
def test_an_occurrence_id_cannot_switch_between_all_day_and_timed(
    backend: EventKitCalendars, fake: FakeEventKit, scope: Any
) -> None:
    standup(fake, count=3)
    with pytest.raises(InvalidParams, match="change it through its series id") as caught:
        backend.update_event("series-1@20260303T080000Z", {"startAt": date(2026, 3, 3)}, scope)
    assert caught.value.details["field"] == "startAt"
    assert not any(name == "save_event" for name, _ in fake.calls)


def test_one_occurrence_changes_alone_and_the_series_changes_whole(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    standup(fake, count=5)
    moved = backend.update_event(
        "series-1@20260303T080000Z",
        {"startAt": datetime(2026, 3, 3, 10, 0, tzinfo=ROME)},
        "occurrence",
    )
    assert moved.id == "series-1@20260303T080000Z" and moved.startAt == "2026-03-03T10:00:00+01:00"
    assert last_save(fake)[1] is False  # this event only
    others = [e.startAt for e in backend.events(week()) if e.id != moved.id]
    assert all("T09:00:00" in s for s in others)

    renamed = backend.update_event("series-1@20260304T080000Z", {"title": "Daily"}, "series")
    assert (
        renamed.id == "series-1" and last_save(fake)[1] is True
    )  # this and future, from the first
    assert last_save(fake)[0].occurrence is None  # the master: the whole series
    assert {e.title for e in backend.events(week())} >= {"Daily"}


def test_moving_the_series_through_an_occurrence_moves_it_by_that_step(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    standup(fake, count=3)
    backend.update_event(
        "series-1@20260303T080000Z", {"startAt": datetime(2026, 3, 3, 9, 30, tzinfo=ROME)}, "series"
    )
    assert fake.events_by_id["series-1"].start == START + timedelta(minutes=30)


def test_what_belongs_to_the_series_is_refused_on_one_occurrence(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    standup(fake, count=3)
    with pytest.raises(InvalidParams, match="'recurrence' belongs to the whole series"):
        backend.update_event(
            "series-1@20260302T080000Z", {"recurrence": "FREQ=WEEKLY"}, "occurrence"
        )
    with pytest.raises(InvalidParams, match="is a recurring series"):
        backend.update_event("series-1", {"title": "x"}, "occurrence")
    with pytest.raises(InvalidParams, match="is a recurring series"):
        backend.delete_event("series-1", "occurrence")


def test_deleting_one_occurrence_or_the_series(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    standup(fake, count=3)
    backend.delete_event("series-1@20260303T080000Z", "occurrence")
    assert [e.occurrence for e in backend.events(week())] == [
        "20260302T080000Z",
        "20260304T080000Z",
    ]
    backend.delete_event("series-1@20260302T080000Z", "series")
    assert backend.events(week()) == []
    with pytest.raises(NotFound, match="No event found with ID: 'series-1'"):
        backend.get_event("series-1")


def test_a_weekly_all_day_series_is_keyed_by_date(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    made = backend.create_event(
        NewEvent(
            home(fake), "Bins", date(2026, 3, 2), date(2026, 3, 3), recurrence="FREQ=WEEKLY;COUNT=2"
        )
    )
    assert fake.events_by_id[made.id].rules == (RawRule(WEEKLY, count=2),)
    found = backend.events(
        EventRange(datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 3, 20, tzinfo=UTC))
    )
    assert [e.id for e in found] == [f"{made.id}@20260302", f"{made.id}@20260309"]
    assert backend.get_event(f"{made.id}@20260309").startAt == "2026-03-09"


def test_read_only_and_unknown_calendars(backend: EventKitCalendars, fake: FakeEventKit) -> None:
    with pytest.raises(PermissionDenied, match="Calendar 'Holidays' is read-only"):
        backend.create_event(NewEvent("ro", "x", START, START + timedelta(hours=1)))
    with pytest.raises(NotFound, match="No calendar found with ID: 'nope'"):
        backend.create_event(NewEvent("nope", "x", START, START + timedelta(hours=1)))
    assert not any(name == "save_event" for name, _ in fake.calls)


def test_eventkits_failures_are_fruitctls_errors(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    fake.fail_next["save_event"] = StoreError(EK_ERROR_DOMAIN, 4, "inverted")
    with pytest.raises(
        InvalidParams, match="Could not save the event: the end is before the start"
    ):
        backend.create_event(NewEvent(home(fake), "x", START, START + timedelta(hours=1)))
    fake.fail_next["events"] = StoreError("NSCocoaErrorDomain", 4097, "connection interrupted")
    with pytest.raises(BackendUnavailable, match="connection interrupted"):
        backend.events(week())
    fake.fail_next["events"] = StoreTimeout()
    with pytest.raises(Timeout):
        backend.events(week())


def test_without_access_the_calendar_says_so(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    fake.status["event"] = DENIED
    with pytest.raises(PermissionDenied) as caught:
        backend.events(week())
    assert caught.value.details["service"] == "calendar"
    assert caught.value.details["instructions"][0].endswith("Privacy & Security > Calendars")
    assert backend.permission_status() == "denied"
