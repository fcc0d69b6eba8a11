"""Finding what the adapter sends messages to: calendars, items by id, one occurrence of a
series, and the predicates of reads - on the owner thread, inside the adapter's calls. Like
``adapter.py``, held to EventKit's published selectors by ``test_selectors.py``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from fruitctl.backends.eventkit import encode
from fruitctl.backends.eventkit.kit import eventkit
from fruitctl.backends.eventkit.values import (
    ADAPTER_DOMAIN,
    NOT_FOUND,
    Entity,
    ReminderStatus,
    StoreError,
)

ENTITY_TYPES: dict[Entity, int] = {"event": 0, "reminder": 1}  # EKEntityType
# An occurrence is looked up among the events around its original start; a moved (detached)
# occurrence stays findable while it is within this distance of where it was.
OCCURRENCE_WINDOW = timedelta(days=7)


def missing(kind: str, item_id: str) -> StoreError:
    return StoreError(ADAPTER_DOMAIN, NOT_FOUND, f"no {kind} with id {item_id!r}")


def authorization(kind: Any, entity: Entity) -> int:
    """``EKAuthorizationStatus`` of this process for the entity type."""
    return int(kind.authorizationStatusForEntityType_(ENTITY_TYPES[entity]))


def default_calendar(store: Any, entity: Entity) -> Any:
    if entity == "reminder":
        return store.defaultCalendarForNewReminders()
    return store.defaultCalendarForNewEvents()


def calendars_by_id(store: Any, ids: Sequence[str] | None) -> list[Any] | None:
    """The calendars with those ids that exist; None (every calendar) for None."""
    if ids is None:
        return None
    found = [store.calendarWithIdentifier_(calendar_id) for calendar_id in ids]
    return [calendar for calendar in found if calendar is not None]


def by_id(store: Any, item_id: str, kind: Any) -> Any:
    """The item with that ``calendarItemIdentifier`` if it is a ``kind`` (a series: its master
    event, which a change or removal with ``EKSpanFutureEvents`` applies to the whole series),
    else None."""
    item = store.calendarItemWithIdentifier_(item_id)
    return item if item is not None and item.isKindOfClass_(kind) else None


def existing(store: Any, item_id: str, kind: Any, name: str) -> Any:
    item = by_id(store, item_id, kind)
    if item is None:
        raise missing(name, item_id)
    return item


def event_or_occurrence(store: Any, item_id: str, occurrence: datetime | None) -> Any:
    """The event (a series' master), or the occurrence of its series whose original start is
    ``occurrence`` - searched for near it, so only for a write to that one occurrence."""
    item = existing(store, item_id, eventkit().EKEvent, "event")
    if occurrence is None:
        return item
    start, end = occurrence - OCCURRENCE_WINDOW, occurrence + OCCURRENCE_WINDOW
    wanted = occurrence.timestamp()
    for candidate in events_between(store, start, end, [item.calendar()]):
        original = candidate.occurrenceDate()
        if (
            str(candidate.calendarItemIdentifier()) == item_id
            and original is not None
            and abs(original.timeIntervalSince1970() - wanted) < 1
        ):
            return candidate
    raise missing("occurrence", f"{item_id} at {occurrence}")


def events_between(store: Any, start: datetime, end: datetime, calendars: Any) -> list[Any]:
    predicate = store.predicateForEventsWithStartDate_endDate_calendars_(
        encode.date(start), encode.date(end), calendars
    )
    return list(store.eventsMatchingPredicate_(predicate) or ())


def reminder_predicate(
    store: Any,
    status: ReminderStatus,
    calendars: list[Any] | None,
    due_from: datetime | None,
    due_to: datetime | None,
) -> Any:
    if status == "incomplete":
        return store.predicateForIncompleteRemindersWithDueDateStarting_ending_calendars_(
            encode.optional_date(due_from), encode.optional_date(due_to), calendars
        )
    if status == "completed":
        return store.predicateForCompletedRemindersWithCompletionDateStarting_ending_calendars_(
            None, None, calendars
        )
    return store.predicateForRemindersInCalendars_(calendars)
