"""Whether a repeat rule ever happens, judged by arithmetic before anything walks it.

The recurrence library (dateutil, under recurring-ical-events) looks for a rule's next instance
one period at a time, and stops only at an instance or at the year 9999. A rule whose date
filters no day passes (``FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30``), or whose BYSETPOS asks for a
position past what one period holds (``FREQ=HOURLY;BYSETPOS=2``), walks three million days -
seventy million hours - on every expansion and finds nothing: seconds to minutes of CPU for one
event in a shared calendar. So the filters are tried here on the days of one year of each kind
the Gregorian calendar has: the weekday of its January 1st and which of it and its neighbours
are leap years decide every filter (28 kinds, 10,000 days, a few milliseconds). They are read as
dateutil reads them - all of them narrow the days, an ordinal BYDAY counts within the month or
the year only for MONTHLY and YEARLY, a week is numbered from WKST - and a part that cannot be
read is left out: a judgement unsure of a part may only let a rule through, never refuse it.

With the series' first start, what dateutil takes from it is judged too: the day of the month
of a YEARLY or MONTHLY rule without day filters, and the weekday every step of a DAILY rule
lands on when its INTERVAL is a whole number of weeks.
"""

from __future__ import annotations

import calendar
import re
from collections import Counter
from collections.abc import Callable
from datetime import date, timedelta
from functools import lru_cache
from math import gcd

WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_BYDAY = re.compile(r"([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)")
DAY_FILTERS = ("BYMONTH", "BYWEEKNO", "BYYEARDAY", "BYMONTHDAY", "BYDAY")
# dateutil takes a rule's day from its start only when none of these is given.
_OWN_DAYS = ("BYWEEKNO", "BYYEARDAY", "BYMONTHDAY", "BYDAY", "BYEASTER")
_PERIOD = {"HOURLY": "hour", "DAILY": "day", "WEEKLY": "week", "MONTHLY": "month", "YEARLY": "year"}

Day = date
Accepts = Callable[[Day], bool]


def _kind(year: int) -> tuple[int, bool, bool, bool]:
    """What every filter of a day in ``year`` depends on: the weekday of January 1st (weekday
    and ordinal filters), and whether the year and its neighbours are leap years (negative
    days, and how many weeks the years around it have)."""
    leap = calendar.isleap
    return date(year, 1, 1).weekday(), leap(year - 1), leap(year), leap(year + 1)


# One year of each kind, from a whole 400-year cycle (the calendar repeats after it).
YEARS = tuple(sorted({_kind(year): year for year in range(2401, 2801)}.values()))


def why_unreadable(parts: dict[str, str]) -> str | None:
    """Why dateutil cannot read the rule's BYDAY, or None: an ordinal past the 5th weekday of
    a month (53rd of a year) makes it index past its tables - an ``IndexError`` in the middle
    of a read - where an RFC reader finds no such day."""
    if parts.get("FREQ") not in ("MONTHLY", "YEARLY"):
        return None  # dateutil drops the ordinals of finer rules
    in_year = parts.get("FREQ") == "YEARLY" and "BYMONTH" not in parts
    most, period = (53, "year") if in_year else (5, "month")
    for found in _BYDAY.finditer(parts.get("BYDAY", "")):
        if found[1] and not 0 < abs(int(found[1])) <= most:
            return (
                f"BYDAY={parts['BYDAY']} asks for the {found[0]}: a weekday comes at most "
                f"{most} times a {period} - give an ordinal from -{most} to {most}"
            )
    return None


def why_never(parts: dict[str, str], start: Day | None = None) -> str | None:
    """Why the rule (its ``parts_of``) never makes an instance, or None (it does, or parts of it
    could not be read). ``start``: the series' first start, when known."""
    day = None if start is None else date(start.year, start.month, start.day)
    return _why_never(tuple(sorted(parts.items())), day)


@lru_cache(maxsize=1024)
def _why_never(items: tuple[tuple[str, str], ...], start: Day | None) -> str | None:
    parts = dict(items)
    given = ";".join(f"{name}={parts[name]}" for name in DAY_FILTERS if name in parts)
    problem = _problem(parts, _accepts(parts, None), f"no date matches {given} in any year")
    if problem or start is None:
        return problem
    landing = f"no date it can land on from its start on {start:%Y-%m-%d} matches {given}"
    return _problem(parts, _accepts(parts, start), landing)


def _problem(parts: dict[str, str], accepts: Accepts | None, never: str) -> str | None:
    """``never`` when no day passes ``accepts``; the BYSETPOS asking past what a period
    holds; or None."""
    if not _reaches(accepts, "YEARLY", 1):
        return never
    positions = _ints(parts.get("BYSETPOS"))
    if positions and not _holds(parts, accepts, min(abs(p) for p in positions)):
        period = _PERIOD.get(parts.get("FREQ", ""), "period")
        return f"BYSETPOS={parts['BYSETPOS']} asks for more instances than any {period} holds"
    return None


