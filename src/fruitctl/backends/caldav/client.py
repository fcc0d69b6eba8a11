"""The wire: one CalDAV account through the ``caldav`` library, every failure a domain error.

Reads use the library (discovery, sync-collection, calendar-multiget); writes are plain
requests with preconditions the library does not set for us: ``If-None-Match: *`` on a create
(so a retried create cannot make a second copy) and ``If-Match: <etag>`` on a change or delete
(so a change made elsewhere is a ``Conflict``, never overwritten).

Foreign exceptions stop here (``translated``): a server that is down is ``BackendUnavailable``, a
slow one ``Timeout`` (both retryable), one that answers something that is not CalDAV
``BackendUnavailable`` too, refused credentials ``PermissionDenied``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote, unquote, urlsplit
from xml.sax.saxutils import escape as xml_escape

from caldav.collection import Calendar, CalendarSet
from caldav.davclient import DAVClient
from caldav.lib import error as dav_error
from caldav.lib.http_sync import requests as http
from caldav.lib.url import URL

from fruitctl.domain.errors import (
    BackendUnavailable,
    Conflict,
    ExecutionFailed,
    FruitctlError,
    NotFound,
    PermissionDenied,
    Timeout,
)

log = logging.getLogger("fruitctl.caldav")

ETAG = "{DAV:}getetag"
COMPONENTS = "{urn:ietf:params:xml:ns:caldav}supported-calendar-component-set"
CTAG = "{http://calendarserver.org/ns/}getctag"
# What the freshness check asks of every collection: the ctag alone says whether anything moved.
# The sync-token and the collection ETag are left out - servers compute each by walking the whole
# collection (Radicale: ~250 ms apiece for 2,000 events) - and asked only of a collection that
# has no ctag (``_version``).
COLLECTION_PROPS = [
    "{DAV:}resourcetype",
    "{DAV:}displayname",
    COMPONENTS,
    CTAG,
    "{http://apple.com/ns/ical/}calendar-color",
]
VERSION_PROPS = ["{DAV:}sync-token", ETAG]
DAV, CALDAV = "DAV:", "urn:ietf:params:xml:ns:caldav"
PROPFIND = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<D:propfind xmlns:D="DAV:"><D:prop>{names}</D:prop></D:propfind>'
)
SYNC_REPORT = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<D:sync-collection xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
    "<D:sync-token>{token}</D:sync-token><D:sync-level>1</D:sync-level>"
    "<D:prop><D:getetag/><C:calendar-data/></D:prop></D:sync-collection>"
)
# Every object with its ETag and text: the cheapest full read (Radicale answers it in about half
# the time of a sync-collection REPORT, which walks the collection for a sync-token as well).
QUERY_REPORT = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
    "<D:prop><D:getetag/><C:calendar-data/></D:prop>"
    '<C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>'
)
CALENDAR_TYPE = "{urn:ietf:params:xml:ns:caldav}calendar"
_SAFE = "/@:~!$&'()*+,;="
# Raised inside the library when an answer is not the XML it expects: garbage from the server.
# (lxml's XMLSyntaxError is a SyntaxError.)
_MALFORMED = (SyntaxError, AttributeError, TypeError, ValueError, KeyError, IndexError)


@dataclass(frozen=True)
class Account:
    url: str
    username: str
    password: str = field(repr=False)
    timeout: float = 10.0


@dataclass(frozen=True)
class RemoteCollection:
    href: str
    name: str
    components: frozenset[str]
    sync_token: str | None
    ctag: str | None
    color: str | None = None


@dataclass(frozen=True)
class Listing:
    """Members of a collection that changed (href -> ETag) and those removed. ``complete``: the
    listing names every member, so anything known and not listed is gone too."""

    token: str | None
    changed: dict[str, str | None]
    deleted: frozenset[str] = frozenset()
    complete: bool = False
    texts: dict[str, str] = field(default_factory=dict)
    """The objects' text where the listing carried it (a sync REPORT asks for calendar-data)."""


class SyncUnsupported(Exception):
    """The collection cannot do RFC 6578 sync: compare ETags instead."""


class _TokenExpired(Exception):
    """The server no longer knows the sync-token asked with."""


class AlreadyExists(Exception):
    """A create found something at its href (``If-None-Match: *`` failed)."""


def path_of(url: Any) -> str:
    """The canonical form of an href: its path, percent-encoded one way only."""
    return quote(unquote(urlsplit(str(url)).path), safe=_SAFE)


