"""The store after a grant: an ``EKEventStore`` made before access was granted keeps the empty
view it had, so the real adapter makes a fresh one once access is granted - answered at the
prompt, or given in System Settings while the process runs - and the first read after the grant
shows the person's lists. Run through the real ``EventKitAdapter`` over ``fake_framework``."""

from __future__ import annotations

from pathlib import Path

import pytest
from backends.eventkit.fake_framework import FakeCalendar, Tcc, install

from fruitctl.backends.eventkit import adapter
from fruitctl.backends.eventkit.calendars import EventKitCalendars
from fruitctl.backends.eventkit.hosts import Responsible
from fruitctl.backends.eventkit.permission import Access
from fruitctl.backends.eventkit.reminders import EventKitReminders
from fruitctl.backends.eventkit.tagstore import TagStore
from fruitctl.backends.eventkit.values import DENIED, FULL_ACCESS
from fruitctl.domain.errors import PermissionDenied

TERMINAL = Responsible("Terminal", "/System/Applications/Utilities/Terminal.app", "terminal")
REMINDERS, EVENTS = 1, 0


@pytest.fixture
def tcc(monkeypatch: pytest.MonkeyPatch) -> Tcc:
    found = Tcc()
    found.calendars[REMINDERS] = [FakeCalendar("c1", "Reminders"), FakeCalendar("c2", "Errands")]
    found.calendars[EVENTS] = [FakeCalendar("e1", "Home")]
    install(found, monkeypatch)
    return found


def backends(tmp_path: Path) -> tuple[EventKitReminders, EventKitCalendars]:
    port = adapter.EventKitAdapter()
    access = Access(port, may_prompt=True, who=lambda: TERMINAL)
    reminders = EventKitReminders(port, access, TagStore(tmp_path / "none"))
    return reminders, EventKitCalendars(port, access)


def test_the_first_read_after_the_prompt_shows_the_lists(tcc: Tcc, tmp_path: Path) -> None:
    reminders, _ = backends(tmp_path)
    lists = reminders.lists()
    assert tcc.requests == [REMINDERS]  # asked once, with the store made to ask
    assert [(found.name, found.isDefault) for found in lists] == [
        ("Reminders", True),
        ("Errands", False),
    ]
    assert len(tcc.stores) == 2  # the one that asked, then a fresh one
    reminders.lists()
    assert len(tcc.stores) == 2  # and that one is kept warm


def test_a_grant_given_in_settings_while_running_shows_the_lists(tcc: Tcc, tmp_path: Path) -> None:
    tcc.status = {EVENTS: FULL_ACCESS, REMINDERS: DENIED}
    reminders, calendars = backends(tmp_path)
    assert [found.name for found in calendars.calendars()] == ["Home"]
    with pytest.raises(PermissionDenied):
        reminders.lists()
    tcc.status[REMINDERS] = FULL_ACCESS  # the person enables it in System Settings
    assert [found.name for found in reminders.lists()] == ["Reminders", "Errands"]
    assert [found.name for found in calendars.calendars()] == ["Home"]
    assert len(tcc.stores) == 2 and tcc.requests == []


def test_a_refused_prompt_keeps_the_store_and_says_so(tcc: Tcc, tmp_path: Path) -> None:
    tcc.answer = False
    reminders, _ = backends(tmp_path)
    with pytest.raises(PermissionDenied, match="Reminders access not granted"):
        reminders.lists()
    assert tcc.requests == [REMINDERS] and len(tcc.stores) == 1
