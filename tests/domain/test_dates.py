"""Dates on the wire: ISO 8601 with +HH:MM, never Z, never naive; dates stay dates."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from fruitctl.domain.dates import (
    canonical_datetime,
    canonical_due,
    format_datetime,
    instant,
    parse_date_or_datetime,
)
from fruitctl.domain.errors import InvalidParams


@pytest.mark.parametrize(
    ("text", "wire"),
    [
        ("2026-02-24", "2026-02-24"),
        ("2026-02-24T18:00:00+01:00", "2026-02-24T18:00:00+01:00"),
        ("2024-01-15T10:30:00-05:00", "2024-01-15T10:30:00-05:00"),
        ("2026-02-24T18:00:00Z", "2026-02-24T18:00:00+00:00"),
        ("2026-02-24T18:00:00z", "2026-02-24T18:00:00+00:00"),
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
    assert format_datetime(datetime(2026, 1, 1, tzinfo=UTC)) == "2026-01-01T00:00:00+00:00"


def test_a_seconds_offset_falls_back_to_utc() -> None:
    odd = timezone(timedelta(minutes=19, seconds=32))  # Amsterdam before 1937
    assert canonical_datetime(datetime(1930, 1, 1, 12, tzinfo=odd)) == "1930-01-01T11:40:28+00:00"


def test_a_date_orders_as_its_local_midnight() -> None:
    assert instant(date(2026, 2, 24)) == datetime(2026, 2, 24).astimezone().timestamp()
