"""Recurrence: EventKit's rules (``RawRule``) to and from the RRULE text fruitctl speaks.

EventKit repeats daily, weekly, monthly or yearly, with an interval, days of the week (with a
week number: ``2MO``, ``-1FR``), days of the month and year, weeks, months, set positions, and an
end by date or count. An RRULE asking for anything else (hourly, BYHOUR …) is refused when it is
written, naming what EventKit cannot keep; nothing is dropped silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime

from fruitctl.backends.eventkit.values import DAILY, MONTHLY, WEEKLY, YEARLY, RawRule
from fruitctl.domain.calendar import check_rrule
from fruitctl.domain.errors import InvalidParams

FREQUENCIES = {DAILY: "DAILY", WEEKLY: "WEEKLY", MONTHLY: "MONTHLY", YEARLY: "YEARLY"}
_FREQUENCY_OF = {name: value for value, name in FREQUENCIES.items()}
DAYS = ("SU", "MO", "TU", "WE", "TH", "FR", "SA")  # EventKit's weekday 1 is Sunday
_LISTS = (
    ("BYMONTHDAY", "days_of_month"),
    ("BYMONTH", "months"),
    ("BYWEEKNO", "weeks_of_year"),
    ("BYYEARDAY", "days_of_year"),
    ("BYSETPOS", "set_positions"),
)


def recurrence_text(rules: Sequence[RawRule], *, all_day: bool = False) -> str | None:
    """The RRULE of an item's first rule (EventKit keeps one per item in practice)."""
    if not rules:
        return None
    rule = rules[0]
    parts = [f"FREQ={FREQUENCIES.get(rule.frequency, 'DAILY')}"]
    if rule.interval > 1:
        parts.append(f"INTERVAL={rule.interval}")
    if rule.days_of_week:
        parts.append("BYDAY=" + ",".join(_day(day, week) for day, week in rule.days_of_week))
    for key, attribute in _LISTS:
        values: tuple[int, ...] = getattr(rule, attribute)
        if values:
            parts.append(f"{key}={','.join(str(v) for v in values)}")
    if rule.end is not None:
        parts.append(_until_text(rule.end, all_day))
    elif rule.count is not None:
        parts.append(f"COUNT={rule.count}")
    if rule.first_day_of_week:
        parts.append(f"WKST={DAYS[rule.first_day_of_week - 1]}")
    return ";".join(parts)


def raw_rule(text: str, field: str = "recurrence") -> RawRule:
    """The EventKit rule for an RRULE, or ``InvalidParams`` naming what it cannot keep."""
    parts = dict(part.partition("=")[::2] for part in check_rrule(text, field).split(";"))
    frequency = _FREQUENCY_OF.get(parts.pop("FREQ"))
    if frequency is None:
        raise InvalidParams(
            f"Invalid recurrence '{text}': Apple Calendar and Reminders repeat DAILY, WEEKLY, "
            "MONTHLY or YEARLY.",
            field=field,
        )
    unknown = sorted(set(parts) - {"INTERVAL", "BYDAY", "UNTIL", "COUNT", "WKST"} - _KEYS)
    if unknown:
        raise InvalidParams(
            f"Invalid recurrence '{text}': Apple Calendar and Reminders cannot keep {unknown[0]}.",
            field=field,
        )
    lists = {attr: _numbers(parts, key, text, field) for key, attr in _LISTS}
    return RawRule(
        frequency=frequency,
        interval=_number(parts.get("INTERVAL", "1"), "INTERVAL", text, field),
        days_of_week=tuple(_weekday(v, text, field) for v in _split(parts.get("BYDAY"))),
        end=_until(parts["UNTIL"], text, field) if "UNTIL" in parts else None,
        count=_number(parts["COUNT"], "COUNT", text, field) if "COUNT" in parts else None,
        first_day_of_week=DAYS.index(parts["WKST"]) + 1 if parts.get("WKST") in DAYS else 0,
        **lists,
    )


_KEYS = frozenset(key for key, _ in _LISTS)


def _until_text(end: datetime, all_day: bool) -> str:
    """An all-day series' end is a local date: its occurrences are floating days from local
    midnight, so the date in UTC would be a day off east or west of Greenwich."""
    if all_day:
        return f"UNTIL={end.astimezone():%Y%m%d}"
    return f"UNTIL={end.astimezone(UTC):%Y%m%dT%H%M%SZ}"


def _day(day: int, week: int) -> str:
    name = DAYS[(day - 1) % 7]
    return f"{week}{name}" if week else name


def _split(value: str | None) -> list[str]:
    return [item for item in (value or "").split(",") if item]


def _number(value: str, key: str, text: str, field: str) -> int:
    try:
        return int(value)
    except ValueError as exc:
        message = f"Invalid recurrence '{text}': {key} must be a number."
        raise InvalidParams(message, field=field) from exc


def _numbers(parts: dict[str, str], key: str, text: str, field: str) -> tuple[int, ...]:
    return tuple(_number(value, key, text, field) for value in _split(parts.get(key)))


def _weekday(value: str, text: str, field: str) -> tuple[int, int]:
    name, week = value[-2:], value[:-2]
    if name not in DAYS:
        raise InvalidParams(f"Invalid recurrence '{text}': unknown day '{value}'.", field=field)
    return DAYS.index(name) + 1, (_number(week, "BYDAY", text, field) if week else 0)


def _until(value: str, text: str, field: str) -> datetime:
    try:
        if len(value) == 8:
            # A date: through the last second of that local day (all-day occurrences are
            # floating, from local midnight), never that day's end in UTC.
            day = date(int(value[:4]), int(value[4:6]), int(value[6:]))
            return datetime(day.year, day.month, day.day, 23, 59, 59).astimezone()
        return datetime.strptime(value, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    except ValueError as exc:
        raise InvalidParams(
            f"Invalid recurrence '{text}': UNTIL must be YYYYMMDD or YYYYMMDDTHHMMSSZ.",
            field=field,
        ) from exc
