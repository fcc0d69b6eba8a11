"""Server -> mirror: keep a local.db-shaped file in step with a CalDAV account.

One PROPFIND on the calendar home lists every collection with its ctag (a collection without one
is asked its sync-token or ETag). A collection whose version did not move is skipped without
another request, and a sync that found nothing changed writes nothing (so the read caches stay).
One that moved is asked what changed: an RFC 6578 sync-collection REPORT from the stored token,
or - where the server has no sync - a depth-1 PROPFIND of every member's ETag compared with the
stored ones. A collection not mirrored yet is read whole with one calendar-query REPORT; when
several are, each is asked while the one before it is being stored. Changed members are fetched
in calendar-multiget batches and written to the mirror one batch per transaction, so a sync cut
short keeps what it did and the next one resumes.

Each component has its *kind* (``VTODO`` -> reminders, ``VEVENT`` -> events), which says which
collections it mirrors and how one object becomes rows. An object that cannot be read is logged,
skipped, and remembered by its ETag, so it is not fetched again until it changes.

An answer larger than the size cap is asked for in pieces: a listing as ETags alone (then the
objects in batches), a batch in halves (``pieces``); an object too large alone is skipped like
an unreadable one.

A sync waits on the server without the mirror's lock: it takes it only to apply what came back,
so a read never queues behind a slow server, and a write waits at most for one batch to be
stored. What a write changed meanwhile is not undone: an object is applied (or removed) only
where the mirror still holds the ETag it held before the server was asked.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

from sqlalchemy import Connection, Engine

from fruitctl.backends.caldav import state
from fruitctl.backends.caldav.client import Dav
from fruitctl.backends.caldav.collections import Ahead, match, unchanged, unmirrored
from fruitctl.backends.caldav.errors import AnswerTooLarge, SyncUnsupported
from fruitctl.backends.caldav.pieces import fetch_fitting
from fruitctl.backends.caldav.state import Known, Stored
from fruitctl.backends.caldav.wire import Listing, RemoteCollection
from fruitctl.domain.errors import BackendUnavailable, FruitctlError, PermissionDenied, Timeout
from fruitctl.ports import PermissionStatus

log = logging.getLogger("fruitctl.caldav")

BATCH = 500  # objects per calendar-multiget and per mirror transaction
WRITE = {"fruitctl_write": True}  # see fruitctl.store.engine.WRITE_OPTION


@dataclass(frozen=True)
class Progress:
    collection: str
    done: int
    total: int


ProgressCallback = Callable[[Progress], None]


class Kind(Protocol):
    """How one component type lives in the mirror."""

    component: str

    def selects(self, remote: RemoteCollection) -> bool: ...

    def containers(self, conn: Connection, mirrored: Sequence[Known]) -> None:
        """Make the mirror's lists (or calendars) exactly these collections (and write nothing
        when they already are)."""
        ...

    def read(self, text: str, collection_id: str) -> tuple[str, str | None, Any]:
        """``(uid, parent uid, row)`` of one object; ``ValueError`` if it is unreadable."""
        ...

    def put(self, conn: Connection, rows: Sequence[Any]) -> None: ...

    def drop(self, conn: Connection, uids: Sequence[str]) -> None: ...

    def finish(self, conn: Connection) -> None: ...


@dataclass(frozen=True)
class Options:
    staleness_seconds: float = 60.0
    use_sync_token: bool = True
    """False compares ETags even where the server can sync (tests the fallback)."""


@dataclass
class Report:
    collections: int = 0
    unchanged: int = 0
    fetched: int = 0
    deleted: int = 0
    broken: int = 0
    modes: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    def to_wire(self) -> dict[str, Any]:
        return {**asdict(self), "seconds": round(self.seconds, 3)}


class Mirror:
    """The sync engine of one account; both CalDAV backends of a process read what it writes."""

    def __init__(
        self, dav: Dav, engine: Engine, kinds: Sequence[Kind], options: Options = Options()
    ) -> None:
        self.dav = dav
        self.engine = engine
        self.writer = engine.execution_options(**WRITE)
        self.kinds = {kind.component: kind for kind in kinds}
        self.options = options
        self.lock = threading.RLock()
        """Held to change the mirror: by a write for the whole of it (server and mirror), by a
        sync only while it applies what it fetched."""
        self._syncing = threading.Lock()
        """One sync at a time; taken before ``lock``, never while holding it."""
        self.created: set[str] = set()
        self._fresh_until = 0.0
        self._synced_before = False
        self._users = 0
        self._bind_account()

    def attach(self) -> None:
        """A backend starts using this mirror."""
        with self.lock:
            self._users += 1

    @property
    def in_use(self) -> bool:
        return self._users > 0

    def detach(self) -> None:
        """A backend is done with it; the last one closes the connection."""
        with self.lock:
            self._users -= 1
            if self._users <= 0:
                self.dav.close()

    # -- freshness ------------------------------------------------------------------------------

    def ensure_fresh(self) -> None:
        """Sync first if the last sync is older than the staleness bound - unless one is under
        way in another thread: then the mirror answers as it is, rather than wait on the server
        behind it (before the first sync ever, there is nothing to answer from: it waits).
        Never called holding ``lock``."""
        if time.monotonic() < self._fresh_until:
            return
        if not self._syncing.acquire(blocking=not self._synced_before):
            return
        try:
            if time.monotonic() >= self._fresh_until:  # the sync waited for may have done it
                self._sync(None)
        finally:
            self._syncing.release()

    def access(self) -> tuple[PermissionStatus, FruitctlError | None]:
        """Whether the account lets us in, as a read would find out (a sync when stale):
        refused credentials are ``denied``; a server that cannot be reached leaves it
        ``not_determined``, with the error that says why."""
        try:
            self.ensure_fresh()
        except PermissionDenied as exc:
            return "denied", exc
        except (BackendUnavailable, Timeout) as exc:
            return "not_determined", exc
        return "authorized", None

    def sync(self, progress: ProgressCallback | None = None) -> Report:
        """Bring the mirror in step with the server now (after a sync under way in another
        thread, if any). Never called holding ``lock``."""
        with self._syncing:
            return self._sync(progress)

    def _sync(self, progress: ProgressCallback | None) -> Report:
        started = time.monotonic()
        report = Report()
        pairs = self._collections()
        with self.engine.connect() as conn:  # what the mirror held before the server was asked
            asked = {known.id: state.etags(conn, known.id) for _, known in pairs}
        with Ahead(self.dav.everything, unmirrored(pairs, asked)) as ahead:
            for remote, known in pairs:
                self._sync_collection(remote, known, asked[known.id], report, progress, ahead)
        if report.unchanged < report.collections or not self._synced_before:
            with self.lock, self.writer.begin() as conn:
                for kind in self.kinds.values():
                    kind.finish(conn)
                state.set_meta(conn, "synced_at", repr(time.time()))
            self._synced_before = True
        report.seconds = time.monotonic() - started
        self._fresh_until = started + self.options.staleness_seconds
        return report

    def _bind_account(self) -> None:
        """A mirror belongs to one account (its URL and user): pointed at another, it starts
        over cold - its rows, lists and calendars, and its freshness go with the old account,
        so the first read syncs with the new one (or fails saying why) rather than answer
        from an empty mirror as if that were the account's data."""
        account = f"{self.dav.account.url} {self.dav.account.username}"
        with self.writer.begin() as conn:
            if state.get_meta(conn, "account") not in (None, account):
                self._forget(conn, state.known_collections(conn))
                for kind in self.kinds.values():
                    kind.containers(conn, [])
                state.clear_meta(conn)  # when it synced, what it made, the default chosen
            state.set_meta(conn, "account", account)
            synced = state.get_meta(conn, "synced_at")
            self.created = set(json.loads(state.get_meta(conn, "created") or "[]"))
        if synced is not None:
            self._synced_before = True
            age = time.time() - float(synced)
            self._fresh_until = time.monotonic() - age + self.options.staleness_seconds

    # -- collections ----------------------------------------------------------------------------

    def _collections(self) -> list[tuple[RemoteCollection, Known]]:
        chosen = {
            c.href: (c, frozenset(k)) for c in self.dav.collections() if (k := self._kinds_of(c))
        }
        with self.lock, self.writer.begin() as conn:
            before = state.known_collections(conn)
            pairs = match([(c, kinds) for c, kinds in chosen.values()], before)
            kept = {known.id: known for _, known in pairs}
            # Gone, or mirrored for other components now: start it over (rows and tokens).
            self._forget(
                conn,
                [
                    k
                    for k in before
                    if kept.get(k.id, k).components != k.components or k.id not in kept
                ],
            )
            for kind in self.kinds.values():
                kind.containers(conn, [k for _, k in pairs if kind.component in k.components])
            for _, known in pairs:
                if known not in before:
                    state.save_collection(conn, known)
        return pairs

    def _kinds_of(self, remote: RemoteCollection) -> set[str]:
        """The components a collection is mirrored for: those its kind selects (configuration),
        and every one it holds if it was made through fruitctl."""
        made_here = remote.href in self.created
        return {
            kind.component
            for kind in self.kinds.values()
            if kind.component in remote.components and (made_here or kind.selects(remote))
        }

    def make_collection(self, name: str, cal_id: str, component: str) -> str:
        """A new calendar for ``component`` objects on the server, to be mirrored whatever the
        configuration selects (it was made through fruitctl to be used); its href."""
        href = self.dav.make_calendar(name, cal_id, [component])
        self.remember_created(href)
        return href

    def mirrored(self, href: str) -> Known:
        """The collection at ``href`` once a sync has mirrored it (not holding ``lock``)."""
        self.sync()
        with self.engine.connect() as conn:
            (known,) = [k for k in state.known_collections(conn) if k.href == href]
        return known

    def remember_created(self, href: str) -> None:
        """A collection made through fruitctl is mirrored whatever the configuration selects."""
        self.created.add(href)
        with self.writer.begin() as conn:
            state.set_meta(conn, "created", json.dumps(sorted(self.created)))

    def _forget(self, conn: Connection, gone: Sequence[Known]) -> None:
        for known in gone:
            dropped = state.drop_objects(conn, state.etags(conn, known.id))
            self.forget_rows(conn, dropped)
        state.drop_collections(conn, [k.id for k in gone])

    # -- one collection -------------------------------------------------------------------------

    def _sync_collection(
        self,
        remote: RemoteCollection,
        known: Known,
        stored: dict[str, str | None],
        report: Report,
        progress: ProgressCallback | None,
        ahead: Ahead,
    ) -> None:
        """Bring one collection in step; ``stored``: its ETags before the server was asked."""
        report.collections += 1
        if unchanged(remote, known):
            report.unchanged += 1
            report.modes[known.name] = "unchanged"
            return
        listing, mode = self._listing(remote, known, ahead, empty=not stored)
        report.modes[known.name] = mode
        deleted = set(listing.deleted)
        if listing.complete:
            deleted |= set(stored) - set(listing.changed)
        wanted = [h for h, etag in listing.changed.items() if etag is None or stored.get(h) != etag]
        self._remove(deleted & set(stored), stored, report)
        total = len(wanted)
        for start in range(0, total, BATCH):
            batch = wanted[start : start + BATCH]
            # The listing carried most texts (a sync REPORT); the rest are fetched. One not in
            # the answer was deleted meanwhile (the next listing says so) - or the answer was
            # garbage: either way only a listing removes anything from the mirror.
            carried = [
                (h, listing.changed[h], listing.texts[h]) for h in batch if h in listing.texts
            ]
            missing = [h for h in batch if h not in listing.texts]
            fetched, oversized = fetch_fitting(self.dav, known.href, missing)
            too_large = [(h, listing.changed[h]) for h in oversized]
            self._store(known, [*carried, *fetched], stored, report, too_large)
            if progress:
                progress(Progress(known.name, min(start + BATCH, total), total))
        with self.lock, self.writer.begin() as conn:
            # A token from before a write made meanwhile is right: the next sync asks from it.
            token = listing.token or remote.sync_token or known.sync_token
            moved = replace(known, sync_token=token, ctag=remote.ctag)
            state.save_collection(conn, moved)

    def _listing(
        self, remote: RemoteCollection, known: Known, ahead: Ahead, *, empty: bool
    ) -> tuple[Listing, str]:
        texts = True
        if empty and not known.sync_token:
            # Nothing mirrored yet: everything, the cheapest way. The first change after it
            # is found by a sync REPORT from no token, which brings a token for the next.
            try:
                return ahead.listing(known.href), "query"
            except SyncUnsupported:
                log.info("no calendar-query on %s", known.href)
            except AnswerTooLarge:
                texts = False  # as large with texts: ETags, then the objects in batches
        if self.options.use_sync_token:
            try:
                return self._changes(known, texts), "sync-token"
            except SyncUnsupported:
                log.info("no sync-collection on %s: comparing ETags", known.href)
        return self.dav.members(known.href), "etag"

    def _changes(self, known: Known, texts: bool) -> Listing:
        """The changes since the stored token, with their texts if they fit one answer."""
        if texts:
            try:
                return self.dav.changes(known.href, known.sync_token or None)
            except AnswerTooLarge:
                log.info("the changes of %s do not fit one answer: ETags first", known.href)
        return self.dav.changes(known.href, known.sync_token or None, texts=False)

    # -- objects --------------------------------------------------------------------------------

    def _store(
        self,
        known: Known,
        fetched: Sequence[tuple[str, str | None, str]],
        asked: dict[str, str | None],
        report: Report,
        too_large: Sequence[tuple[str, str | None]] = (),
    ) -> None:
        """Mirror what a sync fetched (and the objects too large to fetch, as unreadable), but
        for objects a write changed since ``asked``."""
        hrefs = [href for href, _, _ in fetched] + [href for href, _ in too_large]
        with self.lock, self.writer.begin() as conn:
            kept = state.untouched(conn, asked, hrefs)
            new = {href for href in kept if href not in asked}  # absent then, and still
            stored = [f for f in fetched if f[0] in kept]
            report.broken += self.store(conn, known, stored, absent=new)
            report.broken += self._unread(conn, known, [t for t in too_large if t[0] in kept])
        report.fetched += len(fetched)

    def _unread(
        self, conn: Connection, known: Known, objects: Sequence[tuple[str, str | None]]
    ) -> int:
        """Objects that could not be read at all, kept by ETag alone (not asked for again until
        they change); what they held before is no longer in the mirror."""
        previous = state.drop_objects(conn, [href for href, _ in objects])
        unread = [Stored(href, known.id, None, None, etag, None) for href, etag in objects]
        state.put_objects(conn, [(stored, None) for stored in unread])
        self.forget_rows(conn, previous)
        return len(objects)

    def record(
        self, conn: Connection, known: Known, href: str, etag: str | None, text: str
    ) -> bool:
        """Mirror one object as the server has it; False (and a warning) if it is unreadable."""
        return self.store(conn, known, [(href, etag, text)]) == 0

    def store(
        self,
        conn: Connection,
        known: Known,
        fetched: Sequence[tuple[str, str | None, str]],
        absent: Collection[str] = frozenset(),
    ) -> int:
        """Mirror objects as the server has them (in a few statements); how many were broken.
        ``absent``: hrefs the caller knows the mirror does not hold (a first sync's all), not
        looked for."""
        previous = state.drop_objects(conn, [h for h, _, _ in fetched if h not in absent])
        records: list[tuple[Stored, str | None]] = []
        rows: dict[str, list[Any]] = {}
        for href, etag, text in fetched:
            stored, parent, row = self._read(known, href, etag, text)
            records.append((stored, parent))
            if row is not None and stored.component:
                rows.setdefault(stored.component, []).append(row)
        state.put_objects(conn, records)
        for component, batch in rows.items():
            self.kinds[component].put(conn, batch)
        # An href that now holds another UID (or nothing readable) no longer holds the old one.
        kept = {(s.component, s.uid) for s, _ in records if s.uid}
        self.forget_rows(conn, [p for p in previous if (p.component, p.uid) not in kept])
        return sum(1 for s, _ in records if s.component is None)

    def _read(
        self, known: Known, href: str, etag: str | None, text: str
    ) -> tuple[Stored, str | None, Any]:
        """The bookkeeping row of one object, its parent UID and its mirror row (None when it is
        not mirrored). An unreadable object is kept by ETag alone, with a warning."""
        component = sniff(text)
        kind = self.kinds.get(component or "")
        if kind is None or component not in known.components:
            return Stored(href, known.id, None, component or "?", etag, None), None, None
        try:
            uid, parent, row = kind.read(text, known.id)
        except ValueError as exc:
            log.warning("skipped an unreadable %s at %s: %s", component, href, exc)
            return Stored(href, known.id, None, None, etag, None), None, None
        return Stored(href, known.id, uid, component, etag, text), parent, row

    def _remove(self, hrefs: set[str], asked: dict[str, str | None], report: Report) -> None:
        """Objects gone from the server, but for those a write changed since ``asked``."""
        if not hrefs:
            return
        with self.lock, self.writer.begin() as conn:
            gone = state.untouched(conn, asked, hrefs)
            self.forget_objects(conn, gone)
        report.deleted += len(gone)

    def forget_objects(self, conn: Connection, hrefs: Iterable[str]) -> None:
        """Objects gone from the server: out of the mirror, rows and bookkeeping."""
        self.forget_rows(conn, state.drop_objects(conn, hrefs))

    def forget_rows(self, conn: Connection, gone: Sequence[Stored]) -> None:
        """Remove the rows of objects no longer on the server - unless another object there
        still holds the same UID (a copy being moved), which then takes its place."""
        for stored in gone:
            kind = self.kinds.get(stored.component or "")
            if kind is None or stored.uid is None:
                continue
            other = state.by_uid(conn, stored.uid, kind.component)
            if other is not None and other.ics is not None:
                known = _known(conn, other.collection_id)
                self.record(conn, known, other.href, other.etag, other.ics)
            else:
                kind.drop(conn, [stored.uid])


def sniff(text: str) -> str | None:
    """The component a calendar object holds, from its first BEGIN line that names one."""
    for line in text.splitlines():
        name = line.strip().upper()
        if name in ("BEGIN:VTODO", "BEGIN:VEVENT", "BEGIN:VJOURNAL"):
            return name.removeprefix("BEGIN:")
    return None


def _known(conn: Connection, collection_id: str) -> Known:
    (found,) = [k for k in state.known_collections(conn) if k.id == collection_id]
    return found
