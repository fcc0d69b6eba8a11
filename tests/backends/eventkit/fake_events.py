"""The event half of the EventKit fake (see ``fake.py``): what ``EventKitPort`` answers about
events, kept as plain values in memory."""

from __future__ import annotations

from backends.eventkit.fake_base import FakeBase


class FakeEvents(FakeBase):
    """Events and their occurrences; filled in with the calendar backend's tests."""
