"""The embedded reminders store: SQLite through SQLAlchemy Core."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, Engine, false, func, select, true
from sqlalchemy.exc import IntegrityError

from fruitctl.backends.local import applied, rows
from fruitctl.backends.local.cache import ReadCache
from fruitctl.backends.local.pushdown import search
from fruitctl.backends.local.tables import LOCAL_ACCOUNT, lists, reminders
from fruitctl.backends.local.zone import follow_zone
from fruitctl.domain.dates import format_datetime, now
from fruitctl.domain.errors import InvalidParams, NotFound
from fruitctl.domain.query import Query
from fruitctl.domain.reminders import Reminder, ReminderList, check_text, mentioning
from fruitctl.domain.writes import entering, next_token
from fruitctl.ports import (
    EventRange,
    NewReminder,
    PermissionStatus,
    ReminderChanges,
    ReminderQuery,
    ReminderScope,
)

WRITE = {"fruitctl_write": True}  # see fruitctl.store.engine.WRITE_OPTION
AT_ONCE_ROWS = 1_000  # the most rows an index walk may read on a front door's event loop


def new_id() -> str:
    return secrets.token_hex(8)


_last_micros = 0
_id_lock = threading.Lock()


def reminder_ids(count: int) -> list[str]:
    """IDs that sort in creation order: a strictly increasing microsecond clock (13 hex digits)
    and 4 random hex digits against another process picking the same microsecond. So the
    "newest first" tie-break on id is creation order, for every backend and the reference sort."""
    global _last_micros
    with _id_lock:
        start = max(time.time_ns() // 1000, _last_micros + 1)
        _last_micros = start + count - 1
    return [f"{start + i:013x}{secrets.token_hex(2)}" for i in range(count)]


def scope_filter(scope: ReminderScope) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = []
    if scope.list_ids is not None:
        where.append(reminders.c.list_id.in_(scope.list_ids))
    if scope.status == "incomplete":
        where.append(reminders.c.is_completed == false())
    elif scope.status == "completed":
        where.append(reminders.c.is_completed == true())
    return where


class LocalReminders:
    """Reminders kept in ``local.db``. Sorting, limits and most JMESPath filters run in SQL."""

    name = "local"

    def __init__(self, engine: Engine, account: str = LOCAL_ACCOUNT) -> None:
        self._engine = engine
        self.account = account
        """What its lists say they are in (a CalDAV mirror: that account)."""
        self._writer = engine.execution_options(**WRITE)
        follow_zone(engine, self._writer)
        self._cache = ReadCache(engine)

    def close(self) -> None:
        """Close every connection to local.db."""
        self._cache.close()
        self._engine.dispose()

    def permission_status(self) -> PermissionStatus:
        return "authorized"

    def lists(self, *, with_counts: bool = True) -> list[ReminderList]:
        return list(self._cache.get(("lists", with_counts), lambda: self._lists(with_counts)))

    def _lists(self, with_counts: bool) -> tuple[ReminderList, ...]:
        # A correlated count per list walks the (list_id, is_completed, ...) index; a GROUP BY
        # over the whole table would scan every open reminder.
        open_count = (
            select(func.count())
            .where(reminders.c.list_id == lists.c.id, reminders.c.is_completed == false())
            .scalar_subquery()
        )
        columns = [
            lists.c.id,
            lists.c.name,
            lists.c.is_default,
            *([open_count] if with_counts else []),
        ]
        query = select(*columns).order_by(lists.c.is_default.desc(), lists.c.position, lists.c.name)
        with self._engine.connect() as conn:
            return tuple(
                ReminderList(
                    id=r[0],
                    name=r[1],
                    isDefault=bool(r[2]),
                    count=r[3] if with_counts else None,
                    account=self.account,
                )
                for r in conn.execute(query)
            )

    def create_list(self, name: str) -> ReminderList:
        name = check_text("name", name, limit=200).strip()
        if not name:
            raise InvalidParams.empty_name()
        taken = InvalidParams.name_taken("list", name)
        with self._writer.begin() as conn:
            existing = conn.execute(select(lists.c.name, lists.c.position)).all()
            # Names match case-insensitively everywhere (seed 002), beyond ASCII too: SQLite's
            # NOCASE only folds ASCII, so the full Unicode check happens here.
            if any(row.name.casefold() == name.casefold() for row in existing):
                raise taken
            list_id = new_id()
            try:
                conn.execute(
                    lists.insert().values(
                        id=list_id,
                        name=name,
                        is_default=False,
                        position=max((row.position for row in existing), default=-1) + 1,
                        created=format_datetime(now()),
                    )
                )
            except IntegrityError as exc:
                raise taken from exc
        return ReminderList(id=list_id, name=name, isDefault=False, count=0, account=self.account)

    def answers_at_once(self, query: ReminderQuery | EventRange | None) -> bool:
        """The lists, a reminder by id, and a fetch that walks an index for at most
        ``AT_ONCE_ROWS`` rows: one status, an order an index holds, no filter on due dates (a test
        holds this to SQLite's own query plans)."""
        if query is None:
            return True
        return (
            isinstance(query, ReminderQuery)
            and query.scope.status != "all"
            and query.order in rows.INDEX_ORDERS
            and query.due_before is None
            and query.include_no_due  # else a walk may pass every undated one to fill its limit
            and query.limit is not None
            and query.limit + query.offset <= AT_ONCE_ROWS
            and query.scope.text is None  # a text is matched on every reminder of the scope
        )

    def fetch(self, query: ReminderQuery) -> list[Reminder]:
        # Reminders are frozen: the cached tuple can be handed out as a fresh list.
        return list(self._cache.get(("fetch", query), lambda: self._fetch(query)))

    def _fetch(self, query: ReminderQuery) -> tuple[Reminder, ...]:
        if query.scope.text is not None:
            return self._fetch_mentioning(query, query.scope.text)
        where = scope_filter(query.scope)
        if query.due_before is not None:
            due_ok = reminders.c.due_sort < query.due_before.timestamp()
            where.append(due_ok | reminders.c.due.is_(None) if query.include_no_due else due_ok)
        elif not query.include_no_due:
            where.append(reminders.c.due.is_not(None))
        statement = rows.base_select().where(*where).order_by(*rows.ORDERS[query.order])
        if query.limit is not None:
            statement = statement.limit(query.limit)
        if query.offset:
            statement = statement.offset(query.offset)
        with self._engine.connect() as conn:
            return tuple(rows.to_reminders(conn, conn.execute(statement).all()))

    def _fetch_mentioning(self, query: ReminderQuery, text: str) -> tuple[Reminder, ...]:
        """A fetch of the reminders mentioning ``text``: matched here, after SQL has scoped and
        ordered them, as SQLite's own case folding knows ASCII only ("É" would miss "é")."""
        whole = replace(query, scope=replace(query.scope, text=None), limit=None, offset=0)
        found = mentioning(self._fetch(whole), text)
        end = None if query.limit is None else query.offset + query.limit
        return tuple(found[query.offset : end])

    def get(self, reminder_id: str) -> Reminder:
        with self._engine.connect() as conn:
            return self._get(conn, reminder_id)

    def _get(self, conn: Any, reminder_id: str) -> Reminder:
        row = conn.execute(rows.base_select().where(reminders.c.id == reminder_id)).first()
        if row is None:
            raise NotFound.reminder(reminder_id)
        return rows.to_reminders(conn, [row])[0]

    def set_default_list(self, list_id: str) -> None:
        with self._writer.begin() as conn:
            self._require_lists(conn, {list_id})
            # Clear first: one default at every statement (a unique index holds it).
            conn.execute(lists.update().values(is_default=False))
            conn.execute(lists.update().where(lists.c.id == list_id).values(is_default=True))

    def create(self, items: Sequence[NewReminder]) -> list[Reminder]:
        stamp = now()
        ids = reminder_ids(len(items))
        token = next_token()
        new_rows = [self._new_row(rid, item, stamp) for rid, item in zip(ids, items, strict=True)]
        entering()  # the rows are built: only SQL under the write lock
        with self._writer.begin() as conn:
            replayed = applied.replayed(conn, token)
            if replayed is not None:  # done before, by this same proposal: report, don't redo
                ids = replayed["ids"]
                found = {r.id: r for r in self._read(conn, ids)}
                return [found[rid] for rid in ids if rid in found]
            applied.record(conn, token, {"ids": ids})
            self._require_lists(conn, {item.list_id for item in items})
            conn.execute(reminders.insert(), new_rows)
            rows.add_tags(conn, {rid: item.tags for rid, item in zip(ids, items, strict=True)})
            found = {r.id: r for r in self._read(conn, ids)}
        return [found[rid] for rid in ids]

    def update(self, reminder_id: str, changes: ReminderChanges) -> Reminder:
        values: dict[str, Any] = {"modified": format_datetime(now())}
        given = cast(dict[str, Any], changes)
        for key, columns in _CHANGED.items():
            if key in given:
                values.update(columns(given[key]))
        token = next_token()
        entering()
        with self._writer.begin() as conn:
            if applied.replayed(conn, token) is not None:
                return self._get(conn, reminder_id)
            if "listId" in changes:
                self._require_lists(conn, {changes["listId"]})
            applied.record(conn, token, {"id": reminder_id})
            done = conn.execute(
                reminders.update().where(reminders.c.id == reminder_id).values(**values)
            )
            if done.rowcount == 0:
                raise NotFound.reminder(reminder_id)
            if "tags" in changes:
                rows.store_tags(conn, reminder_id, changes["tags"])
            return self._get(conn, reminder_id)

    def delete(self, reminder_id: str) -> None:
        token = next_token()
        entering()
        with self._writer.begin() as conn:
            if applied.replayed(conn, token) is not None:
                return
            applied.record(conn, token, {"id": reminder_id})
            done = conn.execute(reminders.delete().where(reminders.c.id == reminder_id))
            if done.rowcount == 0:
                raise NotFound.reminder(reminder_id)

    def search(self, scope: ReminderScope, query: Query, limit: int, offset: int = 0) -> Any:
        if scope.text is not None:  # matched in Python (see _fetch_mentioning): the rest too
            result = query.evaluate([r.to_wire() for r in self.fetch(ReminderQuery(scope))])
            return result[offset : offset + limit] if isinstance(result, list) else result
        with self._engine.connect() as conn:
            return search(conn, scope_filter(scope), query, limit, offset)

    def _read(self, conn: Any, ids: Sequence[str]) -> list[Reminder]:
        found = conn.execute(rows.base_select().where(reminders.c.id.in_(ids))).all()
        return rows.to_reminders(conn, found)

    @staticmethod
    def _require_lists(conn: Any, list_ids: set[str]) -> None:
        known = set(conn.execute(select(lists.c.id).where(lists.c.id.in_(list_ids))).scalars())
        missing = sorted(list_ids - known)
        if missing:
            raise NotFound.reminder_list(missing[0])

    @staticmethod
    def _new_row(reminder_id: str, item: NewReminder, stamp: datetime) -> dict[str, Any]:
        return {
            "id": reminder_id,
            "list_id": item.list_id,
            "title": item.title,
            "notes": item.notes,
            "priority": item.priority,
            "is_flagged": item.is_flagged,
            "url": item.url,
            "parent_id": item.parent_id,
            "recurrence": item.recurrence,
            **rows.start_column(item.start),
            **rows.alarms_column(item.alarms),
            **rows.due_columns(item.due),
            **rows.completion_columns(item.completion),
            **rows.created_columns(stamp),
        }


def _column(name: str) -> Callable[[Any], dict[str, Any]]:
    return lambda value: {name: value}


# A change (by wire name) -> the columns it writes.
_CHANGED: dict[str, Callable[[Any], dict[str, Any]]] = {
    "title": _column("title"),
    "notes": _column("notes"),
    "priority": _column("priority"),
    "url": _column("url"),
    "isFlagged": _column("is_flagged"),
    "listId": _column("list_id"),
    "recurrence": _column("recurrence"),
    "dueDate": rows.due_columns,
    "completionDate": rows.completion_columns,
    "startDate": rows.start_column,
    "alarms": rows.alarms_column,
}
