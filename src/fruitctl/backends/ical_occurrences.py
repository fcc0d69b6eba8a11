"""When a calendar object happens: its occurrences, expanded once and kept in start order.

Expanding a recurring series walks its rule from the first instance, so asking the library for
one week of a daily series that began three years ago walks three years, on every read. Here a
series is expanded once into a *timeline* - its occurrences sorted by start, for the range asked
and a few months around it, widened when a read goes further - kept in memory beside the parsed
text it came from, and a range read cuts its slice out with a binary search. The text is the
key: an object that changes is a new text and a new timeline, so a series' own change is all
that invalidates it. The local store and the CalDAV mirror read through this one cache.

An occurrence keeps the component it comes from (the master, or the override that moved or
retitled it), never a copy: the library's occurrences are read with its internal
``_occurrences_between``, which yields them without building a component each (that copy was
most of the cost of a read). ``recurring-ical-events`` is pinned; the calendar contract suite
and the tests of this module hold the answers to what the public API gave.

``bounds`` gives what a store indexes to prune range queries (first start, last end or None).

A plain event's timeline is read from the content lines its occurrence is made of
(``ical_plain``), without a parse of the whole object: a new range of a dense calendar holds
tens of them a day, each read once.

Every expansion is bounded (``fruitctl.backends.ical_bounds``): a series whose rules repeat too
often is a ``BrokenObject`` before anything walks it, a range too far from its start is not
walked, and the library's occurrences are taken one at a time - never a list of all of them -
up to ``EXPANSION_LIMIT`` for a range and ``limit + 1`` for a whole series.
"""

from __future__ import annotations

import bisect
import itertools
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import lru_cache
from typing import Any

import icalendar
import recurring_ical_events

from fruitctl.backends import ical_bounds, ical_plain
from fruitctl.backends.ical_events import (
    BrokenObject,
    Moment,
    assemble,
    end_of,
    is_series,
    key_of,
    master,
    parsed,
    rule_text,
    shared_fields,
    start_of,
    values_of,
)
from fruitctl.domain.calendar import Calendar, Event, occurrence_key

# A finite series with more occurrences than this is indexed as endless: its timeline prunes
# as well, and finding the last of many occurrences would cost a walk of them all.
FINITE_LIMIT = 200
# Dates and floating times are instants only in some zone; zones span UTC-12..UTC+14.
FLOATING_SLACK = timedelta(hours=14)
# A series is first expanded for the range asked and the week after it; a read that goes
# further expands this much more around what is held, so the next ranges (the following weeks,
# mostly) find their occurrences already there.
FIRST_AHEAD = timedelta(days=7).total_seconds()
BEHIND, AHEAD = timedelta(days=31).total_seconds(), timedelta(days=92).total_seconds()
SLACK = timedelta(days=1).total_seconds()  # and a day, for dates and floating times
TIMELINES = 4096  # calendar objects whose timelines are kept
# Occurrences one range of one object may hold. A range read is at most a year and a few months
# of margins, and a rule at most MAX_PER_DAY (96) a day: ~44,000. Past it (thousands of RDATEs)
# the object is broken rather than held.
EXPANSION_LIMIT = 50_000
# Occurrences a timeline keeps as it widens; past it, it keeps only the range asked for.
HELD_LIMIT = 2 * EXPANSION_LIMIT
FAR_FUTURE = datetime(3000, 1, 1, tzinfo=UTC)
EARLIEST = datetime(1, 1, 3, tzinfo=UTC).timestamp()  # a library's own day of slack fits


@dataclass(frozen=True, slots=True)
class Occurrence:
    early: float
    """The start in epoch seconds, FLOATING_SLACK early for dates and floating times."""
    start: Moment
    end: Moment
    key: str | None
    """The occurrence key; None for an event that does not repeat."""
    shared: dict[str, Any]
    """``shared_fields`` of the VEVENT it comes from (the event, the master, an override)."""


