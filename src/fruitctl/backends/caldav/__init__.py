"""The ``caldav`` backend: reminders (VTODO) and events (VEVENT) on any CalDAV server, read from
a local mirror kept in step by WebDAV sync, written to the server first.

The composition root opens the mirror file (a local.db-shaped SQLite database) and hands it in
with the settings as plain values: this package never reads configuration itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Engine

from fruitctl.backends.caldav.account import MAX_RESPONSE_BYTES, Account
from fruitctl.backends.caldav.client import Dav
from fruitctl.backends.caldav.events import CaldavCalendars, EventKind
from fruitctl.backends.caldav.reminders import CaldavReminders, TodoKind
from fruitctl.backends.caldav.sync import Kind, Mirror, Options, Progress, Report

__all__ = [
    "CaldavCalendars",
    "CaldavReminders",
    "Progress",
    "Report",
    "Settings",
    "calendars",
    "open_mirror",
    "reminders",
]


@dataclass(frozen=True)
class Settings:
    url: str
    username: str
    password: str = field(repr=False)
    lists: tuple[str, ...] | None = None
    """Names (or hrefs) of the calendars that are reminder lists; None: every VTODO calendar."""
    calendars: tuple[str, ...] | None = None
    """Names (or hrefs) of the calendars mirrored for events; None: every VEVENT calendar."""
    staleness_seconds: float = 60.0
    timeout_seconds: float = 10.0
    """How long one request to the server may take in all (a trickling answer is cut off)."""
    max_response_bytes: int = MAX_RESPONSE_BYTES
    """The largest answer read from the server."""
    use_sync_token: bool = True


def open_mirror(settings: Settings, engine: Engine) -> Mirror:
    """The sync engine of one account over the mirror database ``engine``. It always mirrors
    both kinds, so the reminders and the calendar backend of a process share one: one check
    of the server keeps both fresh."""
    account = Account(
        settings.url,
        settings.username,
        settings.password,
        settings.timeout_seconds,
        settings.max_response_bytes,
    )
    options = Options(settings.staleness_seconds, settings.use_sync_token)
    kinds: list[Kind] = [TodoKind(settings.lists), EventKind(settings.calendars)]
    return Mirror(Dav(account), engine, kinds, options)


def reminders(settings: Settings, engine: Engine, mirror: Mirror | None = None) -> CaldavReminders:
    """The reminders backend; ``mirror``: the account's mirror the calendar backend uses."""
    return CaldavReminders(mirror or open_mirror(settings, engine))


def calendars(settings: Settings, engine: Engine, mirror: Mirror | None = None) -> CaldavCalendars:
    """The calendar backend; ``mirror``: the account's mirror the reminders backend uses."""
    return CaldavCalendars(mirror or open_mirror(settings, engine))
