"""Time zones of calendar objects as zoneinfo knows them: a VTIMEZONE of a zone it knows is
read from it by name (icalendar does so, VTIMEZONE or not), so reads skip those blocks."""

from __future__ import annotations

import re
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def without_known_zones(text: str) -> str:
    """``text`` less the VTIMEZONEs of zones zoneinfo knows by their TZID. icalendar reads
    such a TZID from zoneinfo, VTIMEZONE or not, and parsing those blocks (decades of RDATEs)
    is most of the cost of reading an object: reads skip them, writers keep them."""
    return _VTIMEZONE.sub(_unless_custom, text)


_VTIMEZONE = re.compile(r"BEGIN:VTIMEZONE\r?\n.*?END:VTIMEZONE\r?\n", re.S)
_TZID = re.compile(r"^TZID:(.*?)\r?$", re.M)


def _unless_custom(block: re.Match[str]) -> str:
    found = _TZID.search(block.group(0))
    return "" if found and is_iana(found.group(1).strip()) else block.group(0)


@lru_cache(maxsize=256)
def is_iana(name: str) -> bool:
    """Whether zoneinfo knows the zone ``name`` (icalendar reads such a TZID from it)."""
    try:
        ZoneInfo(name)
    except (ValueError, ZoneInfoNotFoundError):
        return False
    return True
