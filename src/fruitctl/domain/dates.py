"""ISO 8601 on the wire: always an explicit ``+HH:MM`` offset, never ``Z``, never naive.

A date-only value (``2026-02-24``) stays a ``date``: turning it into midnight is a bug peers have.
A naive date-time from a caller is read in the host's zone, the way a person typing it means it.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from fruitctl.domain.errors import InvalidParams

DateOrDateTime = date | datetime

_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_TIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|z|[+-]\d{2}:?\d{2})?$"
)
EXAMPLE = "2024-01-15T10:00:00-05:00"


def invalid_date(value: object) -> InvalidParams:
    return InvalidParams(
        f"Invalid date format: '{value}'. Expected ISO 8601 format like '{EXAMPLE}'."
    )


def now() -> datetime:
    """The current instant in the host zone, to the second."""
    return datetime.now().astimezone().replace(microsecond=0)


def parse_datetime(text: str) -> datetime:
    """An aware date-time from ISO 8601 text; a naive one is taken in the host zone."""
    if not isinstance(text, str) or not _DATE_TIME.match(text.strip()):
        raise invalid_date(text)
    try:
        value = datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError as exc:
        raise invalid_date(text) from exc
    if value.tzinfo is None:
        value = value.astimezone()
    return value.replace(microsecond=0)


def parse_date_or_datetime(text: str) -> DateOrDateTime:
    """A ``date`` for ``YYYY-MM-DD``, otherwise an aware ``datetime``."""
    if isinstance(text, str) and _DATE_ONLY.match(text.strip()):
        try:
            return date.fromisoformat(text.strip())
        except ValueError as exc:
            raise invalid_date(text) from exc
    return parse_datetime(text)


def format_datetime(value: datetime) -> str:
    """``2026-02-24T18:00:00+01:00``: seconds precision and a numeric offset, even for UTC."""
    if value.tzinfo is None:
        value = value.astimezone()
    return _whole_minute_offset(value.replace(microsecond=0)).isoformat()


def format_date_or_datetime(value: DateOrDateTime) -> str:
    if isinstance(value, datetime):
        return format_datetime(value)
    return value.isoformat()


def canonical_datetime(value: datetime | str) -> str:
    """The wire text of a date-time given as an object or any accepted ISO 8601 text."""
    return format_datetime(value if isinstance(value, datetime) else parse_datetime(value))


def canonical_due(value: DateOrDateTime | str) -> str:
    """The wire text of a due date: a date stays ``YYYY-MM-DD``, a date-time gets its offset."""
    if isinstance(value, str):
        value = parse_date_or_datetime(value)
    return format_date_or_datetime(value)


def parse_wire(text: str) -> DateOrDateTime:
    """A wire text we wrote ourselves back to an object (no validation: it is canonical)."""
    return date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)


def instant(value: DateOrDateTime) -> float:
    """Seconds since the epoch, for ordering; a date counts as its local midnight."""
    if isinstance(value, datetime):
        return value.timestamp()
    return datetime(value.year, value.month, value.day).astimezone().timestamp()


def _whole_minute_offset(value: datetime) -> datetime:
    """Offsets with seconds (historic zones) cannot be written as ``+HH:MM``: use UTC then."""
    offset = value.utcoffset() or timedelta(0)
    if offset.total_seconds() % 60:
        return value.astimezone(UTC)
    return value