def _etag(value: Any) -> str | None:
    return str(value) if value else None


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
            answer = _propfind(client, self.url(home), COLLECTION_PROPS, depth=1)
            _check_listing(answer, home, "list the calendars")
            found = [c for r in answer.results if (c := _collection(r)) is not None]
        return [c if c.ctag is not None else self._version(c) for c in found]

    def _version(self, collection: RemoteCollection) -> RemoteCollection:
        with self._session() as client:
            answer = _propfind(client, self.url(collection.href), VERSION_PROPS, depth=0)
            _check(answer, "read a calendar's version")
            props = answer.results[0].properties if answer.results else {}
        token = _etag(props.get("{DAV:}sync-token"))
        return replace(collection, sync_token=token, ctag=token or _etag(props.get(ETAG)))

    def changes(self, href: str, token: str | None) -> Listing:
        """What changed since ``token`` (RFC 6578); everything when the token is None or the
        server no longer knows it. ``SyncUnsupported`` when the server cannot do it at all."""
        try:
            return self._sync_report(href, token)
        except _TokenExpired:
            log.info("sync-token of %s expired: full resync", href)
            return self._sync_report(href, None)

    def _sync_report(self, href: str, token: str | None) -> Listing:
        """One sync-collection REPORT that also carries each changed object's text, so a first
        sync is one request per collection and a later one needs no second round trip."""
        body = SYNC_REPORT.format(token=xml_escape(token or ""))
        headers = {"Content-Type": "application/xml; charset=utf-8", "Depth": "0"}
        with self._session() as client:
            try:
                answer = client.request(self.url(href), "REPORT", body, headers)
            except dav_error.AuthorizationError as exc:
                # RFC 6578 3.2: a token the server forgot is a 403 with DAV:valid-sync-token.
                if token is not None and "{DAV:}valid-sync-token" in (exc.preconditions or []):
                    raise _TokenExpired from exc
                raise
            if answer.status != 207 or answer.tree is None:
                raise SyncUnsupported(f"{answer.status} {answer.reason or ''}".strip())
            return _sync_listing(answer.tree, complete=token is None)

    def everything(self, href: str) -> Listing:
        """Every member with its ETag and text (one calendar-query REPORT), without a
        sync-token; ``SyncUnsupported`` if the server does not answer it."""
        headers = {"Content-Type": "application/xml; charset=utf-8", "Depth": "1"}
        with self._session() as client:
            answer = client.request(self.url(href), "REPORT", QUERY_REPORT, headers)
            if answer.status != 207 or answer.tree is None:
                raise SyncUnsupported(f"{answer.status} {answer.reason or ''}".strip())
            changed, texts, _ = _multistatus(answer.tree)
            return Listing(None, changed, complete=True, texts=texts)

    def members(self, href: str) -> Listing:
        """Every member with its ETag (a depth-1 PROPFIND): the fallback where sync is missing."""
        with self._session() as client:
            answer = _propfind(client, self.url(href), [ETAG, "{DAV:}resourcetype"], depth=1)
            _check_listing(answer, href, "list a calendar")
            changed = {
                path_of(r.href): _etag(r.properties.get(ETAG))
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
                (path_of(obj.url), _etag(obj.props.get(ETAG)), str(obj.data))
                for obj in found
                if obj.data
            ]

    def get(self, href: str) -> tuple[str, str | None] | None:
        """The text and ETag of one object, or None if it is not there."""
        with self._session() as client:
            answer = client.request(self.url(href), "GET", "")
            if answer.status == 404:
                return None
            _check(answer, "read an object")
            return answer.raw, _etag(answer.headers.get("ETag"))

    # -- writes -------------------------------------------------------------------------------

    def create(self, href: str, text: str) -> str | None:
        """PUT a new object; ``AlreadyExists`` if something is there. Returns the new ETag."""
        with self._session() as client:
            answer = self._put(client, href, text, {"If-None-Match": "*"})
            if answer.status == 412:
                raise AlreadyExists(href)
            _check(answer, "create an object")
        return _etag(answer.headers.get("ETag"))

    def replace(self, href: str, text: str, etag: str | None) -> str | None:
        """PUT over the object as it was at ``etag``; ``Conflict`` if it changed since."""
        with self._session() as client:
            answer = self._put(client, href, text, {"If-Match": etag} if etag else {})
            _check_precondition(answer, href)
            _check(answer, "change an object")
        return _etag(answer.headers.get("ETag"))

    def remove(self, href: str, etag: str | None) -> None:
        with self._session() as client:
            headers = {"If-Match": etag} if etag else {}
            answer = client.request(self.url(href), "DELETE", "", headers)
            if answer.status == 404:
                raise NotFound(f"Nothing at {href} on the CalDAV server.")
            _check_precondition(answer, href)
            _check(answer, "delete an object")

    def move(self, href: str, destination: str, etag: str | None) -> None:
        """WebDAV MOVE, never over an existing object (``Overwrite: F``)."""
        headers = {"Destination": self.url(destination), "Overwrite": "F"}
        if etag:
            headers["If-Match"] = etag
        with self._session() as client:
            answer = client.request(self.url(href), "MOVE", "", headers)
            if answer.status == 404:
                raise NotFound(f"Nothing at {href} on the CalDAV server.")
            _check_precondition(answer, href)
            _check(answer, "move an object")

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
                    url=self.account.url,
                    username=self.account.username,
                    password=self.account.password,
                    timeout=self.account.timeout,  # type: ignore[arg-type]  # a float is fine
                    enable_rfc6764=False,
                    auth_type="basic" if _private_wire(self.account.url) else None,
                )
            yield self._client


