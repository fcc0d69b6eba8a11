"""What the event writes change, for proposals: summary, before-snapshot, diff, and inverse.

The snapshot is the event a write addresses, keyed by the id it is read under: the occurrence
for an occurrence change, the series (its master) for a series change. Undo restores every
field the tools can set. Two things it cannot bring back: an occurrence deleted from a series
(no tool re-adds an EXDATE'd instance), and - after a whole series was deleted or made a single
event - its moved or deleted occurrences (the series comes back with its rule, fresh).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fruitctl.approvals import readable
from fruitctl.approvals.readable import NAMES, names_in
from fruitctl.capabilities.context import Context
from fruitctl.domain.errors import FruitctlError
from fruitctl.domain.wording import spoken_when
from fruitctl.tools.model import Args, Change, Snapshot

# Fields undo puts back; the series-only ones only on a series.
_RESTORED = ("title", "startAt", "endAt", "location", "notes", "url")
_SERIES_ONLY = ("recurrence",)
# Where an event keeps what each argument sets (the rest keep the argument's name).
_HELD_IN = {"calendar": "calendarName"}
# What a deleted event takes with it, as the person calls it -> where the event keeps it.
_LOST = {
    "calendar": "calendarName",
    "startAt": "startAt",
    "endAt": "endAt",
    "recurrence": "recurrence",
    "location": "location",
    "url": "url",
    "notes": "notes",
}
_NOT_FIELDS = ("id", "occurrence", "scope")
# The snapshot key of the events a create or move overlaps, as they were when it was filed (like
# NAMES, no id starts with "@"): what the person reads, never a reason for a conflict.
OVERLAPS = "@overlaps"
# A diff is read by a person: past this many overlapped events, one row counts the rest.
OVERLAPS_SHOWN = 10
_KEPT = ("scope", NAMES, OVERLAPS)


def _addressed(args: Args, ctx: Context) -> tuple[str, str]:
    try:
        return ctx.calendar.addressed(args)
    except FruitctlError:
        return str(args["id"]), str(args.get("scope") or "series")


def _event(event_id: str, ctx: Context) -> dict[str, Any] | None:
    try:
        return ctx.calendar.get_event({"id": event_id})
    except FruitctlError:
        return None


def _calendar_names(refs: Iterable[str], ctx: Context) -> dict[str, str]:
    """The names of the calendars among ``refs`` that are ids (a name is shown as given)."""
    wanted = set(refs)
    if not wanted:
        return {}
    return {c["id"]: c["name"] for c in ctx.calendar.list_calendars() if c["id"] in wanted}


def _named(args: Args, ctx: Context) -> Snapshot:
    refs = [args["calendar"]] if args.get("calendar") else []
    return readable.with_names({}, _calendar_names(refs, ctx))


def _overlaps(args: Args, ctx: Context, write: str) -> Snapshot:
    """The events the write's new time overlaps, as the diff shows them (none: no key)."""
    try:
        found = ctx.calendar.overlapped(args, write)
    except FruitctlError:
        return {}  # the call's own error is raised when it is filed (its resolver)
    shown = [{k: e[k] for k in ("id", "title", "startAt", "endAt", "calendarName")} for e in found]
    return {OVERLAPS: shown} if shown else {}


def _created(args: Args, ctx: Context) -> Snapshot:
    return {**_named(args, ctx), **_overlaps(args, ctx, "create_event")}


def _snapshot(args: Args, ctx: Context) -> Snapshot:
    event_id, scope = _addressed(args, ctx)
    return {event_id: _event(event_id, ctx), "scope": scope, **_named(args, ctx)}


def _moved(args: Args, ctx: Context) -> Snapshot:
    return {**_snapshot(args, ctx), **_overlaps(args, ctx, "update_event")}


def _current(before: Snapshot, ctx: Context) -> Snapshot:
    now = {
        key: value if key in _KEPT else _event(key, ctx)
        for key, value in before.items()
        if key != NAMES
    }
    return {**now, **readable.names_again(before, lambda refs: _calendar_names(refs, ctx))}


def _target(before: Snapshot) -> tuple[str, dict[str, Any] | None, str]:
    (event_id,) = [key for key in before if key not in _KEPT]
    return event_id, before[event_id], str(before.get("scope", "series"))


def _overlap_rows(target: str, before: Snapshot) -> list[dict[str, Any]]:
    """One row per event the new time overlaps: ``overlaps`` -> "'Lunch' Thu 2026-03-05 12:30
    - 13:30 (Work)"."""
    found = before.get(OVERLAPS) or []
    rows = [
        {"target": target, "field": "overlaps", "before": None, "after": _overlap_line(event)}
        for event in found[:OVERLAPS_SHOWN]
    ]
    if len(found) > OVERLAPS_SHOWN:
        more = f"{len(found) - OVERLAPS_SHOWN} more events"
        rows.append({"target": target, "field": "overlaps", "before": None, "after": more})
    return rows


