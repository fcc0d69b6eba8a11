"""Plain values as EventKit objects and changes (the adapter's writing half): every message
sent here is held to EventKit's published selectors by ``test_selectors.py``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from fruitctl.backends.eventkit.kit import eventkit, foundation
from fruitctl.backends.eventkit.values import (
    ADAPTER_DOMAIN,
    INVALID_VALUE,
    DateParts,
    RawAlarm,
    RawRule,
    StoreError,
)

Setter = Callable[[Any, Any, Any], None]  # (item, value, store)


def date(when: datetime) -> Any:
    return foundation().NSDate.dateWithTimeIntervalSince1970_(when.timestamp())


def optional_date(when: datetime | None) -> Any:
    return None if when is None else date(when)


def _zone(name: str | None) -> Any:
    if name is None:
        return None
    zone = foundation().NSTimeZone.timeZoneWithName_(name)
    if zone is None:
        raise StoreError(ADAPTER_DOMAIN, INVALID_VALUE, f"this Mac knows no time zone {name!r}")
    return zone


def _ns_url(text: str | None) -> Any:
    if not text:
        return None
    url = foundation().NSURL.URLWithString_(text)
    if url is None:
        raise StoreError(ADAPTER_DOMAIN, INVALID_VALUE, f"{text!r} is no URL Apple accepts")
    return url


def _components(parts: DateParts | None) -> Any:
    if parts is None:
        return None
    components = foundation().NSDateComponents.alloc().init()
    components.setYear_(parts.year)
    components.setMonth_(parts.month)
    components.setDay_(parts.day)
    if parts.hour is not None:
        components.setHour_(parts.hour)
    if parts.minute is not None:
        components.setMinute_(parts.minute)
    if parts.second is not None:
        components.setSecond_(parts.second)
    components.setTimeZone_(_zone(parts.timezone))
    return components


def _ek_rules(rules: Sequence[RawRule] | None) -> list[Any] | None:
    """EventKit rules; ``firstDayOfTheWeek`` is read-only in EventKit, so it is not written."""
    return [_ek_rule(rule) for rule in rules] if rules else None


def _ek_rule(rule: RawRule) -> Any:
    kit = eventkit()
    days = [
        kit.EKRecurrenceDayOfWeek.dayOfWeek_weekNumber_(day, week)
        for day, week in rule.days_of_week
    ]
    return kit.EKRecurrenceRule.alloc().initRecurrenceWithFrequency_interval_daysOfTheWeek_daysOfTheMonth_monthsOfTheYear_weeksOfTheYear_daysOfTheYear_setPositions_end_(  # noqa: E501
        rule.frequency,
        rule.interval,
        days or None,
        list(rule.days_of_month) or None,
        list(rule.months) or None,
        list(rule.weeks_of_year) or None,
        list(rule.days_of_year) or None,
        list(rule.set_positions) or None,
        _ek_rule_end(rule),
    )


def _ek_rule_end(rule: RawRule) -> Any:
    if rule.end is not None:
        return eventkit().EKRecurrenceEnd.recurrenceEndWithEndDate_(date(rule.end))
    if rule.count is not None:
        return eventkit().EKRecurrenceEnd.recurrenceEndWithOccurrenceCount_(rule.count)
    return None


def _set_alarms(item: Any, alarms: Sequence[RawAlarm], store: Any) -> None:
    """The item's time alarms become ``alarms``; a location alarm is none of fruitctl's
    business and stays."""
    for alarm in list(item.alarms() or ()):
        if alarm.structuredLocation() is None:
            item.removeAlarm_(alarm)
    for alarm in alarms:
        item.addAlarm_(_ek_alarm(alarm))


def _ek_alarm(alarm: RawAlarm) -> Any:
    if alarm.absolute is not None:
        return eventkit().EKAlarm.alarmWithAbsoluteDate_(date(alarm.absolute))
    return eventkit().EKAlarm.alarmWithRelativeOffset_(alarm.offset)


def apply(item: Any, fields: Mapping[str, Any], setters: Mapping[str, Setter], store: Any) -> None:
    for name, value in fields.items():
        if name not in setters:
            raise ValueError(f"EventKit cannot set {name!r} here")
        setters[name](item, value, store)


def _set_calendar(item: Any, calendar_id: str | None, store: Any) -> None:
    item.setCalendar_(None if calendar_id is None else store.calendarWithIdentifier_(calendar_id))


def _set_completion(item: Any, when: datetime | None, store: Any) -> None:
    # A date completes the reminder at that time; None makes it incomplete again.
    item.setCompletionDate_(optional_date(when))


COMMON_SETTERS: dict[str, Setter] = {
    "calendar_id": _set_calendar,
    "title": lambda item, value, _: item.setTitle_(value),
    "notes": lambda item, value, _: item.setNotes_(value),
    "url": lambda item, value, _: item.setURL_(_ns_url(value)),
    "rules": lambda item, value, _: item.setRecurrenceRules_(_ek_rules(value)),
}
REMINDER_SETTERS: dict[str, Setter] = {
    **COMMON_SETTERS,
    "priority": lambda item, value, _: item.setPriority_(int(value or 0)),
    "due": lambda item, value, _: item.setDueDateComponents_(_components(value)),
    "start": lambda item, value, _: item.setStartDateComponents_(_components(value)),
    "alarms": _set_alarms,
    "completion": _set_completion,
}
EVENT_SETTERS: dict[str, Setter] = {
    **COMMON_SETTERS,
    "start": lambda item, value, _: item.setStartDate_(optional_date(value)),
    "end": lambda item, value, _: item.setEndDate_(optional_date(value)),
    "all_day": lambda item, value, _: item.setAllDay_(bool(value)),
    "timezone": lambda item, value, _: item.setTimeZone_(_zone(value)),
    "location": lambda item, value, _: item.setLocation_(value),
    "alarms": _set_alarms,
}