class Timeline:
    """The occurrences of one calendar object in start order, expanded on demand."""

    def __init__(self, cal: icalendar.Calendar) -> None:
        self.cal = cal
        self.series = is_series(cal)
        self.rule = rule_text(master(cal)) if self.series else None
        unbounded = ical_bounds.why_unbounded(master(cal)) if self.series else None
        if unbounded:
            raise BrokenObject(f"the series is not expanded: {unbounded}")
        self._lock = threading.Lock()
        self._items: list[Occurrence] = []
        self._earlies: list[float] = []
        self._longest = 0.0  # the longest (late end - early start) of any occurrence
        self._covered = (math.inf, -math.inf)  # _items: every occurrence overlapping this
        self._events: dict[tuple[Any, ...], Event] = {}
        if not self.series:
            event = master(cal)
            self._keep([_occurrence(start_of(event), end_of(event), None, shared_fields(event))])
            self._covered = (-math.inf, math.inf)

    def between(self, start: float, end: float) -> list[Occurrence]:
        """Every occurrence that may overlap ``[start, end)`` (epoch seconds), and a few that
        do not: dates and floating times are placed early, so the caller applies the exact
        rule in the zone of its range."""
        with self._lock:
            self._cover(start - SLACK, end + SLACK)
            first = bisect.bisect_left(self._earlies, start - self._longest)
            last = bisect.bisect_left(self._earlies, end)
            return self._items[first:last]

    def everything(self, limit: int) -> list[Occurrence] | None:
        """All occurrences of a finite series, or None past ``limit`` of them (or endless, or
        too long a walk to its end): at most ``limit + 1`` of them are ever taken."""
        main = master(self.cal)
        rules = ical_bounds.rules_of(main)
        if any("COUNT" not in r and "UNTIL" not in r for r in rules):
            return None
        if any(int(r["COUNT"][0]) > limit for r in rules if "COUNT" in r):
            return None
        if ical_bounds.why_too_far(main, start_of(main), FAR_FUTURE):
            return None
        each = _each(self.cal, _first(self.cal), FAR_FUTURE.timestamp())
        found = list(itertools.islice(each, limit + 1))
        if len(found) > limit:
            return None
        with self._lock:  # the whole series: no read needs to expand it again
            self._keep(list(found))
            self._covered = (-math.inf, math.inf)
        return found

    def event(
        self,
        found: Occurrence,
        calendar: Calendar,
        times: tuple[Moment, Moment],
        zone: tzinfo | None,
    ) -> Event:
        """The domain event of an occurrence, built once per calendar (and per zone for a
        floating time): the next windows hold mostly the same occurrences."""
        key = (found.key, found.early, calendar.id, calendar.name, zone)  # what assemble reads
        made = self._events.get(key)
        if made is None:
            made = assemble(found.shared, calendar, *times, rule=self.rule, key=found.key)
            self._events[key] = made
        return made

    def _cover(self, low: float, high: float) -> None:
        """Hold every occurrence overlapping ``[low, high)``: expand what is not held yet, with
        a margin around it. The library walks the rule from its first instance whatever the
        range, but only builds the occurrences in the range."""
        held_low, held_high = self._covered
        if held_low > held_high:  # nothing held yet: the range and the week after it
            self._covered = (low, high + FIRST_AHEAD)
            self._keep(_occurrences(self.cal, *self._covered))
            return
        found = self._items
        if low < held_low:
            found = _occurrences(self.cal, low - BEHIND, held_low) + found
            held_low = low - BEHIND
        if high > held_high:
            found = found + _occurrences(self.cal, held_high, high + AHEAD)
            held_high = high + AHEAD
        if len(found) > HELD_LIMIT:  # a reader walking far: hold what it asks for now
            self._covered = (math.inf, -math.inf)
            self._cover(low, high)
            return
        if (held_low, held_high) != self._covered:
            # An occurrence across a seam was found by both sides: keep it once.
            unique = {(o.key, o.early): o for o in found}
            self._keep(list(unique.values()))
            self._covered = (held_low, held_high)

    def _keep(self, found: list[Occurrence]) -> None:
        found.sort(key=lambda o: o.early)
        self._items = found
        self._earlies = [o.early for o in found]
        self._longest = max((_instant(o.end, early=False) - o.early for o in found), default=0)


@lru_cache(maxsize=TIMELINES)
def timeline(text: str) -> Timeline:
    # A plain event is read from the content lines its occurrence is made of (ical_plain).
    return Timeline(ical_plain.calendar(text) or parsed(text))


def expand(text: str, calendar: Calendar, start: datetime, end: datetime) -> list[Event]:
    """The object's occurrences overlapping ``[start, end)`` (aware), in no particular order.

    Times keep their own zone; dates and floating times are judged in the zone of the range,
    and a floating time is answered in it. A zero-length event belongs to the range it starts
    in."""
    line = timeline(text)
    zone = start.tzinfo or UTC
    events = []
    for found in line.between(start.timestamp(), end.timestamp()):
        first, last = _moment(found.start, zone), _moment(found.end, zone)
        if not (first < end and (last > start or (last == first and first >= start))):
            continue
        floating = isinstance(found.start, datetime) and found.start.tzinfo is None
        times = (first, last) if floating else (found.start, found.end)
        events.append(line.event(found, calendar, times, zone if floating else None))
    return events


