"""Server-first writes of calendar objects, shared by the reminders and the events backend.

Each write goes to the server with a precondition, then into the mirror:

- create: PUT to ``<collection>/<uid>.ics`` with ``If-None-Match: *``. We choose the UID, so
  finding our own UID there on a retry (the first answer was lost) or on the re-run of an
  approved proposal (its UIDs derive from the write token) means the create is done - never a
  second copy. Something else there is a ``Conflict``.
- change / delete: ``If-Match`` with the ETag the mirror holds. A 412 whose server text is what
  we meant to write is our own lost answer; any other 412 is a change made elsewhere: the mirror
  takes the server's version and the caller gets ``Conflict`` - nothing is overwritten.
- a write whose outcome is unknown (timeout, dropped connection) is retried once; a retry cut
  off at its deadline is ``OutcomeUnknown``, never a retryable failure.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from typing import TypeVar
from urllib.parse import quote

import icalendar
from sqlalchemy import Connection

from fruitctl.backends.caldav import state
from fruitctl.backends.caldav.errors import AlreadyExists
from fruitctl.backends.caldav.state import Known, Stored
from fruitctl.backends.caldav.sync import Mirror
from fruitctl.backends.local.reminders import reminder_ids
from fruitctl.domain.errors import BackendUnavailable, Conflict, NotFound, OutcomeUnknown, Timeout
from fruitctl.domain.writes import next_token

log = logging.getLogger("fruitctl.caldav")
T = TypeVar("T")
RETRY_PAUSES = (0.2,)  # one retry of a write whose outcome is unknown
STAMPS = frozenset({"DTSTAMP", "LAST-MODIFIED", "SEQUENCE"})


class Writer:
    """Writes one account's objects, server first; the caller holds ``mirror.lock``."""

    def __init__(self, mirror: Mirror) -> None:
        self.mirror = mirror
        self.dav = mirror.dav

    def create(self, known: Known, uid: str, text: str) -> str:
        """PUT a new object; returns its href."""
        href = known.href + quote(uid, safe="") + ".ics"

        def attempt() -> tuple[str | None, str]:
            try:
                return self.dav.create(href, text), text
            except AlreadyExists:
                return self._adopt(href, uid)

        etag, found = retrying(attempt)
        self.record(known.id, href, etag, found)
        return href

    def replace(self, stored: Stored, text: str) -> str | None:
        """PUT changed text over the object as the mirror knows it; returns the new ETag."""

        def attempt() -> str | None:
            try:
                return self.dav.replace(stored.href, text, stored.etag)
            except Conflict:
                found = self.dav.get(stored.href)
                if found is not None and same_object(found[0], text):
                    return found[1]  # our own earlier attempt landed
                self.refresh(stored, found)
                raise

        return retrying(attempt)

    def remove(self, stored: Stored) -> None:
        def attempt() -> None:
            try:
                self.dav.remove(stored.href, stored.etag)
            except NotFound:
                pass  # gone already: by an earlier attempt of ours, or by someone else
            except Conflict:
                self.refresh(stored, self.dav.get(stored.href))
                raise

        retrying(attempt)
        with self.mirror.writer.begin() as conn:
            self.mirror.forget_objects(conn, [stored.href])

    def move(self, stored: Stored, etag: str | None, target: Known) -> None:
        """MOVE an object (already PUT, at ``etag``) into another collection."""
        destination = target.href + stored.href.rsplit("/", 1)[-1]
        self.dav.move(stored.href, destination, etag)
        found = self.dav.get(destination)
        with self.mirror.writer.begin() as conn:
            self.mirror.forget_objects(conn, [stored.href])
            if found is not None:
                self.mirror.record(conn, target, destination, found[1], found[0])

    def undo(self, hrefs: Sequence[str]) -> None:
        """Take back objects just created (a batch that failed half-way), best effort."""
        for href in reversed(hrefs):
            try:
                with self.mirror.engine.connect() as conn:
                    stored = state.stored(conn, href)
                self.dav.remove(href, stored.etag if stored else None)
                with self.mirror.writer.begin() as conn:
                    self.mirror.forget_objects(conn, [href])
            except Exception:
                log.warning("could not take back %s after a failed create", href, exc_info=True)

    def refresh(self, stored: Stored, found: tuple[str, str | None] | None) -> None:
        """After a conflict: show the server's version in the mirror, so a retry starts there."""
        with self.mirror.writer.begin() as conn:
            if found is None:
                self.mirror.forget_objects(conn, [stored.href])
            else:
                text, etag = found
                self.mirror.record(conn, known(conn, stored.collection_id), stored.href, etag, text)

    def record(self, collection_id: str, href: str, etag: str | None, text: str) -> None:
        with self.mirror.writer.begin() as conn:
            self.mirror.record(conn, known(conn, collection_id), href, etag, text)

    def stored(self, uid: str, component: str) -> Stored | None:
        with self.mirror.engine.connect() as conn:
            found = state.by_uid(conn, uid, component)
        return found if found is not None and found.ics is not None else None

    def collection(self, collection_id: str, component: str) -> Known | None:
        """The mirrored collection ``collection_id``, if it holds ``component`` objects."""
        with self.mirror.engine.connect() as conn:
            found = [k for k in state.known_collections(conn) if k.id == collection_id]
        return found[0] if found and component in found[0].components else None

    def _adopt(self, href: str, uid: str) -> tuple[str | None, str]:
        """Something is at the href we chose: if it holds our UID, an earlier attempt of this
        very write got there (its answer was lost, or a proposal is re-run) - keep it."""
        found = self.dav.get(href)
        if found is not None and uid in uids_of(found[0]):
            return found[1], found[0]
        raise Conflict(f"Something else is already stored at {href} on the CalDAV server.")