def _overlap_line(event: dict[str, Any]) -> str:
    start, end = spoken_when(event["startAt"]), spoken_when(event["endAt"])
    if start[:14] == end[:14]:  # the same day: "Thu 2026-03-05 12:30 - 13:30"
        end = end[15:]
    return f"'{event['title']}' {start} - {end} ({event['calendarName']})"


def _label(before: Snapshot) -> str:
    event_id, old, scope = _target(before)
    title = (old or {}).get("title", event_id)
    if scope == "occurrence" and old is not None:
        return f"the occurrence of '{title}' on {spoken_when(old['startAt'])}"
    return f"event '{title}'" + (" (every occurrence)" if (old or {}).get("recurrence") else "")


# -- create_event ----------------------------------------------------------------------------


def _create_summary(args: Args, ctx: Context) -> str:
    names = names_in(_named(args, ctx))
    where = readable.container(args.get("calendar"), names) or "the default calendar"
    repeat = f", repeating {args['recurrence']}" if args.get("recurrence") else ""
    when = spoken_when(args["startAt"])
    return f"Create event '{args['title']}' at {when} in {where}{repeat}"


def _create_inverse(args: Args, before: Snapshot, result: Any) -> dict[str, Any] | None:
    if not isinstance(result, dict) or "id" not in result:
        return None
    return {"tool": "delete_event", "args": {"id": result["id"], "scope": "series"}}


def _create_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    return readable.added("new event", args, names_in(before)) + _overlap_rows("new event", before)


# -- update_event ----------------------------------------------------------------------------


def _update_summary(args: Args, ctx: Context) -> str:
    before = _snapshot(args, ctx)
    fields = readable.fields_of(_update_diff(args, before))
    return f"Change {fields} of {_label(before)}"


def _update_inverse(args: Args, before: Snapshot, result: Any) -> dict[str, Any] | None:
    event_id, old, scope = _target(before)
    if old is None:
        return None
    restore: dict[str, Any] = {"id": event_id, "scope": scope}
    restore.update({key: old[key] for key in _RESTORED})
    if old.get("timezone"):
        restore["timezone"] = old["timezone"]
    if scope == "series":
        restore.update({key: old[key] for key in _SERIES_ONLY})
        restore["calendar"] = old["calendarId"]
    return {"tool": "update_event", "args": restore}


def _update_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    event_id, old, _ = _target(before)
    target, names = (old or {}).get("title", event_id), names_in(before)
    rows = []
    for key, value in args.items():
        if key in _NOT_FIELDS:
            continue
        row = readable.changed(target, key, (old or {}).get(_HELD_IN.get(key, key)), value, names)
        rows += [row] if row else []
    return rows + _overlap_rows(target, before)


# -- delete_event ----------------------------------------------------------------------------


def _delete_summary(args: Args, ctx: Context) -> str:
    return f"Delete {_label(_snapshot(args, ctx))}"


def _delete_inverse(args: Args, before: Snapshot, result: Any) -> dict[str, Any] | None:
    _, old, scope = _target(before)
    if old is None or (scope == "occurrence" and old.get("seriesId")):
        return None  # an occurrence removed from its series: see the module docstring
    again: dict[str, Any] = {key: old[key] for key in _RESTORED if old[key] is not None}
    again.update(allDay=old["allDay"], calendar=old["calendarId"])
    for key in ("timezone", *_SERIES_ONLY):
        if old.get(key):
            again[key] = old[key]
    return {"tool": "create_event", "args": again}


def _delete_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    event_id, old, scope = _target(before)
    target = (old or {}).get("title", event_id)
    kind = "occurrence" if scope == "occurrence" else "event"
    was = "exists" if old else "missing"
    gone = {"target": target, "field": kind, "before": was, "after": "deleted"}
    fields = {k: v for k, v in _LOST.items() if scope == "series" or k != "recurrence"}
    return [gone, *readable.lost(target, old or {}, fields)]


def _resolver(write: str) -> Any:
    """Fail fast: one event is addressed, so the call either can work or fails whole."""

    def resolve(args: Args, ctx: Context) -> tuple[Args, list[dict[str, Any]]]:
        ctx.calendar.precheck(args, write)
        return args, []

    return resolve


CREATE_EVENT = Change(
    _create_summary,
    _created,
    _current,
    _create_inverse,
    _create_diff,
    _resolver("create_event"),
)
UPDATE_EVENT = Change(
    _update_summary,
    _moved,
    _current,
    _update_inverse,
    _update_diff,
    _resolver("update_event"),
)
DELETE_EVENT = Change(
    _delete_summary,
    _snapshot,
    _current,
    _delete_inverse,
    _delete_diff,
    _resolver("delete_event"),
)
