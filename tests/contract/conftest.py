"""The backends the contract suites run against (``test_reminders_backend.py``,
``test_calendar_backend.py``), one pytest param each.

A backend joins by adding an opener to ``REMINDERS`` or ``CALENDARS``: it takes the test's
private home and the pytest request (to pull fixtures such as a running server) and returns the
backend and a function that releases it. Every test taking ``backend`` / ``calendar_backend``
then runs once per opener.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from backends.eventkit.fake import FakeEventKit
from sqlalchemy import Engine

from fruitctl.backends import caldav
from fruitctl.backends.eventkit.calendars import EventKitCalendars
from fruitctl.backends.eventkit.permission import Access
from fruitctl.backends.eventkit.reminders import EventKitReminders
from fruitctl.backends.eventkit.tagstore import TagStore
from fruitctl.backends.local import LocalReminders
from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.ports import CalendarBackend, RemindersBackend
from fruitctl.store import open_database

Opened = tuple[Any, Callable[[], None]]
Opener = Callable[[Path, pytest.FixtureRequest], Opened]


def _local(make: Callable[[Engine], Any]) -> Opener:
    def open_local(home: Path, _: pytest.FixtureRequest) -> Opened:
        engine = open_database(home / "local.db", "local")
        return make(engine), engine.dispose

    return open_local


def _caldav(make: Callable[[caldav.Settings, Engine], Any]) -> Opener:
    def open_caldav(home: Path, request: pytest.FixtureRequest) -> Opened:
        # A fresh account on the session's real Radicale; a staleness of 0 makes every read
        # sync first, so the suites check what the server holds, not only what the mirror was
        # told.
        account = request.getfixturevalue("caldav_account")
        engine = open_database(home / "caldav-cache.db", "local")
        settings = caldav.Settings(
            account.home, account.username, account.password, staleness_seconds=0
        )
        backend = make(settings, engine)

        def close() -> None:
            backend.close()
            engine.dispose()

        return backend, close

    return open_caldav


def _eventkit(make: Callable[[FakeEventKit, Access, Path], Any]) -> Opener:
    def open_eventkit(home: Path, _: pytest.FixtureRequest) -> Opened:
        # Apple's store as the thin fake of the one adapter: everything above it is the real
        # backend. The store starts as a new Mac's does: one default list and one calendar.
        fake = FakeEventKit()
        fake.add_calendar("reminder", "Reminders", default=True)
        fake.add_calendar("event", "Calendar", default=True)
        return make(fake, Access(fake), home), lambda: None

    return open_eventkit


REMINDERS: dict[str, Opener] = {
    "local": _local(LocalReminders),
    "caldav": _caldav(caldav.reminders),
    "eventkit": _eventkit(
        lambda fake, access, home: EventKitReminders(
            fake, access, TagStore(home / "no-reminders-store"), cache_seconds=0
        )
    ),
}
CALENDARS: dict[str, Opener] = {
    "local": _local(LocalCalendars),
    "caldav": _caldav(caldav.calendars),
    "eventkit": _eventkit(lambda fake, access, home: EventKitCalendars(fake, access)),
}


def _params(names: dict[str, Opener]) -> list[Any]:
    """Each backend by name; CalDAV's run on the session's Radicale, a process of its own."""
    return [
        pytest.param(n, marks=pytest.mark.process) if n == "caldav" else n for n in sorted(names)
    ]


@pytest.fixture(params=_params(REMINDERS))
def backend(request: pytest.FixtureRequest, home: Path) -> Iterator[RemindersBackend]:
    instance, close = REMINDERS[request.param](home, request)
    yield instance
    close()


@pytest.fixture(params=_params(CALENDARS))
def calendar_backend(request: pytest.FixtureRequest, home: Path) -> Iterator[CalendarBackend]:
    instance, close = CALENDARS[request.param](home, request)
    yield instance
    close()
