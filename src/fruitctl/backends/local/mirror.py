"""Writes into a local.db that mirrors another store: lists and reminders with *given* ids.

``LocalReminders`` invents ids and stamps times itself; a mirror must keep the ids, dates and
lists exactly as the source of truth has them (a CalDAV server), so it writes rows directly.
Reads then go through ``LocalReminders`` on the same file, unchanged. Every function here works
inside the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, select, update
from sqlalchemy.dialects.sqlite import insert

from fruitctl.backends.local import rows
from fruitctl.backends.local.tables import lists, reminder_tags, reminders
from fruitctl.domain.alarms import Alarm
from fruitctl.domain.dates import DateOrDateTime, format_datetime


@dataclass(frozen=True)
class MirroredList:
    id: str
    name: str
    position: int


@dataclass(frozen=True)
class MirroredReminder:
    """One reminder as its source has it; ``parent_id`` is linked only once that parent exists."""

    id: str
    list_id: str
    title: str
    created: datetime
    modified: datetime
    notes: str | None = None
    priority: int = 0
    is_flagged: bool = False
    due: DateOrDateTime | None = None
    completion: datetime | None = None
    url: str | None = None
    parent_id: str | None = None
    recurrence: str | None = None
    tags: tuple[str, ...] = ()
    start: DateOrDateTime | None = None
    alarms: tuple[Alarm, ...] = ()


# -- lists ---------------------------------------------------------------------------------------


def replace_lists(conn: Connection, wanted: Sequence[MirroredList], default_id: str | None) -> None:
    """Make the lists exactly ``wanted``: drop the others (with their reminders), add or rename
    the rest, and mark ``default_id`` (at most one) as the default. Writes nothing when they
    already are, so a sync that changed nothing leaves the file (and read caches) alone."""
    names = _unique_names(wanted)
    target = {
        (item.id, name, item.id == default_id, item.position)
        for item, name in zip(wanted, names, strict=True)
    }
    current = {(r.id, r.name, bool(r.is_default), r.position) for r in conn.execute(select(lists))}
    if target == current:
        return
    keep = {item.id for item in wanted}
    gone = [lid for lid, *_ in current if lid not in keep]
    if gone:
        conn.execute(delete(reminders).where(reminders.c.list_id.in_(gone)))
        conn.execute(delete(lists).where(lists.c.id.in_(gone)))
    # Clear first: the unique default index and NOCASE-unique names hold at every statement.
    conn.execute(update(lists).values(is_default=False, name=lists.c.id))
    for item, name in zip(wanted, names, strict=True):
        _put_list(conn, item, name, item.id == default_id)


def _put_list(conn: Connection, item: MirroredList, name: str, is_default: bool) -> None:
    values = {"name": name, "is_default": is_default, "position": item.position}
    statement = insert(lists).values(id=item.id, created=format_datetime(datetime.now()), **values)
    conn.execute(statement.on_conflict_do_update(index_elements=[lists.c.id], set_=values))


def _unique_names(wanted: Sequence[MirroredList]) -> list[str]:
    """Names as the source has them; a server may hold two calendars called the same, the
    mirror cannot (list names are unique, case-insensitively), so a later one gets a suffix."""
    taken: set[str] = set()
    names = []
    for item in wanted:
        name, n = item.name, 1
        while name.casefold() in taken:
            n += 1
            name = f"{item.name} ({n})"
        taken.add(name.casefold())
        names.append(name)
    return names


# -- reminders -----------------------------------------------------------------------------------


def put_reminders(conn: Connection, items: Iterable[MirroredReminder]) -> None:
    """Insert or replace each reminder (and its tags) under its own id, in a few statements."""
    batch = list({item.id: item for item in items}.values())  # the last one of an id wins
    if not batch:
        return
    # Rows first without their parents, then the links: a child may come before its parent.
    rows.execute_many(conn, _UPSERT, [{"id": item.id, **_columns(item, None)} for item in batch])
    present = _existing(conn, {item.parent_id for item in batch if item.parent_id})
    links = [
        {"child": item.id, "parent": item.parent_id}
        for item in batch
        if item.parent_id in present and item.parent_id != item.id
    ]
    if links:
        conn.execute(_LINK, links)
    ids = [item.id for item in batch]
    for start in range(0, len(ids), rows.CHUNK):
        chunk = ids[start : start + rows.CHUNK]
        conn.execute(delete(reminder_tags).where(reminder_tags.c.reminder_id.in_(chunk)))
    rows.add_tags(conn, {item.id: item.tags for item in batch})


def _upsert() -> Any:
    statement = insert(reminders)
    columns = [c.name for c in reminders.columns if c.name != "id"]
    return statement.on_conflict_do_update(
        index_elements=[reminders.c.id], set_={name: statement.excluded[name] for name in columns}
    )


_UPSERT = _upsert()  # built once: one compiled statement for every batch
_LINK = (
    update(reminders)
    .where(reminders.c.id == bindparam("child"))
    .values(parent_id=bindparam("parent"))
)


def drop_reminders(conn: Connection, ids: Collection[str]) -> None:
    for start in range(0, len(ids), rows.CHUNK):
        chunk = list(ids)[start : start + rows.CHUNK]
        conn.execute(delete(reminders).where(reminders.c.id.in_(chunk)))


def link_parents(conn: Connection, wanted: dict[str, str]) -> None:
    """Set ``parent_id`` (child id -> parent id) where both exist now: a child can arrive before
    its parent, and a parent deleted and re-created (a move) set its children's link to NULL."""
    present = _existing(conn, set(wanted) | set(wanted.values()))
    for child, parent in wanted.items():
        if child in present and parent in present and child != parent:
            conn.execute(
                update(reminders)
                .where(reminders.c.id == child, reminders.c.parent_id.is_(None))
                .values(parent_id=parent)
            )


def count(conn: Connection) -> int:
    return int(conn.execute(select(func.count()).select_from(reminders)).scalar_one())


def _existing(conn: Connection, ids: set[str]) -> set[str]:
    found: set[str] = set()
    ordered = sorted(ids)
    for start in range(0, len(ordered), rows.CHUNK):
        chunk = ordered[start : start + rows.CHUNK]
        found.update(
            conn.execute(select(reminders.c.id).where(reminders.c.id.in_(chunk))).scalars()
        )
    return found


def _columns(item: MirroredReminder, parent_id: str | None) -> dict[str, Any]:
    created = rows.created_columns(item.created)
    return {
        "list_id": item.list_id,
        "title": item.title,
        "notes": item.notes,
        "priority": item.priority,
        "is_flagged": item.is_flagged,
        "url": item.url,
        "parent_id": parent_id,
        "recurrence": item.recurrence,
        **rows.start_column(item.start),
        **rows.alarms_column(item.alarms),
        **rows.due_columns(item.due),
        **rows.completion_columns(item.completion),
        "created": created["created"],
        "created_sort": created["created_sort"],
        "modified": format_datetime(item.modified),
    }
