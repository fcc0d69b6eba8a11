"""get_lists: every list with its name, ID, isDefault flag and count of incomplete reminders."""

from __future__ import annotations

import pytest

from fruitctl.backends.local import LocalReminders
from fruitctl.capabilities.reminders.service import RemindersService
from fruitctl.domain.errors import InvalidParams


def test_a_new_store_has_the_default_list_only(service: RemindersService) -> None:
    result = service.get_lists()
    assert len(result) == 1
    (only,) = result
    assert only["name"] == "Reminders"
    assert only["isDefault"] is True
    assert only["count"] == 0
    assert isinstance(only["id"], str)
    assert only["id"]


def test_returns_all_lists_with_names_ids_and_default_flag(
    service: RemindersService, local_backend: LocalReminders
) -> None:
    work = local_backend.create_list("Work")
    personal = local_backend.create_list("Personal")
    result = service.get_lists({})
    assert [(r["name"], r["isDefault"]) for r in result] == [
        ("Reminders", True),
        ("Work", False),
        ("Personal", False),
    ]
    assert [r["id"] for r in result][1:] == [work.id, personal.id]
    assert len({r["id"] for r in result}) == 3
    for row in result:  # seed 002's fields, and the account the list is in
        assert set(row) == {"id", "name", "isDefault", "count", "account"}
        assert row["account"] == "On this computer"


def test_exactly_one_list_is_default(
    service: RemindersService, local_backend: LocalReminders
) -> None:
    for name in ("Work", "Personal", "Groceries"):
        local_backend.create_list(name)
    result = service.get_lists()
    assert [r["isDefault"] for r in result].count(True) == 1
    assert result[0]["isDefault"] is True


def test_count_is_the_number_of_incomplete_reminders(
    service: RemindersService, local_backend: LocalReminders
) -> None:
    local_backend.create_list("Work")
    created = service.create_reminders(
        {
            "reminders": [
                {"title": "a"},
                {"title": "b"},
                {"title": "c"},
                {"title": "w", "list": {"name": "Work"}},
            ]
        }
    )
    assert isinstance(created, list)
    service.update_reminders({"reminders": [{"id": created[0]["id"], "completed": True}]})
    counts = {r["name"]: r["count"] for r in service.get_lists()}
    assert counts == {"Reminders": 2, "Work": 1}
    service.delete_reminders({"ids": [created[3]["id"]]})
    counts = {r["name"]: r["count"] for r in service.get_lists()}
    assert counts == {"Reminders": 2, "Work": 0}


def test_the_ids_select_the_lists(service: RemindersService, local_backend: LocalReminders) -> None:
    local_backend.create_list("Work")
    by_name = {r["name"]: r["id"] for r in service.get_lists()}
    service.create_reminders({"reminders": [{"title": "w", "list": {"id": by_name["Work"]}}]})
    result = service.query_reminders({"list": {"id": by_name["Work"]}})
    assert [r["listName"] for r in result] == ["Work"]


def test_parameters_are_rejected(service: RemindersService) -> None:
    with pytest.raises(InvalidParams) as err:
        service.get_lists({"all": True})
    assert err.value.code == "invalid_params"
    assert err.value.message == "Unknown parameter 'all'."
