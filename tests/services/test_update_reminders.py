"""update_reminders: single and multiple fields, moves, completion, clearing, batches, failures."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import pytest

from fruitctl.backends.local import LocalReminders
from fruitctl.capabilities.reminders.service import RemindersService
from fruitctl.domain.errors import InvalidParams
from fruitctl.domain.reminders import Reminder

WIRE_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$")
DATE_ERROR = "Invalid date format: '{}'. Expected ISO 8601 format like '2024-01-15T10:00:00-05:00'."
FULL = {
    "title": "Call dentist",
    "notes": "Ask about the appointment",
    "dueDate": "2026-02-24T18:00:00+01:00",
    "priority": "medium",
    "tags": ["@calls", "next"],
    "flagged": True,
    "url": "https://example.com",
}
# The fields an update must not touch unless asked to.
KEPT = tuple(
    field
    for field in Reminder.model_fields
    if field not in ("modificationDate", "parentId", "recurrence")
)


def _create(service: RemindersService, *items: dict[str, Any]) -> list[dict[str, Any]]:
    result = service.create_reminders({"reminders": list(items)})
    assert isinstance(result, list), result
    return result


def _update(service: RemindersService, *items: dict[str, Any]) -> list[dict[str, Any]]:
    result = service.update_reminders({"reminders": list(items)})
    assert isinstance(result, list), result
    return result


def _stored(service: RemindersService) -> dict[str, dict[str, Any]]:
    result = service.query_reminders({"list": {"all": True}, "status": "all", "limit": 200})
    assert isinstance(result, list)
    return {r["id"]: r for r in result}


def _same_except(before: dict[str, Any], after: dict[str, Any], *changed: str) -> None:
    for field in KEPT:
        if field not in changed:
            assert after[field] == before[field], field


@pytest.fixture
def full(service: RemindersService) -> dict[str, Any]:
    (created,) = _create(service, FULL)
    return created


# -- changing fields ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field", "expected"),
    [
        ({"title": "Call the dentist"}, "title", "Call the dentist"),
        ({"notes": "Bring the card"}, "notes", "Bring the card"),
        ({"dueDate": "2026-03-01T09:00:00-05:00"}, "dueDate", "2026-03-01T15:00:00+01:00"),
        ({"priority": "low"}, "priority", 9),
        ({"priority": "none"}, "priority", 0),
        ({"tags": ["@home"]}, "tags", ["@home"]),
        ({"flagged": False}, "isFlagged", False),
        ({"url": "https://example.org"}, "url", "https://example.org"),
    ],
)
def test_update_single_field_preserves_other_fields(
    service: RemindersService,
    full: dict[str, Any],
    change: dict[str, Any],
    field: str,
    expected: Any,
) -> None:
    (updated,) = _update(service, {"id": full["id"], **change})
    assert updated[field] == expected
    _same_except(full, updated, field)
    assert _stored(service)[full["id"]] == updated


def test_update_multiple_fields_at_once(service: RemindersService, full: dict[str, Any]) -> None:
    (updated,) = _update(
        service,
        {
            "id": full["id"],
            "title": "Buy oat milk",
            "priority": "high",
            "dueDate": "2026-02-25",
            "notes": "the barista one",
            "tags": ["errands", "@shop"],
        },
    )
    assert updated["title"] == "Buy oat milk"
    assert updated["priority"] == 1
    assert updated["dueDate"] == "2026-02-25"
    assert updated["notes"] == "the barista one"
    assert updated["tags"] == ["errands", "@shop"]
    _same_except(full, updated, "title", "priority", "dueDate", "notes", "tags")
    assert _stored(service)[full["id"]] == updated


def test_update_with_only_an_id_changes_nothing_visible(
    service: RemindersService, full: dict[str, Any]
) -> None:
    (updated,) = _update(service, {"id": full["id"]})
    _same_except(full, updated)


def test_modification_date_moves_forward(service: RemindersService, full: dict[str, Any]) -> None:
    (updated,) = _update(service, {"id": full["id"], "title": "changed"})
    assert WIRE_DATETIME.match(updated["modificationDate"])
    assert datetime.fromisoformat(updated["modificationDate"]) >= datetime.fromisoformat(
        full["modificationDate"]
    )
    assert updated["creationDate"] == full["creationDate"]


def test_move_to_another_list_by_name(
    service: RemindersService, local_backend: LocalReminders, full: dict[str, Any]
) -> None:
    work = local_backend.create_list("Work")
    (updated,) = _update(service, {"id": full["id"], "list": {"name": "work"}})
    assert (updated["listId"], updated["listName"]) == (work.id, "Work")
    _same_except(full, updated, "listId", "listName")
    assert service.query_reminders({}) == []
    assert [r["id"] for r in service.query_reminders({"list": {"name": "Work"}})] == [full["id"]]


def test_move_to_another_list_by_id(
    service: RemindersService, local_backend: LocalReminders, full: dict[str, Any]
) -> None:
    work = local_backend.create_list("Work")
    (updated,) = _update(service, {"id": full["id"], "list": {"id": work.id}})
    assert (updated["listId"], updated["listName"]) == (work.id, "Work")
    _same_except(full, updated, "listId", "listName")
    assert [r["id"] for r in service.query_reminders({"list": {"id": work.id}})] == [full["id"]]


def test_move_to_an_unknown_list_fails_and_keeps_the_reminder(
    service: RemindersService, full: dict[str, Any]
) -> None:
    result = service.update_reminders(
        {"reminders": [{"id": full["id"], "list": {"name": "Nowhere"}, "title": "moved"}]}
    )
    assert result == {
        "updated": [],
        "failed": [
            {
                "id": full["id"],
                "error": "No list found with name: 'Nowhere'. Available lists: Reminders.",
            }
        ],
    }
    assert _stored(service)[full["id"]] == full


def test_date_only_due_date_stays_date_only(
    service: RemindersService, full: dict[str, Any]
) -> None:
    (updated,) = _update(service, {"id": full["id"], "dueDate": "2026-02-24"})
    assert updated["dueDate"] == "2026-02-24"
    assert _stored(service)[full["id"]]["dueDate"] == "2026-02-24"


def test_due_date_z_and_naive_inputs(service: RemindersService, full: dict[str, Any]) -> None:
    (updated,) = _update(service, {"id": full["id"], "dueDate": "2026-02-24T10:00:00Z"})
    assert updated["dueDate"] == "2026-02-24T11:00:00+01:00"
    (updated,) = _update(service, {"id": full["id"], "dueDate": "2026-02-24T10:00:00"})
    assert updated["dueDate"] == "2026-02-24T10:00:00+01:00"


# -- completion ---------------------------------------------------------------------------------


def test_completed_true_sets_completion_to_now(
    service: RemindersService, full: dict[str, Any]
) -> None:
    before = datetime.now().astimezone().replace(microsecond=0)
    (updated,) = _update(service, {"id": full["id"], "completed": True})
    after = datetime.now().astimezone()
    assert updated["isCompleted"] is True
    assert WIRE_DATETIME.match(updated["completionDate"])
    stamp = datetime.fromisoformat(updated["completionDate"])
    assert before <= stamp <= after
    assert stamp.utcoffset() == before.utcoffset()
    _same_except(full, updated, "isCompleted", "completionDate")
    assert service.query_reminders({}) == []
    assert service.query_reminders({"status": "completed"}) == [updated]


def test_completed_false_clears_completion(service: RemindersService, full: dict[str, Any]) -> None:
    _update(service, {"id": full["id"], "completedDate": "2024-01-15T10:00:00-05:00"})
    (updated,) = _update(service, {"id": full["id"], "completed": False})
    assert updated["isCompleted"] is False
    assert updated["completionDate"] is None
    _same_except(full, updated)


def test_completed_date_sets_that_date(service: RemindersService, full: dict[str, Any]) -> None:
    (updated,) = _update(service, {"id": full["id"], "completedDate": "2024-01-15T10:00:00-05:00"})
    assert updated["isCompleted"] is True
    assert updated["completionDate"] == "2024-01-15T16:00:00+01:00"
    (updated,) = _update(service, {"id": full["id"], "completedDate": "2024-01-16T10:00:00Z"})
    assert updated["completionDate"] == "2024-01-16T11:00:00+01:00"
    (updated,) = _update(service, {"id": full["id"], "completedDate": "2024-01-17T10:00:00"})
    assert updated["completionDate"] == "2024-01-17T10:00:00+01:00"
    assert _stored(service)[full["id"]] == updated


def test_completed_date_null_clears_completion(
    service: RemindersService, full: dict[str, Any]
) -> None:
    _update(service, {"id": full["id"], "completed": True})
    (updated,) = _update(service, {"id": full["id"], "completedDate": None})
    assert updated["isCompleted"] is False
    assert updated["completionDate"] is None
    _same_except(full, updated)


def test_completed_date_overrides_completed_true(
    service: RemindersService, full: dict[str, Any]
) -> None:
    (updated,) = _update(
        service,
        {"id": full["id"], "completed": True, "completedDate": "2024-01-15T10:00:00-05:00"},
    )
    assert updated["completionDate"] == "2024-01-15T16:00:00+01:00"
    (updated,) = _update(service, {"id": full["id"], "completed": True, "completedDate": None})
    assert updated["isCompleted"] is False
    assert updated["completionDate"] is None


def test_completed_date_overrides_completed_false(
    service: RemindersService, full: dict[str, Any]
) -> None:
    (updated,) = _update(
        service,
        {"id": full["id"], "completed": False, "completedDate": "2024-01-15T10:00:00-05:00"},
    )
    assert updated["isCompleted"] is True
    assert updated["completionDate"] == "2024-01-15T16:00:00+01:00"


def test_completed_date_must_be_a_date_time(
    service: RemindersService, full: dict[str, Any]
) -> None:
    with pytest.raises(InvalidParams) as err:
        service.update_reminders({"reminders": [{"id": full["id"], "completedDate": "01-15-2024"}]})
    assert err.value.message == DATE_ERROR.format("01-15-2024")
    assert _stored(service)[full["id"]] == full


# -- clearing -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "wire"), [("dueDate", "dueDate"), ("notes", "notes"), ("url", "url")]
)
def test_null_clears(
    service: RemindersService, full: dict[str, Any], field: str, wire: str
) -> None:
    assert full[wire] is not None
    (updated,) = _update(service, {"id": full["id"], field: None})
    assert updated[wire] is None
    _same_except(full, updated, wire)
    assert _stored(service)[full["id"]][wire] is None


@pytest.mark.parametrize("field", ["title", "priority", "completed", "flagged", "tags", "list"])
def test_null_is_rejected_for_fields_that_cannot_be_cleared(
    service: RemindersService, full: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidParams) as err:
        service.update_reminders({"reminders": [{"id": full["id"], field: None}]})
    assert err.value.message == f"'{field}' cannot be null."
    assert _stored(service)[full["id"]] == full


# -- batches and failures -----------------------------------------------------------------------


def test_batch_update_returns_reminders_in_input_order(service: RemindersService) -> None:
    created = _create(service, *({"title": f"t{i}"} for i in range(4)))
    order = [created[2], created[0], created[3], created[1]]
    updated = _update(service, *({"id": r["id"], "completed": True} for r in order))
    assert [r["id"] for r in updated] == [r["id"] for r in order]
    assert all(r["isCompleted"] for r in updated)
    assert service.query_reminders({}) == []
    assert len(service.query_reminders({"status": "completed"})) == 4


def test_invalid_id_is_a_helpful_error(service: RemindersService) -> None:
    result = service.update_reminders({"reminders": [{"id": "abc123", "title": "x"}]})
    assert result == {
        "updated": [],
        "failed": [{"id": "abc123", "error": "No reminder found with ID: 'abc123'."}],
    }


def test_partial_failure_updates_the_valid_ones(service: RemindersService) -> None:
    a, b = _create(service, {"title": "a"}, {"title": "b"})
    result = service.update_reminders(
        {
            "reminders": [
                {"id": a["id"], "title": "a2"},
                {"id": "xyz", "title": "nope"},
                {"id": b["id"], "completed": True},
                {"id": "abc123", "completed": True},
            ]
        }
    )
    assert isinstance(result, dict)
    assert set(result) == {"updated", "failed"}
    assert [(r["id"], r["title"], r["isCompleted"]) for r in result["updated"]] == [
        (a["id"], "a2", False),
        (b["id"], "b", True),
    ]
    assert result["failed"] == [
        {"id": "xyz", "error": "No reminder found with ID: 'xyz'."},
        {"id": "abc123", "error": "No reminder found with ID: 'abc123'."},
    ]
    stored = _stored(service)
    assert stored[a["id"]] == result["updated"][0]
    assert stored[b["id"]] == result["updated"][1]
    assert len(stored) == 2


def test_missing_id_is_rejected(service: RemindersService) -> None:
    with pytest.raises(InvalidParams) as err:
        service.update_reminders({"reminders": [{"title": "x"}]})
    assert err.value.message == "Action 'update' requires 'id' to be specified."


def test_invalid_priority_is_rejected(service: RemindersService, full: dict[str, Any]) -> None:
    with pytest.raises(InvalidParams) as err:
        service.update_reminders({"reminders": [{"id": full["id"], "priority": "urgent"}]})
    assert (
        err.value.message == "Invalid priority: 'urgent'. Must be one of: none, low, medium, high."
    )
    assert _stored(service)[full["id"]] == full


B = "<id of b>"


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"title": "x"}, "Action 'update' requires 'id' to be specified."),
        (
            {"id": B, "priority": "urgent"},
            "Invalid priority: 'urgent'. Must be one of: none, low, medium, high.",
        ),
        ({"id": B, "dueDate": "01-15-2024"}, DATE_ERROR.format("01-15-2024")),
        ({"id": B, "completedDate": "yesterday"}, DATE_ERROR.format("yesterday")),
        ({"id": B, "title": None}, "'title' cannot be null."),
        ({"id": B, "title": "  "}, "'title' must not be empty."),
        ({"id": B, "colour": "red"}, "Unknown parameter 'reminders[1].colour'."),
        ({"id": B, "list": {"name": "Reminders", "id": "abc"}}, None),
        ({"id": B, "list": {}}, None),
    ],
    ids=[
        "missing-id",
        "bad-priority",
        "bad-due",
        "bad-completed-date",
        "null-title",
        "blank-title",
        "unknown-field",
        "selector-name-and-id",
        "selector-empty",
    ],
)
def test_a_batch_with_one_malformed_item_writes_nothing(
    service: RemindersService, bad: dict[str, Any], message: str | None
) -> None:
    a, b, c = _create(service, {"title": "a"}, {"title": "b"}, {"title": "c"})
    before = _stored(service)
    item = {key: b["id"] if value == B else value for key, value in bad.items()}
    with pytest.raises(InvalidParams) as err:
        service.update_reminders(
            {
                "reminders": [
                    {"id": a["id"], "title": "changed", "completed": True},
                    item,
                    {"id": c["id"], "notes": "changed"},
                ]
            }
        )
    if message is not None:
        assert err.value.message == message
    assert _stored(service) == before
