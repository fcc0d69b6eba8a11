"""One CalDAV account through the ``caldav`` library, every failure a domain error.

Reads use the library (discovery, sync-collection, calendar-multiget); writes are plain
requests with preconditions the library does not set for us: ``If-None-Match: *`` on a create
(so a retried create cannot make a second copy) and ``If-Match: <etag>`` on a change or delete
(so a change made elsewhere is a ``Conflict``, never overwritten).

Foreign exceptions stop here (``errors.translated``); the request bodies and the reading of
answers are ``wire``'s.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit
from xml.sax.saxutils import escape as xml_escape

from caldav.collection import Calendar, CalendarSet
from caldav.davclient import DAVClient
from caldav.lib import error as dav_error
from caldav.lib.url import URL

from fruitctl.backends.caldav.account import Account
from fruitctl.backends.caldav.errors import (
    AlreadyExists,
    SyncUnsupported,
    TokenExpired,
    check,
    check_listing,
    check_precondition,
    translated,
)
from fruitctl.backends.caldav.transport import BoundedSession, Bounds
from fruitctl.backends.caldav.wire import (
    CALENDAR_DATA,
    COLLECTION_PROPS,
    ETAG,
    QUERY_REPORT,
    SYNC_REPORT,
    VERSION_PROPS,
    Listing,
    RemoteCollection,
    collection_of,
    etag_of,
    multistatus,
    path_of,
    propfind,
    sync_listing,
)
from fruitctl.domain.errors import (
    NotFound,
)

log = logging.getLogger("fruitctl.caldav")


class Dav:
    """One account's connection. Thread-safe: requests are serialized (one HTTP session)."""

    def __init__(self, account: Account) -> None:
        self.account = account
        self._lock = threading.RLock()
        self._client: Any = None
        self._home: str | None = None

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    # -- reads --------------------------------------------------------------------------------

    def home(self) -> str:
        """The calendar home of the account (where its calendars are and new ones go)."""
        with self._session() as client:
            if self._home is None:
                self._home = path_of(client.get_principal().calendar_home_set.url)
            return self._home

    def collections(self) -> list[RemoteCollection]:
        """Every calendar of the account with a version that moves when anything in it does:
        its ctag, or (a server without ctags) its sync-token or ETag, asked of it alone."""
        home = self.home()
        with self._session() as client:
            answer = propfind(client, self.url(home), COLLECTION_PROPS, depth=1)
            check_listing(answer, home, "list the calendars")
            found = [c for r in answer.results if (c := collection_of(r)) is not None]
        return [c if c.ctag is not None else self._version(c) for c in found]

    def _version(self, collection: RemoteCollection) -> RemoteCollection:
        with self._session() as client:
            answer = propfind(client, self.url(collection.href), VERSION_PROPS, depth=0)
            check(answer, "read a calendar's version")
            props = answer.results[0].properties if answer.results else {}
        token = etag_of(props.get("{DAV:}sync-token"))
        return replace(collection, sync_token=token, ctag=token or etag_of(props.get(ETAG)))

    def changes(self, href: str, token: str | None, *, texts: bool = True) -> Listing:
        """What changed since ``token`` (RFC 6578); everything when the token is None or the
        server no longer knows it. ``SyncUnsupported`` when the server cannot do it at all.
        ``texts``: with each changed object's text (else its ETag alone, for an answer that
        would not fit the size cap otherwise)."""
        try:
            return self._sync_report(href, token, texts)
        except TokenExpired:
            log.info("sync-token of %s expired: full resync", href)
            return self._sync_report(href, None, texts)

    def _sync_report(self, href: str, token: str | None, texts: bool) -> Listing:
        """One sync-collection REPORT that also carries each changed object's text, so a first
        sync is one request per collection and a later one needs no second round trip."""
        data = CALENDAR_DATA if texts else ""
        body = SYNC_REPORT.format(token=xml_escape(token or ""), data=data)
        headers = {"Content-Type": "application/xml; charset=utf-8", "Depth": "0"}
        with self._session() as client:
            try:
                answer = client.request(self.url(href), "REPORT", body, headers)
            except dav_error.AuthorizationError as exc:
                # RFC 6578 3.2: a token the server forgot is a 403 with DAV:valid-sync-token.
                if token is not None and "{DAV:}valid-sync-token" in (exc.preconditions or []):
                    raise TokenExpired from exc
                raise
            if answer.status != 207 or answer.tree is None:
                raise SyncUnsupported(f"{answer.status} {answer.reason or ''}".strip())
            return sync_listing(answer.tree, complete=token is None)

    def everything(self, href: str) -> Listing:
        """Every member with its ETag and text (one calendar-query REPORT), without a
        sync-token; ``SyncUnsupported`` if the server does not answer it."""
        headers = {"Content-Type": "application/xml; charset=utf-8", "Depth": "1"}
        with self._session() as client:
            answer = client.request(self.url(href), "REPORT", QUERY_REPORT, headers)
            if answer.status != 207 or answer.tree is None:
                raise SyncUnsupported(f"{answer.status} {answer.reason or ''}".strip())
            changed, texts, _ = multistatus(answer.tree)
            return Listing(None, changed, complete=True, texts=texts)

    def members(self, href: str) -> Listing:
        """Every member with its ETag (a depth-1 PROPFIND): the fallback where sync is missing."""
        with self._session() as client:
            answer = propfind(client, self.url(href), [ETAG, "{DAV:}resourcetype"], depth=1)
            check_listing(answer, href, "list a calendar")
            changed = {
                path_of(r.href): etag_of(r.properties.get(ETAG))
                for r in answer.results
                if path_of(r.href) != href and not r.properties.get("{DAV:}resourcetype")
            }
            return Listing(None, changed, complete=True)

    def fetch(self, href: str, members: Sequence[str]) -> list[tuple[str, str | None, str]]:
        """``(href, etag, text)`` of each member that still exists (calendar-multiget)."""
        with self._session() as client:
            calendar: Any = Calendar(client=client, url=self.url(href))
            found = calendar.multiget([URL.objectify(self.url(m)) for m in members])
            return [
                (path_of(obj.url), etag_of(obj.props.get(ETAG)), str(obj.data))
                for obj in found
                if obj.data
            ]

    def get(self, href: str) -> tuple[str, str | None] | None:
        """The text and ETag of one object, or None if it is not there."""
        with self._session() as client:
            answer = client.request(self.url(href), "GET", "")
            if answer.status == 404:
                return None
            check(answer, "read an object")
            return answer.raw, etag_of(answer.headers.get("ETag"))

    # -- writes -------------------------------------------------------------------------------

    def create(self, href: str, text: str) -> str | None:
        """PUT a new object; ``AlreadyExists`` if something is there. Returns the new ETag."""
        with self._session() as client:
            answer = self._put(client, href, text, {"If-None-Match": "*"})
            if answer.status == 412:
                raise AlreadyExists(href)
            check(answer, "create an object")
        return etag_of(answer.headers.get("ETag"))

    def replace(self, href: str, text: str, etag: str | None) -> str | None:
        """PUT over the object as it was at ``etag``; ``Conflict`` if it changed since."""
        with self._session() as client:
            answer = self._put(client, href, text, {"If-Match": etag} if etag else {})
            check_precondition(answer, href)
            check(answer, "change an object")
        return etag_of(answer.headers.get("ETag"))

    def remove(self, href: str, etag: str | None) -> None:
        with self._session() as client:
            headers = {"If-Match": etag} if etag else {}
            answer = client.request(self.url(href), "DELETE", "", headers)
            if answer.status == 404:
                raise NotFound.on_server(href)
            check_precondition(answer, href)
            check(answer, "delete an object")

    def move(self, href: str, destination: str, etag: str | None) -> None:
        """WebDAV MOVE, never over an existing object (``Overwrite: F``)."""
        headers = {"Destination": self.url(destination), "Overwrite": "F"}
        if etag:
            headers["If-Match"] = etag
        with self._session() as client:
            answer = client.request(self.url(href), "MOVE", "", headers)
            if answer.status == 404:
                raise NotFound.on_server(href)
            check_precondition(answer, href)
            check(answer, "move an object")

    def make_calendar(self, name: str, cal_id: str, components: Sequence[str]) -> str:
        """MKCALENDAR in the account's home; returns the new collection's href (a server may
        place it elsewhere than asked)."""
        home = self.home()
        with self._session() as client:
            home_set: Any = CalendarSet(client=client, url=self.url(home))
            found = home_set.make_calendar(
                name=name, cal_id=cal_id, supported_calendar_component_set=list(components)
            )
            href = path_of(found.url)
            return href if href.endswith("/") else href + "/"

    # -- plumbing -----------------------------------------------------------------------------

    def url(self, href: str) -> str:
        base = urlsplit(self.account.url)
        return f"{base.scheme}://{base.netloc}{href}"

    def _put(self, client: Any, href: str, text: str, headers: dict[str, str]) -> Any:
        headers = {"Content-Type": "text/calendar; charset=utf-8", **headers}
        return client.request(self.url(href), "PUT", text, headers)

    @contextlib.contextmanager
    def _session(self) -> Iterator[Any]:
        with self._lock, translated(self.account):
            if self._client is None:
                self._client = _Client(
                    Bounds(self.account.timeout, self.account.max_bytes),
                    url=self.account.url,
                    username=self.account.username,
                    password=self.account.password,
                    timeout=self.account.timeout,  # per read; the session bounds the whole
                    enable_rfc6764=False,
                    auth_type="basic" if _private_wire(self.account.url) else None,
                )
            yield self._client


class _Client(DAVClient):
    """The library's client over a ``BoundedSession`` (every request under a deadline, every
    answer under a cap), sending Basic credentials with its first request where the wire
    is private (TLS, or this machine): no unauthenticated request and 401 first - after which
    Radicale even pauses. A server that answers with a challenge other than Basic (Digest) is
    then negotiated with as usual."""

    def __init__(self, bounds: Bounds, **options: Any) -> None:
        super().__init__(**options)
        self.session.close()
        self.session = BoundedSession(bounds)

    def _should_negotiate_auth(self, status_code: int, headers: Any) -> bool:
        offered = str(headers.get("WWW-Authenticate", "")) if status_code == 401 else ""
        if offered and self.auth_type == "basic" and "basic" not in offered.lower():
            self.auth, self.auth_type = None, None  # let the challenge pick the scheme
        return bool(super()._should_negotiate_auth(status_code, headers))


def _private_wire(url: str) -> bool:
    """Whether credentials may go out before the server asks: over TLS, or to this machine
    (plain HTTP elsewhere waits for the server's challenge, which may be Digest)."""
    parts = urlsplit(url)
    return parts.scheme == "https" or (parts.hostname or "") in ("localhost", "127.0.0.1", "::1")
