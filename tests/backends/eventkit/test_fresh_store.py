"""A long-running daemon never works from a stale copy (finding C3 of the macOS review): an
``EKEventStore`` hands out the objects it loaded until it is reset, and this process hears no
change notification. So a read by id and every write start from what is saved now - the base
an approved write changes and the copy a proposal's conflict check compares - and list reads
catch up within the read cache's few seconds. The real adapter over ``fake_framework``, where
Reminders.app and Calendar.app commit behind the store's back (``Tcc.edit``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from backends.eventkit.fake_framework import FakeCalendar, Tcc
from backends.eventkit.fake_mac import (
    LIST,
    REMINDERS,
    granted_mac,
    saved_event,
    saved_reminder,
)
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.backends import eventkit
from fruitctl.backends.eventkit.adapter import EventKitAdapter
from fruitctl.backends.eventkit.calendars import EventKitCalendars
from fruitctl.backends.eventkit.permission import Access, Responsible
from fruitctl.backends.eventkit.reminders import EventKitReminders
from fruitctl.backends.eventkit.tagstore import TagStore
from fruitctl.cli.app import app as cli_app
from fruitctl.domain.actors import Actor
from fruitctl.ports import EventRange, ReminderQuery

ITERM = Responsible("iTerm", "/Applications/iTerm.app", "terminal")
AGENT = Actor("agent", "claude")
START = datetime(2026, 3, 2, 8, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def mac(monkeypatch: pytest.MonkeyPatch) -> Tcc:
    return granted_mac(monkeypatch)


def reminders(tmp_path: Path, clock: Clock) -> EventKitReminders:
    adapter = EventKitAdapter()
    access = Access(adapter, who=lambda: ITERM)
    return EventKitReminders(adapter, access, TagStore(tmp_path / "none"), clock=clock)


def test_an_approved_write_starts_from_the_item_as_saved_now(mac: Tcc, tmp_path: Path) -> None:
    backend = reminders(tmp_path, Clock())
    ident = saved_reminder(mac, "Dentist")
    backend.fetch(ReminderQuery())  # the store has loaded it: warm, as in a daemon
    filed = backend.get(ident)  # what a proposal snapshots

    mac.edit(ident, title="Dentist at 9")  # the person renames it in Reminders.app
    now = backend.get(ident)  # what the conflict check compares
    assert now.title == "Dentist at 9" and now.modificationDate != filed.modificationDate

    backend.update(ident, {"priority": 1})
    assert mac.saved[ident]["title"] == "Dentist at 9"  # the person's title, not a stale one
    assert mac.saved[ident]["priority"] == 1


def test_a_list_read_catches_up_with_the_app_once_its_cache_has_passed(
    mac: Tcc, tmp_path: Path
) -> None:
    clock = Clock()
    backend = reminders(tmp_path, clock)
    ident = saved_reminder(mac, "Dentist")
    assert [r.title for r in backend.fetch(ReminderQuery())] == ["Dentist"]
    mac.edit(ident, title="Dentist at 9")
    assert [r.title for r in backend.fetch(ReminderQuery())] == ["Dentist"]  # within the cache
    clock.now += 2.0  # cache_seconds: the longest a daemon is behind the app
    assert [r.title for r in backend.fetch(ReminderQuery())] == ["Dentist at 9"]


def test_a_list_renamed_in_the_app_is_read_renamed_once_the_cache_has_passed(
    mac: Tcc, tmp_path: Path
) -> None:
    clock = Clock()
    backend = reminders(tmp_path, clock)
    assert [found.name for found in backend.lists()] == ["Reminders"]
    mac.calendars[REMINDERS] = [FakeCalendar(LIST, "Home", REMINDERS)]  # renamed in the app
    clock.now += 2.0
    assert [found.name for found in backend.lists()] == ["Home"]


def test_an_event_changed_in_calendar_is_read_and_changed_as_it_is_now(mac: Tcc) -> None:
    adapter = EventKitAdapter()
    calendars = EventKitCalendars(adapter, Access(adapter, who=lambda: ITERM), refresh_seconds=60)
    ident = saved_event(mac, "Dentist", START, START + timedelta(hours=1))
    week = EventRange(START - timedelta(days=1), START + timedelta(days=6))
    assert [e.title for e in calendars.events(week)] == ["Dentist"]

    mac.edit(ident, title="Dentist (moved)")
    assert calendars.get_event(ident).title == "Dentist (moved)"
    calendars.update_event(ident, {"location": "Via Roma 1"}, "series")
    assert mac.saved[ident]["title"] == "Dentist (moved)"
    assert mac.saved[ident]["location"] == "Via Roma 1"


# -- through the approvals, as the person sees it ------------------------------------------------

runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(cli_app, list(args))


@pytest.fixture
def on_a_mac(mac: Tcc, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tcc:
    """This process as a Mac whose one warm store is the real adapter's, over ``mac``."""
    adapter = EventKitAdapter()
    monkeypatch.setattr(eventkit, "available", lambda: True)
    monkeypatch.setattr(eventkit, "shared_port", lambda: adapter)
    monkeypatch.setattr(
        eventkit,
        "shared_access",
        lambda may_prompt: Access(adapter, may_prompt=may_prompt, who=lambda: ITERM),
    )
    monkeypatch.setenv("FRUITCTL_EVENTKIT__REMINDERS_STORE", str(tmp_path / "no-store"))
    return mac


def test_an_item_edited_in_the_app_after_the_proposal_is_a_conflict(on_a_mac: Tcc) -> None:
    ident = saved_reminder(on_a_mac, "Draft")
    listed = cli("reminders", "list", "--json")  # the daemon's store loads it
    assert listed.exit_code == 0 and "Draft" in listed.stdout, listed.output
    app = bootstrap.build()
    try:
        change = {"reminders": [{"id": ident, "title": "Agent's title"}]}
        pending = app.gateway.invoke("update_reminders", change, AGENT)
        assert pending.success and pending.metadata.get("pending"), pending.error
        proposal = pending.output["proposalId"]
    finally:
        app.close()
    on_a_mac.edit(ident, title="Person's title")

    refused = cli("proposals", "approve", proposal, "--json")
    assert refused.exit_code == 4, refused.output  # conflict
    assert json.loads(refused.stdout)["error"]["code"] == "conflict"
    assert on_a_mac.saved[ident]["title"] == "Person's title"
    assert on_a_mac.violations == []
