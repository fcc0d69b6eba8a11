"""Shared fixtures: a private FRUITCTL_HOME per test, a real SQLite store in it, and the service.

Tests run in a zone with a non-zero, DST-observing offset (Europe/Rome) so that any place that
confuses local time, UTC and offsets shows up.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import process_guard
import pytest
from caldav_server import Account, Radicale, running_radicale
from hypothesis import settings
from searx_server import FakeSearx, running_searx

from fruitctl.backends.local import LocalReminders
from fruitctl.capabilities.reminders.service import RemindersService
from fruitctl.domain.dates import use_zone
from fruitctl.sandbox import isolation
from fruitctl.store import open_database


@pytest.fixture(autouse=True)
def _zone_and_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("TZ", "Europe/Rome")
    time.tzset()
    use_zone(None)  # the host's, as a fresh start without [server] timezone
    home = tmp_path / "home"
    monkeypatch.setenv("FRUITCTL_HOME", str(home))
    # A daemon a test starts serves HTTP on a free port, never on a developer's 8765.
    monkeypatch.setenv("FRUITCTL_HTTP__PORT", "0")
    for name in (
        "FRUITCTL_REMINDERS__BACKEND",
        "FRUITCTL_REMINDERS__NOTES_PREVIEW_CHARS",
        "FRUITCTL_CALENDAR__BACKEND",
        "FRUITCTL_CALENDAR__NOTES_PREVIEW_CHARS",
        "FRUITCTL_CALDAV_PASSWORD",
        # A developer's own daemon must never answer a test's CLI: the socket is the home's.
        "FRUITCTL_SOCKET_PATH",
        "FRUITCTL_SERVER__SOCKET_PATH",
        "FRUITCTL_IN_PROCESS",
        # Nor a gateway elsewhere the developer's CLI is pointed at.
        "FRUITCTL_URL",
        "FRUITCTL_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)
    yield home
    monkeypatch.undo()
    time.tzset()
    use_zone(None)


@pytest.fixture
def searx() -> Iterator[FakeSearx]:
    """A real HTTP server on 127.0.0.1 answering in SearxNG's JSON format."""
    with running_searx() as server:
        yield server


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Radicale]:
    """A real Radicale for the whole session; each test takes an account of its own."""
    with running_radicale(tmp_path_factory.mktemp("radicale")) as server:
        yield server


@pytest.fixture
def caldav_account(radicale: Radicale) -> Account:
    """A fresh account on the session's Radicale, holding a task list, 'Reminders', and an
    event calendar, 'Calendar' (``made[0]`` and ``made[1]``)."""
    account = radicale.add_account()
    account.make_calendar("Reminders", ["VTODO"])
    account.make_calendar("Calendar", ["VEVENT"])
    return account


@pytest.fixture
def home(_zone_and_home: Path) -> Path:
    """The FRUITCTL_HOME of this test (not created until something writes into it)."""
    return _zone_and_home


@pytest.fixture
def local_backend(home: Path) -> Iterator[LocalReminders]:
    engine = open_database(home / "local.db", "local")
    yield LocalReminders(engine)
    engine.dispose()


@pytest.fixture
def service(local_backend: LocalReminders) -> RemindersService:
    return RemindersService(local_backend)


# CI runs the property tests with a fixed seed, so a run is reproducible; locally they explore.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


# -- the fast lane: a test that starts another process says so (tests/process_guard.py) -------


def pytest_sessionstart(session: pytest.Session) -> None:
    """The sandbox probes this machine's isolation once per process (one short ``unshare``
    run): probe it now, so a test that only shows it (``doctor``) is no process test."""
    isolation.current()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test on the session's Radicale starts it (or shares the start): a process test."""
    for item in items:
        if "radicale" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.process)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    process_guard.starts_allowed = any(item.iter_markers("process")) or any(
        item.iter_markers("slow")
    )
    process_guard.refused_starts.clear()
    try:
        yield
    finally:
        process_guard.starts_allowed = True


@pytest.fixture(autouse=True)
def _no_swallowed_start() -> Iterator[None]:
    """A start refused inside the code under test may come back as an error it answers (a tool
    that failed, a check that skipped): the test is told all the same."""
    yield
    if process_guard.refused_starts:
        raise process_guard.UnmarkedProcess(
            f"this test tried to start a process ({process_guard.refused_starts[0]}):"
            " mark it @pytest.mark.process"
        )
