"""The ``local`` backend: the embedded SQLite store that works everywhere.

``LocalCalendars`` lives in ``fruitctl.backends.local.calendars`` and is imported from there:
it brings the iCalendar libraries, which a reminders-only start-up need not load."""

from fruitctl.backends.local.reminders import LocalReminders

__all__ = ["LocalReminders"]
