"""Seed 000's ``reminders.open``: open reminders of every list, ordered for GTD."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import pytest

from fruitctl.backends.local import LocalReminders
from fruitctl.capabilities.reminders.service import RemindersService
from fruitctl.domain.errors import InvalidParams

GENERATED_AT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$")
ITEM_KEYS = {"id", "listName", "title", "dueAt", "priority", "isFlagged", "tags", "notesPreview"}


def _create(service: RemindersService, *items: dict[str, Any]) -> list[dict[str, Any]]:
    result = service.create_reminders({"reminders": list(items)})
    assert isinstance(result, list), result
    return result


def _titles(result: dict[str, Any]) -> list[str]:
    return [item["title"] for item in result["items"]]


@pytest.fixture
def gtd(service: RemindersService, local_backend: LocalReminders) -> list[dict[str, Any]]:
    local_backend.create_list("Work")
    created = _create(
        service,
        {"title": "n1"},
        {"title": "b-late", "dueDate": "2026-03-02T09:00:00+01:00"},
        {"title": "z-flag", "dueDate": "2026-03-01T09:00:00+01:00", "flagged": True},
        {"title": "a-noflag", "dueDate": "2026-03-01T09:00:00+01:00"},
        {"title": "n2", "flagged": True},
        {"title": "m-flag", "dueDate": "2026-03-01T09:00:00+01:00", "flagged": True},
        {"title": "c-utc", "dueDate": "2026-03-01T08:00:00Z"},  # the same instant as 09:00 Rome
        {"title": "early", "dueDate": "2026-02-28"},
        {"title": "work-noon", "dueDate": "2026-03-01T12:00:00+01:00", "list": {"name": "Work"}},
        {"title": "done", "dueDate": "2026-01-01"},
    )
    service.update_reminders({"reminders": [{"id": created[-1]["id"], "completed": True}]})
    return created


def test_order_is_due_ascending_then_flagged_then_title_with_no_due_last(
    service: RemindersService, gtd: list[dict[str, Any]]
) -> None:
    result = service.open_reminders()
    assert _titles(result) == [
        "early",
        "m-flag",
        "z-flag",
        "a-noflag",
        "c-utc",
        "work-noon",
        "b-late",
        "n2",
        "n1",
    ]
    assert result["count"] == 9


def test_only_open_reminders_of_every_list(
    service: RemindersService, gtd: list[dict[str, Any]]
) -> None:
    result = service.open_reminders({})
    assert "done" not in _titles(result)
    by_title = {item["title"]: item for item in result["items"]}
    assert by_title["work-noon"]["listName"] == "Work"
    assert by_title["early"]["listName"] == "Reminders"


def test_include_no_due_date_false_leaves_out_undated(
    service: RemindersService, gtd: list[dict[str, Any]]
) -> None:
    result = service.open_reminders({"includeNoDueDate": False})
    assert _titles(result) == [
        "early",
        "m-flag",
        "z-flag",
        "a-noflag",
        "c-utc",
        "work-noon",
        "b-late",
    ]
    assert result["count"] == 7
    with_undated = service.open_reminders({"includeNoDueDate": True})
    assert with_undated["items"] == service.open_reminders()["items"]
    assert with_undated["count"] == 9


def test_items_carry_the_gtd_fields(service: RemindersService) -> None:
    (created,) = _create(
        service,
        {
            "title": "Chiamare commercialista",
            "dueDate": "2026-02-25T08:00:00Z",
            "priority": "medium",
            "flagged": True,
            "tags": ["@calls", "next"],
            "notes": "Portare numeri Q1",
        },
    )
    result = service.open_reminders()
    assert result["count"] == 1
    (item,) = result["items"]
    assert set(item) == ITEM_KEYS
    assert item == {
        "id": created["id"],
        "listName": "Reminders",
        "title": "Chiamare commercialista",
        "dueAt": "2026-02-25T09:00:00+01:00",
        "priority": 5,
        "isFlagged": True,
        "tags": ["@calls", "next"],
        "notesPreview": "Portare numeri Q1",
    }


def test_date_only_due_stays_date_only_and_missing_values_are_empty(
    service: RemindersService,
) -> None:
    _create(service, {"title": "dated", "dueDate": "2026-02-24"}, {"title": "bare"})
    dated, bare = service.open_reminders()["items"]
    assert dated["dueAt"] == "2026-02-24"
    assert bare["dueAt"] is None
    assert bare["tags"] == []
    assert bare["notesPreview"] is None
    assert bare["isFlagged"] is False
    assert bare["priority"] == 0


def test_notes_preview_is_flattened_and_cut(service: RemindersService) -> None:
    long_notes = " ".join(f"word{i:02d}" for i in range(40))  # 279 characters
    exact = "x" * 80
    _create(
        service,
        {"title": "a", "notes": "Portare\n  numeri\tQ1\n"},
        {"title": "b", "notes": long_notes},
        {"title": "c", "notes": exact},
        {"title": "d", "notes": " \n "},
    )
    previews = {i["title"]: i["notesPreview"] for i in service.open_reminders()["items"]}
    assert previews["a"] == "Portare numeri Q1"
    assert len(previews["b"]) <= 80
    assert previews["b"].endswith("…")
    assert long_notes.startswith(previews["b"][:-1])
    assert previews["c"] == exact
    assert previews["d"] in (None, "")


def test_notes_preview_length_follows_the_setting(local_backend: LocalReminders) -> None:
    short = RemindersService(local_backend, notes_preview_chars=10)
    _create(short, {"title": "a", "notes": "Portare numeri Q1"})
    (item,) = short.open_reminders()["items"]
    assert item["notesPreview"] == "Portare n…"
    off = RemindersService(local_backend, notes_preview_chars=0)
    (item,) = off.open_reminders()["items"]
    assert item["notesPreview"] is None


def test_count_and_generated_at(service: RemindersService) -> None:
    before = datetime.now().astimezone().replace(microsecond=0)
    empty = service.open_reminders()
    after = datetime.now().astimezone()
    assert empty["items"] == []
    assert empty["count"] == 0
    assert set(empty) == {"generatedAt", "items", "count"}
    assert GENERATED_AT.match(empty["generatedAt"])
    stamp = datetime.fromisoformat(empty["generatedAt"])
    assert before <= stamp <= after
    assert stamp.utcoffset() == before.utcoffset()


def test_default_limit_is_200(service: RemindersService) -> None:
    _create(service, *({"title": f"t{i:03d}"} for i in range(205)))
    result = service.open_reminders()
    assert result["count"] == 200
    assert len(result["items"]) == 200
    assert _titles(result) == [f"t{i:03d}" for i in range(200)]


def test_limit(service: RemindersService, gtd: list[dict[str, Any]]) -> None:
    result = service.open_reminders({"limit": 3})
    assert _titles(result) == ["early", "m-flag", "z-flag"]
    assert result["count"] == 3
    assert service.open_reminders({"limit": 1000})["count"] == 9


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        (0, "Invalid value for 'limit': Input should be greater than or equal to 1."),
        (1001, "Invalid value for 'limit': Input should be less than or equal to 1000."),
    ],
)
def test_limit_out_of_bounds_is_rejected(
    service: RemindersService, limit: int, message: str
) -> None:
    with pytest.raises(InvalidParams) as err:
        service.open_reminders({"limit": limit})
    assert err.value.code == "invalid_params"
    assert err.value.message == message


def test_unknown_parameter_is_rejected(service: RemindersService) -> None:
    with pytest.raises(InvalidParams) as err:
        service.open_reminders({"days": 7})
    assert err.value.message == "Unknown parameter 'days'."
