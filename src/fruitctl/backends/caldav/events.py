"""Events on a CalDAV server (VEVENTs), read from the local mirror and written server-first.

Reads are ``LocalCalendars`` on the mirror file: RRULE/EXDATE/RECURRENCE-ID expansion, zones and
ranges work exactly as for local events. Writes edit the object text with ``ical_edit`` (a moved
or removed occurrence is an override or an EXDATE in the series' one object) and PUT it with the
ETag the mirror holds; see ``writes`` for how a write stays exactly-once.

The mirror rows are written here, inside the sync's own transaction, into the same tables
``LocalCalendars`` reads (``calendars``, ``events``): its mirror API opens a transaction per
call, which cannot run inside the one a sync batch holds on the same SQLite file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from sqlalchemy import Connection, delete, select, update
from sqlalchemy.dialects.sqlite import insert

from fruitctl.backends import ical_edit, ical_index
from fruitctl.backends import ical_events as ical
from fruitctl.backends.caldav.collections import named
from fruitctl.backends.caldav.state import Known, Stored
from fruitctl.backends.caldav.sync import Mirror, Progress, Report
from fruitctl.backends.caldav.wire import RemoteCollection
from fruitctl.backends.caldav.writes import Writer, new_uids
from fruitctl.backends.local.cache import ReadCache
from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.backends.local.rows import execute_many
from fruitctl.backends.local.tables import calendars, events
from fruitctl.domain.calendar import (
    CALENDAR_NAME_MAX,
    Calendar,
    Event,
    event_sort_key,
    split_event_id,
)
from fruitctl.domain.dates import format_datetime, now
from fruitctl.domain.errors import FruitctlError, InvalidParams, NotFound
from fruitctl.domain.reminders import check_text
from fruitctl.ports import EventChanges, EventRange, EventScope, NewEvent, PermissionStatus

DEFAULT_NAMES = ("calendar", "personal", "home")
_EVENT_COLUMNS = ("calendar_id", "ics", "first_start", "last_end", "modified")


class EventKind:
    """VEVENTs in the mirror: each selected collection is a calendar."""

    component = "VEVENT"

    def __init__(self, names: Sequence[str] | None) -> None:
        self.names = None if names is None else [name.casefold() for name in names]

    def selects(self, remote: RemoteCollection) -> bool:
        return self.names is None or named(remote.name, remote.href, self.names)

    def containers(self, conn: Connection, mirrored: Sequence[Known]) -> None:
        default = self.default(mirrored)
        wanted = {(k.id, k.name, k.id == default, k.position) for k in mirrored}
        current = {
            (r.id, r.name, bool(r.is_default), r.position) for r in conn.execute(select(calendars))
        }
        if wanted == current:
            return
        keep = {k.id for k in mirrored}
        gone = [cid for cid, *_ in current if cid not in keep]
        conn.execute(delete(events).where(events.c.calendar_id.in_(gone)))
        conn.execute(delete(calendars).where(calendars.c.id.in_(gone)))
        conn.execute(update(calendars).values(is_default=False))  # one default at every step
        for k in mirrored:
            values = {"name": k.name, "is_default": k.id == default, "position": k.position}
            statement = insert(calendars).values(
                id=k.id, read_only=False, created=format_datetime(now()), **values
            )
            conn.execute(statement.on_conflict_do_update(index_elements=["id"], set_=values))

    def default(self, mirrored: Sequence[Known]) -> str | None:
        """The first calendar configured; else one called Calendar, Personal or Home; else the
        one mirrored first."""
        for names in ([self.names[0]] if self.names else [], DEFAULT_NAMES):
            found = [k.id for k in mirrored if named(k.name, k.href, names)]
            if found:
                return found[0]
        return mirrored[0].id if mirrored else None

    def read(self, text: str, collection_id: str) -> tuple[str, str | None, Any]:
        uid, first, last = ical_index.index(text)  # BrokenObject (a ValueError): no event
        row = {"uid": uid, "calendar_id": collection_id, "ics": text}
        return uid, None, {**row, "first_start": first, "last_end": last}

    def put(self, conn: Connection, rows: Sequence[Any]) -> None:
        stamp = format_datetime(now())
        values = [{**row, "created": stamp, "modified": stamp} for row in rows]
        execute_many(conn, _UPSERT, list({v["uid"]: v for v in values}.values()))

    def drop(self, conn: Connection, uids: Sequence[str]) -> None:
        conn.execute(delete(events).where(events.c.uid.in_(list(uids))))

    def finish(self, conn: Connection) -> None:
        """Nothing to link: a series and its overrides travel as one object."""


def _overlaps(event: Event, start: datetime, end: datetime, zone: tzinfo) -> bool:
    """``ical_events``' rule: overlapping ``[start, end)``, a zero-length event belonging to the
    range it starts in; a date counts from its midnight in the range's zone."""
    first, last = _moment(event.start, zone), _moment(event.end, zone)
    return first < end and (last > start or (last == first and first >= start))


def _moment(value: date | datetime, zone: tzinfo) -> datetime:
    return value if isinstance(value, datetime) else datetime.combine(value, time(), zone)


def _upsert() -> Any:
    statement = insert(events)
    return statement.on_conflict_do_update(
        index_elements=[events.c.uid], set_={c: statement.excluded[c] for c in _EVENT_COLUMNS}
    )


_UPSERT = _upsert()


