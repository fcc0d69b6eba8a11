"""ISO 8601 on the wire: always an explicit ``+HH:MM`` offset, never ``Z``, never naive.

Every date-time fruitctl answers is in one zone - the person's: ``[server] timezone``, else the
host's - whatever offset it was written with, so two answers compare as text in time order (a
JMESPath ``sort_by(@, &dueDate)`` or ``[?creationDate >= '2024-01-01']`` is right). Only an
event's start and end keep the offset of the event's own zone (``format_keeping_offset``).

A date-only value (``2026-02-24``) stays a ``date``: turning it into midnight is a bug peers have.
A naive date-time from a caller is read in the person's zone, the way a person typing it means it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fruitctl.domain.errors import InvalidParams

DateOrDateTime = date | datetime

_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_TIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|z|[+-]\d{2}:?\d{2})?$"
)
EXAMPLE = "2024-01-15T10:00:00-05:00"

# The tz database's other names for UTC. A host's /etc/localtime often points at Etc/UTC while
# TZ=UTC says UTC: one zone must read the same in every view (tables, JSON, MCP), so all of
# them are spelled "UTC". Every other zone keeps the IANA name it was given.
UTC_NAME = "UTC"
_UTC_ALIASES = frozenset(
    {"UTC", "Etc/UTC", "Etc/UCT", "UCT", "Etc/Universal", "Universal", "Etc/Zulu", "Zulu"}
)


def invalid_date(value: object) -> InvalidParams:
    return InvalidParams(
        f"Invalid date format: '{value}'. Expected ISO 8601 format like '{EXAMPLE}'."
    )


def spelled(name: str) -> str:
    """The one spelling of a zone's name in answers: ``UTC`` for each of its aliases."""
    return UTC_NAME if name in _UTC_ALIASES else name


def zone(name: str, field: str = "timezone") -> ZoneInfo:
    """The IANA zone called ``name`` (UTC under one name, ``spelled``), or ``InvalidParams``
    naming ``field``."""
    try:
        if not name or name != name.strip() or name.startswith(("/", ".")):
            raise ValueError(name)
        return ZoneInfo(spelled(name))
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InvalidParams(
            f"Unknown time zone '{name}' for '{field}'. Use an IANA name like 'Europe/Rome'.",
            field=field,
        ) from exc


def host_timezone() -> str:
    """The IANA name of the host's zone: ``$TZ`` when it names one, else the target of
    /etc/localtime; "UTC" when neither tells (a bare container), or for any of its aliases."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    try:
        target = str(Path("/etc/localtime").resolve())
        candidates.append(target.partition("zoneinfo/")[2])
    except OSError:
        pass
    for name in candidates:
        try:
            if name:
                return zone(name).key
        except InvalidParams:
            continue
    return UTC_NAME


_configured: ZoneInfo | None = None
_host: tuple[str | None, ZoneInfo] | None = None


def use_zone(name: str | None) -> None:
    """Answer in ``name`` from now on (``[server] timezone``); ``None``: the host's zone."""
    global _configured
    _configured = None if name is None else zone(name, "server.timezone")


def wire_zone() -> ZoneInfo:
    """The one zone answers are in: the configured one, else the host's (which follows $TZ)."""
    global _host
    if _configured is not None:
        return _configured
    tz = os.environ.get("TZ")
    if _host is None or _host[0] != tz:
        _host = (tz, ZoneInfo(host_timezone()))
    return _host[1]


def now() -> datetime:
    """The current instant in the person's zone, to the second."""
    return datetime.now(wire_zone()).replace(microsecond=0)


def parse_datetime(text: str, wall: ZoneInfo | None = None) -> datetime:
    """An aware date-time from ISO 8601 text; a naive one is a wall time in ``wall`` (the zone
    a person named beside it), else in the person's zone."""
    if not isinstance(text, str) or not _DATE_TIME.match(text.strip()):
        raise invalid_date(text)
    try:
        value = datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError as exc:
        raise invalid_date(text) from exc
    if value.tzinfo is None:
        value = value.replace(tzinfo=wall or wire_zone())
    return value.replace(microsecond=0)


def parse_date_or_datetime(text: str, wall: ZoneInfo | None = None) -> DateOrDateTime:
    """A ``date`` for ``YYYY-MM-DD``, otherwise an aware ``datetime`` (naive: in ``wall``)."""
    if isinstance(text, str) and _DATE_ONLY.match(text.strip()):
        try:
            return date.fromisoformat(text.strip())
        except ValueError as exc:
            raise invalid_date(text) from exc
    return parse_datetime(text, wall)


def format_datetime(value: datetime) -> str:
    """``2026-02-24T18:00:00+01:00`` in the person's zone: seconds, a numeric offset even for UTC.

    A naive value is taken to be in that zone already."""
    tz = wire_zone()
    placed = value.replace(tzinfo=tz) if value.tzinfo is None else value.astimezone(tz)
    return _whole_minute_offset(placed.replace(microsecond=0)).isoformat()


def format_epoch(seconds: float) -> str:
    """An instant given in epoch seconds, as ``format_datetime`` writes it."""
    return format_datetime(datetime.fromtimestamp(seconds, UTC))


def epoch_writer() -> Callable[[float], str]:
    """``format_epoch`` for many instants in a row (a whole view's dates): the zone is looked
    up once, not for each."""
    tz = wire_zone()

    def write(seconds: float) -> str:
        placed = datetime.fromtimestamp(seconds, tz).replace(microsecond=0)
        return _whole_minute_offset(placed).isoformat()

    return write


def format_keeping_offset(value: DateOrDateTime) -> str:
    """An event's start or end: a date stays a date, a date-time keeps the offset it has."""
    if not isinstance(value, datetime):
        return value.isoformat()
    if value.tzinfo is None:
        return format_datetime(value)
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


def canonical_moment(value: DateOrDateTime | str) -> str:
    """The wire text of an event's start or end: like ``canonical_due``, keeping the offset."""
    if isinstance(value, str):
        value = parse_date_or_datetime(value)
    return format_keeping_offset(value)


def parse_wire(text: str) -> DateOrDateTime:
    """A wire text we wrote ourselves back to an object (no validation: it is canonical)."""
    return date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)


def instant(value: DateOrDateTime) -> float:
    """Seconds since the epoch, for ordering; a date counts as its midnight in the person's zone."""
    if isinstance(value, datetime):
        return value.timestamp()
    return datetime(value.year, value.month, value.day, tzinfo=wire_zone()).timestamp()


def _whole_minute_offset(value: datetime) -> datetime:
    """Offsets with seconds (historic zones) cannot be written as ``+HH:MM``: use UTC then."""
    offset = value.utcoffset() or timedelta(0)
    if offset.total_seconds() % 60:
        return value.astimezone(UTC)
    return value
