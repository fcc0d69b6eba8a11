"""How often a repeat rule may happen, judged by arithmetic on its parts before anything
expands it.

Expanding an RRULE walks it one instance at a time from the series' first start: a
``FREQ=SECONDLY`` rule makes 86,400 instances a day, and a year of it takes minutes of CPU and
gigabytes. So a rule is judged from its text first: finer than hourly is refused, and so is a
rule whose BYHOUR/BYMINUTE/BYSECOND values multiply past ``MAX_PER_DAY`` (``FREQ=HOURLY`` with
sixty BYMINUTE values is a minutely rule). The same judgement refuses a rule an agent writes
(``fruitctl.domain.calendar.check_rrule``: ``InvalidParams``) and marks a rule that came from
elsewhere (a shared CalDAV calendar) as one fruitctl does not expand. A rule that never happens
is refused the same way: looking for its next instance walks to the year 9999.
"""

from __future__ import annotations

import math
from datetime import date

from fruitctl.domain.recurrence_days import why_never, why_unreadable

TOO_FINE = {"SECONDLY": "every second", "MINUTELY": "every minute"}
ALLOWED = "HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY"
# Every quarter of an hour around the clock: finer than any calendar a person keeps, and still
# a bound that keeps a year of one series at 35,040 occurrences (a few MB when expanded).
MAX_PER_DAY = 96
HOURS_A_DAY = 24


def parts_of(rule: str) -> dict[str, str]:
    """``{"FREQ": "WEEKLY", "BYDAY": "MO,FR"}`` of a rule's text (upper case, no prefix)."""
    return dict(part.partition("=")[::2] for part in rule.upper().split(";") if part)


def rule_problem(parts: dict[str, str], start: date | None = None) -> str | None:
    """Why a rule (its ``parts_of``) happens too often to be expanded - or never happens, so
    that expanding it walks to the year 9999 (``recurrence_days``) - or None. ``start``: the
    series' first start, when known (what the rule takes from it is judged too).

    The reason is said to a person: what the rule does, and what is allowed instead."""
    frequency = parts.get("FREQ", "")
    counted = _not_counted(parts)
    if counted:
        return counted
    if frequency in TOO_FINE:
        return (
            f"FREQ={frequency} repeats {TOO_FINE[frequency]}; a calendar rule repeats at most "
            f"hourly (FREQ={ALLOWED})"
        )
    daily = per_day(parts)
    if daily > MAX_PER_DAY:
        return (
            f"it happens up to {daily} times a day; at most {MAX_PER_DAY} a day (every quarter "
            "of an hour) are allowed - give fewer BYHOUR/BYMINUTE/BYSECOND values or a larger "
            "INTERVAL"
        )
    never = why_never(parts, start)
    return f"it never happens: {never}" if never else why_unreadable(parts)


def _not_counted(parts: dict[str, str]) -> str | None:
    """An INTERVAL or COUNT that is no whole number of 1 or more: INTERVAL=0 makes the same
    instance for ever (dateutil never moves on), which no expansion can finish."""
    for name in ("INTERVAL", "COUNT"):
        value = parts.get(name)
        if value is not None and not (value.isdigit() and int(value) > 0):
            return f"{name}={value} must be a whole number of 1 or more"
    return None


def per_day(parts: dict[str, str]) -> int:
    """At most how many instances the rule makes in one day, from its parts alone (for
    ``FREQ=HOURLY`` and coarser): the hours it can hit times its minutes times its seconds.
    BYSETPOS and the day filters only take instances away, so they are not counted; an
    INTERVAL that is no number counts as 1 (the iCalendar library refuses it when written)."""
    hours = _count(parts, "BYHOUR")
    if parts.get("FREQ") == "HOURLY":
        interval = parts.get("INTERVAL", "1")
        every = math.ceil(HOURS_A_DAY / max(int(interval) if interval.isdigit() else 1, 1))
        hours = min(hours, every) if "BYHOUR" in parts else every
    return hours * _count(parts, "BYMINUTE") * _count(parts, "BYSECOND")


def _count(parts: dict[str, str], name: str) -> int:
    """How many distinct values a BYxxx part lists (1 when absent: the first start's own)."""
    values = {value.strip() for value in parts.get(name, "").split(",") if value.strip()}
    return max(len(values), 1)
