"""Rows of local.db to domain objects and back."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Dialect, Select, bindparam, case, select
from sqlalchemy.sql.dml import Insert

from fruitctl.backends.local.tables import lists, reminder_tags, reminders
from fruitctl.domain.alarms import Alarm, wire_alarms
from fruitctl.domain.dates import (
    DateOrDateTime,
    format_date_or_datetime,
    format_datetime,
    instant,
)
from fruitctl.domain.reminders import Reminder

# What a reminder read selects: exactly the wire fields, in wire order (tags come separately).
_WIRE = (
    ("id", reminders.c.id),
    ("title", reminders.c.title),
    ("notes", reminders.c.notes),
    ("listId", reminders.c.list_id),
    ("listName", lists.c.name),
    ("isCompleted", reminders.c.is_completed),
    ("priority", reminders.c.priority),
    ("dueDate", reminders.c.due),
    ("completionDate", reminders.c.completion),
    ("creationDate", reminders.c.created),
    ("modificationDate", reminders.c.modified),
    ("isFlagged", reminders.c.is_flagged),
    ("url", reminders.c.url),
    ("parentId", reminders.c.parent_id),
    ("recurrence", reminders.c.recurrence),
)
WIRE_KEYS = tuple(key for key, _ in _WIRE)
# Read after the tags, in the order a reminder's wire has them.
_LATER = (("startDate", reminders.c.start), ("alarms", reminders.c.alarms))
CHUNK = 500


def base_select() -> Select[Any]:
    columns = [column for _, column in (*_WIRE, *_LATER)]
    return select(*columns).join_from(reminders, lists, reminders.c.list_id == lists.c.id)


def to_wire(conn: Connection, rows: Sequence[Any]) -> list[dict[str, Any]]:
    """Wire dicts straight from rows: stored date texts already are wire texts."""
    tags = load_tags(conn, [row[0] for row in rows])
    wire = []
    width = len(WIRE_KEYS)
    for row in rows:
        item = dict(zip(WIRE_KEYS, row[:width], strict=True))
        item["tags"] = list(tags.get(row[0], ()))
        start, alarms = row[width:]
        item["startDate"] = start
        item["alarms"] = json.loads(alarms) if alarms else []
        wire.append(item)
    return wire


def to_reminders(conn: Connection, rows: Sequence[Any]) -> list[Reminder]:
    # Rows hold canonical wire texts that we wrote: no need to validate them again.
    return [Reminder.trusted(item) for item in to_wire(conn, rows)]


# Built once: an expanding IN parameter, so a page of ids costs no per-item SQL construction.
_TAGS_OF = (
    select(reminder_tags.c.reminder_id, reminder_tags.c.tag)
    .where(reminder_tags.c.reminder_id.in_(bindparam("ids", expanding=True)))
    .order_by(reminder_tags.c.reminder_id, reminder_tags.c.position)
)


def load_tags(conn: Connection, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for start in range(0, len(ids), CHUNK):
        for reminder_id, tag in conn.execute(_TAGS_OF, {"ids": list(ids[start : start + CHUNK])}):
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
    execute_many(conn, _TAG_INSERT, rows)


_TAG_INSERT = reminder_tags.insert()


def execute_many(conn: Connection, statement: Insert, items: Sequence[Mapping[str, Any]]) -> None:
    """``conn.execute(statement, items)`` as one ``executemany`` of the driver, every item with
    the keys of the first. SQLAlchemy builds the parameters of each row in Python (about 20 us
    a row, most of what a mirror's first sync spends writing); the columns written so need no
    conversion on the way in (text, numbers, and booleans, which sqlite3 stores as 1 and 0)."""
    if not items:
        return
    sql, names = _compiled(statement, tuple(items[0]), conn.dialect)
    conn.exec_driver_sql(sql, [tuple(item[name] for name in names) for item in items])


@lru_cache(maxsize=32)
def _compiled(statement: Insert, keys: tuple[str, ...], dialect: Dialect) -> tuple[str, list[str]]:
    """The SQL of ``statement`` for rows of ``keys`` and the order its parameters take them."""
    compiled = statement.compile(dialect=dialect, column_keys=list(keys))
    return str(compiled), list(compiled.positiontup or ())


def due_columns(due: DateOrDateTime | None) -> dict[str, Any]:
    if due is None:
        return {"due": None, "due_sort": None}
    return {"due": format_date_or_datetime(due), "due_sort": instant(due)}


def start_column(start: DateOrDateTime | None) -> dict[str, Any]:
    return {"start": None if start is None else format_date_or_datetime(start)}


def alarms_column(alarms: Sequence[Alarm]) -> dict[str, Any]:
    return {"alarms": json.dumps(wire_alarms(alarms)) if alarms else None}


def completion_columns(completion: datetime | None) -> dict[str, Any]:
    if completion is None:
        return {"completion": None, "is_completed": False}
    return {"completion": format_datetime(completion), "is_completed": True}


def created_columns(created: datetime) -> dict[str, Any]:
    text = format_datetime(created)
    return {"created": text, "created_sort": int(created.timestamp()), "modified": text}


# Orders, mirroring domain.reminders.SORT_TERMS term by term.
_priority_rank = case((reminders.c.priority == 0, 10), else_=reminders.c.priority)
_newest = [reminders.c.created_sort.desc(), reminders.c.id.desc()]
_due = [reminders.c.due_sort.is_(None), reminders.c.due_sort]
INDEX_ORDERS = ("newest", "oldest", "open")  # orders an index holds, for any one status
ORDERS: Mapping[str, list[Any]] = {
    "newest": _newest,
    "oldest": [reminders.c.created_sort, reminders.c.id],
    "priority": [_priority_rank, *_newest],
    "dueDate": [*_due, *_newest],
    "open": [*_due, reminders.c.is_flagged.desc(), reminders.c.title, reminders.c.id],
}
