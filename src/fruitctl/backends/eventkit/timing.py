"""A reminder's start and alarms between EventKit's plain values and the domain: pure functions.

- EventKit counts a relative alarm (``relativeOffset``, seconds, negative before) from the
  reminder's start (``startDateComponents``); the wire counts ``minutesBefore`` the due. So an
  alarm is written as the offset from the start that lands it there, and read back the same way.
  A reminder with alarms in minutes but no start of its own gets its due as its start, as
  Reminders.app gives a timed reminder.
- A start equal to the due is Reminders.app's way of having none (it sets one on every timed
  reminder): it reads as no ``startDate``.
- A location alarm (``EKAlarm.structuredLocation``) is not written: the published selectors
  have no setter for its place or proximity, so it is refused (``Unsupported``), never dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime

from fruitctl.backends.eventkit.values import DateParts, RawAlarm
from fruitctl.domain.alarms import Alarm, not_here
from fruitctl.domain.dates import format_datetime, instant

Moment = date | datetime
STORE = "eventkit"


def start_of(start: DateParts | None, due: DateParts | None) -> DateParts | None:
    """The start a person gave: none when it is the due (Reminders.app's own start)."""
    return None if start == due else start


def alarms_of(
    raw: Sequence[RawAlarm], due: Moment | None, start: Moment | None
) -> tuple[Alarm, ...]:
    """Alarms as the wire says them: a relative one in minutes before the due."""
    anchor = start if start is not None else due
    shift = 0.0 if due is None or anchor is None else instant(due) - instant(anchor)
    return tuple(
        Alarm(at=format_datetime(alarm.absolute.astimezone()))
        if alarm.absolute is not None
        else Alarm(minutesBefore=round((shift - alarm.offset) / 60))
        for alarm in raw
    )


def raw_alarms(
    alarms: Sequence[Alarm], due: Moment | None, start: Moment | None
) -> tuple[RawAlarm, ...]:
    """``alarms`` as EventKit keeps them, counted from ``start`` (the due when None)."""
    not_here(alarms, STORE)
    anchor = start if start is not None else due
    shift = 0.0 if due is None or anchor is None else instant(due) - instant(anchor)
    return tuple(
        RawAlarm(absolute=datetime.fromisoformat(alarm.at))
        if alarm.at is not None
        else RawAlarm(offset=shift - 60 * (alarm.minutesBefore or 0))
        for alarm in alarms
    )


def needs_start(alarms: Sequence[Alarm]) -> bool:
    """Whether EventKit needs a start to count these alarms from."""
    return any(alarm.relative for alarm in alarms)


def timing_fields(
    due: Moment | None,
    start: Moment | None,
    alarms: Sequence[Alarm],
    parts: Callable[[Moment | None], DateParts | None],
) -> dict[str, object]:
    """The ``start`` and ``alarms`` fields of a write: ``start`` is the one given, else - as
    Reminders.app has it - a timed due, or any due a relative alarm counts from (``parts``: a
    moment as components)."""
    if start is None and (isinstance(due, datetime) or needs_start(alarms)):
        start = due
    return {"start": parts(start), "alarms": raw_alarms(alarms, due, start)}
