"""The embedded store is one account, "On this computer": every list and calendar says so,
``Account/Name`` names one as the bare name does, and a name with a "/" in it is a name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fruitctl.backends.local import LocalReminders
from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.capabilities.calendar.service import CalendarService
from fruitctl.capabilities.reminders.service import RemindersService
from fruitctl.domain.errors import NotFound
from fruitctl.store import open_database

HERE = "On this computer"


@pytest.fixture
def calendar(home: Path) -> Iterator[CalendarService]:
    backend = LocalCalendars(open_database(home / "local.db", "local"))
    yield CalendarService(backend)
    backend.close()


def test_every_list_and_calendar_says_it_is_on_this_computer(
    service: RemindersService, local_backend: LocalReminders, calendar: CalendarService
) -> None:
    local_backend.create_list("Work")
    assert [(lst["account"], lst["name"]) for lst in service.get_lists()] == [
        (HERE, "Reminders"),
        (HERE, "Work"),
    ]
    assert [(c["account"], c["name"]) for c in calendar.list_calendars()] == [(HERE, "Calendar")]
    made = calendar.create_event({"title": "x", "startAt": "2026-03-02", "calendar": "Calendar"})
    assert made["calendarName"] == "Calendar"


def test_account_slash_name_and_a_slashed_name_both_name_a_list(
    service: RemindersService, local_backend: LocalReminders
) -> None:
    slashed = local_backend.create_list("Work/Home")
    by_account = service.create_reminders(
        {"reminders": [{"title": "a", "list": {"name": "on this computer/work/home"}}]}
    )
    by_name = service.create_reminders({"reminders": [{"title": "b", "list": "Work/Home"}]})
    assert {r["listId"] for r in (*by_account, *by_name)} == {slashed.id}
    found = service.query_reminders({"list": {"name": f"{HERE}/Work/Home"}})
    assert sorted(r["title"] for r in found) == ["a", "b"]
    with pytest.raises(NotFound, match="Available lists: Reminders, Work/Home"):
        service.query_reminders({"list": {"name": "iCloud/Work/Home"}})


def test_a_calendar_by_account_slash_name(calendar: CalendarService) -> None:
    made = calendar.create_event(
        {"title": "x", "startAt": "2026-03-02", "calendar": f"{HERE.upper()}/calendar"}
    )
    assert made["calendarName"] == "Calendar"
