"""A JMESPath query runs under bounds: its length, its nesting, and the written size of what it
makes, counted while it makes it - so the 223-character bomb stops at once with a reason."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fruitctl.domain import query_budget
from fruitctl.domain.errors import InvalidQuery
from fruitctl.domain.query import MAX_CHARS, MAX_DEPTH, compile_query
from fruitctl.domain.query_budget import BudgetedInterpreter, BudgetExceeded, WrittenSizes

BOMB = "[0]" + ".{a:@,b:@}" * 22  # 223 characters; written out, 2**22 copies of a reminder


def reminders(count: int, notes: int = 200) -> list[dict[str, Any]]:
    return [
        {"id": f"r{i}", "title": f"task {i}", "notes": "n" * notes, "tags": ["next"]}
        for i in range(count)
    ]


def test_the_bomb_stops_with_the_reason_before_it_is_built() -> None:
    assert len(BOMB) == 223
    with pytest.raises(InvalidQuery) as caught:
        compile_query(BOMB).evaluate(reminders(3))
    assert caught.value.code == "invalid_params"
    assert "the query builds more than 64 MB of results" in caught.value.message
    assert "select fewer fields or fewer reminders" in caught.value.message


def test_the_bomb_is_stopped_at_the_level_that_crosses_the_budget() -> None:
    # One reminder written out is ~300 bytes; each level doubles it. The interpreter must stop
    # as soon as the sum crosses the budget: levels up to 17 (~40 MB in all) still fit.
    one = reminders(1)
    fits = "[0]" + ".{a:@,b:@}" * 16
    made = compile_query(fits).evaluate(one)
    assert len(json.dumps(made)) > 16 * 1024 * 1024
    with pytest.raises(InvalidQuery, match="builds more than"):
        compile_query("[0]" + ".{a:@,b:@}" * 19).evaluate(one)


def test_sharing_is_measured_once_and_counted_as_often_as_it_appears() -> None:
    base = {"t": "x" * 10}
    level = base
    for _ in range(60):  # 2**60 copies written out: measuring must not expand them
        level = {"a": level, "b": level}
    sizes = WrittenSizes()
    assert sizes.of(level) > 2**60
    compact = {"separators": (",", ":")}
    assert sizes.of(base) == len(json.dumps(base, **compact))  # type: ignore[arg-type]
    assert sizes.of([base, [base]]) == len(json.dumps([base, [base]], **compact))  # type: ignore[arg-type]


def test_honest_queries_over_a_large_store_fit() -> None:
    data = reminders(20_000)
    shaped = compile_query("[*].{title: title, notes: notes, tags: tags}").evaluate(data)
    assert len(shaped) == 20_000
    assert compile_query("[?contains(title, '9')] | sort_by(@, &title)").evaluate(data)
    assert compile_query("{all: @, count: length(@)}").evaluate(data)["count"] == 20_000


def test_a_literal_put_in_every_result_is_counted() -> None:
    query = compile_query(f"map(&'{'x' * 1000}', @)")  # no multi-select: only the literal counts
    with pytest.raises(BudgetExceeded):
        BudgetedInterpreter(limit=50_000).visit(query.ast, reminders(60))
    assert len(BudgetedInterpreter(limit=50_000).visit(query.ast, reminders(40))) == 40


def test_a_literal_only_tested_in_a_filter_costs_nothing() -> None:
    text = "x" * 1000
    query = compile_query(f"[?title != '{text}'].id")
    found = BudgetedInterpreter(limit=1_000).visit(query.ast, reminders(200))
    assert len(found) == 200


def test_text_written_by_to_string_and_join_is_counted() -> None:
    data = reminders(100)
    written = len(json.dumps(data))
    for text in ("to_string(@)", "join(',', [*].notes)"):
        query = compile_query(text)
        with pytest.raises(BudgetExceeded):
            BudgetedInterpreter(limit=written // 2).visit(query.ast, data)
        assert BudgetedInterpreter(limit=written * 2).visit(query.ast, data)


def test_selecting_costs_nothing() -> None:
    query = compile_query("[*] | [?tags] | sort_by(@, &title) | reverse(@) | [1:] | [*].notes")
    assert len(BudgetedInterpreter(limit=0).visit(query.ast, reminders(50))) == 49


def test_a_budget_error_comes_out_of_query_evaluate_as_invalid_query(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(query_budget, "BUILD_MAX_BYTES", 500)
    with pytest.raises(InvalidQuery) as caught:
        compile_query("[*].{a: @}").evaluate(reminders(5))
    assert "more than 500 bytes" in caught.value.message


@pytest.mark.parametrize(
    "text",
    [
        "!" * (MAX_DEPTH + 1) + "title",
        "[" * (MAX_DEPTH + 1) + "title" + "]" * (MAX_DEPTH + 1),
        "`" + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "`",
        "(" * 900 + "title" + ")" * 900,  # deep enough for jmespath's parser to recurse out
    ],
    ids=["not", "brackets", "literal", "parentheses"],
)
def test_a_query_nested_too_deep_is_refused_when_compiled(text: str) -> None:
    with pytest.raises(InvalidQuery) as caught:
        compile_query(text)
    assert f"it nests more than {MAX_DEPTH} levels deep" in caught.value.message


def test_nesting_up_to_the_limit_runs() -> None:
    text = "!" * (MAX_DEPTH - 2) + "title"
    assert compile_query(text).evaluate({"title": "x"}) is (MAX_DEPTH % 2 == 0)


def test_a_query_too_long_is_refused_and_not_quoted_whole() -> None:
    text = "[?" + " || ".join(f"title == 'w{i}'" for i in range(200)) + "]"
    assert len(text) > MAX_CHARS
    with pytest.raises(InvalidQuery) as caught:
        compile_query(text)
    message = caught.value.message
    assert f"longer than {MAX_CHARS} characters ({len(text)})" in message
    assert len(message) < 300
