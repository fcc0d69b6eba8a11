"""Which of an account's collections a mirror holds, under which ids, and how a sync reads
the ones it has not mirrored yet.

A collection is matched with its mirror identity by href; a new one gets the last segment of
its href as id (with a short hash when two would clash). Configuration names a collection by
its name, its href or that last segment, in any case. ``Ahead`` asks for the whole listings of
new collections one ahead of the sync that stores them.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from urllib.parse import unquote

from fruitctl.backends.caldav.state import Known
from fruitctl.backends.caldav.wire import Listing, RemoteCollection


def named(name: str, href: str, wanted: Sequence[str]) -> bool:
    """Does configuration naming ``wanted`` (case-folded names, hrefs or ids) mean this one?"""
    segment = href.rstrip("/").rsplit("/", 1)[-1]
    return bool({name.casefold(), href.casefold(), segment.casefold()} & set(wanted))


def unchanged(remote: RemoteCollection, known: Known) -> bool:
    return remote.ctag is not None and remote.ctag == known.ctag


def unmirrored(
    pairs: Sequence[tuple[RemoteCollection, Known]], stored: dict[str, dict[str, str | None]]
) -> list[str]:
    """The hrefs of the collections a sync reads whole: changed, never synced, and with
    nothing mirrored (``stored``: each collection's ETags by its id)."""
    return [
        known.href
        for remote, known in pairs
        if not unchanged(remote, known) and not known.sync_token and not stored[known.id]
    ]


def match(
    chosen: Sequence[tuple[RemoteCollection, frozenset[str]]], before: Sequence[Known]
) -> list[tuple[RemoteCollection, Known]]:
    """Each chosen collection with its mirror identity: kept by href once given, new ones get
    the last segment of their href (with a short hash if two would clash), in href order."""
    by_href = {k.href: k for k in before}
    taken = {k.id for k in before}
    position = max((k.position for k in before), default=-1)
    pairs = []
    for item, components in sorted(chosen, key=lambda pair: pair[0].href):
        known = by_href.get(item.href)
        if known is None:
            position += 1
            known = Known(
                _new_id(item.href, taken), item.href, item.name, components, None, None, position
            )
            taken.add(known.id)
        elif known.components != components:
            known = replace(known, components=components, sync_token=None, ctag=None)
        pairs.append((item, replace(known, name=item.name)))
    return sorted(pairs, key=lambda pair: pair[1].position)


def _new_id(href: str, taken: set[str]) -> str:
    segment = unquote(href.rstrip("/").rsplit("/", 1)[-1]) or "calendar"
    if segment not in taken:
        return segment
    return f"{segment}~{hashlib.sha256(href.encode()).hexdigest()[:8]}"


class Ahead:
    """The whole listings of the collections a sync reads whole, each asked (on one worker
    thread) while the one before it is stored, so the server answers while we parse. One
    listing at most waits in memory."""

    def __init__(self, ask: Callable[[str], Listing], hrefs: Sequence[str]) -> None:
        self._ask = ask
        self._next = dict(itertools.pairwise(hrefs))
        self._asked: dict[str, Future[Listing]] = {}
        self._pool = ThreadPoolExecutor(1, "fruitctl-caldav") if len(hrefs) > 1 else None

    def listing(self, href: str) -> Listing:
        """The listing of ``href``: the one asked ahead, or asked now."""
        future = self._asked.pop(href, None)
        found = future.result() if future is not None else self._ask(href)
        after = self._next.pop(href, None)
        if after is not None and self._pool is not None:
            self._asked[after] = self._pool.submit(self._ask, after)
        return found

    def __enter__(self) -> Ahead:
        return self

    def __exit__(self, *_: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
