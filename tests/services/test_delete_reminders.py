"""delete_reminders: always ``{"deleted": [...], "failed": [...]}``."""

from __future__ import annotations

from typing import Any

import pytest

from fruitctl.capabilities.reminders.service import RemindersService
from fruitctl.domain.errors import InvalidParams


def _create(service: RemindersService, *titles: str) -> list[str]:
    result = service.create_reminders({"reminders": [{"title": t} for t in titles]})
    assert isinstance(result, list)
    return [r["id"] for r in result]


def _stored_ids(service: RemindersService) -> set[str]:
    result = service.query_reminders({"list": {"all": True}, "status": "all", "limit": 200})
    assert isinstance(result, list)
    return {r["id"] for r in result}


def _not_found(reminder_id: str) -> dict[str, Any]:
    return {"id": reminder_id, "error": f"No reminder found with ID: '{reminder_id}'."}


def test_single_delete(service: RemindersService) -> None:
    a, b = _create(service, "a", "b")
    assert service.delete_reminders({"ids": [a]}) == {"deleted": [a], "failed": []}
    assert _stored_ids(service) == {b}


def test_batch_delete_returns_the_deleted_ids_in_order(service: RemindersService) -> None:
    ids = _create(service, "a", "b", "c", "d")
    order = [ids[2], ids[0], ids[3]]
    assert service.delete_reminders({"ids": order}) == {"deleted": order, "failed": []}
    assert _stored_ids(service) == {ids[1]}


def test_completed_and_other_list_reminders_can_be_deleted(service: RemindersService) -> None:
    (a,) = _create(service, "a")
    service.update_reminders({"reminders": [{"id": a, "completed": True}]})
    assert service.delete_reminders({"ids": [a]}) == {"deleted": [a], "failed": []}
    assert _stored_ids(service) == set()


def test_invalid_id_appears_in_failed(service: RemindersService) -> None:
    assert service.delete_reminders({"ids": ["abc123"]}) == {
        "deleted": [],
        "failed": [_not_found("abc123")],
    }


def test_partial_failure(service: RemindersService) -> None:
    a, b, c = _create(service, "a", "b", "c")
    result = service.delete_reminders({"ids": [a, "xyz", c, "abc123"]})
    assert result == {"deleted": [a, c], "failed": [_not_found("xyz"), _not_found("abc123")]}
    assert _stored_ids(service) == {b}


def test_deleting_twice_fails_the_second_time(service: RemindersService) -> None:
    (a,) = _create(service, "a")
    assert service.delete_reminders({"ids": [a, a]}) == {
        "deleted": [a],
        "failed": [_not_found(a)],
    }
    assert service.delete_reminders({"ids": [a]}) == {"deleted": [], "failed": [_not_found(a)]}


def test_deleted_reminders_are_gone_everywhere(service: RemindersService) -> None:
    a, b = _create(service, "a", "b")
    service.delete_reminders({"ids": [a]})
    assert [r["id"] for r in service.query_reminders({})] == [b]
    assert service.get_lists()[0]["count"] == 1
    result = service.update_reminders({"reminders": [{"id": a, "title": "back?"}]})
    assert result == {"updated": [], "failed": [_not_found(a)]}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "Action 'delete' requires 'ids' to be specified."),
        (
            {"ids": []},
            "Invalid value for 'ids': List should have at least 1 item after validation, not 0.",
        ),
        ({"ids": "abc"}, None),
        ({"ids": ["a"], "force": True}, "Unknown parameter 'force'."),
    ],
)
def test_malformed_input_is_rejected_and_deletes_nothing(
    service: RemindersService, args: dict[str, Any], message: str | None
) -> None:
    ids = _create(service, "a")
    with pytest.raises(InvalidParams) as err:
        service.delete_reminders(args if args.get("ids") != ["a"] else {**args, "ids": ids})
    assert err.value.code == "invalid_params"
    if message is not None:
        assert err.value.message == message
    assert _stored_ids(service) == set(ids)
