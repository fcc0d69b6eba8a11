"""What goes over the wire to a CalDAV server and how its answers read: the request bodies
(PROPFIND of exactly the properties wanted, sync-collection and calendar-query REPORTs carrying
calendar-data), and multistatus answers read with lxml into collections and listings."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from caldav.lib import error as dav_error

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
    "<D:prop><D:getetag/>{data}</D:prop></D:sync-collection>"
)
CALENDAR_DATA = "<C:calendar-data/>"  # in a sync REPORT: the objects' texts, not just ETags
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
# A path whose every character ``quote`` keeps (unreserved, or in _SAFE), not "//" (a host).
_CANONICAL = re.compile(r"/(?!/)[A-Za-z0-9_.~/@:!$&'()*+,;=-]*")


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


def path_of(url: Any) -> str:
    """The canonical form of an href: its path, percent-encoded one way only (a path that
    has nothing to decode or encode is its own)."""
    text = str(url)
    if _CANONICAL.fullmatch(text):
        return text
    return quote(unquote(urlsplit(text).path), safe=_SAFE)


def etag_of(value: Any) -> str | None:
    return str(value) if value else None


@dataclass(frozen=True)
class _Found:
    href: str
    properties: dict[str, Any]


@dataclass(frozen=True)
class _Answer:
    status: int
    reason: str
    results: list[_Found]


def propfind(client: Any, url: str, props: Sequence[str], *, depth: int) -> _Answer:
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


def sync_listing(tree: Any, *, complete: bool) -> Listing:
    """A sync-collection multistatus: members changed (ETag and text) and members gone."""
    found = tree.find(f"{{{DAV}}}sync-token")
    if found is None or not (found.text or "").strip():
        # RFC 6578 answers always carry one: this was not sync.
        raise dav_error.ResponseError("a sync-collection answer without a sync-token")
    changed, texts, deleted = multistatus(tree)
    return Listing(found.text.strip(), changed, frozenset(deleted), complete, texts)


def multistatus(tree: Any) -> tuple[dict[str, str | None], dict[str, str], set[str]]:
    """The members of a REPORT's multistatus: ETags and texts of those there, hrefs of those
    gone (a 404 response). A first sync reads thousands of responses: each element is walked
    once, its children picked by tag (``_first``), not searched for by path."""
    changed: dict[str, str | None] = {}
    texts: dict[str, str] = {}
    deleted: set[str] = set()
    for response in tree.iterchildren(_RESPONSE):
        first = _first(response, _HREF, _STATUS)
        href = path_of(_text(first.get(_HREF)).strip())
        if "404" in _text(first.get(_STATUS)):
            deleted.add(href)
            continue
        for propstat in response.iterchildren(_PROPSTAT):
            parts = _first(propstat, _STATUS, _PROP)
            prop = parts.get(_PROP)
            if prop is None or "200" not in _text(parts.get(_STATUS)):
                continue
            values = _first(prop, ETAG, _DATA)
            changed[href] = etag_of(_text(values.get(ETAG)))
            text = _text(values.get(_DATA))
            if text:
                texts[href] = text
    for href in deleted:
        changed.pop(href, None)
    return changed, texts, deleted


_RESPONSE, _HREF, _STATUS = f"{{{DAV}}}response", f"{{{DAV}}}href", f"{{{DAV}}}status"
_PROPSTAT, _PROP, _DATA = f"{{{DAV}}}propstat", f"{{{DAV}}}prop", f"{{{CALDAV}}}calendar-data"


def _first(element: Any, *tags: str) -> dict[str, Any]:
    """The first child element of each of ``tags`` (Clark names) that ``element`` has."""
    found: dict[str, Any] = {}
    for child in element:
        if child.tag in tags and child.tag not in found:
            found[child.tag] = child
    return found


def _text(element: Any) -> str:
    """The text of an element ("" for none), as ``findtext`` reads it."""
    return "" if element is None else element.text or ""


def collection_of(result: Any) -> RemoteCollection | None:
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
        ctag=etag_of(props.get(CTAG)),
        color=etag_of(props.get("{http://apple.com/ns/ical/}calendar-color")),
    )
