"""An event's availability as Calendar.app keeps it: free does not take its time; busy,
tentative and unavailable do - read by the real adapter over ``fake_framework``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from backends.eventkit.fake_framework import Tcc
from backends.eventkit.fake_mac import granted_mac, saved_event

from fruitctl.backends.eventkit.adapter import EventKitAdapter
from fruitctl.backends.eventkit.calendars import EventKitCalendars
from fruitctl.backends.eventkit.permission import Access, Responsible
from fruitctl.ports import EventRange

ITERM = Responsible("iTerm", "/Applications/iTerm.app", "terminal")
START = datetime(2026, 3, 2, 8, tzinfo=UTC)
# EKEventAvailability: NotSupported -1, Busy 0, Free 1, Tentative 2, Unavailable 3.
READ_AS = {-1: "busy", 0: "busy", 1: "free", 2: "busy", 3: "busy"}


@pytest.fixture
def mac(monkeypatch: pytest.MonkeyPatch) -> Tcc:
    return granted_mac(monkeypatch)


def test_only_a_free_event_reads_free(mac: Tcc) -> None:
    adapter = EventKitAdapter()
    calendars = EventKitCalendars(adapter, Access(adapter, who=lambda: ITERM), refresh_seconds=0)
    made = {
        saved_event(mac, f"kind {kind}", START, START + timedelta(hours=1), availability=kind): kind
        for kind in READ_AS
    }
    week = EventRange(START - timedelta(days=1), START + timedelta(days=6))
    found = {event.id: event.availability for event in calendars.events(week)}
    assert found == {ident: READ_AS[kind] for ident, kind in made.items()}
    free = next(ident for ident, kind in made.items() if kind == 1)
    assert calendars.get_event(free).availability == "free"
