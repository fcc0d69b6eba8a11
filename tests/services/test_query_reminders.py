"""query_reminders: seed 002's defaults, list selection, status, sortBy, JMESPath, limit and errors.

Every JMESPath test runs twice: with the local store running the query in SQL (``pushdown``) and
with the service evaluating it in memory; both must give the very same answer.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from fruitctl.backends.local import LocalReminders
from fruitctl.backends.local.tables import reminders as reminders_table
from fruitctl.capabilities.reminders.service import RemindersService
from fruitctl.domain.errors import InvalidParams, InvalidQuery, NotFound
from fruitctl.store import open_database

SELECTOR_ERROR = "List selector must specify exactly one of: 'id', 'name', or 'all'."


@pytest.fixture(params=[True, False], ids=["pushdown", "in-memory"])
def svc(request: pytest.FixtureRequest, local_backend: LocalReminders) -> RemindersService:
    return RemindersService(local_backend, pushdown=request.param)


def _create(service: RemindersService, *items: dict[str, Any]) -> list[dict[str, Any]]:
    result = service.create_reminders({"reminders": list(items)})
    assert isinstance(result, list)
    return result


def _titles(result: list[dict[str, Any]]) -> list[str]:
    return [r["title"] for r in result]


def _complete(service: RemindersService, *ids: str) -> None:
    result = service.update_reminders({"reminders": [{"id": i, "completed": True} for i in ids]})
    assert isinstance(result, list)


def _backdate(home: Path, ids_oldest_first: list[str]) -> None:
    """Give the reminders distinct creation seconds (a minute apart, in this order)."""
    start = datetime(2025, 1, 10, 9, 0).astimezone()
    engine = open_database(home / "local.db", "local")
    try:
        with engine.begin() as conn:
            for i, rid in enumerate(ids_oldest_first):
                when = start + timedelta(minutes=i)
                text = when.isoformat()
                conn.execute(
                    update(reminders_table)
                    .where(reminders_table.c.id == rid)
                    .values(created=text, created_sort=int(when.timestamp()), modified=text)
                )
    finally:
        engine.dispose()


@pytest.fixture
def two_lists(service: RemindersService, local_backend: LocalReminders) -> dict[str, Any]:
    """Default list: a, b, c open, done completed. Work: w1 open, w2 completed."""
    work = local_backend.create_list("Work")
    default = _create(service, {"title": "a"}, {"title": "b"}, {"title": "c"}, {"title": "done"})
    in_work = _create(
        service, {"title": "w1", "list": {"name": "Work"}}, {"title": "w2", "list": {"id": work.id}}
    )
    _complete(service, default[3]["id"], in_work[1]["id"])
    return {"work": work, "default": default, "in_work": in_work}


# -- defaults and list selection ------------------------------------------------------------------


def test_empty_params_returns_incomplete_reminders_of_default_list_newest_first(
    service: RemindersService, two_lists: dict[str, Any]
) -> None:
    result = service.query_reminders({})
    assert _titles(result) == ["c", "b", "a"]
    assert {r["listName"] for r in result} == {"Reminders"}
    assert all(r["isCompleted"] is False for r in result)
    assert service.query_reminders() == result
    assert service.query_reminders(None) == result


def test_list_by_name_filters_to_that_list(
    service: RemindersService, two_lists: dict[str, Any]
) -> None:
    result = service.query_reminders({"list": {"name": "Work"}})
    assert _titles(result) == ["w1"]
    assert result[0]["listId"] == two_lists["work"].id
    assert result[0]["listName"] == "Work"


def test_list_by_name_is_case_insensitive(
    service: RemindersService, two_lists: dict[str, Any]
) -> None:
    assert _titles(service.query_reminders({"list": {"name": "wORK"}})) == ["w1"]


def test_list_by_id_filters_by_id(service: RemindersService, two_lists: dict[str, Any]) -> None:
    work_id = two_lists["work"].id
    assert _titles(service.query_reminders({"list": {"id": work_id}})) == ["w1"]
    default_id = two_lists["default"][0]["listId"]
    assert _titles(service.query_reminders({"list": {"id": default_id}})) == ["c", "b", "a"]


def test_list_all_searches_every_list(service: RemindersService, two_lists: dict[str, Any]) -> None:
    result = service.query_reminders({"list": {"all": True}})
    assert sorted(_titles(result)) == ["a", "b", "c", "w1"]
    assert {r["listName"] for r in result} == {"Reminders", "Work"}


def test_status_completed_returns_only_completed(
    service: RemindersService, two_lists: dict[str, Any]
) -> None:
    result = service.query_reminders({"status": "completed"})
    assert _titles(result) == ["done"]
    assert result[0]["isCompleted"] is True
    assert result[0]["completionDate"] is not None
    everywhere = service.query_reminders({"status": "completed", "list": {"all": True}})
    assert sorted(_titles(everywhere)) == ["done", "w2"]


def test_status_all_returns_both(service: RemindersService, two_lists: dict[str, Any]) -> None:
    result = service.query_reminders({"status": "all"})
    assert sorted(_titles(result)) == ["a", "b", "c", "done"]
    everywhere = service.query_reminders({"status": "all", "list": {"all": True}})
    assert sorted(_titles(everywhere)) == ["a", "b", "c", "done", "w1", "w2"]


def test_status_incomplete_is_the_default(
    service: RemindersService, two_lists: dict[str, Any]
) -> None:
    assert service.query_reminders({"status": "incomplete"}) == service.query_reminders({})


def test_invalid_status_is_rejected(service: RemindersService) -> None:
    with pytest.raises(InvalidParams) as err:
        service.query_reminders({"status": "done"})
    assert err.value.code == "invalid_params"
    assert err.value.message == (
        "Invalid value for 'status': Input should be 'incomplete', 'completed' or 'all'."
    )


def test_unknown_list_name_names_the_available_lists(
    service: RemindersService, local_backend: LocalReminders
) -> None:
    local_backend.create_list("Work")
    local_backend.create_list("Personal")
    with pytest.raises(NotFound) as err:
        service.query_reminders({"list": {"name": "Xyz"}})
    assert err.value.code == "not_found"
    assert err.value.message == (
        "No list found with name: 'Xyz'. Available lists: Reminders, Work, Personal."
    )


def test_unknown_list_id_is_reported(service: RemindersService) -> None:
    with pytest.raises(NotFound) as err:
        service.query_reminders({"list": {"id": "abc123"}})
    assert err.value.message == "No list found with ID: 'abc123'."


@pytest.mark.parametrize(
    "selector",
    [
        {"name": "Reminders", "id": "abc123"},
        {"name": "Reminders", "all": True},
        {"id": "abc123", "all": True},
        {"name": "Reminders", "id": "abc123", "all": True},
        {},
        {"all": False},
    ],
)
def test_invalid_list_selector_is_rejected(
    service: RemindersService, selector: dict[str, Any]
) -> None:
    with pytest.raises(InvalidParams) as err:
        service.query_reminders({"list": selector})
    assert err.value.code == "invalid_params"
    assert err.value.message == SELECTOR_ERROR


def test_unknown_parameter_is_rejected(service: RemindersService) -> None:
    with pytest.raises(InvalidParams) as err:
        service.query_reminders({"foo": 1})
    assert err.value.message == "Unknown parameter 'foo'."


# -- sortBy -------------------------------------------------------------------------------------


def test_sort_by_priority_gives_high_medium_low_none(service: RemindersService) -> None:
    _create(
        service,
        {"title": "none-1", "priority": "none"},
        {"title": "low", "priority": "low"},
        {"title": "high-1", "priority": "high"},
        {"title": "medium", "priority": "medium"},
        {"title": "none-2"},
        {"title": "high-2", "priority": "high"},
    )
    result = service.query_reminders({"sortBy": "priority"})
    assert [r["priority"] for r in result] == [1, 1, 5, 9, 0, 0]
    assert _titles(result)[2:4] == ["medium", "low"]


def test_sort_by_due_date_gives_soonest_first_and_nulls_last(service: RemindersService) -> None:
    _create(
        service,
        {"title": "no-due-1"},
        {"title": "10:00 Rome", "dueDate": "2026-03-01T10:00:00+01:00"},
        {"title": "date only", "dueDate": "2026-03-01"},  # local midnight
        {"title": "08:30 UTC", "dueDate": "2026-03-01T08:30:00Z"},  # 09:30 in Rome
        {"title": "New York", "dueDate": "2026-02-28T23:30:00-05:00"},  # 05:30 in Rome
        {"title": "no-due-2"},
        {"title": "earlier day", "dueDate": "2026-02-27T18:00:00+01:00"},
    )
    result = service.query_reminders({"sortBy": "dueDate"})
    assert _titles(result)[:5] == [
        "earlier day",
        "date only",
        "New York",
        "08:30 UTC",
        "10:00 Rome",
    ]
    assert sorted(_titles(result)[5:]) == ["no-due-1", "no-due-2"]
    assert [r["dueDate"] for r in result] == [
        "2026-02-27T18:00:00+01:00",
        "2026-03-01",
        "2026-03-01T05:30:00+01:00",  # every time in the person's zone, whatever it was written in
        "2026-03-01T09:30:00+01:00",
        "2026-03-01T10:00:00+01:00",
        None,
        None,
    ]
    # So a JMESPath sort of the texts is the same time order (the seed's own example).
    by_text = service.query_reminders({"query": "sort_by([?dueDate], &dueDate)[].title"})
    assert by_text == _titles(result)[:5]
    later = service.query_reminders({"query": "[?dueDate >= '2026-03-01T09:00'].title"})
    assert sorted(later) == ["08:30 UTC", "10:00 Rome"]


def test_sort_by_newest_and_oldest_follow_creation_date(
    service: RemindersService, home: Path
) -> None:
    created = _create(service, *({"title": t} for t in ("p", "q", "r", "s")))
    # creation order by date differs from insertion order: r, p, s, q (oldest first)
    _backdate(home, [created[2]["id"], created[0]["id"], created[3]["id"], created[1]["id"]])
    assert _titles(service.query_reminders({"sortBy": "newest"})) == ["q", "s", "p", "r"]
    assert _titles(service.query_reminders({"sortBy": "oldest"})) == ["r", "p", "s", "q"]
    assert _titles(service.query_reminders({})) == ["q", "s", "p", "r"]


def test_newest_first_within_one_batch_follows_input_order(service: RemindersService) -> None:
    _create(service, *({"title": f"t{i}"} for i in range(6)))
    assert _titles(service.query_reminders({})) == [f"t{i}" for i in reversed(range(6))]
    assert _titles(service.query_reminders({"sortBy": "oldest"})) == [f"t{i}" for i in range(6)]


def test_invalid_sort_by_is_rejected(service: RemindersService) -> None:
    with pytest.raises(InvalidParams) as err:
        service.query_reminders({"sortBy": "title"})
    assert err.value.message == (
        "Invalid value for 'sortBy': Input should be 'newest', 'oldest', 'priority' or 'dueDate'."
    )


# -- limit --------------------------------------------------------------------------------------


def test_limit_limits_results(service: RemindersService) -> None:
    _create(service, *({"title": f"t{i}"} for i in range(8)))
    result = service.query_reminders({"limit": 5})
    assert _titles(result) == ["t7", "t6", "t5", "t4", "t3"]
    assert len(service.query_reminders({"limit": 1})) == 1
    assert len(service.query_reminders({"limit": 200})) == 8


def test_default_limit_is_50(service: RemindersService) -> None:
    _create(service, *({"title": f"t{i}"} for i in range(55)))
    assert len(service.query_reminders({})) == 50


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        (0, "Invalid value for 'limit': Input should be greater than or equal to 1."),
        (-1, "Invalid value for 'limit': Input should be greater than or equal to 1."),
        (201, "Invalid value for 'limit': Input should be less than or equal to 200."),
    ],
)
def test_limit_out_of_bounds_is_rejected(
    service: RemindersService, limit: int, message: str
) -> None:
    with pytest.raises(InvalidParams) as err:
        service.query_reminders({"limit": limit})
    assert err.value.code == "invalid_params"
    assert err.value.message == message


# -- JMESPath -----------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["[?priority != 0]", "[?priority != `0`]"])
def test_query_filters_to_items_with_a_priority(svc: RemindersService, query: str) -> None:
    _create(
        svc,
        {"title": "none"},
        {"title": "high", "priority": "high"},
        {"title": "none-2", "priority": "none"},
        {"title": "low", "priority": "low"},
    )
    assert _titles(svc.query_reminders({"query": query})) == ["low", "high"]


def test_query_text_search_with_contains(svc: RemindersService) -> None:
    _create(
        svc,
        {"title": "test the brakes"},
        {"title": "buy milk"},
        {"title": "a unit test"},
        {"title": "Test uppercase"},
    )
    result = svc.query_reminders({"query": "[?contains(title, 'test')]"})
    assert _titles(result) == ["a unit test", "test the brakes"]


def test_query_sorting_in_jmespath(svc: RemindersService, home: Path) -> None:
    created = _create(svc, *({"title": f"t{i}"} for i in range(7)))
    order = [5, 0, 3, 6, 1, 4, 2]  # oldest first by creation date
    _backdate(home, [created[i]["id"] for i in order])
    result = svc.query_reminders({"query": "reverse(sort_by(@, &creationDate))[:5]"})
    assert _titles(result) == ["t2", "t4", "t1", "t6", "t3"]
    ascending = svc.query_reminders({"query": "sort_by(@, &creationDate)[*].title"})
    assert ascending == [f"t{i}" for i in order]


def test_query_projection(svc: RemindersService) -> None:
    _create(svc, {"title": "a", "dueDate": "2026-02-24"}, {"title": "b"})
    result = svc.query_reminders({"query": "[*].{title: title, due: dueDate}"})
    assert result == [{"title": "b", "due": None}, {"title": "a", "due": "2026-02-24"}]


def test_query_overrides_sort_by(svc: RemindersService) -> None:
    _create(
        svc,
        {"title": "banana", "priority": "low"},
        {"title": "cherry", "priority": "high"},
        {"title": "apple"},
    )
    by_title = svc.query_reminders({"sortBy": "priority", "query": "sort_by(@, &title)[*].title"})
    assert by_title == ["apple", "banana", "cherry"]
    # A query without sorting sees the base order (newest first), whatever sortBy says.
    plain = svc.query_reminders({"sortBy": "priority", "query": "[*].title"})
    assert plain == ["apple", "cherry", "banana"]
    plain = svc.query_reminders({"sortBy": "oldest", "query": "[*].title"})
    assert plain == ["apple", "cherry", "banana"]


def test_limit_applies_after_jmespath(svc: RemindersService) -> None:
    # The four high-priority reminders are the oldest: a limit applied before the filter
    # would see none of them.
    _create(svc, *({"title": f"high{i}", "priority": "high"} for i in range(4)))
    _create(svc, *({"title": f"plain{i}"} for i in range(6)))
    result = svc.query_reminders({"query": "[?priority == `1`]", "limit": 3})
    assert _titles(result) == ["high3", "high2", "high1"]
    assert svc.query_reminders({"query": "[*].title", "limit": 2}) == ["plain5", "plain4"]
    assert svc.query_reminders({"query": "[?priority == `1`].title", "limit": 50}) == [
        "high3",
        "high2",
        "high1",
        "high0",
    ]
    # A result that is not a list is not cut.
    assert svc.query_reminders({"query": "length(@)", "limit": 1}) == 10


def test_query_runs_after_list_and_status_filters(
    svc: RemindersService, two_lists: dict[str, Any]
) -> None:
    assert svc.query_reminders({"query": "[*].title"}) == ["c", "b", "a"]
    assert svc.query_reminders({"status": "completed", "query": "[*].title"}) == ["done"]
    work = svc.query_reminders({"list": {"name": "Work"}, "status": "all", "query": "[*].title"})
    assert sorted(work) == ["w1", "w2"]
    everywhere = svc.query_reminders({"list": {"all": True}, "query": "[*].listName"})
    assert sorted(everywhere) == ["Reminders", "Reminders", "Reminders", "Work"]


def test_query_sees_the_documented_fields(svc: RemindersService) -> None:
    _create(svc, {"title": "x", "notes": "n", "priority": "medium", "dueDate": "2026-02-24"})
    (row,) = svc.query_reminders({"query": "[*]"})
    for field in (
        "id",
        "title",
        "notes",
        "listId",
        "listName",
        "isCompleted",
        "priority",
        "dueDate",
        "completionDate",
        "creationDate",
        "modificationDate",
    ):
        assert field in row
    assert svc.query_reminders({"query": "[?dueDate == '2026-02-24'].title"}) == ["x"]


def test_invalid_jmespath_with_lone_equals_gives_the_hint(svc: RemindersService) -> None:
    with pytest.raises(InvalidQuery) as err:
        svc.query_reminders({"query": "[?priority = 1]"})
    assert err.value.code == "invalid_params"
    assert isinstance(err.value, InvalidParams)
    assert err.value.message == (
        "Invalid JMESPath expression: Unknown token '=' at position 11. "
        "Expression: '[?priority = 1]'. Hint: Use '==' for equality, not '='."
    )


def test_invalid_jmespath_without_lone_equals_has_no_hint(svc: RemindersService) -> None:
    query = "[?priority == `1`"
    with pytest.raises(InvalidQuery) as err:
        svc.query_reminders({"query": query})
    message = err.value.message
    assert message.startswith("Invalid JMESPath expression: ")
    assert message.endswith(f". Expression: '{query}'.")
    assert "Hint" not in message


def test_jmespath_that_fails_while_running_is_an_invalid_query(svc: RemindersService) -> None:
    _create(svc, {"title": "no notes"})
    query = "[?contains(notes, 'x')]"
    with pytest.raises(InvalidQuery) as err:
        svc.query_reminders({"query": query})
    assert err.value.message.startswith("Invalid JMESPath expression: ")
    assert err.value.message.endswith(f". Expression: '{query}'.")


def test_empty_jmespath_is_rejected(svc: RemindersService) -> None:
    with pytest.raises(InvalidQuery) as err:
        svc.query_reminders({"query": "  "})
    assert err.value.message.startswith("Invalid JMESPath expression: ")


def test_offset_pages_past_the_200_per_call_maximum(svc: RemindersService, home: Path) -> None:
    made = _create(svc, *({"title": f"r{i:03}"} for i in range(250)))
    _backdate(home, [r["id"] for r in made])  # r000 oldest ... r249 newest
    newest_first = [f"r{i:03}" for i in reversed(range(250))]
    first = svc.query_reminders({"limit": 200})
    second = svc.query_reminders({"limit": 200, "offset": 200})
    assert _titles(first) + _titles(second) == newest_first
    assert svc.query_reminders({"offset": 250}) == []
    # The same window over a query's result, whether it runs in SQL or in memory.
    query = "sort_by([?title != 'r000'], &title)"
    page = svc.query_reminders({"query": query, "limit": 3, "offset": 5})
    assert _titles(page) == ["r006", "r007", "r008"]
    sliced = svc.query_reminders({"query": query + "[10:20]", "limit": 4, "offset": 8})
    assert _titles(sliced) == ["r019", "r020"]
    titles = svc.query_reminders({"query": query + "[].title", "limit": 2, "offset": 247})
    assert titles == ["r248", "r249"]
    # A result that is not a list is not paged.
    assert svc.query_reminders({"query": "length(@)", "offset": 100}) == 250


def test_a_negative_offset_is_refused(svc: RemindersService) -> None:
    with pytest.raises(InvalidParams) as raised:
        svc.query_reminders({"offset": -1})
    assert "'offset'" in raised.value.message
