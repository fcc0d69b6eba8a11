"""Backends for the calendar contract suite (``test_calendar_backend.py``).

A backend joins by adding a factory to ``CALENDAR_FACTORIES``: it takes the test's private
home and the pytest request (to pull fixtures such as a running server) and returns the
backend and a function that releases it. For CalDAV, for instance::

    def _caldav(home, request):
        account = request.getfixturevalue("caldav_account")
        engine = open_database(home / "caldav-cache.db", "local")
        backend = caldav.calendars(settings_for(account), engine)
        return backend, lambda: (backend.close(), engine.dispose())

    CALENDAR_FACTORIES["caldav"] = _caldav

Every test that takes the ``calendar_backend`` fixture then runs once per factory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from fruitctl.backends import caldav
from fruitctl.backends.local import LocalCalendars
from fruitctl.ports import CalendarBackend
from fruitctl.store import open_database

CalendarFactory = Callable[
    [Path, pytest.FixtureRequest], tuple[CalendarBackend, Callable[[], None]]
]


def _local(home: Path, _: pytest.FixtureRequest) -> tuple[CalendarBackend, Callable[[], None]]:
    engine = open_database(home / "local.db", "local")
    return LocalCalendars(engine), engine.dispose


def _caldav(
    home: Path, request: pytest.FixtureRequest
) -> tuple[CalendarBackend, Callable[[], None]]:
    # A fresh account on the session's real Radicale; every read syncs first (staleness 0).
    account = request.getfixturevalue("caldav_account")
    engine = open_database(home / "caldav-cache.db", "local")
    settings = caldav.Settings(
        account.home, account.username, account.password, staleness_seconds=0
    )
    backend = caldav.calendars(settings, engine)

    def close() -> None:
        backend.close()
        engine.dispose()

    return backend, close


CALENDAR_FACTORIES: dict[str, CalendarFactory] = {
    "local": _local,
    "caldav": _caldav,
}


@pytest.fixture(params=sorted(CALENDAR_FACTORIES))
def calendar_backend(request: pytest.FixtureRequest, home: Path) -> Iterator[CalendarBackend]:
    instance, close = CALENDAR_FACTORIES[request.param](home, request)
    yield instance
    close()