def known(conn: Connection, collection_id: str) -> Known:
    (found,) = [k for k in state.known_collections(conn) if k.id == collection_id]
    return found


def new_uids(count: int) -> list[str]:
    """UIDs for new objects: under an approved proposal, derived from its write token (a re-run
    after a crash picks the same ones and finds them there); otherwise time-ordered ids."""
    token = next_token()
    if token is None:
        return reminder_ids(count)
    base = hashlib.sha256(token.encode()).hexdigest()[:16]
    return [f"{base}{i:04x}" for i in range(count)]


def retrying(call: Callable[[], T]) -> T:
    """``call``, tried again once if its outcome is unknown. A last attempt cut off at its
    deadline may still have landed on the server: that is ``OutcomeUnknown`` (never retryable:
    a caller's own retry would choose new UIDs and could make a second copy), and the next sync
    shows what the server holds."""
    for pause in RETRY_PAUSES:
        try:
            return call()
        except (BackendUnavailable, Timeout) as exc:
            log.info("CalDAV write failed (%s); retrying once", exc.code)
            time.sleep(pause)
    try:
        return call()
    except Timeout as exc:
        raise OutcomeUnknown(
            f"{exc} The server may still have applied this change: sync and look before "
            "trying it again."
        ) from exc


def uids_of(text: str) -> set[str]:
    try:
        cal = icalendar.Calendar.from_ical(text)
    except (ValueError, KeyError, IndexError, TypeError):
        return set()
    return {str(c["UID"]) for c in cal.subcomponents if "UID" in c}


def same_object(server: str, ours: str) -> bool:
    """Does the server hold what we meant to write? Compared property by property (a server
    may re-serialize), ignoring the stamps that a retry moves."""
    try:
        return _content(server) == _content(ours)
    except (ValueError, KeyError, IndexError, TypeError):
        return False


def _content(text: str) -> list[tuple[str, list[tuple[str, bytes]]]]:
    cal = icalendar.Calendar.from_ical(text)
    found = []
    for component in cal.walk():
        if component.name in ("VTODO", "VEVENT"):
            props = [
                (name, _ical(value))
                for name, values in component.items()
                if name not in STAMPS
                for value in (values if isinstance(values, list) else [values])
            ]
            found.append((component.name, sorted(props)))
    return sorted(found)


def _ical(value: object) -> bytes:
    text = value.to_ical() if hasattr(value, "to_ical") else str(value)
    return text if isinstance(text, bytes) else str(text).encode()
