"""JMESPath pushdown must give exactly what jmespath gives in memory - results and errors.

Random stores of reminders and random expressions from a small grammar that mixes what SQL can
run (filters, sort_by, reverse, slices) with what it cannot (projections, functions, nested
fields), compared through the service with pushdown on and off.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete

from fruitctl.backends.local import LocalReminders, pushdown
from fruitctl.backends.local.tables import lists as lists_table
from fruitctl.backends.local.tables import reminders as reminders_table
from fruitctl.capabilities.reminders.service import RemindersService
from fruitctl.domain import query_budget
from fruitctl.domain.errors import FruitctlError
from fruitctl.domain.query import compile_query
from fruitctl.ports import NewReminder
from fruitctl.store import open_database

WORDS = ["call", "Call", "mom", "buy", "milk", "", "b", "ab", "über", "Zed", "2026-02-24"]
TAGS = ["@calls", "next", "waiting", "Next"]
# The tricky fields (nullable, NOCASE-stored, boolean, list) come first and are drawn more often.
TRICKY = ["notes", "listName", "dueDate", "tags", "isFlagged", "priority", "title", "url"]
OTHERS = [
    "id",
    "listId",
    "isCompleted",
    "completionDate",
    "creationDate",
    "modificationDate",
    "parentId",
    "recurrence",
    "nope",
]
SORTABLE = ["title", "priority", "creationDate", "modificationDate", "listName", "id", "dueDate"]
LITERALS = [
    "`0`",
    "`1`",
    "`5`",
    "`9`",
    "`4.5`",
    "`-1`",
    "`null`",
    "`true`",
    "`false`",
    '`""`',
    "'call'",
    "'b'",
    "''",
    "'2026-02-24'",
    "'2026-02-24T12:00:00+01:00'",
    "'Work'",
    "'work'",
    "'@calls'",
    "'next'",
    "`[]`",
    "`{}`",
]
OPS = ["==", "!=", "<", "<=", ">", ">="]
ZONES = [UTC, timezone(timedelta(hours=1)), timezone(timedelta(hours=-5))]


@pytest.fixture(scope="module")
def store() -> Iterator[LocalReminders]:
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_database(Path(tmp) / "local.db", "local")
        backend = LocalReminders(engine)
        for name in ("Work", "Personal"):
            backend.create_list(name)
        yield backend
        engine.dispose()


# -- data ------------------------------------------------------------------------------------

text = st.lists(st.sampled_from(WORDS), max_size=3).map(" ".join)
moments = st.builds(
    lambda day, hour, zone: datetime(2026, 2, 20, hour, tzinfo=zone) + timedelta(days=day),
    st.integers(0, 6),
    st.integers(0, 23),
    st.sampled_from(ZONES),
)
dues = st.one_of(
    st.none(), moments, st.builds(date, st.just(2026), st.just(2), st.integers(20, 26))
)
reminder_data = st.fixed_dictionaries(
    {
        "list": st.integers(0, 2),
        "title": text.filter(lambda t: t.strip() != ""),
        "notes": st.one_of(st.none(), text),
        "priority": st.sampled_from([0, 1, 5, 9]),
        "due": dues,
        "completion": st.one_of(st.none(), moments),
        "tags": st.lists(st.sampled_from(TAGS), unique=True, max_size=3).map(tuple),
        "is_flagged": st.booleans(),
        "url": st.one_of(st.none(), st.just("https://example.org/a")),
    }
)


def fill(backend: LocalReminders, items: list[dict[str, Any]]) -> None:
    engine = backend._engine
    with engine.begin() as conn:
        conn.execute(delete(reminders_table))
    with engine.connect() as conn:
        list_ids = list(conn.execute(lists_table.select().order_by("position")).scalars())
    drafts = [
        NewReminder(list_id=list_ids[item.pop("list") % len(list_ids)], **item)
        for item in (dict(i) for i in items)
    ]
    if drafts:
        backend.create(drafts)


# -- expressions -----------------------------------------------------------------------------

field = st.one_of(st.sampled_from(TRICKY), st.sampled_from(TRICKY), st.sampled_from(OTHERS))
literal = st.sampled_from(LITERALS)


def conditions() -> st.SearchStrategy[str]:
    leaf = st.one_of(
        field,
        literal,
        st.builds(lambda f, op, v: f"{f} {op} {v}", field, st.sampled_from(OPS), literal),
        st.builds(lambda v, op, f: f"{v} {op} {f}", literal, st.sampled_from(OPS), field),
        st.builds(lambda f, v: f"contains({f}, {v})", field, literal),
    )
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            inner.map(lambda c: f"!({c})"),
            st.builds(lambda a, b: f"({a}) && ({b})", inner, inner),
            st.builds(lambda a, b: f"({a}) || ({b})", inner, inner),
        ),
        max_leaves=5,
    )


stage = st.one_of(
    conditions().map(lambda c: f"[?{c}]"),
    st.builds(lambda c, f: f"[?{c}].{f}", conditions(), field),
    st.sampled_from(SORTABLE).map(lambda f: f"sort_by(@, &{f})"),
    st.just("reverse(@)"),
    st.builds(
        lambda a, b: f"[{a}:{b}]",
        st.sampled_from(["", "0", "1", "3"]),
        st.sampled_from(["", "2", "5"]),
    ),
    field.map(lambda f: f"[*].{f}"),
    st.sampled_from(["length(@)", "[0]", "[*].{t: title, d: dueDate}", "[-2:]"]),
)
expressions = st.one_of(
    st.lists(stage, min_size=1, max_size=4).map(" | ".join),
    st.builds(
        lambda f, n: f"reverse(sort_by(@, &{f}))[:{n}]",
        st.sampled_from(SORTABLE),
        st.integers(0, 6),
    ),
    st.builds(lambda c, f: f"sort_by([?{c}], &{f})", conditions(), st.sampled_from(SORTABLE)),
)
scopes = st.fixed_dictionaries(
    {
        "list": st.sampled_from([None, {"all": True}, {"name": "Work"}]),
        "status": st.sampled_from(["incomplete", "completed", "all"]),
        "limit": st.integers(1, 200),
    }
)


def outcome(service: RemindersService, args: dict[str, Any]) -> tuple[str, Any]:
    try:
        return "ok", service.query_reminders(args)
    except FruitctlError as exc:
        return exc.code, exc.message


@pytest.mark.slow
@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(items=st.lists(reminder_data, min_size=2, max_size=10), expression=expressions, scope=scopes)
def test_pushdown_equals_in_memory(
    store: LocalReminders, items: list[dict[str, Any]], expression: str, scope: dict[str, Any]
) -> None:
    fill(store, items)
    args = {k: v for k, v in scope.items() if v is not None} | {"query": expression}
    pushed = outcome(RemindersService(store, pushdown=True), args)
    in_memory = outcome(RemindersService(store, pushdown=False), args)
    assert pushed == in_memory, expression


# -- a fixed store and the expressions most likely to go wrong -------------------------------

TRICKY_EXPRESSIONS = [
    "[?notes]",
    "[?!notes]",
    "[?url]",
    "[?title]",
    "[?tags]",
    "[?!tags]",
    "[?priority]",
    "[?!priority]",
    "[?isFlagged]",
    "[?nope]",
    "[?!nope]",
    "[?nope == `null`]",
    "[?`true`]",
    "[?`[]`]",
    "[?'']",
    "[?listName == 'work']",
    "[?listName == 'Work']",
    "[?listName < 'P']",
    "[?'work' != listName]",
    "[?notes == '']",
    "[?notes != `null`]",
    "[?notes == `null`]",
    "[?title == `null`]",
    "[?dueDate < '2026-02-24']",
    "[?dueDate >= '2026-02-24T00']",
    "[?priority > `1`]",
    "[?priority <= `5`]",
    "[?priority == `5.0`]",
    "[?priority == `true`]",
    "[?isCompleted == `1`]",
    "[?isCompleted == `false`]",
    "[?isFlagged != `true`]",
    "[?isFlagged < `1`]",
    "[?priority < 'a']",
    "[?contains(tags, 'next')]",
    "[?contains(tags, `1`)]",
    "[?contains(title, '')]",
    "[?contains(title, 'all')]",
    "[?contains(notes, 'x')]",
    "[?notes && contains(notes, 'x')]",
    "[?!notes || contains(notes, 'x')]",
    "[?contains(notes, 'x') || !notes]",
    "[?title < `1`]",
    "[?'' != title]",
    "[?`1` < priority]",
    "[?'b' >= title]",
    "[?!(priority == `1`)]",
    "[?!(listName == 'x')]",
    "[?!(notes == 'x')]",
    "[:2] | [?isFlagged]",
    "[1:5] | [1:3]",
    "[1:] | [:2]",
    "[3:1]",
    "[:0]",
    "[5:]",
    "sort_by(@, &title) | [?priority == `1`]",
    "sort_by(@, &priority)",
    "reverse(sort_by(@, &priority))",
    "reverse(@) | [:3]",
    "sort_by(sort_by(@, &priority), &title)",
    "sort_by(@, &listName)",
    "sort_by(@, &dueDate)",
    "[?dueDate] | sort_by(@, &dueDate)",
    "[?isFlagged].title",
    "[?isFlagged] | [0].title",
    "[?tags] | length(@)",
    "[:3] | reverse(@)",
    "[?priority == `1`][:1]",
]
FIXED_STORE = [
    {"list": 0, "title": "call mom", "notes": "", "priority": 1, "tags": ("next",)},
    {"list": 1, "title": "b", "notes": None, "priority": 0, "due": date(2026, 2, 24)},
    {
        "list": 1,
        "title": "ab",
        "notes": "xyz",
        "priority": 5,
        "is_flagged": True,
        "due": datetime(2026, 2, 24, 9, tzinfo=ZONES[1]),
    },
    {
        "list": 2,
        "title": "Zed",
        "notes": "no",
        "priority": 9,
        "url": "https://example.org/a",
        "tags": ("@calls", "Next"),
        "due": datetime(2026, 2, 23, 23, tzinfo=ZONES[2]),
    },
    {
        "list": 0,
        "title": "über",
        "priority": 1,
        "is_flagged": True,
        "completion": datetime(2026, 2, 21, 8, tzinfo=ZONES[0]),
    },
    {"list": 2, "title": "call", "notes": "x", "priority": 5, "tags": ("waiting",)},
]


@pytest.mark.parametrize("expression", TRICKY_EXPRESSIONS)
@pytest.mark.parametrize("selector", [{"all": True}, {"name": "Work"}])
def test_tricky_expressions_agree(
    store: LocalReminders, expression: str, selector: dict[str, Any]
) -> None:
    fill(store, [{"completion": None, **item} for item in FIXED_STORE])
    args = {"list": selector, "status": "all", "query": expression}
    pushed = outcome(RemindersService(store, pushdown=True), args)
    assert pushed == outcome(RemindersService(store, pushdown=False), args)


# -- the pushdown really happens ---------------------------------------------------------------


@pytest.mark.parametrize(
    "expression",
    [
        "[?priority != `0`]",
        "[?priority == `1`]",
        "[?contains(title, 'meeting')]",
        "[?contains(notes, 'x')]",
        "[?contains(tags, 'next')]",
        "reverse(sort_by(@, &creationDate))[:10]",
        "reverse(sort_by(@, &modificationDate))[:5]",
        "[?creationDate >= '2024-01-01' && creationDate < '2025-01-01']",
        "[?!isCompleted || isFlagged] | sort_by(@, &title) | [2:7]",
        "[?dueDate != `null` && dueDate < '2026-03-01']",
    ],
)
def test_supported_expressions_run_entirely_in_sql(expression: str) -> None:
    _plan, remainder = pushdown.fold(compile_query(expression).ast, pushdown.Plan())
    assert remainder is None


@pytest.mark.parametrize(
    ("expression", "left"),
    [
        ("[*].{title: title, due: dueDate}", "projection"),
        ("[?priority == `1`].title", "projection"),
        ("[?title < `1`]", "filter_projection"),  # jmespath raises: stays with jmespath
        ("sort_by(@, &dueDate)", "function_expression"),  # nullable key: jmespath may raise
        ("length([?isFlagged])", "function_expression"),
    ],
)
def test_what_sql_cannot_express_is_left_to_jmespath(expression: str, left: str) -> None:
    _, remainder = pushdown.fold(compile_query(expression).ast, pushdown.Plan())
    assert remainder is not None and remainder["type"] == left


def test_a_note_filter_that_would_raise_falls_back_to_the_same_error(
    local_backend: LocalReminders,
) -> None:
    service = RemindersService(local_backend)
    service.create_reminders({"reminders": [{"title": "a", "notes": "xyz"}, {"title": "b"}]})
    args = {"query": "[?contains(notes, 'x')]"}
    with pytest.raises(FruitctlError) as pushed:
        service.query_reminders(args)
    with pytest.raises(FruitctlError) as in_memory:
        RemindersService(local_backend, pushdown=False).query_reminders(args)
    assert pushed.value.message == in_memory.value.message
    assert "contains()" in pushed.value.message
    # ...and guarded the other way round, the filter runs in SQL and finds the note.
    guarded = service.query_reminders({"query": "[?notes && contains(notes, 'x')].title"})
    assert guarded == ["a"]


# -- the query budget counts the same whichever side selects -----------------------------------

BUILDING = st.sampled_from(
    [
        "{a: @, b: @}",
        "[*].{a: @, b: title}",
        "[*].[@, @]",
        "map(&'a fairly long literal put in every result', @)",
        "to_string(@)",
        "[?title != 'a literal only tested costs nothing']",
    ]
)
building = st.one_of(stage, BUILDING, BUILDING)  # selections between makers, makers more often
budgeted = st.lists(building, min_size=1, max_size=4).map(" | ".join)


@pytest.mark.slow
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    items=st.lists(reminder_data, min_size=2, max_size=10),
    expression=budgeted,
    budget=st.integers(50, 3000),
)
def test_pushdown_and_memory_stop_at_the_same_budget(
    store: LocalReminders,
    monkeypatch: pytest.MonkeyPatch,
    items: list[dict[str, Any]],
    expression: str,
    budget: int,
) -> None:
    monkeypatch.setattr(query_budget, "BUILD_MAX_BYTES", budget)
    fill(store, items)
    args = {"list": {"all": True}, "status": "all", "query": expression}
    pushed = outcome(RemindersService(store, pushdown=True), args)
    assert pushed == outcome(RemindersService(store, pushdown=False), args), expression
    event("over the budget" if "builds more than" in str(pushed[1]) else "within it")


@pytest.mark.parametrize("pushed", [True, False], ids=["pushdown", "in-memory"])
def test_the_bomb_after_a_filter_sql_runs_fails_alike(store: LocalReminders, pushed: bool) -> None:
    fill(store, [{"list": 0, "title": f"t{i}", "priority": 1} for i in range(3)])
    bomb = "[?priority == `1`] | [0]" + ".{a:@,b:@}" * 30
    with pytest.raises(FruitctlError) as caught:
        RemindersService(store, pushdown=pushed).query_reminders({"query": bomb})
    assert caught.value.code == "invalid_params"
    assert "the query builds more than 64 MB of results" in caught.value.message
