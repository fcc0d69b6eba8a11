"""Dates on the wire: ISO 8601 with +HH:MM, never Z, never naive; dates stay dates; every
date-time in the person's one zone (the tests' host zone is Europe/Rome)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from fruitctl.domain.dates import (
    canonical_datetime,
    canonical_due,
    canonical_moment,
    format_datetime,
    instant,
    now,
    parse_date_or_datetime,
    use_zone,
)
from fruitctl.domain.errors import InvalidParams


@pytest.mark.parametrize(
    ("text", "wire"),
    [
        ("2026-02-24", "2026-02-24"),
        ("2026-02-24T18:00:00+01:00", "2026-02-24T18:00:00+01:00"),
        ("2024-01-15T10:30:00-05:00", "2024-01-15T16:30:00+01:00"),  # into the person's zone
        ("2026-02-24T18:00:00Z", "2026-02-24T19:00:00+01:00"),
        ("2026-02-24T18:00:00z", "2026-02-24T19:00:00+01:00"),
        ("2026-07-24T18:00:00Z", "2026-07-24T20:00:00+02:00"),  # summer time
        ("2026-02-24T18:00:00.987+01:00", "2026-02-24T18:00:00+01:00"),
        ("2026-02-24T18:00", "2026-02-24T18:00:00+01:00"),  # naive: host zone (Rome, winter)
        ("2026-07-24T18:00", "2026-07-24T18:00:00+02:00"),  # naive: host zone (Rome, summer)
        ("2026-02-24 18:00:00+0100", "2026-02-24T18:00:00+01:00"),
    ],
)
def test_accepted_forms_and_their_wire_text(text: str, wire: str) -> None:
    assert canonical_due(text) == wire


@pytest.mark.parametrize(
    "text", ["01-15-2024", "2026-13-01", "2026-02-30", "tomorrow", "", "2026-02-24T25:00", "1e9"]
)
def test_malformed_dates_give_the_seed_message(text: str) -> None:
    with pytest.raises(InvalidParams) as raised:
        parse_date_or_datetime(text)
    assert raised.value.message == (
        f"Invalid date format: '{text}'. Expected ISO 8601 format like '2024-01-15T10:00:00-05:00'."
    )


def test_utc_is_written_with_an_offset_not_z() -> None:
    use_zone("UTC")
    assert format_datetime(datetime(2026, 1, 1, tzinfo=UTC)) == "2026-01-01T00:00:00+00:00"


def test_answers_follow_the_configured_zone_not_the_host() -> None:
    use_zone("America/New_York")
    assert canonical_due("2026-02-24T18:00:00+01:00") == "2026-02-24T12:00:00-05:00"
    assert canonical_due("2026-02-24T18:00") == "2026-02-24T18:00:00-05:00"  # naive: that zone
    assert canonical_due("2026-02-24") == "2026-02-24"
    assert now().utcoffset() in (timedelta(hours=-5), timedelta(hours=-4))
    use_zone(None)
    assert canonical_due("2026-02-24T18:00:00-05:00") == "2026-02-25T00:00:00+01:00"


def test_texts_in_one_zone_sort_in_time_order() -> None:
    written = [
        "2026-03-01T09:00:00-08:00",
        "2026-03-01T12:00:00+00:00",
        "2026-03-01T17:30:00+05:30",
    ]
    wire = [canonical_due(text) for text in written]
    by_text = sorted(wire)
    by_time = sorted(wire, key=lambda text: datetime.fromisoformat(text).timestamp())
    assert by_text == by_time
    assert sorted(written) != sorted(written, key=lambda t: datetime.fromisoformat(t).timestamp())


def test_an_event_moment_keeps_its_own_offset() -> None:
    assert canonical_moment("2026-02-24T09:00:00-05:00") == "2026-02-24T09:00:00-05:00"
    assert canonical_moment("2026-02-24") == "2026-02-24"
    assert canonical_moment("2026-02-24T09:00") == "2026-02-24T09:00:00+01:00"


def test_a_seconds_offset_falls_back_to_utc() -> None:
    use_zone("Europe/Amsterdam")  # +00:19:32 before 1937
    odd = timezone(timedelta(minutes=19, seconds=32))
    assert canonical_datetime(datetime(1930, 1, 1, 12, tzinfo=odd)) == "1930-01-01T11:40:28+00:00"


def test_a_date_orders_as_its_midnight_in_the_persons_zone() -> None:
    assert instant(date(2026, 2, 24)) == datetime(2026, 2, 24).astimezone().timestamp()
    use_zone("Asia/Tokyo")
    assert instant(date(2026, 2, 24)) == datetime(2026, 2, 23, 15, tzinfo=UTC).timestamp()