class _Client(DAVClient):
    """The library's client, sending Basic credentials with its first request where the wire
    is private (TLS, or this machine): no unauthenticated request and 401 first - after which
    Radicale even pauses. A server that answers with a challenge other than Basic (Digest) is
    then negotiated with as usual."""

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


@contextlib.contextmanager
def translated(account: Account) -> Iterator[None]:
    """Every failure of the server or the network as the domain error a caller can act on."""
    where = urlsplit(account.url).netloc
    try:
        yield
    except FruitctlError:
        raise
    except http.exceptions.Timeout as exc:
        raise Timeout(
            f"The CalDAV server at {where} did not answer within {account.timeout:g} s.",
            server=where,
        ) from exc
    except http.exceptions.RequestException as exc:
        raise BackendUnavailable(
            f"The CalDAV server at {where} cannot be reached: {type(exc).__name__}.",
            server=where,
        ) from exc
    except dav_error.AuthorizationError as exc:
        raise refused(account) from exc
    except dav_error.NotFoundError as exc:
        raise NotFound(f"Not found on the CalDAV server at {where}: {exc}") from exc
    except (dav_error.DAVError, *_MALFORMED) as exc:
        log.debug("unreadable CalDAV answer", exc_info=True)
        raise BackendUnavailable(
            f"The CalDAV server at {where} answered something that is not CalDAV "
            f"({type(exc).__name__}).",
            server=where,
        ) from exc


def refused(account: Account) -> PermissionDenied:
    """Refused credentials, with what to do about them (the server's 401)."""
    where = urlsplit(account.url).netloc
    return PermissionDenied(
        f"The CalDAV server at {where} refused the credentials of '{account.username}'.",
        status="denied",
        server=where,
        instructions=[
            "Check url and username under [caldav] in fruitctl's config.toml",
            "Check the password: [caldav] password_command, or FRUITCTL_CALDAV_PASSWORD "
            "(an app password where the account signs in with two factors: iCloud, Fastmail)",
            "Test them with: fruitctl doctor",
            "Retry the command",
        ],
    )


@dataclass(frozen=True)
class _Found:
    href: str
    properties: dict[str, Any]


@dataclass(frozen=True)
class _Answer:
    status: int
    reason: str
    results: list[_Found]


def _propfind(client: Any, url: str, props: Sequence[str], *, depth: int) -> _Answer:
    """A PROPFIND for exactly ``props`` (Clark names), read with lxml: the library's own
    leaves out properties it does not know (the ctag), and builds objects we do not need."""
    names = "".join(
        f'<p{i}:{local} xmlns:p{i}="{space}"/>'
        for i, (space, local) in enumerate(name[1:].split("}", 1) for name in props)
    )
    body = PROPFIND.format(names=names)
    headers = {"Content-Type": "application/xml; charset=utf-8", "Depth": str(depth)}
    answer = client.request(url, "PROPFIND", body, headers)
    tree = answer.tree if answer.status == 207 else None
    results = [] if tree is None else [_found(r) for r in tree.iterfind(f"{{{DAV}}}response")]
    return _Answer(answer.status, answer.reason or "", results)


