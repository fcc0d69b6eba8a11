"""A third-party calendar backend that can do what the port asks and no more: it cannot make
calendars (no ``create_calendar``), as a plug-in for a read-mostly service would be."""

from __future__ import annotations

from typing import Any

from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.ports import CalendarBackend
from fruitctl.store import open_database

_PORT = ("permission_status", "calendars", "events", "get_event", "create_event",
         "update_event", "delete_event")  # fmt: skip


class PlainCalendars:
    name = "plain"

    def __init__(self, inner: LocalCalendars) -> None:
        self._inner = inner

    def __getattr__(self, attribute: str) -> Any:
        if attribute not in _PORT:
            raise AttributeError(attribute)
        return getattr(self._inner, attribute)


def plain_calendars(config: Any) -> CalendarBackend:
    inner = LocalCalendars(open_database(config.paths.local_db, "local"))
    return PlainCalendars(inner)  # type: ignore[return-value]
