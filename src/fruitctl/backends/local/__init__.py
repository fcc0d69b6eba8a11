"""The ``local`` backend: the embedded SQLite store that works everywhere."""

from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.backends.local.reminders import LocalReminders

__all__ = ["LocalCalendars", "LocalReminders"]