def _found(response: Any) -> _Found:
    properties: dict[str, Any] = {}
    for propstat in response.iterfind(f"{{{DAV}}}propstat"):
        prop = propstat.find(f"{{{DAV}}}prop")
        if prop is None or "200" not in propstat.findtext(f"{{{DAV}}}status", ""):
            continue
        for item in prop:
            if item.tag == COMPONENTS:
                properties[item.tag] = [c.get("name", "") for c in item]
            elif len(item):  # resourcetype: the kinds it names
                properties[item.tag] = [child.tag for child in item]
            else:
                properties[item.tag] = (item.text or "").strip() or None
    return _Found(response.findtext(f"{{{DAV}}}href", "").strip(), properties)


def _sync_listing(tree: Any, *, complete: bool) -> Listing:
    """A sync-collection multistatus: members changed (ETag and text) and members gone."""
    found = tree.find(f"{{{DAV}}}sync-token")
    if found is None or not (found.text or "").strip():
        # RFC 6578 answers always carry one: this was not sync.
        raise dav_error.ResponseError("a sync-collection answer without a sync-token")
    changed, texts, deleted = _multistatus(tree)
    return Listing(found.text.strip(), changed, frozenset(deleted), complete, texts)


def _multistatus(tree: Any) -> tuple[dict[str, str | None], dict[str, str], set[str]]:
    """The members of a REPORT's multistatus: ETags and texts of those there, hrefs of those
    gone (a 404 response)."""
    changed: dict[str, str | None] = {}
    texts: dict[str, str] = {}
    deleted: set[str] = set()
    for response in tree.iterfind(f"{{{DAV}}}response"):
        href = path_of(response.findtext(f"{{{DAV}}}href", "").strip())
        if "404" in response.findtext(f"{{{DAV}}}status", ""):
            deleted.add(href)
            continue
        for propstat in response.iterfind(f"{{{DAV}}}propstat"):
            if "200" not in propstat.findtext(f"{{{DAV}}}status", ""):
                continue
            prop = propstat.find(f"{{{DAV}}}prop")
            if prop is None:
                continue
            changed[href] = _etag(prop.findtext(f"{{{DAV}}}getetag"))
            text = prop.findtext(f"{{{CALDAV}}}calendar-data")
            if text:
                texts[href] = text
    for href in deleted:
        changed.pop(href, None)
    return changed, texts, deleted


def _check(answer: Any, doing: str) -> None:
    """An HTTP error status as the domain error it means for the caller."""
    status = answer.status
    if status < 400:
        return
    message = f"The CalDAV server answered {status} {answer.reason or ''}".rstrip()
    if status == 401:
        raise dav_error.AuthorizationError(message)  # translated names the credentials
    if status == 403:
        raise PermissionDenied(
            f"{message}: this account may not {doing} there.",
            status="restricted",
            instructions=[
                "The calendar may be read-only or shared without write access: "
                "ask its owner, or use another calendar",
            ],
        )
    if status >= 500:
        raise BackendUnavailable(f"{message} while trying to {doing}.", status=status)
    if status in (404, 409, 410):  # 409: PUT into a collection that is gone (RFC 4918 9.7.1)
        raise NotFound(f"{message} while trying to {doing}: it is not there (any more).")
    raise ExecutionFailed(f"{message} while trying to {doing}.", status=status)


def _check_listing(answer: Any, href: str, doing: str) -> None:
    """A PROPFIND answer to trust: a multistatus that names the collection asked about. Anything
    else (a captive portal's page, an empty 207) must not read as "this is empty now", or a
    sync would empty the mirror."""
    _check(answer, doing)
    named = {path_of(r.href).rstrip("/") for r in answer.results or []}
    if answer.status != 207 or href.rstrip("/") not in named:
        raise dav_error.ResponseError(
            f"an answer that does not list {href} while trying to {doing}"
        )


def _check_precondition(answer: Any, href: str) -> None:
    if answer.status == 412:
        raise Conflict(
            f"The object at {href} was changed on the CalDAV server since it was last read; "
            "nothing was overwritten. Read it again and retry.",
            href=href,
        )


def _collection(result: Any) -> RemoteCollection | None:
    props = result.properties
    if CALENDAR_TYPE not in (props.get("{DAV:}resourcetype") or []):
        return None
    components = props.get(COMPONENTS) or ["VEVENT", "VTODO", "VJOURNAL"]  # RFC 4791 5.2.3
    href = path_of(result.href)
    return RemoteCollection(
        href=href if href.endswith("/") else href + "/",
        name=str(props.get("{DAV:}displayname") or unquote(href.rstrip("/").rsplit("/", 1)[-1])),
        components=frozenset(str(c).upper() for c in components),
        sync_token=None,
        ctag=_etag(props.get(CTAG)),
        color=_etag(props.get("{http://apple.com/ns/ical/}calendar-color")),
    )