class CaldavCalendars:
    """The ``caldav`` calendar backend."""

    name = "caldav"

    def __init__(self, mirror: Mirror) -> None:
        self.mirror = mirror
        mirror.attach()
        self._local = LocalCalendars(mirror.engine, mirror.dav.account.title)
        self._writes = Writer(mirror)
        self._cache = ReadCache(mirror.engine, entries=128)  # days, and the ranges cut from them
        self._problem: FruitctlError | None = None

    def close(self) -> None:
        self.mirror.detach()
        self._cache.close()
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

    def calendars(self) -> list[Calendar]:
        self.mirror.ensure_fresh()
        return self._local.calendars()

    def events(self, query: EventRange) -> list[Event]:
        """The local store's answer, from a cache of whole days: "upcoming" asks again and again
        with a start that moves by the second, and expanding every series each time would cost
        as much as asking the server. Each day (in the zone of the range) is expanded once
        (until the mirror changes), so a new range expands only the days no range held yet;
        the range is then cut from its days by the very rule the store applies."""
        self.mirror.ensure_fresh()
        zone = query.start.tzinfo or UTC
        first = query.start.astimezone(zone).date()
        last = query.end.astimezone(zone).date()
        key = ("events", query.calendar_ids, zone, first, last)
        days = self._cache.get(key, lambda: self._days(query.calendar_ids, zone, first, last))
        found = [e for e in days if _overlaps(e, query.start, query.end, zone)]
        return found if query.limit is None else found[: query.limit]

    def _days(
        self, ids: tuple[str, ...] | None, zone: tzinfo, first: date, last: date
    ) -> tuple[Event, ...]:
        """The events of the days ``first`` to ``last`` in ``zone``, in the store's order; an
        event over several of them once."""
        found: dict[tuple[str, str, str], Event] = {}
        for n in range((last - first).days + 1):
            for event in self._day(ids, zone, first + timedelta(days=n)):
                found.setdefault((event.id, event.startAt, event.endAt), event)
        return tuple(sorted(found.values(), key=event_sort_key))

    def _day(self, ids: tuple[str, ...] | None, zone: tzinfo, day: date) -> tuple[Event, ...]:
        """The events overlapping one day in ``zone``, expanded once until the mirror changes."""
        start = datetime.combine(day, time(), zone)
        end = datetime.combine(day + timedelta(days=1), time(), zone)
        ranged = EventRange(start, end, ids)
        return self._cache.get(("day", ids, zone, day), lambda: tuple(self._local.events(ranged)))

    def get_event(self, event_id: str) -> Event:
        self.mirror.ensure_fresh()
        return self._local.get_event(event_id)

    # -- writes: the server first ---------------------------------------------------------------

    def create_calendar(self, name: str) -> Calendar:
        name = check_text("name", name, limit=CALENDAR_NAME_MAX).strip()
        if not name:
            raise InvalidParams.empty_name(field="name")
        self.mirror.ensure_fresh()
        with self.mirror.lock:
            if any(c.name.casefold() == name.casefold() for c in self._local.calendars()):
                raise InvalidParams.name_taken("calendar", name, field="name")
            href = self.mirror.make_collection(name, new_uids(1)[0], "VEVENT")
        known = self.mirror.mirrored(href)
        return Calendar(id=known.id, name=name, account=self._local.account)

    def create_event(self, new: NewEvent) -> Event:
        (uid,) = new_uids(1)
        self.mirror.ensure_fresh()
        with self.mirror.lock:
            known = self._calendar(new.calendar_id)
            self._writes.create(known, uid, ical_edit.new_object(uid, new, now()))
        return self._local.get_event(uid)

    def update_event(self, event_id: str, changes: EventChanges, scope: EventScope) -> Event:
        """As ``LocalCalendars.update_event``: the occurrence for an occurrence change, else the
        event (series) itself."""
        self.mirror.ensure_fresh()
        with self.mirror.lock:
            stored, key = self._locate(event_id)
            target = self._calendar(changes.get("calendarId", stored.collection_id))
            if key is not None and scope == "occurrence" and target.id != stored.collection_id:
                raise InvalidParams.occurrence_cannot_move()
            text = ical_edit.apply_changes(stored.ics or "", changes, scope, key, now())
            etag = self._writes.replace(stored, text)
            if target.id != stored.collection_id:
                self._writes.move(stored, etag, target)
            else:
                self._writes.record(stored.collection_id, stored.href, etag, text)
        uid = ical.uid_of(text)
        return self._local.get_event(event_id if key and scope == "occurrence" else uid)

    def delete_event(self, event_id: str, scope: EventScope) -> None:
        self.mirror.ensure_fresh()
        with self.mirror.lock:
            stored, key = self._locate(event_id)
            text = stored.ics or ""
            if key is not None and scope == "occurrence":
                changed = ical_edit.remove_occurrence(text, key, now())
                etag = self._writes.replace(stored, changed)
                self._writes.record(stored.collection_id, stored.href, etag, changed)
                return
            if key is None and scope == "occurrence" and ical.is_series(ical.parse(text)):
                raise InvalidParams.recurring_delete(event_id)
            self._writes.remove(stored)

    # -- helpers --------------------------------------------------------------------------------

    def _locate(self, event_id: str) -> tuple[Stored, str | None]:
        """The stored object an id names and the occurrence key in it; a UID that itself looks
        like ``x@20260101`` (a server's choice) is matched whole first."""
        whole = self._writes.stored(event_id, "VEVENT")
        if whole is not None:
            return whole, None
        uid, key = split_event_id(event_id)
        stored = self._writes.stored(uid, "VEVENT") if key is not None else None
        if stored is None:
            raise NotFound.event(event_id)
        return stored, key

    def _calendar(self, calendar_id: str) -> Known:
        known = self._writes.collection(calendar_id, "VEVENT")
        if known is None:
            raise NotFound.calendar(calendar_id)
        return known
