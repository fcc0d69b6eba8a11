"""How a proposal's diff says a value, so the person reads what it means: a list or calendar by
its name (not ``{"id": …}``), a priority in words on both sides, a date with its weekday, and
no row for what does not change.

Names are read when the proposal is filed and kept in its before-snapshot under ``NAMES``: the
diff is drawn later without a backend (``Change.diff`` gets the arguments and the snapshot
only), and what the person reads must be what was true when the agent asked - not a name read
again for a proposal executed months ago. The snapshot is read again before execution, so a list
renamed or removed in between is a conflict rather than a write into something the person did
not see named.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fruitctl.domain.alarms import alarms_of
from fruitctl.domain.reminders import priority_name
from fruitctl.domain.repeat_words import alarms_in_words, rule_in_words
from fruitctl.domain.wording import spoken_when
from fruitctl.tools.model import Snapshot

NAMES = "@names"
"""The snapshot key of the names of the lists or calendars a write names by id (no backend's id
starts with ``@``)."""

DATE_FIELDS = frozenset(
    {
        "dueDate",
        "completedDate",
        "completionDate",
        "startAt",
        "endAt",
        "deadline",
        "startDate",
        "when",
    }
)
CONTAINERS = frozenset({"list", "calendar", "project", "area", "heading"})
# A value a new item would have anyway: showing "flagged: false" as a change is noise.
EMPTY: tuple[Any, ...] = (None, "", [], {}, False, "none")

Names = Mapping[str, str]
Row = dict[str, Any]


def names_in(before: Snapshot) -> Names:
    found = before.get(NAMES)
    return found if isinstance(found, dict) else {}


def with_names(snapshot: Snapshot, names: Names) -> Snapshot:
    """``snapshot`` with ``names`` kept in it (none: the snapshot as it was, so a proposal
    filed before names were kept reads back the same and is no conflict)."""
    return {**snapshot, NAMES: dict(names)} if names else snapshot


def names_again(before: Snapshot, read: Callable[[Iterable[str]], Names]) -> Snapshot:
    """The ``NAMES`` part of a current snapshot: the same ids, read again."""
    kept = names_in(before)
    return {NAMES: dict(read(kept))} if NAMES in before else {}


def plain(field: str, value: Any, names: Names) -> Any:
    """``value`` of ``field`` as a person reads it."""
    if value is None:
        return None
    if field in DATE_FIELDS and isinstance(value, str):
        return spoken_when(value)
    if field == "priority" and isinstance(value, int) and not isinstance(value, bool):
        return priority_name(value)
    if field in CONTAINERS:
        return container(value, names)
    if field == "recurrence" and isinstance(value, str):
        return rule_in_words(value)
    if field == "alarms" and isinstance(value, list):
        return _alarms(value)
    return value


def _alarms(value: list[Any]) -> Any:
    """Alarms in words ("alert 15 minutes before"), none when there are none (so a reminder
    without alarms loses none); as given when they are no alarms (a proposal is drawn from
    arguments its tool checked, so this is an old proposal's)."""
    if not value:
        return None
    try:
        return alarms_in_words(alarms_of(value))
    except ValueError:
        return value


def container(ref: Any, names: Names) -> Any:
    """A list, calendar, project or area by its name: ``{"id": …}`` or an id through
    ``names``, ``{"name": …}`` or a Things ``{"title": …}`` as it says."""
    if isinstance(ref, dict):
        named = ref.get("name") or ref.get("title")
        ref = named if named else ref.get("id")
    return names.get(ref, ref) if isinstance(ref, str) else ref


def changed(target: str, field: str, before: Any, after: Any, names: Names) -> Row | None:
    """The diff row for ``field`` going from ``before`` to ``after``; None when a person would
    read both the same."""
    old, new = plain(field, before, names), plain(field, after, names)
    if old == new:
        return None
    return {"target": target, "field": field, "before": old, "after": new}


def added(target: str, item: Mapping[str, Any], names: Names) -> list[Row]:
    """The rows of a new item: each field given a value it would not have anyway."""
    return [
        {"target": target, "field": key, "before": None, "after": plain(key, value, names)}
        for key, value in item.items()
        if not any(value == empty and type(value) is type(empty) for empty in EMPTY)
    ]


def lost(target: str, old: Mapping[str, Any], fields: Mapping[str, str]) -> list[Row]:
    """What deleting ``old`` loses: each of ``fields`` (shown name -> its key in ``old``) that
    holds something."""
    rows = []
    for shown, key in fields.items():
        value = plain(shown, old.get(key), {})
        if value not in EMPTY:
            rows.append({"target": target, "field": shown, "before": value, "after": None})
    return rows


def fields_of(rows: Iterable[Row]) -> str:
    """The fields ``rows`` change, for a summary: ``dueDate, priority``, or ``nothing``."""
    return ", ".join(sorted({row["field"] for row in rows})) or "nothing"
