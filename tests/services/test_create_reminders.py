"""create_reminders: defaults, all fields, batches, lists, dates, errors and partial failure."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import pytest

from fruitctl.backends.local import LocalReminders
from fruitctl.capabilities.reminders.service import RemindersService
from fruitctl.domain.errors import InvalidParams

WIRE_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$")
DATE_ERROR = "Invalid date format: '{}'. Expected ISO 8601 format like '2024-01-15T10:00:00-05:00'."


def _create(service: RemindersService, *items: dict[str, Any]) -> list[dict[str, Any]]:
    result = service.create_reminders({"reminders": list(items)})
    assert isinstance(result, list), result
    return result


def _stored(service: RemindersService) -> list[dict[str, Any]]:
    """Every reminder in the store, oldest first."""
    result = service.query_reminders(
        {"list": {"all": True}, "status": "all", "sortBy": "oldest", "limit": 200}
    )
    assert isinstance(result, list)
    return result


def _due(service: RemindersService, due: str) -> Any:
    (created,) = _create(service, {"title": "due", "dueDate": due})
    (stored,) = [r for r in _stored(service) if r["id"] == created["id"]]
    assert stored["dueDate"] == created["dueDate"]
    return created["dueDate"]


# -- the happy paths ----------------------------------------------------------------------------


def test_title_only_uses_the_default_list_and_defaults(service: RemindersService) -> None:
    default = service.get_lists()[0]
    (created,) = _create(service, {"title": "Buy milk"})
    assert created["title"] == "Buy milk"
    assert created["listId"] == default["id"]
    assert created["listName"] == "Reminders"
    assert created["notes"] is None
    assert created["priority"] == 0
    assert created["dueDate"] is None
    assert created["isCompleted"] is False
    assert created["completionDate"] is None
    assert created["tags"] == []
    assert created["isFlagged"] is False
    assert created["url"] is None
    assert WIRE_DATETIME.match(created["creationDate"])
    assert WIRE_DATETIME.match(created["modificationDate"])
    assert isinstance(created["id"], str)
    assert created["id"]
    assert _stored(service) == [created]


def test_all_fields(service: RemindersService, local_backend: LocalReminders) -> None:
    work = local_backend.create_list("Work")
    (created,) = _create(
        service,
        {
            "title": "Call dentist",
            "notes": "Ask about\nthe appointment",
            "list": {"name": "Work"},
            "dueDate": "2024-01-20T09:00:00-05:00",
            "priority": "high",
            "tags": ["@calls", "next"],
            "flagged": True,
            "url": "https://example.com/dentist",
        },
    )
    assert created["title"] == "Call dentist"
    assert created["notes"] == "Ask about\nthe appointment"
    assert created["listId"] == work.id
    assert created["listName"] == "Work"
    assert created["dueDate"] == "2024-01-20T15:00:00+01:00"
    assert created["priority"] == 1
    assert created["tags"] == ["@calls", "next"]
    assert created["isFlagged"] is True
    assert created["url"] == "https://example.com/dentist"
    assert created["isCompleted"] is False
    assert _stored(service) == [created]


def test_batch_create_returns_reminders_in_input_order(service: RemindersService) -> None:
    titles = ["Buy milk", "Buy eggs", "Buy bread", "Buy apples", "Buy cheese"]
    created = _create(
        service,
        *({"title": t} for t in titles[:2]),
        {"title": titles[2], "priority": "low"},
        *({"title": t} for t in titles[3:]),
    )
    assert [r["title"] for r in created] == titles
    assert created[2]["priority"] == 9
    assert len({r["id"] for r in created}) == 5
    assert [r["title"] for r in _stored(service)] == titles


@pytest.mark.parametrize(("name", "value"), [("none", 0), ("low", 9), ("medium", 5), ("high", 1)])
def test_priority_names_map_to_apple_values(
    service: RemindersService, name: str, value: int
) -> None:
    (created,) = _create(service, {"title": "p", "priority": name})
    assert created["priority"] == value


def test_list_by_name(service: RemindersService, local_backend: LocalReminders) -> None:
    work = local_backend.create_list("Work")
    created = _create(
        service,
        {"title": "exact", "list": {"name": "Work"}},
        {"title": "any case", "list": {"name": "wOrK"}},
    )
    assert [(r["listId"], r["listName"]) for r in created] == [(work.id, "Work")] * 2


def test_list_by_id(service: RemindersService, local_backend: LocalReminders) -> None:
    work = local_backend.create_list("Work")
    (created,) = _create(service, {"title": "by id", "list": {"id": work.id}})
    assert created["listId"] == work.id
    assert created["listName"] == "Work"
    assert [r["title"] for r in service.query_reminders({"list": {"id": work.id}})] == ["by id"]


def test_tags_keep_their_order_trimmed_and_without_duplicates(service: RemindersService) -> None:
    (created,) = _create(service, {"title": "t", "tags": ["zeta", " @calls ", "Alpha", "zeta"]})
    assert created["tags"] == ["zeta", "@calls", "Alpha"]


# -- dates --------------------------------------------------------------------------------------


def test_date_only_due_date_stays_date_only(service: RemindersService) -> None:
    assert _due(service, "2026-02-24") == "2026-02-24"


def test_timed_due_date_comes_back_in_the_persons_zone(service: RemindersService) -> None:
    assert _due(service, "2026-02-24T18:00:00-05:00") == "2026-02-25T00:00:00+01:00"
    assert _due(service, "2026-02-24T18:00:00+05:30") == "2026-02-24T13:30:00+01:00"


def test_z_due_date_comes_back_with_an_offset(service: RemindersService) -> None:
    assert _due(service, "2026-02-24T10:00:00Z") == "2026-02-24T11:00:00+01:00"


def test_lowercase_z_is_accepted_like_uppercase(service: RemindersService) -> None:
    # RFC 3339 allows 'z'; fruitctl.domain.dates' own pattern accepts it too.
    assert _due(service, "2026-02-24T10:00:00z") == "2026-02-24T11:00:00+01:00"


def test_naive_due_date_is_read_in_the_host_zone(service: RemindersService) -> None:
    assert _due(service, "2026-01-15T10:00:00") == "2026-01-15T10:00:00+01:00"  # winter, CET
    assert _due(service, "2026-07-15T10:00:00") == "2026-07-15T10:00:00+02:00"  # summer, CEST


def test_fractional_seconds_are_dropped(service: RemindersService) -> None:
    assert _due(service, "2026-02-24T10:00:00.750+01:00") == "2026-02-24T10:00:00+01:00"


def test_creation_date_is_now_with_an_offset(service: RemindersService) -> None:
    before = datetime.now().astimezone().replace(microsecond=0)
    (created,) = _create(service, {"title": "now"})
    after = datetime.now().astimezone()
    stamp = datetime.fromisoformat(created["creationDate"])
    assert before <= stamp <= after
    assert stamp.utcoffset() == before.utcoffset()


@pytest.mark.parametrize(
    "bad", ["01-15-2024", "2026-02-30", "2026-02-24T25:00:00", "tomorrow", "20260224", ""]
)
def test_invalid_date_format_is_rejected(service: RemindersService, bad: str) -> None:
    with pytest.raises(InvalidParams) as err:
        service.create_reminders({"reminders": [{"title": "x", "dueDate": bad}]})
    assert err.value.code == "invalid_params"
    assert err.value.message == DATE_ERROR.format(bad)
    assert _stored(service) == []


# -- errors -------------------------------------------------------------------------------------


def test_missing_title_is_a_helpful_error(service: RemindersService) -> None:
    with pytest.raises(InvalidParams) as err:
        service.create_reminders({"reminders": [{"notes": "no title"}]})
    assert err.value.code == "invalid_params"
    assert err.value.message == "Action 'create' requires 'title' to be specified."
    assert _stored(service) == []


def test_invalid_priority_is_rejected(service: RemindersService) -> None:
    with pytest.raises(InvalidParams) as err:
        service.create_reminders({"reminders": [{"title": "x", "priority": "urgent"}]})
    assert (
        err.value.message == "Invalid priority: 'urgent'. Must be one of: none, low, medium, high."
    )
    assert _stored(service) == []


def test_missing_or_empty_reminders_are_rejected(service: RemindersService) -> None:
    with pytest.raises(InvalidParams) as err:
        service.create_reminders({})
    assert err.value.message == "Action 'create' requires 'reminders' to be specified."
    with pytest.raises(InvalidParams):
        service.create_reminders({"reminders": []})
    assert _stored(service) == []


def test_invalid_list_by_name_is_a_helpful_error(
    service: RemindersService, local_backend: LocalReminders
) -> None:
    local_backend.create_list("Work")
    result = service.create_reminders(
        {"reminders": [{"title": "x", "list": {"name": "InvalidList"}}]}
    )
    assert result == {
        "created": [],
        "failed": [
            {
                "index": 0,
                "error": "No list found with name: 'InvalidList'. "
                "Available lists: Reminders, Work.",
            }
        ],
    }
    assert _stored(service) == []


def test_invalid_list_by_id_is_a_helpful_error(service: RemindersService) -> None:
    result = service.create_reminders({"reminders": [{"title": "x", "list": {"id": "abc123"}}]})
    assert result == {
        "created": [],
        "failed": [{"index": 0, "error": "No list found with ID: 'abc123'."}],
    }
    assert _stored(service) == []


def test_all_is_not_a_valid_target_list(service: RemindersService) -> None:
    with pytest.raises(InvalidParams) as err:
        service.create_reminders({"reminders": [{"title": "x", "list": {"all": True}}]})
    assert err.value.message == "Unknown parameter 'reminders[0].list.all'."
    assert _stored(service) == []


def test_partial_failure_creates_the_valid_ones(
    service: RemindersService, local_backend: LocalReminders
) -> None:
    work = local_backend.create_list("Work")
    result = service.create_reminders(
        {
            "reminders": [
                {"title": "Buy milk"},
                {"title": "lost", "list": {"name": "InvalidList"}},
                {"title": "In work", "list": {"id": work.id}},
                {"title": "lost too", "list": {"id": "nope"}},
                {"title": "Buy eggs", "list": {"name": "reminders"}},
            ]
        }
    )
    assert isinstance(result, dict)
    assert set(result) == {"created", "failed"}
    assert [r["title"] for r in result["created"]] == ["Buy milk", "In work", "Buy eggs"]
    assert [r["listName"] for r in result["created"]] == ["Reminders", "Work", "Reminders"]
    assert result["failed"] == [
        {
            "index": 1,
            "error": "No list found with name: 'InvalidList'. Available lists: Reminders, Work.",
        },
        {"index": 3, "error": "No list found with ID: 'nope'."},
    ]
    assert _stored(service) == result["created"]


# -- bad input changes nothing ------------------------------------------------------------------

VALID = {"title": "valid"}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"notes": "no title"}, "Action 'create' requires 'title' to be specified."),
        (
            {"title": "x", "priority": "urgent"},
            "Invalid priority: 'urgent'. Must be one of: none, low, medium, high.",
        ),
        ({"title": "x", "dueDate": "01-15-2024"}, DATE_ERROR.format("01-15-2024")),
        ({"title": "   "}, "'title' must not be empty."),
        (
            {"title": "nul\x00"},
            "'title' must not contain control characters: it holds U+0000 (a control character).",
        ),
        ({"title": "x", "tags": ["ok", " "]}, "'tags' must not contain empty tags."),
        ({"title": "x", "colour": "red"}, "Unknown parameter 'reminders[1].colour'."),
        ({"title": "x", "list": {"name": "Reminders", "id": "abc"}}, None),
        ({"title": "x", "list": {}}, None),
    ],
    ids=[
        "missing-title",
        "bad-priority",
        "bad-date",
        "blank-title",
        "control-char",
        "empty-tag",
        "unknown-field",
        "selector-name-and-id",
        "selector-empty",
    ],
)
def test_a_batch_with_one_malformed_item_writes_nothing(
    service: RemindersService, bad: dict[str, Any], message: str | None
) -> None:
    with pytest.raises(InvalidParams) as err:
        service.create_reminders({"reminders": [VALID, bad, {"title": "also valid"}]})
    if message is not None:
        assert err.value.message == message
    assert _stored(service) == []
    assert service.get_lists()[0]["count"] == 0
