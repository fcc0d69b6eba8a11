"""The calendar tables of a local.db, and the mirror API over them (see
``fruitctl.backends.local.calendars`` for the contract another backend relies on)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from sqlalchemy import Connection, Engine, select, update

from fruitctl.backends import ical_events as ical
from fruitctl.backends import ical_occurrences as occurrences
from fruitctl.backends.local.tables import LOCAL_ACCOUNT, calendars, events
from fruitctl.domain.calendar import Calendar
from fruitctl.domain.dates import format_datetime, now
from fruitctl.domain.errors import NotFound

WRITE = {"fruitctl_write": True}  # see fruitctl.store.engine.WRITE_OPTION


@dataclass(frozen=True)
class StoredObject:
    uid: str
    calendar_id: str
    ics: str
    remote: str | None


class Prepared(NamedTuple):
    """An object's text and the index columns found from it - the CPU part of a write, done
    before the write lock is taken."""

    text: str
    first: float
    last: float | None

    @classmethod
    def of(cls, text: str) -> Prepared:
        return cls(text, *occurrences.bounds(text))


class CalendarTables:
    """Calendars and raw calendar objects in ``local.db``: the narrow API a mirror writes."""

    def __init__(self, engine: Engine, account: str = LOCAL_ACCOUNT) -> None:
        self._engine = engine
        self.account = account
        """What its calendars say they are in (a CalDAV mirror: that account)."""
        self._writer = engine.execution_options(**WRITE)

    def close(self) -> None:
        self._engine.dispose()

    # -- the mirror API --------------------------------------------------------------------------

    def put_calendar(
        self,
        calendar_id: str,
        name: str,
        *,
        is_default: bool = False,
        read_only: bool = False,
        color: str | None = None,
    ) -> Calendar:
        """Create or replace the calendar ``calendar_id``; its events stay."""
        values = {"name": name, "is_default": is_default, "read_only": read_only, "color": color}
        with self._writer.begin() as conn:
            if is_default:  # one default at most (a unique index holds the database to it)
                conn.execute(update(calendars).values(is_default=False))
            done = conn.execute(
                update(calendars).where(calendars.c.id == calendar_id).values(**values)
            )
            if done.rowcount == 0:
                conn.execute(
                    calendars.insert().values(
                        id=calendar_id,
                        position=self._next_position(conn),
                        created=format_datetime(now()),
                        **values,
                    )
                )
        return Calendar(
            id=calendar_id,
            name=name,
            isDefault=is_default,
            readOnly=read_only,
            color=color,
            account=self.account,
        )

    def remove_calendar(self, calendar_id: str) -> None:
        """Remove a calendar and every event in it (no error if it is not there)."""
        with self._writer.begin() as conn:
            conn.execute(events.delete().where(events.c.calendar_id == calendar_id))
            conn.execute(calendars.delete().where(calendars.c.id == calendar_id))

    def put_object(self, calendar_id: str, ics: str, *, remote: str | None = None) -> str:
        """Store the calendar object ``ics`` in ``calendar_id``, replacing the one of the same
        UID (wherever it was); returns the UID. ``BrokenObject`` if the text holds no readable
        event, ``NotFound`` if the calendar does not exist - nothing is stored then."""
        uid = ical.uid_of(ics)
        first, last = occurrences.bounds(ics)
        with self._writer.begin() as conn:
            self._calendar(conn, calendar_id)
            stamp = format_datetime(now())
            values = {
                "calendar_id": calendar_id,
                "ics": ics,
                "first_start": first,
                "last_end": last,
                "modified": stamp,
                "remote": remote,
            }
            done = conn.execute(update(events).where(events.c.uid == uid).values(**values))
            if done.rowcount == 0:
                conn.execute(events.insert().values(uid=uid, created=stamp, **values))
        return uid

    def remove_object(self, uid: str) -> bool:
        """Remove the calendar object ``uid``; False if there was none."""
        with self._writer.begin() as conn:
            return bool(conn.execute(events.delete().where(events.c.uid == uid)).rowcount)

    def object_uids(self, calendar_id: str | None = None) -> dict[str, str | None]:
        """UID -> ``remote`` of every stored object (of one calendar, if given)."""
        query = select(events.c.uid, events.c.remote)
        if calendar_id is not None:
            query = query.where(events.c.calendar_id == calendar_id)
        with self._engine.connect() as conn:
            return {uid: remote for uid, remote in conn.execute(query)}

    def get_object(self, uid: str) -> StoredObject:
        """The stored object ``uid`` (``NotFound`` if there is none)."""
        with self._engine.connect() as conn:
            return self._object(conn, uid)

    # -- shared by the backend -------------------------------------------------------------------

    def _object(self, conn: Connection, uid: str) -> StoredObject:
        row = conn.execute(
            select(events.c.uid, events.c.calendar_id, events.c.ics, events.c.remote).where(
                events.c.uid == uid
            )
        ).first()
        if row is None:
            raise NotFound.event(uid)
        return StoredObject(*row)

    def _calendar(self, conn: Connection, calendar_id: str) -> Calendar:
        for calendar in self._calendars(conn):
            if calendar.id == calendar_id:
                return calendar
        raise NotFound.calendar(calendar_id)

    def _calendars(self, conn: Connection) -> list[Calendar]:
        query = select(
            calendars.c.id,
            calendars.c.name,
            calendars.c.is_default,
            calendars.c.read_only,
            calendars.c.color,
        ).order_by(calendars.c.is_default.desc(), calendars.c.position, calendars.c.name)
        return [
            Calendar(
                id=r[0],
                name=r[1],
                isDefault=bool(r[2]),
                readOnly=bool(r[3]),
                color=r[4],
                account=self.account,
            )
            for r in conn.execute(query)
        ]

    def _store(self, conn: Connection, uid: str, calendar_id: str, made: Prepared) -> None:
        """Replace an existing object's text (and calendar), re-indexed."""
        conn.execute(
            update(events)
            .where(events.c.uid == uid)
            .values(
                calendar_id=calendar_id,
                ics=made.text,
                first_start=made.first,
                last_end=made.last,
                modified=format_datetime(now()),
            )
        )

    @staticmethod
    def _next_position(conn: Connection) -> int:
        positions = conn.execute(select(calendars.c.position)).scalars().all()
        return max(positions, default=-1) + 1
