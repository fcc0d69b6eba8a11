"""A repeat rule and alarms in plain words, for the person approving a write: "every Monday",
"every 2 weeks on Monday and Friday, 10 times", "alert 15 minutes before". A part of a rule
these words do not cover is never left out: the rule is then shown as it is written after
the words ("every month (RRULE FREQ=MONTHLY;BYWEEKNO=3)"), so nothing an agent asked is hidden.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from fruitctl.domain.alarms import Alarm
from fruitctl.domain.recurrence import parts_of
from fruitctl.domain.wording import counted, spoken_moment, spoken_when

_UNIT = {"HOURLY": "hour", "DAILY": "day", "WEEKLY": "week", "MONTHLY": "month", "YEARLY": "year"}
_DAYS = {
    "MO": "Monday", "TU": "Tuesday", "WE": "Wednesday", "TH": "Thursday", "FR": "Friday",
    "SA": "Saturday", "SU": "Sunday",
}  # fmt: skip
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
_WEEKDAYS = ["MO", "TU", "WE", "TH", "FR"]
_NTH = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", -1: "last", -2: "second last"}
_BYDAY = re.compile(r"^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$")
# The parts these words say; any other makes the rule itself be shown beside them.
_WORDED = frozenset(
    {"FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "BYMONTH", "BYHOUR", "BYMINUTE", "COUNT", "UNTIL",
     "WKST", "BYSETPOS"}
)  # fmt: skip


def rule_in_words(rule: str) -> str:
    """``FREQ=WEEKLY;BYDAY=MO`` as "every Monday"."""
    parts = parts_of(rule.removeprefix("RRULE:"))
    if parts.get("FREQ") not in _UNIT or not _setpos_worded(parts):
        return f"repeats (RRULE {rule})"
    words = _every(parts) + _on(parts) + _at(parts) + _ends(parts)
    unsaid = sorted(set(parts) - _WORDED)
    return words + (f" (RRULE {rule})" if unsaid else "")


def _every(parts: dict[str, str]) -> str:
    if _days_named_in_every(parts):
        days = parts["BYDAY"].split(",")
        if sorted(days, key=list(_DAYS).index) == _WEEKDAYS:
            return "every weekday"
        return "every " + _joined([_DAYS[day] for day in days])
    unit = _UNIT[parts["FREQ"]]
    interval = int(parts.get("INTERVAL", "1"))
    return f"every {unit}" if interval == 1 else f"every {counted(interval, unit)}"


def _days_named_in_every(parts: dict[str, str]) -> bool:
    """A weekly rule on plain days reads "every Monday and Friday"."""
    days = parts.get("BYDAY", "").split(",")
    return (
        parts["FREQ"] == "WEEKLY"
        and parts.get("INTERVAL", "1") == "1"
        and "BYSETPOS" not in parts
        and all(day in _DAYS for day in days)
    )


def _on(parts: dict[str, str]) -> str:
    said: list[str] = []
    if "BYDAY" in parts and not _days_named_in_every(parts):
        said.append(_days(parts["BYDAY"].split(","), parts.get("BYSETPOS")))
    if "BYMONTHDAY" in parts:
        said.append("the " + _joined([_month_day(int(d)) for d in parts["BYMONTHDAY"].split(",")]))
    on = f" on {' '.join(said)}" if said else ""
    if "BYMONTH" in parts:
        on += " in " + _joined([_MONTHS[int(m) - 1] for m in parts["BYMONTH"].split(",")])
    return on


def _days(days: Sequence[str], setpos: str | None) -> str:
    names = []
    for day in days:
        found = _BYDAY.match(day)
        if found is None:
            return f"BYDAY={','.join(days)}"
        nth, name = found.groups()
        names.append(_DAYS[name] if nth is None else f"the {_nth(int(nth))} {_DAYS[name]}")
    if setpos is not None and sorted(days, key=list(_DAYS).index) == _WEEKDAYS:
        return f"the {_nth(int(setpos))} weekday"
    if setpos is not None:
        return f"the {_nth(int(setpos))} of " + _joined(names, "or")
    return _joined(names)


def _setpos_worded(parts: dict[str, str]) -> bool:
    """One BYSETPOS over plain days is said ("the last of Monday or Friday"); more is shown."""
    setpos = parts.get("BYSETPOS")
    return setpos is None or ("," not in setpos and "BYDAY" in parts and _is_number(setpos))


def _is_number(text: str) -> bool:
    return text.lstrip("+-").isdigit() and int(text) != 0


def _nth(n: int) -> str:
    if n in _NTH:
        return _NTH[n]
    return f"{n}th" if n > 0 else f"{-n}th last"


def _month_day(day: int) -> str:
    if day == -1:
        return "last day"
    if day < 0:
        return f"{_ordinal(-day)} last day"
    return _ordinal(day)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _at(parts: dict[str, str]) -> str:
    hours = parts.get("BYHOUR")
    if hours is None:
        return ""
    minutes = parts.get("BYMINUTE", "0").split(",")
    times = [f"{int(h):02d}:{int(m):02d}" for h in hours.split(",") for m in minutes]
    return " at " + _joined(times)


def _ends(parts: dict[str, str]) -> str:
    if "COUNT" in parts:
        return ", " + counted(int(parts["COUNT"]), "time")
    until = parts.get("UNTIL")
    if until is None:
        return ""
    return f", until {_until(until)}"


def _until(text: str) -> str:
    if len(text) == 8:
        return spoken_when(f"{text[:4]}-{text[4:6]}-{text[6:]}")
    try:
        moment = datetime.strptime(text.rstrip("Z"), "%Y%m%dT%H%M%S")
    except ValueError:
        return text
    return spoken_moment(moment.replace(tzinfo=UTC) if text.endswith("Z") else moment.astimezone())


def _joined(items: Sequence[str], last: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


# -- alarms ----------------------------------------------------------------------------------------


def alarm_in_words(alarm: Alarm) -> str:
    """One alarm: "alert 15 minutes before" (the due, an event's start), "alert at Mon
    2026-03-02 08:45", "alert on arriving at Office"."""
    if alarm.at is not None:
        return f"alert at {spoken_when(alarm.at)}"
    if alarm.location is not None:
        place = alarm.location
        moving = "arriving at" if place.proximity == "arrive" else "leaving"
        return f"alert on {moving} {place.title}"
    minutes = alarm.minutesBefore or 0
    if minutes == 0:
        return "alert at the time"
    return f"alert {_duration(abs(minutes))} {'before' if minutes > 0 else 'after'}"


def alarms_in_words(alarms: Iterable[Alarm]) -> str:
    said = [alarm_in_words(alarm) for alarm in alarms]
    return "no alert" if not said else _joined(said)


def repeat_and_alarms(rule: str | None, alarms: Iterable[Alarm] | None) -> str:
    """ "every Monday, alert 15 minutes before": what a proposal shows of both."""
    said = [rule_in_words(rule)] if rule else []
    listed = list(alarms or ())
    if listed:
        said.append(alarms_in_words(listed))
    return ", ".join(said)


def _duration(minutes: int) -> str:
    """``15 minutes``, ``1 hour``, ``1 hour 30 minutes``, ``2 days``."""
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    said = [
        counted(value, unit)
        for value, unit in ((days, "day"), (hours, "hour"), (mins, "minute"))
        if value
    ]
    return " ".join(said)
