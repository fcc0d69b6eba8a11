"""How far a calendar object may be expanded, judged before the recurrence library is asked.

The library walks a rule one instance at a time from the series' first start, whatever range is
asked, and dateutil under it keeps every instance it walked until the walk ends. A rule from a
shared calendar is anyone's, so nothing is walked before these checks:

- ``why_unbounded``: the master's rules, each judged by ``fruitctl.domain.recurrence`` (finer
  than hourly, more than ``MAX_PER_DAY`` a day: the rules together too; never happening from
  the master's DTSTART, which the library would look for up to the year 9999), and at most
  ``MAX_RULES`` of them. An object that fails is broken: a mirror indexes it as such (skipped,
  counted in the sync's report) and a read skips it.
- ``why_too_far``: reaching a moment walks at most (instances a day) x (days from the first
  start), less where COUNT or UNTIL end the rule sooner; past ``WALK_LIMIT`` it is not walked.

Both answer a reason for a person (or None); the caller raises the error that fits its door.
Nothing here imports the other ``ical_*`` modules: ``ical_events`` itself checks a walk.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import icalendar

from fruitctl.domain.recurrence import MAX_PER_DAY, parts_of, per_day, rule_problem

Moment = date | datetime

# RFC 5545 says RRULE SHOULD appear once; a few are read, each one is a walk of its own.
MAX_RULES = 4
# Instances one expansion may walk from the first start: about a second of CPU (1-2 us each,
# measured) and ~30 MB of dateutil's cache at worst. A daily series reads 1,300 years from its
# start, an hourly one 57; a read further out skips the series.
WALK_LIMIT = 500_000


def rules_of(component: icalendar.Component) -> list[Any]:
    """The RRULE values (``vRecur``) of a VEVENT, however many lines hold them."""
    found = component.get("RRULE")
    return found if isinstance(found, list) else [] if found is None else [found]


def why_unbounded(component: icalendar.Component) -> str | None:
    """Why the master VEVENT ``component`` repeats too often to be expanded, or None."""
    rules = rules_of(component)
    if len(rules) > MAX_RULES:
        return f"it has {len(rules)} repeat rules, and at most {MAX_RULES} are read"
    daily = 0
    for rule in rules:
        text = _text(rule)
        if text is None:
            return "its repeat rule cannot be read"
        parts = parts_of(text)
        problem = rule_problem(parts, _first_day(component))
        if problem:
            return f"its rule '{text}' is refused: {problem}"
        daily += per_day(parts)
    if daily > MAX_PER_DAY:
        return f"its rules together happen up to {daily} times a day; at most {MAX_PER_DAY} are"
    return None


def why_too_far(component: icalendar.Component, start: Moment, until: Moment) -> str | None:
    """Why reaching ``until`` from the first ``start`` would walk more than ``WALK_LIMIT``
    instances of the master's rules, or None. Call it after ``why_unbounded``."""
    walked = sum(_walked(rule, start, until) for rule in rules_of(component))
    if walked <= WALK_LIMIT:
        return None
    return (
        f"reaching {_day(until).isoformat()} would walk up to {walked} repeats from its start "
        f"on {_day(start).isoformat()}, and at most {WALK_LIMIT} are walked"
    )


def _walked(rule: Any, start: Moment, until: Moment) -> int:
    """At most how many instances one rule makes from ``start`` to ``until``."""
    text = _text(rule)
    if text is None:
        return 0
    ends = [_day(until), *(_day(value) for value in _dates(rule.get("UNTIL")))]
    days = (min(ends) - _day(start)).days + 1
    walked = per_day(parts_of(text)) * max(days, 0)
    counts = [int(value) for value in rule.get("COUNT", []) if str(value).isdigit()]
    return min([walked, *counts])


def _text(rule: Any) -> str | None:
    try:
        return str(rule.to_ical().decode())
    except (AttributeError, ValueError, TypeError):  # a value the library kept unparsed
        return None


def _first_day(component: icalendar.Component) -> date | None:
    """The master's DTSTART as the library reads it (its own wall time), or None."""
    start = getattr(component.get("DTSTART"), "dt", None)
    return start if isinstance(start, date) else None


def _dates(values: Any) -> list[Moment]:
    return [value for value in values or [] if isinstance(value, date)]


def _day(value: Moment) -> date:
    return value.date() if isinstance(value, datetime) else value
