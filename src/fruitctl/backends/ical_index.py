"""What a store indexes of a calendar object - its UID and a span holding every occurrence -
read from the text of a plain event without an iCalendar parse.

A mirror's first sync reads thousands of objects; a parse costs about half a millisecond each,
and all the index needs of most of them is three properties. ``index`` scans the content lines
of an object that holds one VEVENT that does not repeat, and hands every other object (a series,
an override, two events, a quoted parameter, an escaped UID, a value it does not know how to
read exactly) to the library: ``ical_occurrences.bounds`` and a full parse.

An object whose rules repeat too often to expand (finer than hourly, too many a day: see
``ical_bounds``) is ``BrokenObject`` with the reason, before anything walks it: a mirror skips it
and counts it as broken, so one such object in a shared calendar never wedges a sync.
``broken`` says the reason without raising.

The span it gives is never narrower than the exact one (range queries prune with it, then apply
the exact rule to the parsed object): a time that is not UTC is a wall-clock time in some zone,
so it is widened by a day each way rather than placed.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from fruitctl.backends import ical_events, ical_occurrences

DAY = 86_400.0
_UNFOLD = re.compile(r"\r?\n[ \t]")
_MOMENT = re.compile(r"(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?")
_DURATION = re.compile(r"\+?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?")
_WANTED = {"UID", "DTSTART", "DTEND", "DURATION"}
_REPEATS = {"RRULE", "RDATE", "EXRULE", "RECURRENCE-ID"}


def index(text: str) -> tuple[str, float, float | None]:
    """``(uid, first start, last end)`` in epoch seconds, the end ``None`` for a series without
    end; ``BrokenObject`` (a ValueError) for text that holds no readable event."""
    quick = _plain_event(text)
    if quick is not None:
        return quick
    return (ical_events.uid_of(text), *ical_occurrences.bounds(text))


def broken(text: str) -> str | None:
    """Why the object cannot be indexed (a mirror skips it), or None if it can."""
    try:
        index(text)
    except ValueError as exc:  # BrokenObject is one; a sync skips any ValueError the same way
        return str(exc)
    return None


def _plain_event(text: str) -> tuple[str, float, float] | None:
    """The index of one VEVENT that does not repeat, or None if the text is anything else."""
    found = _properties(text)
    if found is None or "UID" not in found or "DTSTART" not in found:
        return None
    if "DTEND" in found and "DURATION" in found:
        return None
    uid = found["UID"][1]
    if not uid or "\\" in uid or uid != uid.strip():
        return None
    start = _moment(*found["DTSTART"])
    if start is None:
        return None
    first, is_date = start
    if "DTEND" in found:
        end = _moment(*found["DTEND"])
        if end is None or end[1] != is_date:
            return None
        last = end[0]
    elif "DURATION" in found:
        length = _duration(found["DURATION"][1])
        if length is None:
            return None
        last = first + length
    else:
        last = first + (DAY if is_date else 0.0)
    exact_utc = not is_date and found["DTSTART"][1].endswith("Z")
    low = first if exact_utc else first - DAY
    high = max(first, last) + (0.0 if exact_utc and _utc(found.get("DTEND")) else DAY)
    return uid, low, high


def _properties(text: str) -> dict[str, tuple[str, str]] | None:
    """``{name: (parameters, value)}`` of the wanted properties of the object's one VEVENT, or
    None if the object is not a VCALENDAR holding exactly one VEVENT that does not repeat, or
    if a line is not a content line this scan reads with certainty."""
    lines = _UNFOLD.sub("", text).splitlines()
    if not lines or lines[0].strip().upper() != "BEGIN:VCALENDAR":
        return None
    path: list[str] = []
    events = 0
    found: dict[str, tuple[str, str]] = {}
    for line in lines:
        if not line.strip():
            continue
        head, colon, value = line.partition(":")
        if not colon or '"' in head:
            return None
        name, _, params = head.upper().partition(";")
        if name in ("BEGIN", "END"):
            if not _walk(path, name, value.strip().upper()):
                return None
            events += name == "BEGIN" and path == _EVENT
        elif path == _EVENT and not _keep(found, name, params, value):
            return None
    return found if events == 1 and not path else None


_EVENT = ["VCALENDAR", "VEVENT"]


def _walk(path: list[str], step: str, component: str) -> bool:
    """Enter or leave a component; False for an END that closes none that is open."""
    if step == "BEGIN":
        path.append(component)
        return True
    return bool(path) and path.pop() == component


def _keep(found: dict[str, tuple[str, str]], name: str, params: str, value: str) -> bool:
    """Note a property of the VEVENT; False if it makes the event one the scan cannot index."""
    if name in _REPEATS:
        return False
    if name in _WANTED:
        if name in found or any("=" not in p for p in params.split(";") if params):
            return False
        found[name] = (params, value)
    return True


def _moment(params: str, value: str) -> tuple[float, bool] | None:
    """A DATE or DATE-TIME value as epoch seconds (a wall-clock time read as if UTC) and
    whether it is a date; None for any other value type or a value that is not a valid one."""
    kinds = [p.partition("=")[2] for p in params.split(";") if p.startswith("VALUE=")]
    match = _MOMENT.fullmatch(value)
    if match is None or kinds not in ([], ["DATE"], ["DATE-TIME"]):
        return None
    is_date = match.group(4) is None
    if kinds and (kinds[0] == "DATE") != is_date:
        return None
    if match.group(7) and "TZID=" in params:
        return None
    try:
        parts = [int(g) for g in match.groups()[:6] if g is not None]
        moment = datetime(*parts, tzinfo=UTC)  # type: ignore[arg-type, misc]
    except ValueError:
        return None
    return moment.timestamp(), is_date


def _duration(value: str) -> float | None:
    match = _DURATION.fullmatch(value)
    if match is None or not any(match.groups()):
        return None
    weeks, days, hours, minutes, seconds = (int(g or 0) for g in match.groups())
    length = timedelta(weeks=weeks, days=days, hours=hours, minutes=minutes, seconds=seconds)
    return length.total_seconds()


def _utc(end: tuple[str, str] | None) -> bool:
    """Whether the end is exact: a UTC DTEND, or none (the start's own length)."""
    return end is None or end[1].endswith("Z")