def _accepts(parts: dict[str, str], start: Day | None) -> Accepts | None:
    """Whether a day passes the rule's date filters (with what it takes from ``start``, when
    given), or None when it has no filter that can be judged."""
    tests = [t for t in _filters(parts) if t is not None]
    if start is not None:
        tests += _from_start(parts, start)
    if not tests:
        return None
    return lambda day: all(test(day) for test in tests)


def _filters(parts: dict[str, str]) -> list[Accepts | None]:
    wkst = WEEKDAYS.index(parts["WKST"]) if parts.get("WKST") in WEEKDAYS else 0
    months, weeks = _ints(parts.get("BYMONTH")), _ints(parts.get("BYWEEKNO"))
    yeardays, monthdays = _ints(parts.get("BYYEARDAY")), _ints(parts.get("BYMONTHDAY"))
    return [  # the cheapest first: a day most filters refuse is refused early
        None if months is None else lambda d: d.month in months,
        *_weekday_filters(parts),
        None if monthdays is None else lambda d: bool(_month_day(d) & monthdays),
        None if yeardays is None else lambda d: bool(_year_day(d) & yeardays),
        None if weeks is None else lambda d: bool(_week_numbers(d, wkst) & weeks),
    ]


def _weekday_filters(parts: dict[str, str]) -> list[Accepts | None]:
    """BYDAY as dateutil reads it: plain weekdays, and - for MONTHLY and YEARLY - the n-th
    weekday of the month (of the year, for a YEARLY rule without BYMONTH); both must pass."""
    found = [_BYDAY.fullmatch(value.strip()) for value in parts.get("BYDAY", "").split(",")]
    if "BYDAY" not in parts or not all(found):
        return []
    ordinal = parts.get("FREQ") in ("MONTHLY", "YEARLY")
    plain = {WEEKDAYS.index(m[2]) for m in found if m and (not m[1] or not ordinal)}
    nth = {(WEEKDAYS.index(m[2]), int(m[1])) for m in found if m and m[1] and ordinal}
    in_year = parts.get("FREQ") == "YEARLY" and "BYMONTH" not in parts
    return [
        (lambda d: d.weekday() in plain) if plain else None,
        (lambda d: any((d.weekday(), n) in nth for n in _nth(d, in_year))) if nth else None,
    ]


def _from_start(parts: dict[str, str], start: Day) -> list[Accepts]:
    """What dateutil takes from the first start: the day of the month (and the month) of a
    YEARLY or MONTHLY rule without day filters, the weekday of a WEEKLY one, and the only
    weekday (month) a DAILY or HOURLY (MONTHLY) rule can land on when its INTERVAL is a whole
    number of weeks (years)."""
    frequency, interval = parts.get("FREQ"), _interval(parts)
    tests: list[Accepts] = []
    if not any(name in parts for name in _OWN_DAYS):
        if frequency in ("YEARLY", "MONTHLY"):
            tests.append(lambda d: d.day == start.day)
        if frequency == "YEARLY" and "BYMONTH" not in parts:
            tests.append(lambda d: d.month == start.month)
    steps = {"DAILY": 7, "HOURLY": 7 * 24}
    if frequency in steps and interval % steps[frequency] == 0:
        tests.append(lambda d: d.weekday() == start.weekday())
    if frequency == "MONTHLY":
        every = gcd(interval, 12)
        tests.append(lambda d: (d.month - start.month) % every == 0)
    return tests


