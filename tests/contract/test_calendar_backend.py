"""The contract every ``CalendarBackend`` (``fruitctl.ports``) keeps, run against each backend
of ``conftest.CALENDARS``: calendars, single and all-day events, ranges, recurrence
(DST, EXDATE, moved and retitled occurrences, all-day series, a series moved as a whole), and
times that keep their own zone whatever the host's."""

from __future__ import annotations

import time
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from fruitctl.domain.calendar import Event, event_sort_key
from fruitctl.domain.errors import InvalidParams, NotFound
from fruitctl.ports import CalendarBackend, CalendarCreation, EventChanges, EventRange, NewEvent

ROME = ZoneInfo("Europe/Rome")
NEW_YORK = ZoneInfo("America/New_York")
# Europe/Rome goes from +01:00 to +02:00 on Sunday 2026-03-29.
MARCH = EventRange(datetime(2026, 3, 1, tzinfo=ROME), datetime(2026, 4, 30, tzinfo=ROME))


def _default(backend: CalendarBackend) -> str:
    (default,) = [c for c in backend.calendars() if c.isDefault]
    return default.id


def _create(backend: CalendarBackend, **fields: object) -> Event:
    fields.setdefault("calendar_id", _default(backend))
    fields.setdefault("title", "an event")
    fields.setdefault("start", datetime(2026, 3, 2, 9, tzinfo=ROME))
    fields.setdefault("end", datetime(2026, 3, 2, 10, tzinfo=ROME))
    return backend.create_event(NewEvent(**fields))  # type: ignore[arg-type]


def _weekly(backend: CalendarBackend, **fields: object) -> Event:
    """Fridays at 09:00 Rome from 2026-03-20, across the DST change of the 29th."""
    fields.setdefault("title", "Weekly review")
    fields.setdefault("start", datetime(2026, 3, 20, 9, tzinfo=ROME))
    fields.setdefault("end", datetime(2026, 3, 20, 10, tzinfo=ROME))
    fields.setdefault("timezone", "Europe/Rome")
    fields.setdefault("recurrence", "FREQ=WEEKLY")
    return _create(backend, **fields)


def _occurrences(backend: CalendarBackend, series: Event, query: EventRange = MARCH) -> list[Event]:
    return [e for e in backend.events(query) if e.seriesId == series.id]


def _starts(events: list[Event]) -> list[str]:
    return [e.startAt for e in events]


# -- calendars and single events --------------------------------------------------------------


def test_identity_and_one_default_calendar_first(calendar_backend: CalendarBackend) -> None:
    assert calendar_backend.name
    assert calendar_backend.permission_status() == "authorized"
    found = calendar_backend.calendars()
    assert found[0].isDefault and sum(c.isDefault for c in found) == 1


def test_a_timed_event_keeps_its_zone_and_fields(calendar_backend: CalendarBackend) -> None:
    created = _create(
        calendar_backend,
        title="Dentist",
        location="Studio Bianchi",
        notes="Ask about the x-ray.\nBring the card.",
        url="https://example.org/booking",
        timezone="Europe/Rome",
    )
    assert (created.startAt, created.endAt) == (
        "2026-03-02T09:00:00+01:00",
        "2026-03-02T10:00:00+01:00",
    )
    assert (created.timezone, created.allDay, created.recurrence) == ("Europe/Rome", False, None)
    assert created.seriesId is None and created.occurrence is None
    got = calendar_backend.get_event(created.id)
    assert got.model_dump(exclude={"modificationDate"}) == created.model_dump(
        exclude={"modificationDate"}
    )
    assert (got.notes, got.url, got.location) == (
        "Ask about the x-ray.\nBring the card.",
        "https://example.org/booking",
        "Studio Bianchi",
    )


def test_a_time_given_in_another_offset_is_kept_in_the_zone_asked(
    calendar_backend: CalendarBackend,
) -> None:
    start = datetime(2026, 7, 1, 3, tzinfo=NEW_YORK)  # 09:00 in Rome (CEST)
    created = _create(
        calendar_backend, start=start, end=start + timedelta(hours=1), timezone="Europe/Rome"
    )
    assert created.startAt == "2026-07-01T09:00:00+02:00"


