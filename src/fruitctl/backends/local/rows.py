"""Rows of local.db to domain objects and back."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Select, case, select

from fruitctl.backends.local.tables import lists, reminder_tags, reminders
from fruitctl.domain.dates import (
    DateOrDateTime,
    format_date_or_datetime,
    format_datetime,
    instant,
)
from fruitctl.domain.reminders import Reminder

# Columns every reminder read selects, with its list's name joined in.
READ_COLUMNS = (*reminders.c, lists.c.name.label("list_name"))
CHUNK = 500
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def base_select() -> Select[Any]:
    return select(*READ_COLUMNS).join_from(reminders, lists, reminders.c.list_id == lists.c.id)


def to_reminders(conn: Connection, rows: Sequence[Any]) -> list[Reminder]:
    tags = load_tags(conn, [row.id for row in rows])
    return [to_reminder(row, tags.get(row.id, ())) for row in rows]


def to_wire(conn: Connection, rows: Sequence[Any]) -> list[dict[str, Any]]:
    """Wire dicts straight from rows: the stored date texts already are the wire texts, so this
    equals ``to_reminder(...).to_wire()`` (the pushdown property test holds it to that) at a
    fraction of the cost."""
    tags = load_tags(conn, [row.id for row in rows])
    return [_wire(row, tags.get(row.id, ())) for row in rows]


def _wire(row: Any, tags: tuple[str, ...]) -> dict[str, Any]:
    return {
        "id": row.id,
        "title": row.title,
        "notes": row.notes,
        "listId": row.list_id,
        "listName": row.list_name,
        "isCompleted": bool(row.is_completed),
        "priority": row.priority,
        "dueDate": row.due,
        "completionDate": row.completion,
        "creationDate": row.created,
        "modificationDate": row.modified,
        "tags": list(tags),
        "isFlagged": bool(row.is_flagged),
        "url": row.url,
        "parentId": row.parent_id,
        "recurrence": row.recurrence,
    }


def to_reminder(row: Any, tags: tuple[str, ...]) -> Reminder:
    # Rows come from our own writes, already validated: construct without re-validating.
    fields = _wire(row, ())
    fields.update(
        dueDate=_stored_due(row.due),
        completionDate=_stored(row.completion),
        creationDate=_from_micros(row.created_sort, datetime.fromisoformat(row.created)),
        modificationDate=datetime.fromisoformat(row.modified),
        tags=tags,
    )
    return Reminder.model_construct(**fields)


def _stored(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def _stored_due(text: str | None) -> DateOrDateTime | None:
    if text is None:
        return None
    return date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)


def load_tags(conn: Connection, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for start in range(0, len(ids), CHUNK):
        query = (
            select(reminder_tags.c.reminder_id, reminder_tags.c.tag)
            .where(reminder_tags.c.reminder_id.in_(ids[start : start + CHUNK]))
            .order_by(reminder_tags.c.reminder_id, reminder_tags.c.position)
        )
        for reminder_id, tag in conn.execute(query):
            found.setdefault(reminder_id, []).append(tag)
    return {key: tuple(value) for key, value in found.items()}


def store_tags(conn: Connection, reminder_id: str, tags: Iterable[str]) -> None:
    """Replace the tags of one reminder."""
    conn.execute(reminder_tags.delete().where(reminder_tags.c.reminder_id == reminder_id))
    add_tags(conn, {reminder_id: tags})


def add_tags(conn: Connection, tags_by_id: Mapping[str, Iterable[str]]) -> None:
    """Tags of new reminders, in one statement."""
    rows = [
        {"reminder_id": rid, "tag": tag, "position": i}
        for rid, tags in tags_by_id.items()
        for i, tag in enumerate(tags)
    ]
    if rows:
        conn.execute(reminder_tags.insert(), rows)


def due_columns(due: DateOrDateTime | None) -> dict[str, Any]:
    if due is None:
        return {"due": None, "due_sort": None}
    return {"due": format_date_or_datetime(due), "due_sort": instant(due)}


def completion_columns(completion: datetime | None) -> dict[str, Any]:
    if completion is None:
        return {"completion": None, "is_completed": False}
    return {"completion": format_datetime(completion), "is_completed": True}


def created_columns(created: datetime, sequence: int = 0) -> dict[str, Any]:
    """Creation instants keep microseconds (plus one per item of a batch), so "newest first"
    follows creation order even within one second; the wire text shows whole seconds."""
    micros = _micros(created) + sequence
    text = format_datetime(_from_micros(micros, created))
    return {"created": text, "created_sort": micros, "modified": text}


def _micros(value: datetime) -> int:
    return (value - EPOCH) // timedelta(microseconds=1)


def _from_micros(micros: int, zone_of: datetime) -> datetime:
    return (EPOCH + timedelta(microseconds=micros)).astimezone(zone_of.tzinfo)


# Orders, mirroring domain.reminders.SORT_TERMS term by term.
_priority_rank = case((reminders.c.priority == 0, 10), else_=reminders.c.priority)
_newest = [reminders.c.created_sort.desc(), reminders.c.id.desc()]
_due = [reminders.c.due_sort.is_(None), reminders.c.due_sort]
ORDERS: Mapping[str, list[Any]] = {
    "newest": _newest,
    "oldest": [reminders.c.created_sort, reminders.c.id],
    "priority": [_priority_rank, *_newest],
    "dueDate": [*_due, *_newest],
    "open": [*_due, reminders.c.is_flagged.desc(), reminders.c.title, reminders.c.id],
}