def bounds(text: str) -> tuple[float, float | None]:
    """(earliest start, latest end) in epoch seconds, widened for dates and floating times,
    the end ``None`` for a series without end (or with more than FINITE_LIMIT occurrences):
    what a store indexes to prune a range query."""
    cal = parsed(text)
    components = cal.walk("VEVENT")
    starts = [_instant(start_of(c), early=True) for c in components]
    starts += [_instant(value, early=True) for value in values_of(master(cal).get("RDATE"))]
    first = min(starts)
    line = timeline(text)
    if not line.series:
        return first, _instant(end_of(components[0]), early=False)
    everything = line.everything(FINITE_LIMIT)
    if everything is None:
        return first, None
    ends = [_instant(o.end, early=False) for o in everything]
    ends += [_instant(end_of(c), early=False) for c in components]
    return first, max(ends)


def check_expands(cal: icalendar.Calendar) -> None:
    """``BrokenObject`` (with the reason) for an object whose rules repeat too often or that the
    library cannot run (an UNTIL of the wrong kind ...): the occurrences around its first start
    are walked, one at a time - never the whole series."""
    unbounded = ical_bounds.why_unbounded(master(cal))
    if unbounded:
        raise BrokenObject(unbounded)
    first = datetime.fromtimestamp(max(_first(cal), EARLIEST), UTC)
    try:
        query: Any = recurring_ical_events.of(cal)  # a bad series is an error here, not skipped
        for series in query.series:
            next(iter(series.between(first, first + 4 * FLOATING_SLACK)), None)
    except Exception as exc:  # the library raises many kinds; any means "cannot expand"
        raise BrokenObject(str(exc)) from exc


# -- helpers -----------------------------------------------------------------------------------


def _occurrences(cal: icalendar.Calendar, low: float, high: float) -> list[Occurrence]:
    """The occurrences overlapping ``[low, high)`` (epoch seconds); ``BrokenObject`` past
    ``EXPANSION_LIMIT`` of them, having taken one more."""
    found = list(itertools.islice(_each(cal, low, high), EXPANSION_LIMIT + 1))
    if len(found) > EXPANSION_LIMIT:
        raise BrokenObject(f"the series has more than {EXPANSION_LIMIT} occurrences in a range")
    return found


def _each(cal: icalendar.Calendar, low: float, high: float) -> Iterator[Occurrence]:
    """The occurrences overlapping ``[low, high)`` (epoch seconds), one at a time; a range the
    rules cannot reach within ``ical_bounds.WALK_LIMIT`` is ``BrokenObject`` before any walk."""
    low, high = max(low, EARLIEST), min(high, FAR_FUTURE.timestamp())
    start, end = datetime.fromtimestamp(low, UTC), datetime.fromtimestamp(high, UTC)
    main = master(cal)
    too_far = ical_bounds.why_too_far(main, start_of(main), end)
    if too_far:
        raise BrokenObject(f"the series is not expanded: {too_far}")
    shared: dict[int, dict[str, Any]] = {}  # one per VEVENT the occurrences come from
    for o in _library(cal, start, end):
        source = o._adapter._component
        fields = shared.get(id(source))
        if fields is None:
            fields = shared[id(source)] = shared_fields(source)
        yield _occurrence(o.start, o.end, _key(o), fields)


def _library(cal: icalendar.Calendar, start: datetime, end: datetime) -> Iterator[Any]:
    """The library's occurrences in ``[start, end)``, series by series, as it makes them (its
    ``_occurrences_between`` collects them all in a list first). A series the library calls
    bad is skipped, as ``skip_bad_series`` does."""
    try:
        query: Any = recurring_ical_events.of(cal, skip_bad_series=True)
        for series in query.series:
            try:
                yield from series.between(start, end)
            except query._skip_errors:
                continue
    except (ValueError, TypeError, OverflowError) as exc:
        raise BrokenObject(f"cannot expand the series: {exc}") from exc


def _key(found: Any) -> str:
    """What the library's component copy carries as RECURRENCE-ID: the override's own, else
    the occurrence's start."""
    source = found._adapter._component
    if "RECURRENCE-ID" in source:
        return key_of(source)
    return occurrence_key(found.start)


def _occurrence(start: Moment, end: Moment, key: str | None, shared: dict[str, Any]) -> Occurrence:
    return Occurrence(_instant(start, early=True), start, end, key, shared)


def _first(cal: icalendar.Calendar) -> float:
    """A moment before every occurrence of the object (a day before its earliest start)."""
    starts = [start_of(c) for c in cal.walk("VEVENT")]
    starts += values_of(master(cal).get("RDATE"))
    earliest = min(_instant(value, early=True) for value in starts)
    return earliest - SLACK


def _moment(value: date | datetime, zone: tzinfo) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=zone)
    return datetime.combine(value, datetime.min.time(), zone)


def _instant(value: date | datetime, *, early: bool) -> float:
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.timestamp()
    moment = _moment(value, UTC)
    return (moment - FLOATING_SLACK if early else moment + FLOATING_SLACK).timestamp()