def test_an_all_day_event_is_dates_with_an_exclusive_end(calendar_backend: CalendarBackend) -> None:
    created = _create(calendar_backend, start=date(2026, 3, 24), end=date(2026, 3, 26))
    assert (created.startAt, created.endAt, created.allDay) == ("2026-03-24", "2026-03-26", True)
    assert created.timezone is None
    day = EventRange(datetime(2026, 3, 26, tzinfo=ROME), datetime(2026, 3, 27, tzinfo=ROME))
    assert calendar_backend.events(day) == []  # the end date itself is not part of it
    last = EventRange(datetime(2026, 3, 25, 23, tzinfo=ROME), datetime(2026, 3, 26, tzinfo=ROME))
    assert [e.id for e in calendar_backend.events(last)] == [created.id]


def test_ranges_are_half_open(calendar_backend: CalendarBackend) -> None:
    created = _create(calendar_backend)  # 09:00-10:00 Rome on 2026-03-02
    at = datetime(2026, 3, 2, 9, tzinfo=ROME)
    for start, end, found in [
        (at - timedelta(hours=1), at, False),  # ends where the event starts
        (at + timedelta(hours=1), at + timedelta(hours=2), False),  # starts where it ends
        (at + timedelta(minutes=59), at + timedelta(hours=2), True),
        (at - timedelta(hours=1), at + timedelta(minutes=1), True),
    ]:
        ids = [e.id for e in calendar_backend.events(EventRange(start, end))]
        assert ids == ([created.id] if found else []), (start, end)


def test_a_zero_length_event_belongs_to_the_range_it_starts_in(
    calendar_backend: CalendarBackend,
) -> None:
    at = datetime(2026, 3, 2, 9, tzinfo=ROME)
    created = _create(calendar_backend, start=at, end=at)
    assert [e.id for e in calendar_backend.events(EventRange(at, at + timedelta(minutes=1)))] == [
        created.id
    ]
    assert calendar_backend.events(EventRange(at - timedelta(minutes=1), at)) == []


def test_events_are_sorted_limited_and_filtered_by_calendar(
    calendar_backend: CalendarBackend,
) -> None:
    for day in (5, 3, 4, 3):
        start = datetime(2026, 3, day, 9 + day, tzinfo=ROME)
        _create(calendar_backend, title=f"day {day}", start=start, end=start)
    _create(calendar_backend, title="all day", start=date(2026, 3, 4), end=date(2026, 3, 5))
    found = calendar_backend.events(MARCH)
    assert found == sorted(found, key=event_sort_key)
    assert [e.title for e in found] == ["day 3", "day 3", "all day", "day 4", "day 5"]
    limited = calendar_backend.events(
        EventRange(MARCH.start, MARCH.end, limit=2),
    )
    assert limited == found[:2]
    other = EventRange(MARCH.start, MARCH.end, calendar_ids=("no-such-calendar",))
    assert calendar_backend.events(other) == []


def test_unknown_ids_are_not_found(calendar_backend: CalendarBackend) -> None:
    for event_id in ("nope", "nope@20260320T080000Z"):
        with pytest.raises(NotFound):
            calendar_backend.get_event(event_id)
        with pytest.raises(NotFound):
            calendar_backend.delete_event(event_id, "series")
        with pytest.raises(NotFound):
            calendar_backend.update_event(event_id, {"title": "x"}, "series")


def test_a_single_event_changes_and_clears_fields(calendar_backend: CalendarBackend) -> None:
    created = _create(calendar_backend, location="Office", notes="n")
    start = datetime(2026, 3, 3, 15, tzinfo=ROME)
    changed = calendar_backend.update_event(
        created.id, {"title": "Moved", "startAt": start, "location": None}, "series"
    )
    assert (changed.title, changed.location, changed.notes) == ("Moved", None, "n")
    # A new start keeps the length.
    assert (changed.startAt, changed.endAt) == (
        "2026-03-03T15:00:00+01:00",
        "2026-03-03T16:00:00+01:00",
    )
    assert calendar_backend.get_event(created.id) == changed


