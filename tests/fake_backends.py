"""Backends for daemon tests, loaded by a ``fruitctl serve`` subprocess as plug-ins
(``[reminders] backend = "fake_backends:denied_reminders"``, with this directory on PYTHONPATH).

- ``denied_*``: the operating system refused access (seed 000's permission_denied, with the
  service and instructions);
- ``slow_reminders``: the local store, but a fetch first touches ``FRUITCTL_TEST_MARKER`` (so a
  test knows the request is in flight) and then sleeps ``FRUITCTL_TEST_SLOW_S`` seconds;
- ``broken_reminders``: a fetch fails with an exception whose text holds a path and a traceback
  line, which must never reach a client.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from fruitctl.backends.local import LocalReminders
from fruitctl.domain.errors import PermissionDenied
from fruitctl.ports import CalendarBackend, ReminderQuery, RemindersBackend
from fruitctl.store import open_database

INSTRUCTIONS = {
    "reminders": [
        "Open System Settings > Privacy & Security > Reminders",
        "Enable access for fruitctl",
        "Retry the command",
    ],
    "calendar": [
        "Open System Settings > Privacy & Security > Calendars",
        "Enable full access for fruitctl",
        "Retry the command",
    ],
}
LEAK = "/root/secret/fruitctl/backend.py line 42 Traceback (most recent call last)"


def _denied(service: str) -> PermissionDenied:
    return PermissionDenied(
        f"{service.capitalize()} access not granted",
        service=service,
        instructions=INSTRUCTIONS[service],
    )


def _members(protocol: type) -> frozenset[str]:
    return frozenset(name for name in vars(protocol) if not name.startswith("_"))


PORT_METHODS = _members(RemindersBackend) | _members(CalendarBackend)


class _Denied:
    """Every call of the ports refused, the way EventKit refuses without TCC permission. Only the
    ports' methods exist: a probe for an optional one (``tags_status`` …) finds nothing."""

    def __init__(self, service: str) -> None:
        self.name = f"denied-{service}"
        self._service = service

    def permission_status(self) -> str:
        return "denied"

    def __getattr__(self, attribute: str) -> Any:
        if attribute not in PORT_METHODS:
            raise AttributeError(attribute)

        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise _denied(self._service)

        return refuse


def denied_reminders(config: Any) -> Any:
    return _Denied("reminders")


def denied_calendars(config: Any) -> Any:
    return _Denied("calendar")


class SlowReminders(LocalReminders):
    def fetch(self, query: ReminderQuery) -> Any:
        marker = os.environ.get("FRUITCTL_TEST_MARKER")
        if marker:
            Path(marker).touch()
        time.sleep(float(os.environ.get("FRUITCTL_TEST_SLOW_S", "1")))
        return super().fetch(query)


def slow_reminders(config: Any) -> Any:
    return SlowReminders(open_database(config.paths.local_db, "local"))


class BrokenReminders(LocalReminders):
    def fetch(self, query: ReminderQuery) -> Any:
        raise RuntimeError(LEAK)


def broken_reminders(config: Any) -> Any:
    return BrokenReminders(open_database(config.paths.local_db, "local"))