def _holds(parts: dict[str, str], accepts: Accepts | None, needed: int) -> bool:
    """Whether one period (of the rule's FREQ) can hold ``needed`` instances, for BYSETPOS:
    its days that pass the filters times the times of day it makes on each. Without a day
    filter a period holds the first start's day (one in each BYMONTH month of a year). A week
    holds at most its BYDAY weekdays, and no more than twice what a year holds (it may straddle
    two, and the years tried are apart)."""
    frequency = parts.get("FREQ", "")
    times = _count(parts, "BYMINUTE") * _count(parts, "BYSECOND")
    if frequency != "HOURLY":
        times *= _count(parts, "BYHOUR")
    if frequency in ("HOURLY", "DAILY"):
        return times >= needed
    if not any(name in parts for name in _OWN_DAYS):  # the first start's day, in each BYMONTH
        return (_count(parts, "BYMONTH") if frequency == "YEARLY" else 1) * times >= needed
    if frequency == "WEEKLY":
        found = [_BYDAY.fullmatch(value.strip()) for value in parts.get("BYDAY", "").split(",")]
        weekdays = {m[2] for m in found if m} if "BYDAY" in parts and all(found) else WEEKDAYS
        days = -(-needed // times)  # a week holds at most the days of two years' ends
        return len(weekdays) >= days and _reaches(accepts, "YEARLY", -(-days // 2))
    return _reaches(accepts, frequency, -(-needed // times))


def _reaches(accepts: Accepts | None, frequency: str, needed: int) -> bool:
    """Whether ``needed`` days pass in one year (in one month, for MONTHLY), in some kind of
    year; it stops at the first period that holds them, so a rule that happens is quickly
    through (a rule that never does tries every day of every kind of year)."""
    if accepts is None:
        return needed <= (31 if frequency == "MONTHLY" else 366)
    for year in YEARS:
        passed: Counter[int] = Counter()
        for day in _year(year):
            if accepts(day):
                passed[day.month if frequency == "MONTHLY" else 0] += 1
                if max(passed.values()) >= needed:
                    return True
    return False


@lru_cache(maxsize=len(YEARS) + 1)
def _year(year: int) -> tuple[Day, ...]:
    first = date(year, 1, 1)
    return tuple(first + timedelta(days=n) for n in range(365 + calendar.isleap(year)))


def _month_day(day: Day) -> set[int]:
    length = calendar.monthrange(day.year, day.month)[1]
    return {day.day, day.day - length - 1}


def _year_day(day: Day) -> set[int]:
    number, length = day.timetuple().tm_yday, 365 + calendar.isleap(day.year)
    return {number, number - length - 1}


def _nth(day: Day, in_year: bool) -> set[int]:
    """Which n-th of its weekday ``day`` is in its month (or year), counted from both ends."""
    if in_year:
        before, length = day.timetuple().tm_yday - 1, 365 + calendar.isleap(day.year)
    else:
        before, length = day.day - 1, calendar.monthrange(day.year, day.month)[1]
    return {before // 7 + 1, -((length - before - 1) // 7) - 1}


def _week_numbers(day: Day, wkst: int) -> set[int]:
    """The BYWEEKNO values that take ``day``, as dateutil numbers weeks: week 1 is the first
    week (from WKST) with four days in the year. A day in its own year's weeks is ``n`` and
    ``n - weeks - 1``; one in the last week of the year before is -1 or the number dateutil
    gives that week, and one in week 1 of the next year is 1 alone."""
    begins = day - timedelta(days=(day.weekday() - wkst) % 7)
    owner = (begins + timedelta(days=3)).year
    number = (begins - _week_one(owner, wkst)).days // 7 + 1
    if owner < day.year:
        return {_last_week_before(day.year, wkst), -1}
    if owner > day.year:
        return {1}
    return {number, number - _weeks(owner, wkst) - 1}


def _last_week_before(year: int, wkst: int) -> int:
    """The number dateutil gives the days of ``year`` before its week 1. It is the last week
    of the year before, but counted as dateutil counts it: when that year's own week 1 began
    in it, from this year's length and first days rather than that year's, so it can say 52
    where the year before had 53 weeks (or the reverse). Expanding a rule follows dateutil,
    so this does too: ``FREQ=YEARLY;BYWEEKNO=52;BYYEARDAY=-364`` never comes."""
    before = date(year - 1, 1, 1).weekday()
    if (7 - before + wkst) % 7 >= 4:
        return 52 + (365 + calendar.isleap(year - 1) + (before - wkst) % 7) % 7 // 4
    first_week = (7 - date(year, 1, 1).weekday() + wkst) % 7
    return 52 + (365 + calendar.isleap(year) - first_week) % 7 // 4


def _week_one(year: int, wkst: int) -> Day:
    fourth = date(year, 1, 4)  # week 1 holds four days of the year: January 4th among them
    return fourth - timedelta(days=(fourth.weekday() - wkst) % 7)


def _weeks(year: int, wkst: int) -> int:
    return (_week_one(year + 1, wkst) - _week_one(year, wkst)).days // 7


def _ints(text: str | None) -> frozenset[int] | None:
    """The values of a BYxxx part, or None when it is absent or one of them is no number."""
    if text is None:
        return None
    values = [value.strip() for value in text.split(",")]
    if not all(re.fullmatch(r"[+-]?\d{1,4}", value) for value in values):
        return None
    return frozenset(int(value) for value in values)


def _count(parts: dict[str, str], name: str) -> int:
    """How many values a BYxxx part gives: 1 when absent (the first start's own), and as many
    as any has (60) when unreadable - a count that may only be too high."""
    if name not in parts:
        return 1
    values = _ints(parts[name])
    return 60 if values is None else len(values)


def _interval(parts: dict[str, str]) -> int:
    text = parts.get("INTERVAL", "1")
    return max(int(text), 1) if text.isdigit() else 1