def test_end_before_start_is_refused(calendar_backend: CalendarBackend) -> None:
    created = _create(calendar_backend)
    with pytest.raises(InvalidParams):
        calendar_backend.update_event(
            created.id, {"endAt": datetime(2026, 3, 2, 8, tzinfo=ROME)}, "series"
        )
    assert calendar_backend.get_event(created.id).endAt == created.endAt


def test_delete_a_single_event(calendar_backend: CalendarBackend) -> None:
    created = _create(calendar_backend)
    calendar_backend.delete_event(created.id, "series")
    with pytest.raises(NotFound):
        calendar_backend.get_event(created.id)
    assert calendar_backend.events(MARCH) == []


# -- recurrence -----------------------------------------------------------------------------


def test_a_weekly_series_keeps_its_local_time_across_dst(calendar_backend: CalendarBackend) -> None:
    series = _weekly(calendar_backend)
    assert series.recurrence == "FREQ=WEEKLY" and series.seriesId is None
    found = _occurrences(calendar_backend, series)
    assert _starts(found)[:3] == [
        "2026-03-20T09:00:00+01:00",
        "2026-03-27T09:00:00+01:00",
        "2026-04-03T09:00:00+02:00",
    ]
    assert len(found) == 6  # to the end of April
    first = found[0]
    assert first.occurrence == "20260320T080000Z" and found[2].occurrence == "20260403T070000Z"
    assert first.id == f"{series.id}@20260320T080000Z" and first.recurrence == "FREQ=WEEKLY"
    assert calendar_backend.get_event(found[2].id) == found[2]


