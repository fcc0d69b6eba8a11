"""Reminders on a CalDAV server (VTODOs), read from the local mirror and written server-first.

Reads are the local backend's own code on the mirror file, after a sync when the mirror is older
than the staleness bound. A write goes to the server first - with ``If-Match`` on the ETag the
mirror holds, so a change made elsewhere is a ``Conflict`` - and only then into the mirror.

How a write stays exactly-once through lost answers and re-runs: ``writes``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection

from fruitctl.backends.caldav import state, todos
from fruitctl.backends.caldav.collections import named
from fruitctl.backends.caldav.state import Known, Stored
from fruitctl.backends.caldav.sync import Mirror, Progress, Report
from fruitctl.backends.caldav.wire import RemoteCollection
from fruitctl.backends.caldav.writes import Writer, new_uids
from fruitctl.backends.local import mirror as rows
from fruitctl.backends.local.reminders import LocalReminders
from fruitctl.domain.dates import now
from fruitctl.domain.errors import FruitctlError, InvalidParams, NotFound
from fruitctl.domain.query import Query
from fruitctl.domain.reminders import Reminder, ReminderList, check_text
from fruitctl.ports import (
    NewReminder,
    PermissionStatus,
    ReminderChanges,
    ReminderQuery,
    ReminderScope,
)

DEFAULT_NAMES = ("reminders", "tasks")
DEFAULT_LIST_KEY = "default_list"  # caldav_meta: the list chosen as default through fruitctl


class TodoKind:
    """VTODOs in the mirror: each selected collection is a reminder list."""

    component = "VTODO"

    def __init__(self, lists: Sequence[str] | None) -> None:
        self.lists = None if lists is None else [name.casefold() for name in lists]

    def selects(self, remote: RemoteCollection) -> bool:
        return self.lists is None or named(remote.name, remote.href, self.lists)

    def containers(self, conn: Connection, mirrored: Sequence[Known]) -> None:
        wanted = [rows.MirroredList(k.id, k.name, k.position) for k in mirrored]
        chosen = state.get_meta(conn, DEFAULT_LIST_KEY)
        rows.replace_lists(conn, wanted, self.default(mirrored, chosen))

    def default(self, mirrored: Sequence[Known], chosen: str | None = None) -> str | None:
        """The first list configured; else the one chosen through fruitctl (``demo`` picks
        Inbox); else one called Reminders or Tasks (what Apple's and most other clients name
        theirs); else the one mirrored first."""
        if not self.lists and any(k.id == chosen for k in mirrored):
            return chosen
        for names in ([self.lists[0]] if self.lists else [], DEFAULT_NAMES):
            found = [k.id for k in mirrored if named(k.name, k.href, names)]
            if found:
                return found[0]
        return mirrored[0].id if mirrored else None

    def read(self, text: str, collection_id: str) -> tuple[str, str | None, Any]:
        record = todos.read(text, collection_id)
        return record.id, record.parent_id, record

    def put(self, conn: Connection, items: Sequence[Any]) -> None:
        rows.put_reminders(conn, items)

    def drop(self, conn: Connection, uids: Sequence[str]) -> None:
        rows.drop_reminders(conn, uids)

    def finish(self, conn: Connection) -> None:
        rows.link_parents(conn, state.parents(conn))


class CaldavReminders:
    """The ``caldav`` reminders backend."""

    name = "caldav"

    def __init__(self, mirror: Mirror) -> None:
        self.mirror = mirror
        mirror.attach()
        self._local = LocalReminders(mirror.engine, mirror.dav.account.title)
        self._writes = Writer(mirror)
        self._problem: FruitctlError | None = None

    def close(self) -> None:
        self.mirror.detach()
        self._local.close()

    def sync(self, progress: Callable[[Progress], None] | None = None) -> Report:
        return self.mirror.sync(progress)

    def permission_status(self) -> PermissionStatus:
        status, self._problem = self.mirror.access()
        return status

    def access_problem(self) -> dict[str, Any] | None:
        """Why the last ``permission_status`` could not tell (a server out of reach)."""
        return None if self._problem is None else self._problem.to_dict()

    # -- reads: the mirror, fresh enough --------------------------------------------------------

    def lists(self, *, with_counts: bool = True) -> list[ReminderList]:
        self.mirror.ensure_fresh()
        return self._local.lists(with_counts=with_counts)

    def fetch(self, query: ReminderQuery) -> list[Reminder]:
        self.mirror.ensure_fresh()
        return self._local.fetch(query)

    def get(self, reminder_id: str) -> Reminder:
        self.mirror.ensure_fresh()
        return self._local.get(reminder_id)

    def search(self, scope: ReminderScope, query: Query, limit: int, offset: int = 0) -> Any:
        self.mirror.ensure_fresh()
        return self._local.search(scope, query, limit, offset)

    # -- writes: the server first ---------------------------------------------------------------

    def create_list(self, name: str) -> ReminderList:
        name = check_text("name", name, limit=200).strip()
        if not name:
            raise InvalidParams.empty_name()
        self.mirror.ensure_fresh()
        with self.mirror.lock:
            if any(lst.name.casefold() == name.casefold() for lst in self._local.lists()):
                raise InvalidParams.name_taken("list", name)
            href = self.mirror.make_collection(name, new_uids(1)[0], "VTODO")
        known = self.mirror.mirrored(href)
        return ReminderList(
            id=known.id, name=name, isDefault=False, count=0, account=self._local.account
        )

    def set_default_list(self, list_id: str) -> None:
        """Remembered in the mirror (CalDAV has no default list); ``[caldav] lists`` wins."""
        with self.mirror.lock:
            self._list(list_id)
            with self.mirror.writer.begin() as conn:
                state.set_meta(conn, DEFAULT_LIST_KEY, list_id)
        self.mirror.sync()

    def create(self, items: Sequence[NewReminder]) -> list[Reminder]:
        stamp = now()
        uids = new_uids(len(items))
        self.mirror.ensure_fresh()
        with self.mirror.lock:
            targets = [self._list(item.list_id) for item in items]
            done: list[str] = []
            try:
                for uid, item, known in zip(uids, items, targets, strict=True):
                    done.append(self._writes.create(known, uid, todos.new_text(uid, item, stamp)))
            except Exception:
                self._writes.undo(done)  # all or nothing, as the port promises
                raise
        return [self._local.get(uid) for uid in uids]

    def update(self, reminder_id: str, changes: ReminderChanges) -> Reminder:
        self.mirror.ensure_fresh()
        with self.mirror.lock:
            stored = self._stored(reminder_id)
            target = self._list(changes["listId"]) if "listId" in changes else None
            text = todos.changed_text(stored.ics or "", changes, now())
            etag = self._writes.replace(stored, text)
            if target is not None and target.id != stored.collection_id:
                self._writes.move(stored, etag, target)
            else:
                self._writes.record(stored.collection_id, stored.href, etag, text)
        return self._local.get(reminder_id)

    def delete(self, reminder_id: str) -> None:
        self.mirror.ensure_fresh()
        with self.mirror.lock:
            self._writes.remove(self._stored(reminder_id))

    def _stored(self, reminder_id: str) -> Stored:
        stored = self._writes.stored(reminder_id, "VTODO")
        if stored is None:
            raise NotFound.reminder(reminder_id)
        return stored

    def _list(self, list_id: str) -> Known:
        known = self._writes.collection(list_id, "VTODO")
        if known is None:
            raise NotFound.reminder_list(list_id)
        return known
