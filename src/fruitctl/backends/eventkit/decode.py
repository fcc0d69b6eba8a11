"""EventKit objects as the plain values of ``values.py`` (the adapter's reading half): every
message sent here is held to EventKit's published selectors by ``test_selectors.py``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fruitctl.backends.eventkit.kit import appkit
from fruitctl.backends.eventkit.values import (
    DateParts,
    RawAlarm,
    RawCalendar,
    RawEvent,
    RawReminder,
    RawRule,
)

UNDEFINED = 2**63 - 1  # NSDateComponentUndefined (NSIntegerMax)
AVAILABILITY_FREE = 1  # EKEventAvailabilityFree; busy, tentative, unavailable take the time


def calendar(calendar: Any) -> RawCalendar:
    source = calendar.source()
    return RawCalendar(
        id=str(calendar.calendarIdentifier()),
        title=_text(calendar.title()) or "",
        writable=bool(calendar.allowsContentModifications()),
        source=None if source is None else _text(source.title()),
        color=_hex(calendar.color()),
    )


def reminder(item: Any) -> RawReminder:
    return RawReminder(
        id=str(item.calendarItemIdentifier()),
        calendar_id=_calendar_id(item),
        title=_text(item.title()) or "",
        notes=_text(item.notes()),
        priority=int(item.priority()),
        due=_parts(item.dueDateComponents()),
        start=_parts(item.startDateComponents()),
        alarms=_alarms(item.alarms()),
        completed=bool(item.isCompleted()),
        completion=_instant(item.completionDate()),
        created=_instant(item.creationDate()),
        modified=_instant(item.lastModifiedDate()),
        url=_url(item.URL()),
        rules=_rules(item.recurrenceRules()),
    )


def event(item: Any) -> RawEvent:
    repeats = bool(item.hasRecurrenceRules()) or bool(item.isDetached())
    return RawEvent(
        id=str(item.calendarItemIdentifier()),
        calendar_id=_calendar_id(item),
        title=_text(item.title()) or "",
        start=_when(item.startDate()),
        end=_when(item.endDate()),
        all_day=bool(item.isAllDay()),
        timezone=_zone_name(item.timeZone()),
        location=_text(item.location()),
        notes=_text(item.notes()),
        url=_url(item.URL()),
        free=item.availability() == AVAILABILITY_FREE,
        rules=_rules(item.recurrenceRules()),
        occurrence=_instant(item.occurrenceDate()) if repeats else None,
        detached=bool(item.isDetached()),
        created=_instant(item.creationDate()),
        modified=_instant(item.lastModifiedDate()),
        alarms=_alarms(item.alarms()),
    )


def _calendar_id(item: Any) -> str:
    calendar = item.calendar()
    return "" if calendar is None else str(calendar.calendarIdentifier())


def _alarms(alarms: Any) -> tuple[RawAlarm, ...]:
    """The time alarms (a location alarm has no time to move with the due)."""
    return tuple(
        RawAlarm(float(alarm.relativeOffset()), _instant(alarm.absoluteDate()))
        for alarm in alarms or ()
        if alarm.structuredLocation() is None
    )


def _rules(rules: Any) -> tuple[RawRule, ...]:
    return tuple(_rule(rule) for rule in rules or ())


def _rule(rule: Any) -> RawRule:
    end, count = _rule_end(rule.recurrenceEnd())
    return RawRule(
        frequency=int(rule.frequency()),
        interval=int(rule.interval()),
        days_of_week=tuple(
            (int(day.dayOfTheWeek()), int(day.weekNumber())) for day in rule.daysOfTheWeek() or ()
        ),
        days_of_month=_ints(rule.daysOfTheMonth()),
        months=_ints(rule.monthsOfTheYear()),
        weeks_of_year=_ints(rule.weeksOfTheYear()),
        days_of_year=_ints(rule.daysOfTheYear()),
        set_positions=_ints(rule.setPositions()),
        end=end,
        count=count,
        first_day_of_week=int(rule.firstDayOfTheWeek()),
    )


def _rule_end(end: Any) -> tuple[datetime | None, int | None]:
    if end is None:
        return None, None
    return _instant(end.endDate()), int(end.occurrenceCount()) or None


def _parts(components: Any) -> DateParts | None:
    """``NSDateComponents`` as ``DateParts``; None when it names no day."""
    if components is None:
        return None
    year, month, day = (
        _defined(components.year()),
        _defined(components.month()),
        _defined(components.day()),
    )
    if year is None or month is None or day is None:
        return None
    return DateParts(
        year,
        month,
        day,
        hour=_defined(components.hour()),
        minute=_defined(components.minute()),
        second=_defined(components.second()),
        timezone=_zone_name(components.timeZone()),
    )


def _defined(value: Any) -> int | None:
    return None if value is None or int(value) == UNDEFINED else int(value)


def _ints(values: Any) -> tuple[int, ...]:
    return tuple(int(value) for value in values or ())


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _url(url: Any) -> str | None:
    return None if url is None else str(url.absoluteString())


def _zone_name(zone: Any) -> str | None:
    return None if zone is None else str(zone.name())


def _when(date: Any) -> datetime:
    return datetime.fromtimestamp(float(date.timeIntervalSince1970()), UTC)


def _instant(date: Any) -> datetime | None:
    return None if date is None else _when(date)


def _hex(color: Any) -> str | None:
    """``#RRGGBB`` of an ``NSColor`` in sRGB; None when it has no such form (a pattern)."""
    if color is None:
        return None
    rgb = color.colorUsingColorSpace_(appkit().NSColorSpace.sRGBColorSpace())
    if rgb is None:
        return None
    channels = (rgb.redComponent(), rgb.greenComponent(), rgb.blueComponent())
    return "#" + "".join(f"{min(255, max(0, round(float(c) * 255))):02X}" for c in channels)