def test_the_host_zone_changes_nothing(
    calendar_backend: CalendarBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    series = _weekly(calendar_backend)
    in_rome = _occurrences(calendar_backend, series)
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        again = _occurrences(calendar_backend, series)
        made_here = _weekly(calendar_backend, title="made in New York")
        assert _starts(_occurrences(calendar_backend, made_here)) == _starts(in_rome)
    finally:
        monkeypatch.setenv("TZ", "Europe/Rome")
        time.tzset()
    assert [(e.id, e.startAt, e.endAt) for e in again] == [
        (e.id, e.startAt, e.endAt) for e in in_rome
    ]


def test_a_range_inside_the_series_finds_only_its_occurrences(
    calendar_backend: CalendarBackend,
) -> None:
    series = _weekly(calendar_backend)
    far = EventRange(datetime(2027, 6, 1, tzinfo=ROME), datetime(2027, 6, 8, tzinfo=ROME))
    (only,) = _occurrences(calendar_backend, series, far)
    assert only.startAt == "2027-06-04T09:00:00+02:00"
    before = EventRange(datetime(2026, 3, 1, tzinfo=ROME), datetime(2026, 3, 20, tzinfo=ROME))
    assert _occurrences(calendar_backend, series, before) == []


def test_deleting_one_occurrence_excludes_only_it(calendar_backend: CalendarBackend) -> None:
    series = _weekly(calendar_backend)
    found = _occurrences(calendar_backend, series)
    calendar_backend.delete_event(found[1].id, "occurrence")
    left = _occurrences(calendar_backend, series)
    assert [e.id for e in left] == [e.id for e in found if e.id != found[1].id]
    with pytest.raises(NotFound):
        calendar_backend.get_event(found[1].id)
    with pytest.raises(NotFound):
        calendar_backend.delete_event(found[1].id, "occurrence")


def test_a_key_that_is_not_an_occurrence_is_not_found(calendar_backend: CalendarBackend) -> None:
    series = _weekly(calendar_backend)
    for key in ("20260321T080000Z", "20260320", "20260313T080000Z"):  # wrong day, kind, before
        with pytest.raises(NotFound):
            calendar_backend.get_event(f"{series.id}@{key}")
        with pytest.raises(NotFound):
            calendar_backend.update_event(f"{series.id}@{key}", {"title": "x"}, "occurrence")


def test_moving_one_occurrence(calendar_backend: CalendarBackend) -> None:
    series = _weekly(calendar_backend)
    second = _occurrences(calendar_backend, series)[1]
    moved = calendar_backend.update_event(
        second.id,
        {"startAt": datetime(2026, 3, 28, 15, tzinfo=ROME), "title": "Review, Saturday"},
        "occurrence",
    )
    assert moved.id == second.id and moved.seriesId == series.id
    assert (moved.startAt, moved.endAt, moved.title) == (
        "2026-03-28T15:00:00+01:00",
        "2026-03-28T16:00:00+01:00",
        "Review, Saturday",
    )
    found = _occurrences(calendar_backend, series)
    assert "2026-03-27T09:00:00+01:00" not in _starts(found)
    assert [e.id for e in found].count(second.id) == 1
    assert calendar_backend.get_event(second.id) == moved
    assert calendar_backend.get_event(series.id).title == "Weekly review"
    assert [e.title for e in found].count("Weekly review") == len(found) - 1


def test_an_occurrence_change_cannot_touch_the_rule(calendar_backend: CalendarBackend) -> None:
    series = _weekly(calendar_backend)
    first = _occurrences(calendar_backend, series)[0]
    with pytest.raises(InvalidParams):
        calendar_backend.update_event(first.id, {"recurrence": "FREQ=DAILY"}, "occurrence")
    with pytest.raises(InvalidParams):  # a series id needs scope "series"
        calendar_backend.update_event(series.id, {"title": "x"}, "occurrence")
    with pytest.raises(InvalidParams):
        calendar_backend.delete_event(series.id, "occurrence")
    assert calendar_backend.get_event(series.id).recurrence == "FREQ=WEEKLY"


# What a change to a series does to its detached occurrences happens inside EventKit; the
# eventkit backend here runs on a thin fake of the adapter that does not model it, so these are
# left to the round trip on a Mac (tests/backends/eventkit/test_on_a_mac.py).
INSIDE_THE_STORE = frozenset({"eventkit"})


def _needs_the_real_store(backend: CalendarBackend) -> None:
    if backend.name in INSIDE_THE_STORE:
        pytest.skip(f"{backend.name}: detached occurrences under a series change are the store's")


def test_retitling_the_series_spares_occurrences_retitled_alone(
    calendar_backend: CalendarBackend,
) -> None:
    _needs_the_real_store(calendar_backend)
    series = _weekly(calendar_backend)
    first, second = _occurrences(calendar_backend, series)[:2]
    calendar_backend.update_event(second.id, {"title": "Special review"}, "occurrence")
    calendar_backend.update_event(first.id, {"location": "Home"}, "occurrence")
    calendar_backend.update_event(series.id, {"title": "GTD review"}, "series")
    titles = [e.title for e in _occurrences(calendar_backend, series)]
    assert titles[:3] == ["GTD review", "Special review", "GTD review"]
    assert calendar_backend.get_event(first.id).location == "Home"


def test_moving_the_series_keeps_its_exceptions(calendar_backend: CalendarBackend) -> None:
    _needs_the_real_store(calendar_backend)
    series = _weekly(calendar_backend)
    first, second, third = _occurrences(calendar_backend, series)[:3]
    calendar_backend.delete_event(second.id, "occurrence")
    calendar_backend.update_event(
        third.id, {"startAt": datetime(2026, 4, 3, 15, tzinfo=ROME)}, "occurrence"
    )
    # Through an occurrence: every occurrence takes the same step, 09:00 -> 10:30.
    moved = calendar_backend.update_event(
        first.id, {"startAt": datetime(2026, 3, 20, 10, 30, tzinfo=ROME)}, "series"
    )
    assert (moved.id, moved.startAt, moved.endAt) == (
        series.id,
        "2026-03-20T10:30:00+01:00",
        "2026-03-20T11:30:00+01:00",
    )
    assert _starts(_occurrences(calendar_backend, series))[:4] == [
        "2026-03-20T10:30:00+01:00",
        "2026-04-03T15:00:00+02:00",  # still moved; the 27th still deleted
        "2026-04-10T10:30:00+02:00",
        "2026-04-17T10:30:00+02:00",
    ]


def test_an_all_day_series_with_a_count(calendar_backend: CalendarBackend) -> None:
    series = _create(
        calendar_backend,
        title="Conference",
        start=date(2026, 3, 28),
        end=date(2026, 3, 29),
        recurrence="FREQ=DAILY;COUNT=3",
    )
    found = _occurrences(calendar_backend, series)
    assert [(e.startAt, e.endAt, e.occurrence) for e in found] == [
        ("2026-03-28", "2026-03-29", "20260328"),
        ("2026-03-29", "2026-03-30", "20260329"),
        ("2026-03-30", "2026-03-31", "20260330"),
    ]
    assert all(e.allDay and e.id == f"{series.id}@{e.occurrence}" for e in found)
    calendar_backend.delete_event(found[1].id, "occurrence")
    assert [e.startAt for e in _occurrences(calendar_backend, series)] == [
        "2026-03-28",
        "2026-03-30",
    ]
    later = EventRange(datetime(2026, 4, 1, tzinfo=ROME), datetime(2027, 4, 1, tzinfo=ROME))
    assert _occurrences(calendar_backend, series, later) == []


def test_a_series_until_a_date_ends_there(calendar_backend: CalendarBackend) -> None:
    series = _weekly(calendar_backend, recurrence="FREQ=WEEKLY;UNTIL=20260410T235959Z")
    assert _starts(_occurrences(calendar_backend, series))[-1] == "2026-04-10T09:00:00+02:00"


def test_clearing_the_rule_leaves_a_single_event(calendar_backend: CalendarBackend) -> None:
    series = _weekly(calendar_backend)
    second = _occurrences(calendar_backend, series)[1]
    calendar_backend.update_event(second.id, {"title": "moved"}, "occurrence")
    single = calendar_backend.update_event(series.id, {"recurrence": None}, "series")
    assert single.recurrence is None
    found = calendar_backend.events(MARCH)
    assert [(e.id, e.title, e.seriesId) for e in found] == [(series.id, "Weekly review", None)]


def test_deleting_the_series_through_an_occurrence(calendar_backend: CalendarBackend) -> None:
    series = _weekly(calendar_backend)
    second = _occurrences(calendar_backend, series)[1]
    calendar_backend.delete_event(second.id, "series")
    assert calendar_backend.events(MARCH) == []
    with pytest.raises(NotFound):
        calendar_backend.get_event(series.id)


def test_moving_an_event_to_another_calendar(calendar_backend: CalendarBackend) -> None:
    if not isinstance(calendar_backend, CalendarCreation):
        pytest.skip("this backend cannot make a second calendar")
    work = calendar_backend.create_calendar("Work")
    series = _weekly(calendar_backend)
    changes: EventChanges = {"calendarId": work.id}
    moved = calendar_backend.update_event(series.id, changes, "series")
    assert (moved.calendarId, moved.calendarName) == (work.id, "Work")
    in_work = EventRange(MARCH.start, MARCH.end, calendar_ids=(work.id,))
    assert len(calendar_backend.events(in_work)) == 6
    first = calendar_backend.events(in_work)[0]
    with pytest.raises(InvalidParams):  # one occurrence cannot leave its series
        calendar_backend.update_event(
            first.id, {"calendarId": _default(calendar_backend)}, "occurrence"
        )


def test_occurrence_keys_are_utc_whatever_the_zone(calendar_backend: CalendarBackend) -> None:
    series = _weekly(
        calendar_backend,
        start=datetime(2026, 3, 20, 9, tzinfo=NEW_YORK),
        end=datetime(2026, 3, 20, 10, tzinfo=NEW_YORK),
        timezone="America/New_York",
    )
    first = _occurrences(calendar_backend, series)[0]
    assert first.startAt == "2026-03-20T09:00:00-04:00"
    expected = datetime(2026, 3, 20, 9, tzinfo=NEW_YORK).astimezone(UTC)
    assert first.occurrence == expected.strftime("%Y%m%dT%H%M%SZ")
