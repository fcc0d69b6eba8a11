"""Writing calendar objects: a new event, changes to a series or to one occurrence, an
occurrence removed. Text in, text out; see ``fruitctl.backends.ical_events`` for the shape.

- A change to one occurrence is an overriding VEVENT (same UID, RECURRENCE-ID = its original
  start); removing one occurrence is an EXDATE on the master (and drops its override).
- A change to the series edits the master. Moving the series' start moves its EXDATEs and its
  overrides' RECURRENCE-IDs by the same wall-clock step, so they keep naming the same instances;
  a text field changes on the overrides that still had the master's old value.
- Every write stamps DTSTAMP and LAST-MODIFIED, bumps SEQUENCE (so CalDAV clients see a new
  version) and adds the VTIMEZONE of any zone it uses, so a CalDAV server accepts the text.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import icalendar

from fruitctl.backends import ical_events as ical
from fruitctl.backends import ical_occurrences as occurrences
from fruitctl.backends.ical_alarms import set_alarms
from fruitctl.domain.calendar import check_rrule
from fruitctl.domain.dates import zone
from fruitctl.domain.errors import InvalidParams, NotFound
from fruitctl.ports import EventChanges, EventScope, NewEvent

PRODID = "-//fruitctl//fruitctl//EN"
Moment = date | datetime
STORE = "local and CalDAV calendar"  # both keep events as iCalendar text
_TEXTS = {"title": "SUMMARY", "location": "LOCATION", "notes": "DESCRIPTION", "url": "URL"}
# TRANSP too: an override without it would be opaque (RFC 5545's default), busy where the
# series is free.
_COPIED_TO_OVERRIDE = ("UID", "SUMMARY", "LOCATION", "DESCRIPTION", "URL", "CREATED", "TRANSP")


def new_object(uid: str, new: NewEvent, stamp: datetime) -> str:
    """The text of a new calendar object for ``new``."""
    start, end = _placed(new.start, new.timezone), _placed(new.end, new.timezone)
    _check_times(start, end)
    event = icalendar.Event()
    event.add("UID", uid)
    _set(event, "DTSTART", start)
    _set(event, "DTEND", end)
    for field, name in _TEXTS.items():
        _set(event, name, getattr(new, field))
    if new.recurrence:
        _set_rule(event, new.recurrence)
    set_alarms(event, new.alarms, "START", STORE)
    event.add("CREATED", stamp.astimezone(UTC))
    cal = icalendar.Calendar()
    cal.add("PRODID", PRODID)
    cal.add("VERSION", "2.0")
    cal.add_component(event)
    return _finish(cal, [event], stamp)


def apply_changes(
    text: str, changes: EventChanges, scope: EventScope, key: str | None, stamp: datetime
) -> str:
    """``text`` with ``changes`` made to the whole event (``key`` None), to the series through
    one of its occurrences (scope "series"), or to that occurrence alone."""
    cal = ical.parse(text)
    main = ical.master(cal)
    series = ical.is_series(cal)
    if key is None and series and scope == "occurrence":
        raise InvalidParams(
            f"Event '{main['UID']}' is a recurring series: give an occurrence id "
            "(<id>@<occurrence>) to change one occurrence, or scope 'series'.",
            field="scope",
        )
    if key is not None and scope == "occurrence":
        if "recurrence" in changes:
            raise InvalidParams(
                "'recurrence' belongs to the series: change it with scope 'series'.",
                field="recurrence",
            )
        touched = [_change_occurrence(cal, main, changes, key)]
        if "alarms" in changes:
            set_alarms(touched[0], changes["alarms"], "START", STORE)
    else:
        reference = _instance(cal, main, key) if key is not None else None
        touched = _change_series(cal, main, changes, reference)
    return _finish(cal, touched, stamp)


def remove_occurrence(text: str, key: str, stamp: datetime) -> str:
    """``text`` without the occurrence ``key``: an EXDATE, and its override gone."""
    cal = ical.parse(text)
    main = ical.master(cal)
    override = _override(cal, key)
    if override is None and not ical.generates(cal, key):
        raise NotFound.occurrence(key, main["UID"])
    if override is not None:
        cal.subcomponents.remove(override)
    if "RRULE" in main or "RDATE" in main:
        main.add("EXDATE", [ical.original_start(main, key)])
    return _finish(cal, [main], stamp)


# -- the series ------------------------------------------------------------------------------


def _change_series(
    cal: icalendar.Calendar,
    main: icalendar.Component,
    changes: EventChanges,
    reference: tuple[Moment, Moment] | None,
) -> list[icalendar.Component]:
    old_start = ical.start_of(main)
    start, end = _retimed(main, changes, reference)
    _set(main, "DTSTART", start)
    _set(main, "DTEND", end)
    main.pop("DURATION", None)
    touched = [main]
    if type(start) is not type(old_start) or changes.get("recurrence", "") is None:
        _drop_exceptions(cal, main)  # old EXDATEs/overrides can name no instance any more
    else:
        touched += _follow(cal, main, _rezoned(old_start, start), start)
    given: Mapping[str, Any] = changes
    for field, name in _TEXTS.items():
        if field in given:
            old = main.get(name)
            for component in [main, *ical.overrides(cal)]:
                if component is main or component.get(name) == old:
                    _set(component, name, given[field])
    if "recurrence" in changes:
        main.pop("RRULE", None)
        if changes["recurrence"]:
            _set_rule(main, changes["recurrence"])
    if "alarms" in changes:
        set_alarms(main, changes["alarms"], "START", STORE)
    return touched


def _follow(
    cal: icalendar.Calendar, main: icalendar.Component, old: Moment, new: Moment
) -> list[icalendar.Component]:
    """Move EXDATEs and overrides' RECURRENCE-IDs with the master's start (same kind), into
    its zone and by the same wall-clock step."""
    step = _wall(new) - _wall(_rezoned(old, new))

    def follow(value: Moment) -> Moment:
        return _shift(_rezoned(value, new), step)

    moved = [follow(value) for value in ical.values_of(main.get("EXDATE"))]
    main.pop("EXDATE", None)
    if moved:
        main.add("EXDATE", moved)
    overrides = ical.overrides(cal)
    for override in overrides:
        _set(override, "RECURRENCE-ID", follow(ical.moment(override, "RECURRENCE-ID")))
    return overrides


def _drop_exceptions(cal: icalendar.Calendar, main: icalendar.Component) -> None:
    for name in ("EXDATE", "RDATE"):
        main.pop(name, None)
    for override in ical.overrides(cal):
        cal.subcomponents.remove(override)


# -- one occurrence --------------------------------------------------------------------------


def _change_occurrence(
    cal: icalendar.Calendar, main: icalendar.Component, changes: EventChanges, key: str
) -> icalendar.Component:
    override = _override(cal, key)
    if override is None:
        if not ical.generates(cal, key):
            raise NotFound.occurrence(key, main["UID"])
        override = _new_override(main, key)
        cal.add_component(override)
    start, end = _retimed(override, changes, None)
    _set(override, "DTSTART", start)
    _set(override, "DTEND", end)
    override.pop("DURATION", None)
    given: Mapping[str, Any] = changes
    for field, name in _TEXTS.items():
        if field in given:
            _set(override, name, given[field])
    return override


def _new_override(main: icalendar.Component, key: str) -> icalendar.Component:
    original = ical.original_start(main, key)
    override = icalendar.Event()
    for name in _COPIED_TO_OVERRIDE:
        if name in main:
            override[name] = main[name]
    _set(override, "RECURRENCE-ID", original)
    _set(override, "DTSTART", original)
    _set(override, "DTEND", original + ical.duration_of(main))
    return override


def _override(cal: icalendar.Calendar, key: str) -> icalendar.Component | None:
    for override in ical.overrides(cal):
        if ical.key_of(override) == key:
            return override
    return None


def _instance(
    cal: icalendar.Calendar, main: icalendar.Component, key: str
) -> tuple[Moment, Moment]:
    """Where the occurrence ``key`` is now: the frame a series change through it is read in."""
    override = _override(cal, key)
    if override is not None:
        return ical.start_of(override), ical.end_of(override)
    if not ical.generates(cal, key):
        raise NotFound.occurrence(key, main["UID"])
    start = ical.original_start(main, key)
    return start, start + ical.duration_of(main)


# -- times -----------------------------------------------------------------------------------


def _retimed(
    component: icalendar.Component, changes: EventChanges, reference: tuple[Moment, Moment] | None
) -> tuple[Moment, Moment]:
    """The component's new (start, end). Through ``reference`` (an occurrence), the change is
    the step that occurrence takes, applied to the component; a new start keeps the length."""
    own = (ical.start_of(component), ical.end_of(component))
    ref_start, ref_end = reference or own
    tz = changes.get("timezone", ical.zone_name(ref_start))
    new_start = _placed(changes.get("startAt", ref_start), tz)
    same_kind = type(new_start) is type(ref_start)
    if reference is not None and not same_kind:
        raise InvalidParams.series_all_day_switch()
    default_end = new_start + ical.span(ref_end, ref_start) if same_kind else None
    new_end = _placed(changes.get("endAt", default_end) or _one_unit(new_start), tz)
    _check_times(new_start, new_end)
    if reference is None:
        return new_start, new_end
    step = _wall(new_start) - _wall(_rezoned(ref_start, new_start))
    start = _shift(_rezoned(own[0], new_start), step)
    return start, start + (new_end - new_start)


def _placed(value: Moment, tz: str | None) -> Moment:
    """A time in the zone it is kept in: ``tz`` if given, its own if it has a named zone, UTC
    for a bare offset (which names no zone a calendar can repeat in)."""
    if not isinstance(value, datetime):
        return value
    if value.tzinfo is None:
        return value  # floating stays floating
    if tz is not None:
        return value.astimezone(zone(tz))
    if isinstance(value.tzinfo, ZoneInfo):
        return value
    return value.astimezone(UTC)


def _rezoned(value: Moment, like: Moment) -> Moment:
    """``value`` expressed in the zone of ``like`` (same instant); dates stay dates."""
    if isinstance(value, datetime) and isinstance(like, datetime) and like.tzinfo is not None:
        return value.astimezone(like.tzinfo) if value.tzinfo is not None else value
    return value


def _wall(value: Moment) -> datetime:
    """Wall-clock reading, for steps that keep 09:00 at 09:00 across a DST change."""
    if isinstance(value, datetime):
        return value.replace(tzinfo=None)
    return datetime.combine(value, datetime.min.time())


def _shift(value: Moment, step: timedelta) -> Moment:
    """``value`` moved by a wall-clock ``step`` in its own zone (a date by whole days)."""
    if not isinstance(value, datetime):
        return value + timedelta(days=step.days)
    return (value.replace(tzinfo=None) + step).replace(tzinfo=value.tzinfo)


def _one_unit(start: Moment) -> Moment:
    return start + (timedelta(hours=1) if isinstance(start, datetime) else timedelta(days=1))


def _check_times(start: Moment, end: Moment) -> None:
    if isinstance(start, datetime) != isinstance(end, datetime):
        raise InvalidParams.mixed_all_day()
    length = ical.span(_aware(end), _aware(start))
    if length < timedelta(0) or (length == timedelta(0) and not isinstance(start, datetime)):
        raise InvalidParams.end_before_start()


def _aware(value: Moment) -> Moment:
    """Floating times compared as if in UTC: both ends are floating, so any zone will do."""
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


# -- properties ------------------------------------------------------------------------------


def _set(component: icalendar.Component, name: str, value: Any) -> None:
    """Replace a property; ``None`` or "" removes it."""
    component.pop(name, None)
    if value is not None and value != "":
        component.add(name, value)


def _set_rule(component: icalendar.Component, text: str) -> None:
    rule = check_rrule(text)
    try:
        component.add("RRULE", icalendar.vRecur.from_ical(rule))
    except ValueError as exc:
        raise InvalidParams.recurrence(text, exc) from exc


def _finish(cal: icalendar.Calendar, touched: list[icalendar.Component], stamp: datetime) -> str:
    when = stamp.astimezone(UTC)
    for component in touched:
        _set(component, "DTSTAMP", when)
        _set(component, "LAST-MODIFIED", when)
        sequence = component.get("SEQUENCE")
        component.pop("SEQUENCE", None)
        component.add("SEQUENCE", 0 if sequence is None else int(sequence) + 1)
    cal.add_missing_timezones()
    _check_expands(cal)
    return str(cal.to_ical().decode())


def _check_expands(cal: icalendar.Calendar) -> None:
    """A rule the library cannot run (UNTIL of the wrong kind ...), or one that repeats too
    often to expand, is refused when written: a bounded walk, never the whole series."""
    try:
        occurrences.check_expands(cal)
    except ical.BrokenObject as exc:
        raise InvalidParams(
            f"The event's recurrence cannot be used: {exc}.", field="recurrence"
        ) from exc
