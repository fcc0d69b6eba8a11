"""Shared fixtures: a private FRUITCTL_HOME per test, a real SQLite store in it, and the service.

Tests run in a zone with a non-zero, DST-observing offset (Europe/Rome) so that any place that
confuses local time, UTC and offsets shows up.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from searx_server import FakeSearx, running_searx

from fruitctl.backends.local import LocalReminders
from fruitctl.services.reminders import RemindersService
from fruitctl.store import open_database


@pytest.fixture(autouse=True)
def _zone_and_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("TZ", "Europe/Rome")
    time.tzset()
    home = tmp_path / "home"
    monkeypatch.setenv("FRUITCTL_HOME", str(home))
    for name in ("FRUITCTL_REMINDERS__BACKEND", "FRUITCTL_REMINDERS__NOTES_PREVIEW_CHARS"):
        monkeypatch.delenv(name, raising=False)
    yield home
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def searx() -> Iterator[FakeSearx]:
    """A real HTTP server on 127.0.0.1 answering in SearxNG's JSON format."""
    with running_searx() as server:
        yield server


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
