"""The contract every ``RemindersBackend`` (``fruitctl.ports``) keeps, run against each backend.

The ``backend`` fixture (``conftest.py``) runs each test once per backend; a backend joins by
adding an opener to ``conftest.REMINDERS``.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any, get_args

import pytest

from fruitctl.domain.errors import InvalidParams, NotFound
from fruitctl.domain.query import compile_query
from fruitctl.domain.reminders import SORT_TERMS, Reminder, Status, mentioning, sort_reminders
from fruitctl.ports import (
    FetchOrder,
    NewReminder,
    PermissionStatus,
    ReminderChanges,
    ReminderQuery,
    RemindersBackend,
    ReminderScope,
    ReminderSearch,
)

ROME = timezone(timedelta(hours=1))
NEW_YORK = timezone(timedelta(hours=-5))
EVERYTHING = ReminderScope(None, "all")


def _default_id(backend: RemindersBackend) -> str:
    (default,) = [lst for lst in backend.lists() if lst.isDefault]
    return default.id


def _all(backend: RemindersBackend) -> list[Reminder]:
    return backend.fetch(ReminderQuery(EVERYTHING))


def _ids(reminders: list[Reminder]) -> list[str]:
    return [r.id for r in reminders]


# Apple's EventKit can write neither tags nor the flag (the eventkit backend reads them from the
# Reminders app's store and answers `unsupported` to a write of them), and it keeps instants
# (NSDate), not the offset a date was written with. These tests hold it to everything else.
NO_EXTRAS = frozenset({"eventkit"})
NO_OFFSETS = frozenset({"eventkit"})
# On Apple's Reminders a timed due alerts at its due (Reminders.app's own alarm, which moves with
# the due and goes with its time): a new due changes the alarms there too.
DUE_ALARM = frozenset({"eventkit"})


def _extras(backend: RemindersBackend, **fields: Any) -> dict[str, Any]:
    """Tags and flag fields for a backend that can write them, else none."""
    return {} if backend.name in NO_EXTRAS else fields


def _same_moment(backend: RemindersBackend, shown: str | None, wanted: str | None) -> bool:
    """The wire text, exactly; for a backend that keeps instants only, the same instant."""
    if backend.name not in NO_OFFSETS or shown is None or wanted is None:
        return shown == wanted
    return datetime.fromisoformat(shown) == datetime.fromisoformat(wanted)


def _create_one(backend: RemindersBackend, **fields: Any) -> Reminder:
    fields.setdefault("list_id", _default_id(backend))
    fields.setdefault("title", "a reminder")
    (created,) = backend.create([NewReminder(**fields)])
    return created


# -- identity -----------------------------------------------------------------------------------


def test_name_is_a_non_empty_string(backend: RemindersBackend) -> None:
    assert isinstance(backend.name, str)
    assert backend.name


def test_permission_status_is_one_of_the_four_values(backend: RemindersBackend) -> None:
    assert backend.permission_status() in get_args(PermissionStatus)
    assert set(get_args(PermissionStatus)) == {
        "authorized",
        "denied",
        "not_determined",
        "restricted",
    }


# -- lists --------------------------------------------------------------------------------------


def test_a_new_store_has_one_default_list_called_reminders(backend: RemindersBackend) -> None:
    (only,) = backend.lists()
    assert only.name == "Reminders"
    assert only.isDefault is True
    assert only.count == 0
    assert only.id


def test_lists_put_the_default_first_and_count_incomplete_reminders(
    backend: RemindersBackend,
) -> None:
    work = backend.create_list("Work")
    alpha = backend.create_list("Alpha")
    default_id = _default_id(backend)
    created = backend.create(
        [
            NewReminder(list_id=default_id, title="open"),
            NewReminder(
                list_id=default_id, title="done", completion=datetime(2026, 1, 1, tzinfo=ROME)
            ),
            NewReminder(list_id=work.id, title="w1"),
            NewReminder(list_id=work.id, title="w2"),
            NewReminder(list_id=work.id, title="w3", completion=datetime(2026, 1, 2, tzinfo=ROME)),
        ]
    )
    lists = backend.lists()
    assert lists[0].isDefault is True
    assert lists[0].name == "Reminders"
    assert [lst.isDefault for lst in lists].count(True) == 1
    assert {lst.name: lst.count for lst in lists} == {"Reminders": 1, "Work": 2, "Alpha": 0}
    assert {lst.id for lst in lists} == {default_id, work.id, alpha.id}
    backend.update(created[2].id, {"completionDate": datetime(2026, 1, 3, tzinfo=ROME)})
    backend.delete(created[0].id)
    assert {lst.name: lst.count for lst in backend.lists()} == {
        "Reminders": 0,
        "Work": 1,
        "Alpha": 0,
    }


def test_create_list_returns_the_new_list(backend: RemindersBackend) -> None:
    work = backend.create_list("Work")
    assert work.name == "Work"
    assert work.isDefault is False
    assert work.count == 0
    assert work.id
    assert work in backend.lists()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Work", "Work"),
        ("Work", "WORK"),
        ("Work", "work"),
        ("Work", " Work "),
        ("Äpfel", "äpfel"),
        ("École", "école"),
    ],
    ids=["same", "upper", "lower", "padded", "non-ascii-umlaut", "non-ascii-accent"],
)
def test_create_list_rejects_a_duplicate_name_case_insensitively(
    backend: RemindersBackend, first: str, second: str
) -> None:
    backend.create_list(first)
    before = backend.lists()
    with pytest.raises(InvalidParams):
        backend.create_list(second)
    assert backend.lists() == before


def test_create_list_rejects_a_duplicate_of_the_default(backend: RemindersBackend) -> None:
    with pytest.raises(InvalidParams):
        backend.create_list("reminders")
    assert len(backend.lists()) == 1


# -- create / get -------------------------------------------------------------------------------


def test_create_round_trips_every_field_in_input_order(backend: RemindersBackend) -> None:
    work = backend.create_list("Work")
    default_id = _default_id(backend)
    items = [
        NewReminder(list_id=default_id, title="bare"),
        NewReminder(
            list_id=work.id,
            title="everything",
            notes="line one\nline two",
            priority=5,
            due=datetime(2026, 2, 24, 18, 0, tzinfo=NEW_YORK),
            **_extras(backend, tags=("zeta", "@calls", "Alpha"), is_flagged=True),
            url="https://example.com/x",
        ),
        NewReminder(list_id=default_id, title="date only", due=date(2026, 2, 24), priority=9),
        NewReminder(
            list_id=default_id,
            title="done",
            priority=1,
            completion=datetime(2024, 1, 15, 10, 0, tzinfo=NEW_YORK),
        ),
        NewReminder(list_id=default_id, title="utc", due=datetime(2026, 2, 24, 10, 0, tzinfo=UTC)),
    ]
    created = backend.create(items)
    assert [r.title for r in created] == [i.title for i in items]
    assert len({r.id for r in created}) == len(items)

    bare, full, dated, done, utc = created
    assert (bare.listId, bare.listName) == (default_id, "Reminders")
    assert bare.notes is None
    assert bare.priority == 0
    assert bare.dueDate is None
    assert bare.completionDate is None
    assert bare.isCompleted is False
    assert bare.tags == ()
    assert bare.isFlagged is False
    assert bare.url is None

    assert (full.listId, full.listName) == (work.id, "Work")
    assert full.notes == "line one\nline two"
    assert full.priority == 5
    if backend.name not in NO_EXTRAS:
        assert full.tags == ("zeta", "@calls", "Alpha")
        assert full.isFlagged is True
    assert full.url == "https://example.com/x"
    assert full.due == datetime(2026, 2, 24, 18, 0, tzinfo=NEW_YORK)
    # Read in the person's zone (Rome here), whatever zone it was written in.
    assert full.due.utcoffset() == timedelta(hours=1)  # type: ignore[union-attr]
    assert full.to_wire()["dueDate"] == "2026-02-25T00:00:00+01:00"

    assert type(dated.due) is date
    assert dated.due == date(2026, 2, 24)
    assert dated.to_wire()["dueDate"] == "2026-02-24"

    assert done.isCompleted is True
    assert _same_moment(backend, done.completionDate, "2024-01-15T16:00:00+01:00")
    assert done.to_wire()["completionDate"] == done.completionDate

    assert utc.to_wire()["dueDate"] == "2026-02-24T11:00:00+01:00"

    for reminder in created:
        assert datetime.fromisoformat(reminder.creationDate).tzinfo is not None
        assert datetime.fromisoformat(reminder.modificationDate).tzinfo is not None
        assert backend.get(reminder.id) == reminder


def test_create_stamps_creation_with_the_current_time(backend: RemindersBackend) -> None:
    before = datetime.now().astimezone().replace(microsecond=0)
    created = _create_one(backend)
    after = datetime.now().astimezone()
    assert before <= created.created <= after
    assert before <= datetime.fromisoformat(created.modificationDate) <= after


def test_create_into_an_unknown_list_creates_nothing(backend: RemindersBackend) -> None:
    default_id = _default_id(backend)
    with pytest.raises(NotFound):
        backend.create(
            [NewReminder(list_id=default_id, title="ok"), NewReminder(list_id="nope", title="x")]
        )
    assert _all(backend) == []


def test_get_an_unknown_reminder_is_not_found(backend: RemindersBackend) -> None:
    with pytest.raises(NotFound) as err:
        backend.get("abc123")
    assert err.value.message == "No reminder found with ID: 'abc123'."


# -- update -------------------------------------------------------------------------------------


@pytest.fixture
def full(backend: RemindersBackend) -> Reminder:
    return _create_one(
        backend,
        title="full",
        notes="notes",
        priority=5,
        due=datetime(2026, 2, 24, 18, 0, tzinfo=ROME),
        **_extras(backend, tags=("a", "b"), is_flagged=True),
        url="https://example.com",
    )


UNTOUCHED = tuple(
    field
    for field in Reminder.model_fields
    if field not in ("modificationDate", "parentId", "recurrence")
)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"title": "renamed"}, {"title": "renamed"}),
        ({"notes": "other"}, {"notes": "other"}),
        ({"notes": None}, {"notes": None}),
        ({"priority": 1}, {"priority": 1}),
        ({"priority": 0}, {"priority": 0}),
        (
            {"dueDate": datetime(2026, 3, 1, 9, 0, tzinfo=NEW_YORK)},
            {"dueDate": "2026-03-01T15:00:00+01:00"},
        ),
        ({"dueDate": date(2026, 3, 1)}, {"dueDate": "2026-03-01"}),
        ({"dueDate": None}, {"dueDate": None}),
        (
            {"completionDate": datetime(2024, 1, 15, 10, 0, tzinfo=NEW_YORK)},
            {"completionDate": "2024-01-15T16:00:00+01:00", "isCompleted": True},
        ),
        ({"tags": ("z", "y", "x")}, {"tags": ("z", "y", "x")}),
        ({"tags": ()}, {"tags": ()}),
        ({"isFlagged": False}, {"isFlagged": False}),
        ({"url": "https://example.org"}, {"url": "https://example.org"}),
        ({"url": None}, {"url": None}),
    ],
    ids=lambda value: "-".join(f"{k}={v!r}"[:30] for k, v in value.items()),
)
def test_update_changes_exactly_the_given_fields(
    backend: RemindersBackend,
    full: Reminder,
    changes: ReminderChanges,
    expected: dict[str, Any],
) -> None:
    if backend.name in NO_EXTRAS and {"tags", "isFlagged"} & set(changes):
        pytest.skip(f"{backend.name} cannot write tags or the flag (it answers unsupported)")
    updated = backend.update(full.id, changes)
    moving = backend.name in DUE_ALARM and "dueDate" in changes
    for field in (f for f in UNTOUCHED if not (moving and f == "alarms")):
        want = expected.get(field, getattr(full, field))
        if field == "completionDate":
            assert _same_moment(backend, updated.completionDate, want), field
            continue
        assert getattr(updated, field) == want, field
    modified = datetime.fromisoformat(updated.modificationDate)
    assert modified >= datetime.fromisoformat(full.modificationDate)
    assert backend.get(full.id) == updated


def test_update_clears_completion_with_none(backend: RemindersBackend) -> None:
    done = _create_one(backend, completion=datetime(2024, 1, 15, 10, 0, tzinfo=ROME))
    assert done.isCompleted is True
    updated = backend.update(done.id, {"completionDate": None})
    assert updated.isCompleted is False
    assert updated.completionDate is None


def test_update_moves_between_lists(backend: RemindersBackend, full: Reminder) -> None:
    work = backend.create_list("Work")
    moved = backend.update(full.id, {"listId": work.id})
    assert (moved.listId, moved.listName) == (work.id, "Work")
    assert _ids(backend.fetch(ReminderQuery(ReminderScope((work.id,), "all")))) == [full.id]
    assert backend.fetch(ReminderQuery(ReminderScope((full.listId,), "all"))) == []


def test_update_into_an_unknown_list_changes_nothing(
    backend: RemindersBackend, full: Reminder
) -> None:
    with pytest.raises(NotFound):
        backend.update(full.id, {"listId": "nope", "title": "moved"})
    assert backend.get(full.id) == full


def test_update_an_unknown_reminder_is_not_found(backend: RemindersBackend) -> None:
    with pytest.raises(NotFound) as err:
        backend.update("abc123", {"title": "x"})
    assert err.value.message == "No reminder found with ID: 'abc123'."


# -- delete -------------------------------------------------------------------------------------


def test_delete(backend: RemindersBackend, full: Reminder) -> None:
    other = _create_one(backend, title="other")
    backend.delete(full.id)
    with pytest.raises(NotFound):
        backend.get(full.id)
    assert _ids(_all(backend)) == [other.id]


def test_delete_an_unknown_reminder_is_not_found(backend: RemindersBackend, full: Reminder) -> None:
    with pytest.raises(NotFound) as err:
        backend.delete("abc123")
    assert err.value.message == "No reminder found with ID: 'abc123'."
    backend.delete(full.id)
    with pytest.raises(NotFound):
        backend.delete(full.id)


# -- fetch --------------------------------------------------------------------------------------


@pytest.fixture
def mixed(backend: RemindersBackend) -> dict[str, Any]:
    """Reminders in two lists with every kind of tie the orders must break."""
    work = backend.create_list("Work")
    home_id = _default_id(backend)
    nine = datetime(2026, 3, 1, 9, 0, tzinfo=ROME)
    done = datetime(2026, 1, 1, 12, 0, tzinfo=ROME)
    specs: list[tuple[str, str, int, Any, bool, datetime | None]] = [
        # title, list, priority, due, flagged, completion
        ("n1", home_id, 0, None, False, None),
        ("b-late", home_id, 9, datetime(2026, 3, 2, 9, 0, tzinfo=ROME), False, None),
        ("z-flag", work.id, 1, nine, True, None),
        ("a-noflag", home_id, 5, nine, False, None),
        ("n2", work.id, 1, None, True, None),
        ("m-flag", home_id, 0, nine, True, None),
        ("c-utc", work.id, 5, datetime(2026, 3, 1, 8, 0, tzinfo=UTC), False, None),
        ("early", home_id, 9, date(2026, 2, 28), False, None),
        ("midnight", work.id, 0, datetime(2026, 2, 28, 0, 0, tzinfo=ROME), True, None),
        ("done-1", home_id, 1, date(2026, 2, 1), False, done),
        ("done-2", work.id, 0, None, True, done),
        ("a-noflag", work.id, 5, nine, False, None),
        ("ny", home_id, 5, datetime(2026, 2, 28, 20, 0, tzinfo=NEW_YORK), False, None),
    ]
    created = backend.create(
        [
            NewReminder(
                list_id=list_id,
                title=title,
                priority=priority,
                due=due,
                **_extras(backend, is_flagged=flagged),
                completion=completion,
            )
            for title, list_id, priority, due, flagged, completion in specs
        ]
    )
    return {"work": work.id, "home": home_id, "created": created}


def test_fetch_returns_every_reminder_once(
    backend: RemindersBackend, mixed: dict[str, Any]
) -> None:
    assert sorted(_ids(_all(backend))) == sorted(_ids(mixed["created"]))


@pytest.mark.parametrize("order", get_args(FetchOrder))
def test_fetch_orders_match_the_reference_sort(
    backend: RemindersBackend, mixed: dict[str, Any], order: FetchOrder
) -> None:
    assert set(get_args(FetchOrder)) == set(SORT_TERMS)
    data = _all(backend)
    expected = sort_reminders(data, order)
    got = backend.fetch(ReminderQuery(EVERYTHING, order))
    primary, _ = SORT_TERMS[order][0]
    assert [primary(r) for r in got] == [primary(r) for r in expected]
    assert _ids(got) == _ids(expected)


@pytest.mark.parametrize("order", get_args(FetchOrder))
def test_fetch_honours_order_status_and_list_scope_together(
    backend: RemindersBackend, mixed: dict[str, Any], order: FetchOrder
) -> None:
    data = _all(backend)
    everything = _ids(backend.fetch(ReminderQuery(EVERYTHING, order)))
    primary, _ = SORT_TERMS[order][0]
    statuses: tuple[Status, ...] = ("incomplete", "completed", "all")
    for status in statuses:
        for list_ids in [None, (mixed["work"],), (mixed["home"],), (mixed["home"], mixed["work"])]:
            where = (list_ids, status)
            wanted = [
                r
                for r in data
                if (list_ids is None or r.listId in list_ids)
                and (status == "all" or r.isCompleted == (status == "completed"))
            ]
            got = backend.fetch(ReminderQuery(ReminderScope(list_ids, status), order))
            assert sorted(_ids(got)) == sorted(_ids(wanted)), where
            reference = sort_reminders(wanted, order)
            assert [primary(r) for r in got] == [primary(r) for r in reference], where
            # Narrowing the scope never reorders: the scoped result is the full one, filtered.
            kept = set(_ids(wanted))
            assert _ids(got) == [i for i in everything if i in kept], where


def test_fetch_defaults_to_incomplete_reminders_of_every_list(
    backend: RemindersBackend, mixed: dict[str, Any]
) -> None:
    got = backend.fetch(ReminderQuery())
    assert len(got) == 11
    assert all(not r.isCompleted for r in got)
    assert {r.listId for r in got} == {mixed["work"], mixed["home"]}


def test_fetch_scope_of_no_lists_is_empty(backend: RemindersBackend, mixed: dict[str, Any]) -> None:
    assert backend.fetch(ReminderQuery(ReminderScope((), "all"))) == []
    assert backend.fetch(ReminderQuery(ReminderScope(("nope",), "all"))) == []


@pytest.mark.parametrize("order", get_args(FetchOrder))
def test_fetch_limit_cuts_the_ordered_result(
    backend: RemindersBackend, mixed: dict[str, Any], order: FetchOrder
) -> None:
    full_result = _ids(backend.fetch(ReminderQuery(EVERYTHING, order)))
    assert len(full_result) == 13
    for limit in (1, 3, 12, 13, 50):
        got = backend.fetch(ReminderQuery(EVERYTHING, order, limit))
        assert _ids(got) == full_result[:limit], limit
    open_only = _ids(backend.fetch(ReminderQuery(ReminderScope(None, "incomplete"), order)))
    got = backend.fetch(ReminderQuery(ReminderScope(None, "incomplete"), order, 4))
    assert _ids(got) == open_only[:4]


def test_fetch_due_before_and_include_no_due(
    backend: RemindersBackend, mixed: dict[str, Any]
) -> None:
    if backend.name in NO_EXTRAS:
        pytest.skip(f"the expected orders rest on flags, which {backend.name} cannot write")

    def titles(**kwargs: Any) -> list[str]:
        found = backend.fetch(ReminderQuery(ReminderScope(None, "incomplete"), "open", **kwargs))
        return [r.title for r in found]

    # Local midnight of 2026-02-28 is when "early" (date only) and "midnight" are due.
    midnight = datetime(2026, 2, 28, 0, 0, tzinfo=ROME)
    assert titles(due_before=midnight, include_no_due=False) == []
    assert titles(due_before=midnight) == ["n2", "n1"]
    just_after = midnight + timedelta(seconds=1)
    assert titles(due_before=just_after, include_no_due=False) == ["midnight", "early"]
    # 2026-03-01T09:00 Rome: "ny" (02:00 Rome) is before it; the 09:00 ties are not.
    nine = datetime(2026, 3, 1, 9, 0, tzinfo=ROME)
    assert titles(due_before=nine, include_no_due=False) == ["midnight", "early", "ny"]
    nine_utc = nine.astimezone(UTC)
    assert titles(due_before=nine_utc, include_no_due=False) == ["midnight", "early", "ny"]
    assert titles(include_no_due=False) == [
        "midnight",
        "early",
        "ny",
        "m-flag",
        "z-flag",
        "a-noflag",
        "a-noflag",
        "c-utc",
        "b-late",
    ]
    assert titles()[-2:] == ["n2", "n1"]
    assert len(titles()) == 11
    assert titles(due_before=just_after, include_no_due=False, limit=1) == ["midnight"]


def test_fetch_due_before_respects_status(backend: RemindersBackend, mixed: dict[str, Any]) -> None:
    found = backend.fetch(
        ReminderQuery(
            ReminderScope(None, "completed"),
            "open",
            due_before=datetime(2026, 2, 2, tzinfo=ROME),
            include_no_due=False,
        )
    )
    assert [r.title for r in found] == ["done-1"]


# -- a text to find (reminders list --search, query_reminders' search) ------------------------

WORDED = [
    # title, notes, completed
    ("Call the DENTIST", None, False),
    ("Teeth", "ask the Dentist about the crown", False),
    ("Straße fegen", "before Sunday", False),
    ("buy éclairs", None, False),
    ("ÉCLAIRS for Anna", "from the bakery", True),
    ("dentistry bill", "paid", True),
    ("nothing here", "at all", False),
]


@pytest.fixture
def worded(backend: RemindersBackend) -> dict[str, Any]:
    work = backend.create_list("Work")
    home_id = _default_id(backend)
    done = datetime(2026, 1, 1, 12, 0, tzinfo=ROME)
    backend.create(
        [
            NewReminder(
                list_id=work.id if index % 2 else home_id,
                title=title,
                notes=notes,
                completion=done if completed else None,
            )
            for index, (title, notes, completed) in enumerate(WORDED)
        ]
    )
    return {"work": work.id, "home": home_id}


@pytest.mark.parametrize(
    ("text", "titles"),
    [
        ("dentist", {"Call the DENTIST", "Teeth", "dentistry bill"}),  # title or notes, any case
        ("STRASSE", {"Straße fegen"}),  # Unicode case folding: ß is ss
        ("Éclair", {"buy éclairs", "ÉCLAIRS for Anna"}),  # beyond ASCII
        ("the crown", {"Teeth"}),
        ("bakery", {"ÉCLAIRS for Anna"}),
        ("absent", set()),
    ],
)
def test_fetch_text_finds_title_or_notes_in_any_case(
    backend: RemindersBackend, worded: dict[str, Any], text: str, titles: set[str]
) -> None:
    got = backend.fetch(ReminderQuery(ReminderScope(None, "all", text)))
    assert {r.title for r in got} == titles


@pytest.mark.parametrize("order", get_args(FetchOrder))
def test_fetch_text_keeps_scope_order_and_paging(
    backend: RemindersBackend, worded: dict[str, Any], order: FetchOrder
) -> None:
    """A text narrows the scope as a filter would: same order, then offset and limit."""
    statuses: tuple[Status, ...] = ("incomplete", "completed", "all")
    for status in statuses:
        for list_ids in [None, (worded["work"],), (worded["home"],)]:
            scope = ReminderScope(list_ids, status)
            reference = mentioning(backend.fetch(ReminderQuery(scope, order)), "e")
            searched = ReminderScope(list_ids, status, "E")
            assert _ids(backend.fetch(ReminderQuery(searched, order))) == _ids(reference)
            paged = backend.fetch(ReminderQuery(searched, order, limit=2, offset=1))
            assert _ids(paged) == _ids(reference[1:3]), (list_ids, status)


def test_search_with_a_text_evaluates_the_query_on_what_it_finds(
    backend: RemindersBackend, worded: dict[str, Any]
) -> None:
    if not isinstance(backend, ReminderSearch):
        pytest.skip(f"{backend.name} runs no JMESPath in its store: the service does it")
    scope = ReminderScope(None, "all", "dentist")
    found = backend.search(scope, compile_query("[?isCompleted == `false`].title"), 50)
    assert sorted(found) == ["Call the DENTIST", "Teeth"]
    newest = backend.fetch(ReminderQuery(scope))
    assert backend.search(scope, compile_query("[*].id"), 2, 1) == _ids(newest)[1:3]
