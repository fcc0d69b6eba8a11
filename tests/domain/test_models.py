"""Domain models: canonical wire dates, the trusted fast path, priorities and ordering."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest
from pydantic import ValidationError

from fruitctl.domain.errors import ERROR_CODES, FruitctlError, InvalidParams, InvalidQuery
from fruitctl.domain.reminders import (
    Reminder,
    priority_name,
    priority_value,
    sort_reminders,
)

WIRE: dict[str, Any] = {
    "id": "r1",
    "title": "Call",
    "notes": None,
    "listId": "l1",
    "listName": "Work",
    "isCompleted": False,
    "priority": 5,
    "dueDate": "2026-02-24",
    "completionDate": None,
    "creationDate": "2026-02-20T09:00:00+01:00",
    "modificationDate": "2026-02-20T09:00:00+01:00",
    "isFlagged": True,
    "url": None,
    "parentId": None,
    "recurrence": "FREQ=WEEKLY;BYDAY=TU",
    "tags": ["@calls", "next"],
    "startDate": "2026-02-23",
    "alarms": [{"minutesBefore": 15}, {"at": "2026-02-24T08:45:00+01:00"}],
}


def test_trusted_construction_equals_validation() -> None:
    fast = Reminder.trusted(WIRE)
    checked = Reminder.model_validate(WIRE)
    assert fast == checked
    assert fast.to_wire() == checked.to_wire() == WIRE
    assert fast.model_fields_set == checked.model_fields_set
    assert list(fast.to_wire()) == list(checked.to_wire())  # same key order on the wire


def test_backends_may_hand_in_objects_and_get_canonical_text() -> None:
    rome = timezone(timedelta(hours=1))
    reminder = Reminder.model_validate(
        WIRE
        | {
            "dueDate": datetime(2026, 2, 24, 18, tzinfo=UTC),
            "creationDate": datetime(2026, 2, 20, 9, 0, 0, 123456, tzinfo=rome),
            "completionDate": "2026-02-21T10:00:00Z",
        }
    )
    assert reminder.dueDate == "2026-02-24T19:00:00+01:00"
    assert reminder.creationDate == "2026-02-20T09:00:00+01:00"
    assert reminder.completionDate == "2026-02-21T11:00:00+01:00"
    dated = Reminder.model_validate(WIRE | {"dueDate": date(2026, 3, 1)})
    assert dated.dueDate == "2026-03-01" and dated.due == date(2026, 3, 1)


def test_a_malformed_date_from_a_backend_fails_validation() -> None:
    with pytest.raises(ValidationError, match="Invalid date format"):
        Reminder.model_validate(WIRE | {"creationDate": "20/02/2026"})


@pytest.mark.parametrize(("name", "value"), [("none", 0), ("low", 9), ("medium", 5), ("high", 1)])
def test_priority_names_round_trip(name: str, value: int) -> None:
    assert priority_value(name) == value
    assert priority_name(value) == name


def test_apple_priority_ranges_have_names() -> None:
    assert [priority_name(v) for v in range(10)] == [
        "none",
        "high",
        "high",
        "high",
        "high",
        "medium",
        "low",
        "low",
        "low",
        "low",
    ]


def test_unknown_priority_message() -> None:
    with pytest.raises(InvalidParams) as raised:
        priority_value("urgent")
    assert raised.value.message == (
        "Invalid priority: 'urgent'. Must be one of: none, low, medium, high."
    )


def _r(rid: str, **fields: Any) -> Reminder:
    return Reminder.model_validate(WIRE | {"id": rid, **fields})


def test_reference_orders() -> None:
    items = [
        _r("a", priority=0, dueDate=None, creationDate="2026-01-01T10:00:00+01:00"),
        _r("b", priority=9, dueDate="2026-03-01", creationDate="2026-01-02T10:00:00+01:00"),
        _r(
            "c",
            priority=1,
            dueDate="2026-02-01T09:00:00+01:00",
            creationDate="2026-01-02T10:00:00+01:00",
        ),
        _r("d", priority=5, dueDate="2026-02-01", creationDate="2026-01-03T10:00:00+01:00"),
    ]
    ids = lambda order: [r.id for r in sort_reminders(items, order)]  # noqa: E731
    assert ids("newest") == ["d", "c", "b", "a"]  # same second: higher id is newer
    assert ids("oldest") == ["a", "b", "c", "d"]
    assert ids("priority") == ["c", "d", "b", "a"]
    assert ids("dueDate") == ["d", "c", "b", "a"]  # a date counts as its local midnight


def test_every_error_has_a_canonical_code() -> None:
    assert set(ERROR_CODES) >= {
        "invalid_params",
        "not_found",
        "list_not_allowed",
        "calendar_not_allowed",
        "permission_denied",
        "approval_required",
        "proposal_not_found",
        "proposal_expired",
        "conflict",
        "rate_limited",
        "mode_forbidden",
        "timeout",
        "backend_unavailable",
        "unsupported",
        "method_not_found",
        "parse_error",
        "invalid_request",
        "execution_failed",
        "internal_error",
    }
    error = InvalidQuery("bad", field="query")
    assert isinstance(error, InvalidParams) and isinstance(error, FruitctlError)
    assert error.to_dict() == {
        "code": "invalid_params",
        "message": "bad",
        "retryable": False,
        "details": {"field": "query"},
    }


def test_errors_come_back_from_their_codes() -> None:
    from fruitctl.domain.errors import ExecutionFailed, InternalError, NotFound, from_code

    assert type(from_code("not_found", "gone", id="x")) is NotFound
    assert from_code("not_found", "gone", id="x").details == {"id": "x"}
    assert type(from_code("invalid_params", "bad")) is InvalidParams  # not its subclass
    assert type(from_code("internal_error", "boom")) is InternalError
    assert type(from_code("no_such_code", "?")) is InternalError
    assert type(from_code("no_such_code", "?", default=ExecutionFailed)) is ExecutionFailed
