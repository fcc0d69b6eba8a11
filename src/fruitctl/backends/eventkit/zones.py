"""Time zones as EventKit names them, and the zone a write keeps: pure functions.

``NSTimeZone`` names are not all IANA keys: a fixed-offset zone is called ``GMT+0100``
(``timeZoneForSecondsFromGMT:``) and an Exchange or Outlook invitation can carry a Windows name
(``W. Europe Standard Time``) or one of its own. Reading one must never fail: a ``GMT±HHMM``
name is that offset, a common Windows name its IANA zone, and anything else is read as the
instant it is, in the person's zone (the instant itself is always exact).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fruitctl.domain.dates import wire_zone

_OFFSET_NAME = re.compile(r"(?:GMT|UTC)(?:([+-])(\d{1,2}):?(\d{2})?)?")

# Windows zone names as Exchange and Outlook send them, to the IANA zone CLDR's
# windowsZones.xml gives for their main territory. Only the common ones: an unlisted name
# still reads right (as the instant, in the person's zone), it only loses its own zone name.
WINDOWS_ZONES = {
    "GMT Standard Time": "Europe/London",
    "Greenwich Standard Time": "Atlantic/Reykjavik",
    "W. Europe Standard Time": "Europe/Berlin",
    "Romance Standard Time": "Europe/Paris",
    "Central Europe Standard Time": "Europe/Budapest",
    "Central European Standard Time": "Europe/Warsaw",
    "E. Europe Standard Time": "Europe/Chisinau",
    "FLE Standard Time": "Europe/Kiev",
    "GTB Standard Time": "Europe/Bucharest",
    "Russian Standard Time": "Europe/Moscow",
    "Eastern Standard Time": "America/New_York",
    "Central Standard Time": "America/Chicago",
    "Mountain Standard Time": "America/Denver",
    "US Mountain Standard Time": "America/Phoenix",
    "Pacific Standard Time": "America/Los_Angeles",
    "Alaskan Standard Time": "America/Anchorage",
    "Hawaiian Standard Time": "Pacific/Honolulu",
    "India Standard Time": "Asia/Kolkata",
    "China Standard Time": "Asia/Shanghai",
    "Tokyo Standard Time": "Asia/Tokyo",
    "Singapore Standard Time": "Asia/Singapore",
    "AUS Eastern Standard Time": "Australia/Sydney",
}


def iana_name(name: str | None) -> str | None:
    """The IANA key for an ``NSTimeZone`` name: itself, ``Etc/GMT-1`` for ``GMT+0100`` (the
    tz database's signs are inverted; whole hours only), a Windows name's zone; else None."""
    if not name:
        return None
    key = WINDOWS_ZONES.get(name, name)
    if _iana(key) is not None:
        return key
    offset = _offset(name)
    if offset is None or offset.total_seconds() % 3600:
        return None
    hours = -int(offset.total_seconds() // 3600)
    return "Etc/GMT" if hours == 0 else f"Etc/GMT{hours:+d}"


def zone_of(name: str | None) -> tzinfo | None:
    """The zone an ``NSTimeZone`` name stands for; None when floating or unknown (the caller
    reads the instant in the person's zone)."""
    if not name:
        return None
    found = _iana(WINDOWS_ZONES.get(name, name))
    if found is not None:
        return found
    offset = _offset(name)
    return None if offset is None else timezone(offset)


def person_zone_for(moment: datetime) -> str | None:
    """The person's IANA zone when a bare offset is theirs at that instant (an agent's
    ``09:00+01:00`` from Berlin in winter): a repeat then follows their clock across DST,
    where a fixed offset would drift an hour. None when the offset is someone else's."""
    zone = wire_zone()
    if moment.utcoffset() == moment.astimezone(zone).utcoffset():
        return zone.key
    return None


def _iana(name: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a folder's name
        return None


def _offset(name: str) -> timedelta | None:
    match = _OFFSET_NAME.fullmatch(name)
    if match is None:
        return None
    sign, hours, minutes = match.groups()
    if sign is None:
        return timedelta(0)
    offset = timedelta(hours=int(hours), minutes=int(minutes or 0))
    if offset >= timedelta(hours=24):
        return None
    return -offset if sign == "-" else offset
