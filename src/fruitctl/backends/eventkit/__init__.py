"""The ``eventkit`` backend: the person's own Apple Reminders and Calendar, on macOS.

``open_reminders`` and ``open_calendars`` build the two backends (not named after their
modules, ``reminders`` and ``calendars``, which importing would shadow).

``adapter.py`` (with its helpers ``decode``, ``encode``, ``find``, ``owner`` and ``kit``) is the
only code that touches PyObjC (``EKEventStore``, owned by one thread); it speaks in the plain
values of ``values.py``. Everything above it - the backends, the mapping of fields, dates,
priorities and errors, permissions, the Reminders store read for tags and flags - works on
those values, so it runs and is tested on any platform through a fake of ``EventKitPort``.
"""

from __future__ import annotations

import sys
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fruitctl.backends.eventkit.calendars import EventKitCalendars
    from fruitctl.backends.eventkit.permission import Access
    from fruitctl.backends.eventkit.reminders import EventKitReminders
    from fruitctl.backends.eventkit.values import EventKitPort

REMINDERS_STORE = (
    Path.home() / "Library/Group Containers/group.com.apple.reminders/Container_v1/Stores"
)


def available() -> bool:
    """Whether this process can reach EventKit: macOS with PyObjC's EventKit bridge installed
    (found without importing it: the import costs hundreds of milliseconds)."""
    return sys.platform == "darwin" and find_spec("EventKit") is not None


@cache
def shared_port() -> EventKitPort:
    """The process's one warm ``EKEventStore`` (created on its first use, not here)."""
    from fruitctl.backends.eventkit.adapter import EventKitAdapter

    return EventKitAdapter()


@cache
def shared_access(may_prompt: bool) -> Access:
    from fruitctl.backends.eventkit.permission import Access

    return Access(shared_port(), may_prompt=may_prompt)


def open_reminders(
    access: Access,
    store: Path | None = None,
    *,
    fetch_timeout: float = 10.0,
    cache_seconds: float = 2.0,
    port: EventKitPort | None = None,
) -> EventKitReminders:
    """The person's Apple Reminders; tags, flags and subtasks read from the Reminders app's
    database in ``store`` (the app's default folder when None)."""
    from fruitctl.backends.eventkit.reminders import EventKitReminders
    from fruitctl.backends.eventkit.tagstore import TagStore

    return EventKitReminders(
        port or shared_port(),
        access,
        TagStore(store or REMINDERS_STORE),
        fetch_timeout=fetch_timeout,
        cache_seconds=cache_seconds,
    )


def open_calendars(
    access: Access, *, refresh_seconds: float = 2.0, port: EventKitPort | None = None
) -> EventKitCalendars:
    """The person's Apple Calendar (changes made in other apps picked up within
    ``refresh_seconds``)."""
    from fruitctl.backends.eventkit.calendars import EventKitCalendars

    return EventKitCalendars(port or shared_port(), access, refresh_seconds=refresh_seconds)
