"""The embedded calendar store: calendars and events in local.db, events as iCalendar text.

Each event (or recurring series, with its moved and retitled occurrences) is one row of
``events``: its calendar object text - the source of truth, read and written by
``fruitctl.backends.ical_events`` / ``ical_edit`` - plus ``first_start`` / ``last_end`` (epoch
seconds; ``last_end`` NULL for a series without end) so a range query only expands the rows
that can overlap it. Event ids are UIDs; an occurrence is ``<uid>@<occurrence key>``.

The mirror API
--------------
Another backend (CalDAV) can keep a local mirror of its server in the same tables - a local.db
of its own, opened with ``fruitctl.store.open_database(path, "local")`` - and answer reads
through ``LocalCalendars`` on it. It writes the mirror with exactly these methods (of
``CalendarTables``, which ``LocalCalendars`` extends); they take no write tokens and check no
read-only flags, since they copy what the server already holds:

``put_calendar(calendar_id, name, *, is_default=False, read_only=False, color=None) -> Calendar``
    Create or replace a calendar under the id the mirror chooses (e.g. the collection URL).
    ``is_default=True`` clears the flag elsewhere. A new local.db holds one default calendar
    named "Calendar"; a mirror that does not want it calls ``remove_calendar`` on it.
``remove_calendar(calendar_id) -> None``
    The calendar and all its objects; no error if it is not there.
``put_object(calendar_id, ics, *, remote=None) -> str``
    Store a raw calendar object (a VCALENDAR with one UID: a VEVENT, or a master and its
    RECURRENCE-ID overrides) under its UID, replacing any stored object with that UID, and
    return the UID. ``remote`` is opaque text kept with it (href and ETag, say). Raises
    ``ical_events.BrokenObject`` for text that holds no readable event (log it and skip it)
    and ``NotFound`` for an unknown calendar; nothing is stored then.
``remove_object(uid) -> bool``
    False if there was no such object.
``object_uids(calendar_id=None) -> dict[str, str | None]``
    UID -> ``remote`` of the stored objects, to compare with the server's listing.
``get_object(uid) -> StoredObject``
    ``(uid, calendar_id, ics, remote)``, to edit with ``ical_edit`` before a PUT.

Reads (``calendars``, ``events``, ``get_event``) work the same on a mirror as on local events.

Writes do their CPU work - building the iCalendar text, finding the first and last occurrence of
a series - before they take the store's write lock (BEGIN IMMEDIATE), so no other process waits
on it; under the lock they check what they read and write rows. An object changed between the
read and the lock (rare: another process's write) is prepared again, under the lock.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from datetime import timedelta
from typing import TypeVar

from sqlalchemy import Connection, or_, select

from fruitctl.backends import ical_edit
from fruitctl.backends import ical_events as ical
from fruitctl.backends import ical_occurrences as occurrences
from fruitctl.backends.local.applied import record, replayed
from fruitctl.backends.local.calendar_tables import CalendarTables, Prepared, StoredObject
from fruitctl.backends.local.tables import events
from fruitctl.domain.calendar import (
    CALENDAR_NAME_MAX,
    Calendar,
    Event,
    event_sort_key,
    split_event_id,
)
from fruitctl.domain.dates import format_datetime, now
from fruitctl.domain.errors import InvalidParams, NotFound, PermissionDenied
from fruitctl.domain.reminders import check_text
from fruitctl.domain.writes import entering, next_token
from fruitctl.ports import (
    EventChanges,
    EventRange,
    EventScope,
    NewEvent,
    PermissionStatus,
    ReminderQuery,
)

__all__ = ["CalendarTables", "LocalCalendars", "StoredObject"]
log = logging.getLogger(__name__)
AT_ONCE_DAYS = timedelta(days=31)  # the longest range read on a front door's event loop
Made = TypeVar("Made", Prepared, Prepared | None)


class LocalCalendars(CalendarTables):
    """``CalendarBackend`` on local.db."""

    name = "local"

    def permission_status(self) -> PermissionStatus:
        return "authorized"

    def calendars(self) -> list[Calendar]:
        with self._engine.connect() as conn:
            return self._calendars(conn)

    def create_calendar(self, name: str) -> Calendar:
        name = check_text("name", name, limit=CALENDAR_NAME_MAX).strip()
        if not name:
            raise InvalidParams.empty_name(field="name")
        if any(c.name.casefold() == name.casefold() for c in self.calendars()):
            raise InvalidParams.name_taken("calendar", name, field="name")
        return self.put_calendar(secrets.token_hex(8), name)

    # -- reads -----------------------------------------------------------------------------------

    def answers_at_once(self, query: ReminderQuery | EventRange | None) -> bool:
        """A range of at most ``AT_ONCE_DAYS``: an index range of rows, each series cut from
        its kept timeline (``ical_occurrences``)."""
        return isinstance(query, EventRange) and query.end - query.start <= AT_ONCE_DAYS

    def events(self, query: EventRange) -> list[Event]:
        start, end = query.start.timestamp(), query.end.timestamp()
        statement = select(events.c.uid, events.c.calendar_id, events.c.ics).where(
            events.c.first_start < end,
            or_(events.c.last_end.is_(None), events.c.last_end >= start),  # >=: zero-length events
        )
        if query.calendar_ids is not None:
            statement = statement.where(events.c.calendar_id.in_(query.calendar_ids))
        with self._engine.connect() as conn:
            by_id = {c.id: c for c in self._calendars(conn)}
            rows = conn.execute(statement).all()
        found: list[Event] = []
        for uid, calendar_id, ics in rows:
            try:
                found += occurrences.expand(ics, by_id[calendar_id], query.start, query.end)
            except (ical.BrokenObject, ValueError) as exc:  # one bad object must not hide all
                log.warning("skipping unreadable event %s: %s", uid, exc)
        found.sort(key=event_sort_key)
        return found if query.limit is None else found[: query.limit]

    def get_event(self, event_id: str) -> Event:
        with self._engine.connect() as conn:
            return self._event(conn, event_id)

    # -- writes ----------------------------------------------------------------------------------

    def create_event(self, new: NewEvent) -> Event:
        token = next_token()
        uid = secrets.token_hex(8)
        stamp = now()
        made = Prepared.of(ical_edit.new_object(uid, new, stamp))
        entering()
        with self._writer.begin() as conn:
            done = replayed(conn, token)
            if done is not None:  # this proposal created it before a crash: report, don't redo
                return self._event(conn, done["id"])
            calendar = self._writable(conn, new.calendar_id)
            record(conn, token, {"id": uid})
            conn.execute(
                events.insert().values(
                    uid=uid,
                    calendar_id=calendar.id,
                    ics=made.text,
                    first_start=made.first,
                    last_end=made.last,
                    created=format_datetime(stamp),
                    modified=format_datetime(stamp),
                )
            )
        return ical.series_event(made.text, calendar)

    def update_event(self, event_id: str, changes: EventChanges, scope: EventScope) -> Event:
        """Returns the occurrence for an occurrence change, else the event (series) itself:
        moving a series renames its occurrences, so the id given may name none any more."""
        token = next_token()
        with self._engine.connect() as conn:
            read, key = self._locate(conn, event_id)
            if replayed(conn, token) is not None:
                return self._event(conn, event_id if scope == "occurrence" else read.uid)

        def edit(text: str) -> Prepared:
            return Prepared.of(ical_edit.apply_changes(text, changes, scope, key, now()))

        made = edit(read.ics)
        entering()
        with self._writer.begin() as conn:
            stored, made = self._again(conn, event_id, read, made, edit)
            target = self._writable(conn, changes.get("calendarId", stored.calendar_id))
            if key is not None and scope == "occurrence" and target.id != stored.calendar_id:
                raise InvalidParams.occurrence_cannot_move()
            self._writable(conn, stored.calendar_id)
            record(conn, token, {"id": event_id})
            self._store(conn, stored.uid, target.id, made)
        if key is not None and scope == "occurrence":
            return ical.occurrence_event(made.text, target, key)
        return ical.series_event(made.text, target)

    def delete_event(self, event_id: str, scope: EventScope) -> None:
        token = next_token()
        with self._engine.connect() as conn:
            if replayed(conn, token) is not None:
                return
            read, key = self._locate(conn, event_id)

        def edit(text: str) -> Prepared | None:
            """What is left of the object: None when it goes whole."""
            if key is not None and scope == "occurrence":
                return Prepared.of(ical_edit.remove_occurrence(text, key, now()))
            if key is None and scope == "occurrence" and ical.is_series(ical.parse(text)):
                raise InvalidParams.recurring_delete(event_id)
            return None

        made = edit(read.ics)
        entering()
        with self._writer.begin() as conn:
            stored, made = self._again(conn, event_id, read, made, edit)
            self._writable(conn, stored.calendar_id)
            record(conn, token, {"id": event_id})
            if made is None:
                conn.execute(events.delete().where(events.c.uid == stored.uid))
            else:
                self._store(conn, stored.uid, stored.calendar_id, made)

    # -- helpers ---------------------------------------------------------------------------------

    def _event(self, conn: Connection, event_id: str) -> Event:
        stored, key = self._locate(conn, event_id)
        calendar = self._calendar(conn, stored.calendar_id)
        if key is None:
            return ical.series_event(stored.ics, calendar)
        return ical.occurrence_event(stored.ics, calendar, key)

    def _again(
        self,
        conn: Connection,
        event_id: str,
        read: StoredObject,
        made: Made,
        edit: Callable[[str], Made],
    ) -> tuple[StoredObject, Made]:
        """Under the write lock: the object as stored now, and ``made`` - prepared again from it
        if it changed since ``read`` (another process wrote it meanwhile)."""
        stored, _ = self._locate(conn, event_id)
        return stored, made if stored.ics == read.ics else edit(stored.ics)

    def _locate(self, conn: Connection, event_id: str) -> tuple[StoredObject, str | None]:
        """The stored object an id names, and the occurrence key in it (if any). A UID that
        itself looks like ``x@20260101`` (a server's choice) is matched whole first."""
        try:
            return self._object(conn, event_id), None
        except NotFound:
            uid, key = split_event_id(event_id)
            if key is None:
                raise
        try:
            return self._object(conn, uid), key
        except NotFound as exc:
            raise NotFound.event(event_id) from exc

    def _writable(self, conn: Connection, calendar_id: str) -> Calendar:
        calendar = self._calendar(conn, calendar_id)
        if calendar.readOnly:
            raise PermissionDenied.read_only_calendar(calendar.name)
        return calendar
