"""The open view reuses its items while the store hands back the same reminders, and never
after a change."""

from __future__ import annotations

from fruitctl.services.reminders import RemindersService


def test_repeated_reads_agree_and_changes_show_at_once(service: RemindersService) -> None:
    created = service.create_reminders(
        {"reminders": [{"title": "one", "dueDate": "2026-03-01"}, {"title": "two"}]}
    )
    first = service.open_reminders()
    assert service.open_reminders()["items"] == first["items"]
    service.update_reminders({"reminders": [{"id": created[0]["id"], "title": "one, renamed"}]})
    assert [i["title"] for i in service.open_reminders()["items"]] == ["one, renamed", "two"]
    service.update_reminders({"reminders": [{"id": created[1]["id"], "completed": True}]})
    assert [i["title"] for i in service.open_reminders()["items"]] == ["one, renamed"]


def test_an_answer_changed_by_its_caller_does_not_change_the_next(
    service: RemindersService,
) -> None:
    service.create_reminders({"reminders": [{"title": "a"}, {"title": "b"}]})
    answer = service.open_reminders()
    answer["items"].clear()
    assert service.open_reminders()["count"] == 2


def test_a_different_limit_is_a_different_view(service: RemindersService) -> None:
    service.create_reminders({"reminders": [{"title": t} for t in "abc"]})
    assert service.open_reminders({"limit": 3})["count"] == 3
    assert service.open_reminders({"limit": 1})["count"] == 1
    assert service.open_reminders({"limit": 3})["count"] == 3
