"""The local store's read cache answers repeats from memory and never serves a stale result."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event

from fruitctl.backends.local import LocalReminders
from fruitctl.ports import NewReminder, ReminderQuery
from fruitctl.store import open_database


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "local.db"


@pytest.fixture
def engine(path: Path) -> Iterator[Engine]:
    engine = open_database(path, "local")
    yield engine
    engine.dispose()


def _statements(engine: Engine) -> list[str]:
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.startswith("SELECT"):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    return seen


def _titles(backend: LocalReminders) -> list[str]:
    return [r.title for r in backend.fetch(ReminderQuery())]


def test_a_repeated_read_runs_no_sql(engine: Engine) -> None:
    backend = LocalReminders(engine)
    default = backend.lists()[0].id
    backend.create([NewReminder(list_id=default, title="first")])
    assert _titles(backend) == ["first"]
    seen = _statements(engine)
    assert _titles(backend) == ["first"]
    assert backend.lists(with_counts=False)[0].id == default
    backend.lists(with_counts=False)
    # the first lists(with_counts=False) is a miss; the fetch and the second lists are hits
    assert len(seen) == 1
    backend.close()


def test_a_write_through_the_same_backend_is_seen(engine: Engine) -> None:
    backend = LocalReminders(engine)
    default = backend.lists()[0].id
    assert _titles(backend) == []
    created = backend.create([NewReminder(list_id=default, title="new")])[0]
    assert _titles(backend) == ["new"]
    backend.update(created.id, {"title": "renamed"})
    assert _titles(backend) == ["renamed"]
    backend.delete(created.id)
    assert _titles(backend) == []
    backend.close()


def test_a_write_by_another_process_is_seen(engine: Engine, path: Path) -> None:
    backend = LocalReminders(engine)
    default = backend.lists()[0].id
    backend.create([NewReminder(list_id=default, title="before")])
    assert _titles(backend) == ["before"]
    counted = backend.lists()[0].count
    # Another program writing the file with nothing but sqlite3.
    with sqlite3.connect(path) as other:
        other.execute("UPDATE reminders SET title = 'after'")
        other.execute("UPDATE lists SET name = 'Renamed' WHERE id = ?", (default,))
    assert _titles(backend) == ["after"]
    assert backend.lists()[0].name == "Renamed"
    assert backend.lists()[0].count == counted
    backend.close()


def test_handed_out_lists_do_not_change_the_cache(engine: Engine) -> None:
    backend = LocalReminders(engine)
    default = backend.lists()[0].id
    backend.create([NewReminder(list_id=default, title="kept")])
    first = backend.fetch(ReminderQuery())
    first.clear()
    assert _titles(backend) == ["kept"]
    backend.close()
