"""CalDAV backends on a fresh account of the session's Radicale, each with its own mirror file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from caldav_server import Account, OpenBackend

from fruitctl.backends import caldav
from fruitctl.backends.caldav import CaldavReminders
from fruitctl.store import open_database


@pytest.fixture
def open_backend(home: Path, caldav_account: Account) -> Iterator[OpenBackend]:
    """``open_backend(account=None, url=None, **settings)``: a backend with a mirror file of
    its own (two of them are two fruitctl installs on one account)."""
    opened: list[tuple[CaldavReminders, Any]] = []

    def make(
        account: Account | None = None, url: str | None = None, **options: Any
    ) -> CaldavReminders:
        account = account or caldav_account
        engine = open_database(home / f"mirror-{len(opened)}.db", "local")
        options.setdefault("staleness_seconds", 0)
        settings = caldav.Settings(
            url or account.home, account.username, account.password, **options
        )
        backend = caldav.reminders(settings, engine)
        opened.append((backend, engine))
        return backend

    yield make
    for backend, engine in opened:
        backend.close()
        engine.dispose()


@pytest.fixture
def backend(open_backend: OpenBackend) -> CaldavReminders:
    return open_backend()
