"""A reminder's repeat rule, start and alarms on every backend (``conftest.REMINDERS``): written,
read back, changed and cleared through the port; and a repeating reminder completed through the
service moving on to its next instance, the done one kept completed.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from fruitctl.capabilities.reminders.service import RemindersService
from fruitctl.domain.alarms import Alarm, Place
from fruitctl.domain.errors import InvalidParams, Unsupported
from fruitctl.domain.reminders import Reminder
from fruitctl.ports import NewReminder, ReminderQuery, RemindersBackend, ReminderScope

ROME = ZoneInfo("Europe/Rome")
NINE = datetime(2026, 3, 2, 9, 0, tzinfo=ROME)  # a Monday
# Only the local store keeps a location alarm: RFC 5545 has none, and EventKit's published
# selectors cannot set one's place.
KEEPS_PLACES = frozenset({"local"})


def _default_id(backend: RemindersBackend) -> str:
    (default,) = [lst for lst in backend.lists() if lst.isDefault]
    return default.id


def _create(backend: RemindersBackend, **fields: Any) -> Reminder:
    (made,) = backend.create([NewReminder(list_id=_default_id(backend), title="bins", **fields)])
    return made


def _everything(backend: RemindersBackend) -> list[Reminder]:
    return backend.fetch(ReminderQuery(ReminderScope(None, "all"), "oldest"))


def test_a_rule_a_start_and_alarms_are_kept(backend: RemindersBackend) -> None:
    alarms = (Alarm(minutesBefore=15), Alarm(at="2026-03-01T20:00:00+01:00"))
    made = _create(
        backend,
        due=NINE,
        recurrence="FREQ=WEEKLY;BYDAY=MO",
        start=datetime(2026, 3, 1, 18, 0, tzinfo=ROME),
        alarms=alarms,
    )
    assert made.recurrence == "FREQ=WEEKLY;BYDAY=MO"
    assert made.startDate == "2026-03-01T18:00:00+01:00"
    assert made.alarms == alarms
    assert backend.get(made.id) == made


def test_a_date_only_start_stays_a_date(backend: RemindersBackend) -> None:
    made = _create(backend, due=date(2026, 3, 6), start=date(2026, 3, 2))
    assert made.startDate == "2026-03-02"
    assert made.start == date(2026, 3, 2)


def test_a_repeating_reminder_without_a_start_reads_none(backend: RemindersBackend) -> None:
    """A store that must anchor a rule at a start (a VTODO's DTSTART) does not show it."""
    made = _create(backend, due=date(2026, 3, 2), recurrence="FREQ=DAILY;COUNT=3")
    assert made.startDate is None
    assert made.recurrence == "FREQ=DAILY;COUNT=3"


def test_update_sets_and_clears_them(backend: RemindersBackend) -> None:
    made = _create(backend, due=NINE)
    changed = backend.update(
        made.id,
        {
            "recurrence": "FREQ=MONTHLY;BYMONTHDAY=2",
            "startDate": datetime(2026, 3, 2, 8, 0, tzinfo=ROME),
            "alarms": (Alarm(minutesBefore=60),),
        },
    )
    assert changed.recurrence == "FREQ=MONTHLY;BYMONTHDAY=2"
    assert changed.startDate == "2026-03-02T08:00:00+01:00"
    assert changed.alarms == (Alarm(minutesBefore=60),)
    cleared = backend.update(made.id, {"recurrence": None, "startDate": None, "alarms": ()})
    assert (cleared.recurrence, cleared.startDate, cleared.alarms) == (None, None, ())
    assert cleared.dueDate == made.dueDate
    assert backend.get(made.id) == cleared


def test_an_alarm_after_the_due_is_kept(backend: RemindersBackend) -> None:
    made = _create(backend, due=NINE, alarms=(Alarm(minutesBefore=-30),))
    assert backend.get(made.id).alarms == (Alarm(minutesBefore=-30),)


def test_a_location_alarm_is_kept_or_refused_never_dropped(backend: RemindersBackend) -> None:
    office = Alarm(location=Place(title="Office", latitude=45.46, longitude=9.19, radius=150))
    if backend.name in KEEPS_PLACES:
        made = _create(backend, due=NINE, alarms=(office,))
        assert backend.get(made.id).alarms == (office,)
        return
    with pytest.raises(Unsupported) as refused:
        _create(backend, due=NINE, alarms=(office,))
    assert "not supported by the" in refused.value.message
    assert _everything(backend) == []
    plain = _create(backend, due=NINE)
    with pytest.raises(Unsupported):
        backend.update(plain.id, {"alarms": (office,)})
    assert backend.get(plain.id).alarms == plain.alarms


# -- completing a repeating reminder (the service, over each backend) ---------------------------


@pytest.fixture
def service(backend: RemindersBackend) -> RemindersService:
    return RemindersService(backend)


def _complete(service: RemindersService, reminder_id: str) -> dict[str, Any]:
    (updated,) = service.update_reminders({"reminders": [{"id": reminder_id, "completed": True}]})
    return dict(updated)


def test_completing_moves_it_to_the_next_instance(service: RemindersService) -> None:
    (made,) = service.create_reminders(
        {
            "reminders": [
                {
                    "title": "bins",
                    "dueDate": "2026-03-02T09:00:00+01:00",
                    "startDate": "2026-03-01T18:00:00+01:00",
                    "recurrence": "FREQ=WEEKLY;BYDAY=MO",
                    "alarms": [{"minutesBefore": 15}],
                }
            ]
        }
    )
    moved = _complete(service, made["id"])
    assert moved["id"] == made["id"]
    assert moved["isCompleted"] is False
    assert moved["dueDate"] == "2026-03-09T09:00:00+01:00"
    assert moved["startDate"] == "2026-03-08T18:00:00+01:00"
    assert moved["recurrence"] == "FREQ=WEEKLY;BYDAY=MO"
    assert moved["alarms"] == [{"minutesBefore": 15}]
    (done,) = service.query_reminders({"list": {"all": True}, "status": "completed"})
    assert done["title"] == "bins"
    assert done["dueDate"] == "2026-03-02T09:00:00+01:00"
    assert done["recurrence"] is None
    assert done["id"] != made["id"]


def test_a_count_runs_down_and_the_last_instance_completes(service: RemindersService) -> None:
    (made,) = service.create_reminders(
        {
            "reminders": [
                {"title": "pills", "dueDate": "2026-03-02", "recurrence": "FREQ=DAILY;COUNT=2"}
            ]
        }
    )
    second = _complete(service, made["id"])
    assert (second["dueDate"], second["recurrence"]) == ("2026-03-03", "FREQ=DAILY;COUNT=1")
    last = _complete(service, made["id"])
    assert last["isCompleted"] is True
    assert last["dueDate"] == "2026-03-03"
    done = service.query_reminders({"list": {"all": True}, "status": "completed"})
    assert sorted(r["dueDate"] for r in done) == ["2026-03-02", "2026-03-03"]


def test_wall_clock_time_is_kept_across_a_dst_change(service: RemindersService) -> None:
    (made,) = service.create_reminders(
        {
            "reminders": [
                {
                    "title": "walk",
                    "dueDate": "2026-03-28T09:00:00+01:00",
                    "recurrence": "FREQ=DAILY",
                    "alarms": [{"at": "2026-03-28T08:30:00+01:00"}],
                }
            ]
        }
    )
    moved = _complete(service, made["id"])
    assert moved["dueDate"] == "2026-03-29T09:00:00+02:00"  # Rome moved to summer time
    assert moved["alarms"] == [{"at": "2026-03-29T08:30:00+02:00"}]


def test_a_rule_or_an_alarm_in_minutes_needs_a_due(service: RemindersService) -> None:
    for item in (
        {"title": "x", "recurrence": "FREQ=DAILY"},
        {"title": "x", "alarms": [{"minutesBefore": 5}]},
    ):
        with pytest.raises(InvalidParams):
            service.create_reminders({"reminders": [item]})
    (made,) = service.create_reminders(
        {"reminders": [{"title": "x", "dueDate": "2026-03-02", "recurrence": "FREQ=DAILY"}]}
    )
    with pytest.raises(InvalidParams, match="needs a due date"):
        service.update_reminders({"reminders": [{"id": made["id"], "dueDate": None}]})


def test_a_rule_finer_than_hourly_is_refused(service: RemindersService) -> None:
    with pytest.raises(InvalidParams, match="at most"):
        service.create_reminders(
            {"reminders": [{"title": "x", "dueDate": "2026-03-02", "recurrence": "FREQ=MINUTELY"}]}
        )
    assert service.query_reminders({"list": {"all": True}, "status": "all"}) == []
