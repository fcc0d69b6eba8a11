"""The open view and the plain query reuse their items while the store hands back the same
reminders, and never after a change."""

from __future__ import annotations

from fruitctl.capabilities.reminders.service import RemindersService


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


def test_a_repeated_query_reuses_its_items_until_a_change(service: RemindersService) -> None:
    created = service.create_reminders({"reminders": [{"title": "a"}, {"title": "b"}]})
    first = service.query_reminders()
    again = service.query_reminders()
    assert again == first and again is not first
    assert all(map(lambda x, y: x is y, again, first))  # the same dicts, not built again
    service.open_reminders()  # another read, its own memo: the query's is still there
    assert service.query_reminders()[0] is first[0]
    service.update_reminders({"reminders": [{"id": created[0]["id"], "title": "a, renamed"}]})
    assert [r["title"] for r in service.query_reminders()] == ["b", "a, renamed"]


def test_queries_with_other_arguments_get_their_own_items(service: RemindersService) -> None:
    service.create_reminders({"reminders": [{"title": t} for t in "abc"]})
    assert [r["title"] for r in service.query_reminders()] == ["c", "b", "a"]
    assert [r["title"] for r in service.query_reminders({"sortBy": "oldest"})] == ["a", "b", "c"]
    assert [r["title"] for r in service.query_reminders({"limit": 1})] == ["c"]
    assert [r["title"] for r in service.query_reminders()] == ["c", "b", "a"]
