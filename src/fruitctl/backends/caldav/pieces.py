"""Answers that do not fit the size cap, asked for in pieces.

A calendar-multiget whose answer is larger than ``[caldav] max_response_bytes`` is asked again in
halves, down to single objects; an object too large alone is left out, for the sync to record as
unreadable by its ETag (so it is not asked for again until it changes). One oversized object in a
shared calendar then costs a few requests once - never the sync, never the memory.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from fruitctl.backends.caldav.client import Dav
from fruitctl.backends.caldav.errors import AnswerTooLarge

log = logging.getLogger("fruitctl.caldav")

Fetched = tuple[str, str | None, str]
"""``(href, etag, text)`` of one object as the server has it."""


def fetch_fitting(dav: Dav, href: str, members: Sequence[str]) -> tuple[list[Fetched], list[str]]:
    """The objects ``members`` of the collection ``href`` that fit an answer, and the hrefs of
    those too large to be read at all."""
    if not members:
        return [], []
    try:
        return dav.fetch(href, members), []
    except AnswerTooLarge:
        if len(members) == 1:
            log.warning("skipped %s: larger than [caldav] max_response_bytes", members[0])
            return [], list(members)
    half = len(members) // 2
    first, over = fetch_fitting(dav, href, members[:half])
    rest, more = fetch_fitting(dav, href, members[half:])
    return first + rest, over + more
